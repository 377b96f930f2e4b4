#include "trend/values.h"

#include <cmath>
#include <cstdlib>
#include <string>

namespace visprobe {
namespace {

bool IsPySpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view Strip(std::string_view s) {
  while (!s.empty() && IsPySpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsPySpace(s.back())) s.remove_suffix(1);
  return s;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Digits with optional single underscores between them; appends the digits to `out`.
size_t TakeDigits(std::string_view s, size_t i, std::string& out) {
  size_t start = i;
  while (i < s.size()) {
    if (s[i] >= '0' && s[i] <= '9') {
      out.push_back(s[i]);
      ++i;
      continue;
    }
    if (s[i] == '_' && i > start && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9' && s[i - 1] >= '0' &&
        s[i - 1] <= '9') {
      ++i;
      continue;
    }
    break;
  }
  return i;
}

}  // namespace

std::optional<double> ParsePyFloat(std::string_view text) {
  std::string_view s = Strip(text);
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    i = 1;
  }
  std::string_view rest = s.substr(i);
  if (EqualsNoCase(rest, "inf") || EqualsNoCase(rest, "infinity")) return neg ? -HUGE_VAL : HUGE_VAL;
  if (EqualsNoCase(rest, "nan")) return std::nan("");
  // Rebuild a plain literal for strtod: [-]digits[.digits][e[+-]digits].
  std::string lit = neg ? "-" : "";
  size_t j = TakeDigits(s, i, lit);
  bool int_digits = j > i;
  bool frac_digits = false;
  if (j < s.size() && s[j] == '.') {
    lit.push_back('.');
    size_t k = TakeDigits(s, j + 1, lit);
    frac_digits = k > j + 1;
    j = k;
  }
  if (!int_digits && !frac_digits) return std::nullopt;
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    lit.push_back('e');
    ++j;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) lit.push_back(s[j++]);
    size_t k = TakeDigits(s, j, lit);
    if (k == j) return std::nullopt;
    j = k;
  }
  if (j != s.size()) return std::nullopt;
  return std::strtod(lit.c_str(), nullptr);  // overflow gives +-HUGE_VAL, like Python's inf
}

std::optional<double> ClipTrendValue(double v) {
  if (std::isnan(v)) return std::nullopt;
  if (std::isinf(v)) return v > 0 ? kTrendPosInf : kTrendNegInf;
  if (v > kTrendMax) return kTrendMax;
  if (v < -kTrendMax) return -kTrendMax;
  return v;
}

std::optional<double> NormalizeJsonStat(const JTree& t, JIdx v) {
  if (v == kJNone) return std::nullopt;
  switch (t.Kind(v)) {
    case JKind::kBool: return t.at(v).b ? 1.0 : 0.0;
    case JKind::kInt:
    case JKind::kFloat:
    case JKind::kBigInt: return ClipTrendValue(t.AsDouble(v));
    case JKind::kString: {
      auto d = ParsePyFloat(t.Str(v));
      if (!d) return std::nullopt;
      return ClipTrendValue(*d);
    }
    default: return std::nullopt;
  }
}

bool IsCsvMissingToken(std::string_view c) {
  static const char* const kTokens[] = {"",     "#N/A",   "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN",
                                        "-nan", "1.#IND", "1.#QNAN",  "<NA>", "N/A",     "NA",       "NULL",
                                        "NaN",  "None",   "n/a",      "nan",  "null"};
  for (const char* t : kTokens)
    if (c == t) return true;
  return false;
}

std::optional<double> NormalizeCsvStat(std::string_view cell) {
  if (IsCsvMissingToken(cell)) return std::nullopt;
  auto d = ParsePyFloat(cell);
  if (!d) return std::nullopt;
  return ClipTrendValue(*d);
}

std::optional<int64_t> ParseCsvInt(std::string_view cell) {
  if (IsCsvMissingToken(cell)) return std::nullopt;
  auto d = ParsePyFloat(cell);
  if (!d || std::isnan(*d) || std::isinf(*d) || std::fabs(*d) > 9.0e18) return std::nullopt;
  return static_cast<int64_t>(std::trunc(*d));
}

}  // namespace visprobe
