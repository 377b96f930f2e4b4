#include "compare/compare_cells.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "base/pyfmt.h"

namespace visprobe {
namespace compare_detail {
namespace {

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string Strip(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return std::string();
  size_t e = s.find_last_not_of(" \t\n\r\f\v");
  return s.substr(b, e - b + 1);
}

}  // namespace

void AppendPyStr(std::string& out, const Cell& c) {
  switch (c.kind) {
    case CmpValue::kNull: out += "None"; return;
    case CmpValue::kBool: out += c.b ? "True" : "False"; return;
    case CmpValue::kInt: out += std::to_string(c.i); return;
    case CmpValue::kFloat: AppendPyFloat(out, c.d); return;
    case CmpValue::kString:
    case CmpValue::kJson: out += c.s; return;
  }
}

std::string PyStr(const Cell& c) {
  std::string s;
  AppendPyStr(s, c);
  return s;
}

const char* NonFiniteText(const Cell& c) {
  switch (c.kind) {
    case CmpValue::kFloat:
      if (std::isnan(c.d)) return "nan";
      if (std::isinf(c.d)) return c.d > 0 ? "inf" : "-inf";
      return nullptr;
    case CmpValue::kString:
    case CmpValue::kJson:
      if (std::string_view(c.s) == "inf") return "inf";
      if (std::string_view(c.s) == "-inf") return "-inf";
      if (std::string_view(c.s) == "nan") return "nan";
      return nullptr;
    default: return nullptr;  // None, True / False and integers never read as these
  }
}

bool PyEqual(const Cell& a, const Cell& b) {
  auto numeric = [](const Cell& c) { return IsNumber(c) || c.kind == CmpValue::kBool; };
  auto value = [](const Cell& c) { return c.kind == CmpValue::kBool ? (c.b ? 1.0 : 0.0) : AsDouble(c); };
  if (numeric(a) && numeric(b)) {
    if (a.kind == CmpValue::kInt && b.kind == CmpValue::kInt) return a.i == b.i;
    return value(a) == value(b);
  }
  if (a.kind != b.kind) return false;
  if (a.kind == CmpValue::kNull) return true;
  return a.s == b.s;
}

bool IsBad(const Cell& c) {
  if (c.kind == CmpValue::kFloat) return !std::isfinite(c.d);
  if (c.kind != CmpValue::kString) return false;
  // lower(strip(s)) in {inf, -inf, nan}, without making either string.
  std::string_view v(c.s);
  auto space = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v'; };
  while (!v.empty() && space(v.front())) v.remove_prefix(1);
  while (!v.empty() && space(v.back())) v.remove_suffix(1);
  if (v.size() != 3 && v.size() != 4) return false;
  char low[4];
  for (size_t i = 0; i < v.size(); ++i) low[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(v[i])));
  const std::string_view l(low, v.size());
  return l == "inf" || l == "-inf" || l == "nan";
}

bool PyParseFloat(const std::string& text, double* out) {
  // Most texts are plain decimals (repr's own output): strtod takes them as they are.
  if (!text.empty() && text.size() < 64 && std::all_of(text.begin(), text.end(), [](char ch) {
        return (ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-';
      })) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() + text.size()) {
      *out = v;
      return true;
    }
  }
  std::string s = Lower(Strip(text));
  if (s.empty()) return false;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  std::string body = s.substr(i);
  double sign = (s[0] == '-') ? -1.0 : 1.0;
  if (body == "nan") {
    *out = std::nan("");
    return true;
  }
  if (body == "inf" || body == "infinity") {
    *out = sign * INFINITY;
    return true;
  }
  for (char ch : body)
    if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'e' || ch == '+' || ch == '-' || ch == '_'))
      return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (!end || *end != '\0') return false;
  *out = v;
  return true;
}

double Pct(const Cell& c) {
  if (c.kind != CmpValue::kString) return 0;
  std::string s = c.s;
  size_t b = s.find_first_not_of('%');
  if (b == std::string::npos) return 0;
  size_t e = s.find_last_not_of('%');
  s = s.substr(b, e - b + 1);
  double v;
  if (!PyParseFloat(s, &v)) return 0;
  return v / 100;
}

}  // namespace compare_detail
}  // namespace visprobe
