// Python-compatible text primitives (spec graph-engine §2): float repr, fixed-point
// formatting, CRC-32, json.dumps string escaping and repr() of strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/str_writer.h"

namespace visprobe {

// Python repr(float): shortest round-trip digits, 'e' form when decpt <= -4 or > 16.
void AppendPyFloat(std::string& out, double x);
// The same written at p, which has kPyFloatRoom bytes (the text is under 32; the rest is slack
// for fixed-size copies); returns the end of the text.
constexpr size_t kPyFloatRoom = 64;
char* WritePyFloat(char* p, double x);
inline void AppendPyFloat(StrWriter& w, double x) {
  char* p = w.Room(kPyFloatRoom);
  w.Advance(static_cast<size_t>(WritePyFloat(p, x) - p));
}
// True when `token` (a JSON number) is exactly what AppendPyFloat prints for the double it reads
// as, so a parser may keep the text instead of formatting the double again: Python's repr layout
// (fixed for decimal exponents -4 < decpt <= 16, else d.ddde+XX), no redundant zeros, and at most
// 15 significant digits, which no other decimal of 15 digits or fewer reads as the same double
// (DBL_DIG), so the shortest round-trip digits are the token's own. False is always safe.
bool IsPyFloatRepr(std::string_view token);
std::string PyFloat(double x);

// json.dumps of a float: like repr but non-finite values are NaN / Infinity / -Infinity.
void AppendJsonFloat(std::string& out, double x);

// printf("%.*f") with a correctly rounding libc.
void AppendFixed(std::string& out, double x, int digits);
std::string Fixed(double x, int digits);
double RoundDecimals(double x, int digits);  // parse_double(fmt_fixed(x, digits))

uint32_t Crc32(std::string_view bytes);
std::string Crc32Hex(std::string_view bytes);  // 8 lowercase hex digits

// json.dumps(str) with ensure_ascii=True, including the surrounding quotes.
void AppendJsonString(std::string& out, std::string_view utf8);
inline void AppendJsonString(StrWriter& w, std::string_view s) {
  if (JsonPlain(s.data(), s.size())) {
    char* d = w.Room(s.size() + 2);
    d[0] = '"';
    std::memcpy(d + 1, s.data(), s.size());
    d[s.size() + 1] = '"';
    w.Advance(s.size() + 2);
    return;
  }
  AppendJsonString(w.Done(), s);
  w.Sync();
}

// repr(str): quotes chosen like Python, escapes for \\, the quote, \n \r \t and
// non-printable characters.
void AppendPyReprString(std::string& out, std::string_view utf8);

}  // namespace visprobe
