// Python-compatible text primitives (spec graph-engine §2): float repr, fixed-point
// formatting, CRC-32, json.dumps string escaping and repr() of strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace visprobe {

// Python repr(float): shortest round-trip digits, 'e' form when decpt <= -4 or > 16.
void AppendPyFloat(std::string& out, double x);
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
double RoundDecimals(double x, int digits);   // parse_double(fmt_fixed(x, digits))

uint32_t Crc32(std::string_view bytes);
std::string Crc32Hex(std::string_view bytes);  // 8 lowercase hex digits

// json.dumps(str) with ensure_ascii=True, including the surrounding quotes.
void AppendJsonString(std::string& out, std::string_view utf8);

// repr(str): quotes chosen like Python, escapes for \\, the quote, \n \r \t and
// non-printable characters.
void AppendPyReprString(std::string& out, std::string_view utf8);

}  // namespace visprobe
