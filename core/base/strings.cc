#include "base/strings.h"

namespace visprobe {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string ReplaceAll(std::string_view s, std::string_view from, std::string_view to) {
  if (from.empty()) return std::string(s);
  std::string out;
  size_t i = 0;
  for (;;) {
    size_t k = s.find(from, i);
    if (k == std::string_view::npos) break;
    out.append(s.substr(i, k - i));
    out.append(to);
    i = k + from.size();
  }
  out.append(s.substr(i));
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t i = 0;
  for (;;) {
    size_t k = s.find(sep, i);
    if (k == std::string_view::npos) {
      out.push_back(s.substr(i));
      break;
    }
    out.push_back(s.substr(i, k - i));
    i = k + 1;
  }
  return out;
}

std::string Join(const std::vector<std::string_view>& parts, size_t begin, size_t end, char sep) {
  std::string out;
  for (size_t k = begin; k < end && k < parts.size(); ++k) {
    if (k > begin) out += sep;
    out.append(parts[k].data(), parts[k].size());
  }
  return out;
}

}  // namespace visprobe
