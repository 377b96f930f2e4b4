// §12 rule 3: the text of a string value in an item (and of a number printed in one).
#include "graph/value_format.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "base/pyfmt.h"

namespace visprobe {
namespace {

void AppendDecimalRule(std::string& out, const std::string& s) {
  // ^\d{1,20}\.\d{1,20}%?$ with more than 6 decimals -> 6 decimals.
  size_t n = s.size();
  bool pct = n > 0 && s[n - 1] == '%';
  size_t body = pct ? n - 1 : n;
  size_t i = 0;
  while (i < body && s[i] >= '0' && s[i] <= '9') ++i;
  size_t int_digits = i;
  bool ok = int_digits >= 1 && int_digits <= 20 && i < body && s[i] == '.';
  size_t frac = 0;
  if (ok) {
    ++i;
    while (i < body && s[i] >= '0' && s[i] <= '9') ++i, ++frac;
    ok = i == body && frac >= 1 && frac <= 20;
  }
  if (ok && frac > 6) {
    AppendFixed(out, std::strtod(s.substr(0, body).c_str(), nullptr), 6);
    if (pct) out += '%';
    return;
  }
  out += s;
}

}  // namespace

size_t WriteFormattedRepr(char* d, double v, bool rule) {
  const size_t n = static_cast<size_t>(WritePyFloat(d, v) - d);
  // The decimal rule's pattern ^\d{1,20}\.\d{1,20}%?$ (sign and exponent forms never match).
  size_t i = 0;
  while (i < n && d[i] >= '0' && d[i] <= '9') ++i;
  const size_t point = i;
  bool ok = rule && point >= 1 && point <= 20 && i < n && d[i] == '.';
  size_t frac = 0;
  if (ok) {
    for (++i; i < n && d[i] >= '0' && d[i] <= '9'; ++i) ++frac;
    ok = i == n && frac >= 1 && frac <= 20;
  }
  if (!ok || frac <= 6) return n;
  if (frac == 7 && d[n - 1] == '5') {  // a tie in the text: v is on one side of it
    std::string fixed;  // at most 20 digits, the point and 6 decimals
    AppendFixed(fixed, v, 6);
    std::memcpy(d, fixed.data(), fixed.size());
    return fixed.size();
  }
  const bool up = d[point + 7] >= '5';
  size_t len = point + 7;  // integer digits, the point, 6 decimals
  if (up) {
    size_t k = len;
    while (k > 0) {
      --k;
      if (d[k] == '.') continue;
      if (d[k] != '9') {
        ++d[k];
        break;
      }
      d[k] = '0';
      if (k == 0) {  // all nines: one more integer digit
        std::memmove(d + 1, d, len);
        d[0] = '1';
        ++len;
      }
    }
  }
  return len;
}

void AppendFormattedRepr(std::string& out, double v, std::string_view suffix) {
  char buf[kPyFloatRoom];
  out.append(buf, WriteFormattedRepr(buf, v, suffix.empty() || suffix == "%"));
  out.append(suffix.data(), suffix.size());
}

void AppendFormattedString(std::string& out, std::string_view s) {
  // Fast path: nothing to remove or replace, and not a candidate for the decimal rule.
  if (FormatsAsItself(s)) {
    out.append(s.data(), s.size());
    return;
  }
  std::string tmp;
  tmp.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\'') continue;
    if (s[i] == 'N' && s.compare(i, 4, "None") == 0) {
      tmp += "null";
      i += 3;
      continue;
    }
    tmp += s[i];
  }
  AppendDecimalRule(out, tmp);
}

}  // namespace visprobe
