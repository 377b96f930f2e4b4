// §12 rule 3: the text of a string value in an item (drop ', None -> null, long decimals rounded
// to 6 places), and the same rule on a number's repr, which the comparison's metrics print.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/pyfmt.h"  // kPyFloatRoom

namespace visprobe {

// §12 rule 3 for a string value: drop ', None -> null, round long decimals to 6 places.
void AppendFormattedString(std::string& out, std::string_view s);
// AppendFormattedString leaves s as it is (its fast path).
inline bool FormatsAsItself(std::string_view s) {
  return s.find('\'') == std::string_view::npos && s.find("None") == std::string_view::npos &&
         (s.empty() || s[0] < '0' || s[0] > '9');
}
// The same for a text that is repr(v) followed by `suffix` (e.g. a relative error "1.2345678%"),
// without reading the number back: the shortest repr rounds to 6 places like v itself unless it
// ends on a tie (7 decimals, the last a 5), which is formatted from v.
void AppendFormattedRepr(std::string& out, double v, std::string_view suffix);
// The same number without the suffix, written at d (kPyFloatRoom bytes); `rule` is whether the
// decimal rule applies (the suffix is empty or "%"). Returns its length.
size_t WriteFormattedRepr(char* d, double v, bool rule);

}  // namespace visprobe
