#include "match/layer_mapping.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "base/strings.h"
#include "match/layer_mapping_internal.h"
#include "match/layer_reader.h"

namespace visprobe {

using match_detail::FrameScopeOf;
using match_detail::kTopLayer;

namespace {

constexpr std::string_view kNotAvailable = "N/A";

}  // namespace

namespace match_detail {

// ---- Python string helpers -------------------------------------------------------------------

// Byte length of the UTF-8 character at s[i] if Python's str.isspace() is true for it, else 0.
size_t PySpaceLen(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return 1;
  if (c == 0xC2 && i + 1 < s.size() && (b(i + 1) == 0x85 || b(i + 1) == 0xA0)) return 2;
  if (i + 2 >= s.size()) return 0;
  unsigned char d = b(i + 1), e = b(i + 2);
  if (c == 0xE1 && d == 0x9A && e == 0x80) return 3;  // U+1680
  if (c == 0xE2 && d == 0x80 && ((e >= 0x80 && e <= 0x8A) || e == 0xA8 || e == 0xA9 || e == 0xAF)) return 3;
  if (c == 0xE2 && d == 0x81 && e == 0x9F) return 3;  // U+205F
  if (c == 0xE3 && d == 0x80 && e == 0x80) return 3;  // U+3000
  return 0;
}

size_t Utf8Len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  return std::min(n, s.size() - i);
}

namespace {

// Python s.split() (runs of whitespace, no empty tokens).
std::vector<std::string_view> SplitWords(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t w;
    while (i < s.size() && (w = PySpaceLen(s, i)) != 0) i += w;
    if (i >= s.size()) break;
    size_t b = i;
    while (i < s.size() && PySpaceLen(s, i) == 0) ++i;
    out.push_back(s.substr(b, i - b));
  }
  return out;
}

bool Contains(std::string_view s, std::string_view x) { return s.find(x) != std::string_view::npos; }

// ---- stack frames ------------------------------------------------------------------------------

// get_stack_in_lines: the function names of the frames that are not msProbe/MindSpeed code nor
// `construct`/`__call__`, reversed. A malformed frame is an error (IndexError in the reference).
Status FrameFunctions(const std::vector<std::string_view>& lines, std::vector<std::string_view>* out) {
  for (std::string_view line : lines) {
    if (line.empty()) continue;
    std::vector<std::string_view> fields;
    size_t b = 0;
    for (;;) {
      size_t e = line.find(',', b);
      fields.push_back(line.substr(b, e == std::string_view::npos ? std::string_view::npos : e - b));
      if (e == std::string_view::npos || fields.size() == 3) break;
      b = e + 1;
    }
    if (Contains(fields[0], "msprobe") || Contains(fields[0], "MindSpeed")) continue;
    if (fields.size() < 3) return InvalidInput(Msg<msg::kStackFrameWithoutFunction>(line));
    std::string_view func = fields[2];
    if (func.find(',') != std::string_view::npos) func = func.substr(0, func.find(','));
    if (Contains(func, "construct") || Contains(func, "__call__")) continue;
    std::vector<std::string_view> words = SplitWords(func);
    if (words.size() < 2) return InvalidInput(Msg<msg::kStackFrameMalformedFunction>(line));
    out->push_back(words[1]);
  }
  std::reverse(out->begin(), out->end());
  return Status::Ok();
}

bool IsFrameworkFile(std::string_view file) {
  return Contains(file, "site-packages/torch") || Contains(file, "package/torch") || Contains(file, "site-packages/mindspore") ||
         Contains(file, "package/mindspore");
}

bool EndSign(std::string_view line, bool mindspore) {
  if (mindspore) return Contains(line, "construct");
  return Contains(line, "in forward,") || Contains(line, "in backward,");
}

}  // namespace

Result<std::string> FrameScopeOf(const std::vector<std::string_view>& lines, bool mindspore) {
  long start = -1;
  size_t end = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (Contains(lines[i], "Template")) {
      start = static_cast<long>(i);
    } else if (start >= 0 && EndSign(lines[i], mindspore)) {
      end = i;
      break;
    }
  }
  std::string_view frame;
  bool have_frame = false, entered_user = false;
  std::vector<std::string_view> user;
  for (size_t i = static_cast<size_t>(start + 1); i < end; ++i) {
    std::string_view line = lines[i];
    std::string_view file = line.substr(0, line.find(','));
    if (!entered_user && IsFrameworkFile(file)) {
      frame = line;
      have_frame = true;
    } else {
      user.push_back(line);
      entered_user = true;
    }
  }
  std::vector<std::string_view> frame_funcs, user_funcs;
  if (have_frame) RETURN_IF_ERROR(FrameFunctions({frame}, &frame_funcs));
  // The user functions are not used for the scope, but the reference parses them (and fails on
  // a malformed frame) all the same.
  RETURN_IF_ERROR(FrameFunctions(user, &user_funcs));
  return frame_funcs.empty() ? std::string() : std::string(frame_funcs[0]);
}

}  // namespace match_detail

Result<std::string> StackFrameScope(const std::vector<std::string>& lines, bool mindspore) {
  std::vector<std::string_view> views(lines.begin(), lines.end());
  return FrameScopeOf(views, mindspore);
}

Result<LayerMappingRules> PreprocessLayerMapping(const std::vector<YamlClassMapping>& classes) {
  const YamlClassMapping* cell = nullptr;
  for (const auto& c : classes)
    if (c.name == "Cell") cell = &c;
  if (cell && cell->is_null) cell = nullptr;  // d.pop("Cell") is None: nothing is renamed
  LayerMappingRules out;
  auto add = [&](const std::string& name, const YamlClassMapping& c) -> Status {
    if (c.is_null) return InvalidInput(Msg<msg::kLayerMappingValueNot>(c.name));
    auto& groups = out[name];
    groups.clear();
    std::vector<std::string> order;
    for (const auto& [src, dst] : c.entries) {
      LayerMappingRule r;
      r.src = src;
      r.dst = dst.substr(0, dst.find('('));
      r.segments = static_cast<size_t>(std::count(src.begin(), src.end(), '.')) + 1;
      std::string first = src.substr(0, src.find('.'));
      groups[first].push_back(std::move(r));
    }
    for (auto& [first, rules] : groups)
      std::stable_sort(rules.begin(), rules.end(),
                       [](const LayerMappingRule& a, const LayerMappingRule& b) { return a.segments > b.segments; });
    return Status::Ok();
  };
  for (const auto& c : classes) {
    if (c.name == "Cell") continue;
    if (c.name == kTopLayer && cell) continue;  // replaced by the Cell value
    RETURN_IF_ERROR(add(c.name, c));
  }
  if (cell) RETURN_IF_ERROR(add(std::string(kTopLayer), *cell));
  return out;
}

Status CheckLayerMappingText(std::string_view text, const std::string& file_name) {
  ASSIGN_OR_RETURN(std::vector<YamlClassMapping> classes, ParseLayerMappingYaml(text, file_name));
  return PreprocessLayerMapping(classes).status();
}

namespace {

// §8.4.2 scope tree.
struct ScopeTree {
  struct Node {
    std::string type_name;
    std::unordered_map<std::string, uint32_t> children;
    std::unordered_map<std::string, std::vector<uint32_t>> items;  // state -> item indices
  };
  std::vector<Node> nodes;

  explicit ScopeTree(const std::vector<LayerDataItem>& items) {
    nodes.push_back(Node{std::string(kTopLayer), {}, {}});
    for (uint32_t i = 0; i < items.size(); ++i) {
      std::vector<std::string_view> parts = Split(items[i].full_scope, '.');
      uint32_t cur = 0;
      for (size_t k = 1; k < parts.size(); ++k) cur = Child(cur, parts[k], true);
      nodes[cur].items[items[i].state].push_back(i);
      nodes[cur].type_name = items[i].type_name;
    }
  }

  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  uint32_t Child(uint32_t cur, std::string_view name, bool create) {
    auto it = nodes[cur].children.find(std::string(name));
    if (it != nodes[cur].children.end()) return it->second;
    if (!create) return kNone;
    uint32_t id = static_cast<uint32_t>(nodes.size());
    nodes[cur].children.emplace(std::string(name), id);
    nodes.push_back(Node{std::string(name), {}, {}});
    return id;
  }
  uint32_t Find(uint32_t cur, std::string_view name) const {
    auto it = nodes[cur].children.find(std::string(name));
    return it == nodes[cur].children.end() ? kNone : it->second;
  }
};

}  // namespace

std::unordered_map<std::string, std::string> TranslateLayerItems(const std::vector<LayerDataItem>& target,
                                                                 const std::vector<LayerDataItem>& golden,
                                                                 const LayerMappingRules& rules) {
  ScopeTree tt(target), gt(golden);
  std::unordered_map<std::string, std::string> out;
  out.reserve(target.size());
  for (uint32_t ti = 0; ti < target.size(); ++ti) {
    const LayerDataItem& item = target[ti];
    const std::string& fs = item.full_scope;
    std::vector<std::string_view> s = Split(fs, '.');
    std::string scope(kTopLayer);
    uint32_t cur = 0;
    size_t i = 0;
    bool lost = false;
    while (i + 1 < s.size()) {
      std::string_view child = s[i + 1];
      size_t step = 1;
      bool matched = false;
      auto cls = rules.find(tt.nodes[cur].type_name);
      if (cls != rules.end()) {
        auto grp = cls->second.find(std::string(child));
        if (grp != cls->second.end()) {
          for (const LayerMappingRule& r : grp->second) {
            size_t last = std::min(i + r.segments, s.size() - 1);  // segments i+1 .. last
            std::string_view joined(s[i + 1].data(), static_cast<size_t>(s[last].data() + s[last].size() - s[i + 1].data()));
            if (joined == r.src) {
              scope += "." + r.dst;
              step = r.segments;
              matched = true;
              break;
            }
          }
        }
      }
      if (!matched) {  // the implicit (child, child, 1) rule
        scope += ".";
        scope.append(child.data(), child.size());
      }
      for (size_t k = 0; k < step; ++k) {
        cur = lost ? cur : tt.Find(cur, s[i + 1]);
        if (cur == ScopeTree::kNone) {
          lost = true;
          cur = 0;
        }  // unreachable: the item was inserted here
        ++i;
      }
    }
    std::string golden_name(kNotAvailable);
    if (!lost) {
      long index = -1;
      auto st = tt.nodes[cur].items.find(item.state);
      if (st != tt.nodes[cur].items.end())
        for (size_t k = 0; k < st->second.size(); ++k)
          if (st->second[k] == ti) index = static_cast<long>(k);
      std::vector<std::string_view> path = Split(scope, '.');
      uint32_t g = 0;
      for (size_t k = 1; k < path.size() && g != ScopeTree::kNone; ++k) g = gt.Find(g, path[k]);
      if (g != ScopeTree::kNone && index >= 0) {
        auto gs = gt.nodes[g].items.find(item.state);
        if (gs != gt.nodes[g].items.end() && static_cast<size_t>(index) < gs->second.size())
          golden_name = golden[gs->second[static_cast<size_t>(index)]].data_name;
      }
    }
    out[item.data_name] = std::move(golden_name);
  }
  return out;
}

Result<std::unordered_map<std::string, std::string>> ComputeLayerMapping(const std::string& target_dump_json,
                                                                         const std::string& golden_dump_json,
                                                                         const std::string& yaml_path_or_empty) {
  std::vector<YamlClassMapping> classes;
  if (!yaml_path_or_empty.empty()) { ASSIGN_OR_RETURN(classes, LoadLayerMappingYaml(yaml_path_or_empty)); }
  ASSIGN_OR_RETURN(LayerMappingRules rules, PreprocessLayerMapping(classes));
  ASSIGN_OR_RETURN(std::vector<LayerDataItem> target, ReadLayerDataItems(target_dump_json));
  ASSIGN_OR_RETURN(std::vector<LayerDataItem> golden, ReadLayerDataItems(golden_dump_json));
  return TranslateLayerItems(target, golden, rules);
}

}  // namespace visprobe
