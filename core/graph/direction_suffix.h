// Node names' direction suffix, `.forward.<n>` / `.backward.<n>`: the reference's regexes on it,
// written out. Shared by the builder and the recompute pass (internal to graph/).
#pragma once

#include <string>
#include <string_view>

#include "base/strings.h"

namespace visprobe {
namespace graph_detail {

// Matches `\.<word>\.(\d+)$`; on success *stem is the text before ".<word>." and *num the digits.
inline bool MatchDirSuffix(std::string_view s, std::string_view word, std::string_view* stem, std::string_view* num) {
  auto dot = s.rfind('.');
  if (dot == std::string_view::npos || !AllDigits(s.substr(dot + 1))) return false;
  std::string_view head = s.substr(0, dot);
  if (head.size() < word.size() + 1) return false;
  if (head.substr(head.size() - word.size()) != word || head[head.size() - word.size() - 1] != '.') return false;
  *stem = head.substr(0, head.size() - word.size() - 1);
  *num = s.substr(dot + 1);
  return true;
}

// re.sub(r"\.<from>\.(\d+)$", r".<to>.\1", s)
inline std::string SwapDir(std::string_view s, std::string_view from, std::string_view to) {
  std::string_view stem, num;
  if (!MatchDirSuffix(s, from, &stem, &num)) return std::string(s);
  std::string out(stem);
  out += '.';
  out += to;
  out += '.';
  out += num;
  return out;
}

}  // namespace graph_detail
}  // namespace visprobe
