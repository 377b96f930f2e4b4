#include "trend/tags.h"

#include <algorithm>
#include <set>

#include "base/strings.h"

namespace visprobe {
namespace {

void AddTag(std::vector<TrendTag>& tags, std::string name, const char* category) {
  TrendTag t{std::move(name), category};
  if (std::find(tags.begin(), tags.end(), t) == tags.end()) tags.push_back(std::move(t));
}

}  // namespace

std::vector<TrendTag> DumpTargetTags(std::string_view name) {
  std::vector<std::string_view> parts = Split(name, '.');
  std::vector<TrendTag> tags;
  if (parts.size() < 3) return tags;
  size_t n = parts.size();
  AddTag(tags, std::string(parts[n - 2]) + "." + std::string(parts[n - 1]), "index");
  std::vector<std::string_view> body;
  bool module_seen = false;
  for (size_t i = 0; i + 2 < n; ++i) {
    if (parts[i] == "Module" || parts[i] == "Cell") {
      AddTag(tags, std::string(parts[i]), "default");
      module_seen = true;
    } else {
      body.push_back(parts[i]);
    }
  }
  if (body.empty()) return {};
  if (!module_seen) {
    AddTag(tags, Join(body, 0, body.size()), "function");
    return tags;
  }
  long last_used = -1;
  std::set<long> used{-1};
  for (size_t i = 0; i < body.size(); ++i) {
    if (!AllDigits(body[i])) continue;
    long li = static_cast<long>(i);
    if (i == 0 || used.count(li - 1)) {
      used.insert(li);
      last_used = li;
      continue;
    }
    AddTag(tags, std::string(body[i - 1]) + "." + std::string(body[i]), "layer");
    std::string seg = Join(body, static_cast<size_t>(last_used + 1), i - 1);
    if (!seg.empty()) AddTag(tags, seg, "module");
    used.insert(li);
    last_used = li;
  }
  if (last_used != static_cast<long>(body.size()) - 1) {
    std::string rest = Join(body, static_cast<size_t>(last_used + 1), body.size());
    if (!rest.empty()) AddTag(tags, rest, "module");
  }
  return tags;
}

std::vector<TrendTag> MonitorTargetTags(std::string_view name) {
  std::vector<std::string_view> parts = Split(name, '.');
  std::vector<TrendTag> tags;
  for (size_t k = parts.size(); k-- > 0;) {
    if (!AllDigits(parts[k])) {
      AddTag(tags, std::string(parts[k]), "module");
    } else if (k > 0 && !AllDigits(parts[k - 1])) {
      AddTag(tags, std::string(parts[k - 1]) + "." + std::string(parts[k]), "layer");
    }
  }
  return tags;
}

}  // namespace visprobe
