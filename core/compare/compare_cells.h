// A comparison row's cells as the reference (Python) reads them (§9.3): the cell kinds, str(),
// ==, float() of a text and pct(); and the result levels. Shared by compare.cc (the rows) and
// checkers.cc (the checkers).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "compare/compare.h"

namespace visprobe {
namespace compare_detail {

enum Level { kPass = 0, kWarning = 1, kError = 2 };
inline const char* LevelName(int l) { return l == kError ? "error" : l == kWarning ? "warning" : "pass"; }

inline Cell Str(std::string s) {
  Cell c;
  c.kind = CmpValue::kString;
  c.s = std::move(s);
  return c;
}
inline Cell Flt(double d) {
  Cell c;
  c.kind = CmpValue::kFloat;
  c.d = d;
  return c;
}
inline Cell Int(int64_t i) {
  Cell c;
  c.kind = CmpValue::kInt;
  c.i = i;
  return c;
}
inline bool IsNumber(const Cell& c) { return c.kind == CmpValue::kInt || c.kind == CmpValue::kFloat; }
inline double AsDouble(const Cell& c) { return c.kind == CmpValue::kInt ? static_cast<double>(c.i) : c.d; }
inline bool Empty(const Cell& c) { return c.kind == CmpValue::kNull || (c.kind == CmpValue::kString && c.s.empty()); }

// Python str() of a cell.
void AppendPyStr(std::string& out, const Cell& c);
std::string PyStr(const Cell& c);
// "inf" / "-inf" / "nan" when str() of the cell is one of them, else nullptr (without formatting it).
const char* NonFiniteText(const Cell& c);
// Python ==, as the checkers use it: numbers by value (booleans as 0/1), strings by content.
bool PyEqual(const Cell& a, const Cell& b);
// lower(strip(str(c))) is inf, -inf or nan (a float that is not finite).
bool IsBad(const Cell& c);
// Python float() of a string: blanks, nan, inf, infinity in any case.
bool PyParseFloat(const std::string& text, double* out);
// pct(v): strip '%' at both ends, float(), / 100; anything else 0.
double Pct(const Cell& c);

}  // namespace compare_detail
}  // namespace visprobe
