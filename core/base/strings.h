// Small string helpers shared by the engine's rules (Python's str methods, written out).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace visprobe {

bool AllDigits(std::string_view s);  // non-empty, ASCII digits only
bool EndsWith(std::string_view s, std::string_view suffix);
std::string ReplaceAll(std::string_view s, std::string_view from, std::string_view to);  // str.replace
std::vector<std::string_view> Split(std::string_view s, char sep);  // str.split(sep)
std::string Join(const std::vector<std::string_view>& parts, size_t begin, size_t end, char sep = '.');  // sep.join(parts[b:e])

}  // namespace visprobe
