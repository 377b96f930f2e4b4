#include "base/pyfmt.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

// fmt (Debian libfmt-dev, header-only) provides Dragonbox shortest round-trip digits in both
// builds; emscripten 3.1.6's libc++ has no floating-point std::to_chars.
#define FMT_HEADER_ONLY
#include <fmt/format.h>

namespace visprobe {
namespace {

// Shortest round-trip digits of |x| (finite, non-zero) and decpt with |x| = 0.DIGITS x 10^decpt,
// straight from Dragonbox (|x| = significand x 10^exponent) without formatting and re-reading.
// The digits are written two at a time backwards from `end`; returns where they start (at most 17
// before end).
const char* ShortestDigits(double x, char* end, int* ndigits, int* decpt) {
  static const char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  auto dec = fmt::detail::dragonbox::to_decimal(std::fabs(x));
  uint64_t v = dec.significand;
  int exp10 = dec.exponent;
  while (v % 10 == 0) {
    v /= 10;
    ++exp10;
  }  // v != 0 for x != 0
  char* p = end;
  while (v >= 100) {
    const unsigned r = static_cast<unsigned>(v % 100);
    v /= 100;
    p -= 2;
    std::memcpy(p, kPairs + 2 * r, 2);
  }
  if (v >= 10) {
    p -= 2;
    std::memcpy(p, kPairs + 2 * v, 2);
  } else {
    *--p = static_cast<char>('0' + v);
  }
  *ndigits = static_cast<int>(end - p);
  *decpt = *ndigits + exp10;
  return p;
}

}  // namespace

char* WritePyFloat(char* p, double x) {
  if (std::isnan(x)) {
    std::memcpy(p, "nan", 3);
    return p + 3;
  }
  if (std::isinf(x)) {
    if (x > 0) {
      std::memcpy(p, "inf", 3);
      return p + 3;
    }
    std::memcpy(p, "-inf", 4);
    return p + 4;
  }
  if (std::signbit(x)) *p++ = '-';
  if (x == 0) {
    std::memcpy(p, "0.0", 3);
    return p + 3;
  }
  // Digits end at d + 24 and are copied 24 bytes at a time (fixed-size copies, no call): the
  // copy may read past the digits, never past d, and write past them, never past the caller's kPyFloatRoom.
  char d[48];
  int n = 0, decpt = 0;
  const char* dg = ShortestDigits(x, d + 24, &n, &decpt);
  if (decpt <= -4 || decpt > 16) {
    *p++ = dg[0];
    if (n > 1) {
      *p++ = '.';
      std::memcpy(p, dg + 1, 24);
      p += n - 1;
    }
    int e = decpt - 1;  // "e%c%02d"
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) *p++ = static_cast<char>('0' + e / 100);
    *p++ = static_cast<char>('0' + e / 10 % 10);
    *p++ = static_cast<char>('0' + e % 10);
  } else if (decpt <= 0) {
    std::memcpy(p, "0.000", 5);  // "0." and up to 3 zeros
    p += 2 - decpt;
    std::memcpy(p, dg, 24);
    p += n;
  } else if (decpt >= n) {
    std::memcpy(p, dg, 24);
    p += n;
    std::memset(p, '0', 16);  // decpt - n <= 15
    p += decpt - n;
    *p++ = '.';
    *p++ = '0';
  } else {
    std::memcpy(p, dg, 24);  // the digits before the point, then those after it, moved by one
    p += decpt;
    std::memcpy(p + 1, dg + decpt, 24);
    *p = '.';
    p += 1 + n - decpt;
  }
  return p;
}

void AppendPyFloat(std::string& out, double x) {
  char buf[kPyFloatRoom];
  out.append(buf, static_cast<size_t>(WritePyFloat(buf, x) - buf));
}

bool IsPyFloatRepr(std::string_view t) {
  size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  auto digit = [&](size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
  if (!digit(i)) return false;
  const size_t int_start = i;
  while (digit(i)) ++i;
  const size_t int_len = i - int_start;
  size_t frac_start = i, frac_len = 0;
  const bool point = i < t.size() && t[i] == '.';
  if (point) {
    frac_start = ++i;
    while (digit(i)) ++i;
    frac_len = i - frac_start;
    if (frac_len == 0) return false;
  }
  const bool frac_zero = frac_len == 1 && t[frac_start] == '0';
  if (frac_len > 1 && t[frac_start + frac_len - 1] == '0') return false;  // a redundant trailing zero
  if (i == t.size()) {
    // Fixed: I.F with I = 0 or no leading zero, F not ending in 0 unless F is "0".
    if (!point) return false;
    const bool int_zero = int_len == 1 && t[int_start] == '0';
    if (!int_zero && t[int_start] == '0') return false;
    if (int_zero) {
      if (frac_zero) return true;  // 0.0 and -0.0
      size_t z = frac_start;
      while (t[z] == '0') ++z;  // F has a non-zero digit (it does not end in 0)
      const size_t lead = z - frac_start;  // decpt = -lead
      return lead <= 3 && frac_len - lead <= 15;
    }
    if (int_len > 16) return false;  // decpt = int_len
    if (frac_zero) {  // an integral value: digits are I without its trailing zeros
      size_t e = int_start + int_len;
      while (t[e - 1] == '0') --e;
      return e - int_start <= 15;
    }
    return int_len + frac_len <= 15;
  }
  // Scientific: D[.F]e(+|-)XX, one non-zero leading digit, F not ending in 0, two or three
  // exponent digits without a redundant leading zero, decpt <= -4 or > 16, normal range.
  if (int_len != 1 || t[int_start] == '0' || frac_zero) return false;
  if (1 + frac_len > 15 || i + 4 > t.size() || t[i] != 'e' || (t[i + 1] != '+' && t[i + 1] != '-')) return false;
  const bool neg = t[i + 1] == '-';
  const size_t exp_start = i + 2, exp_len = t.size() - exp_start;
  if (exp_len < 2 || exp_len > 3 || (exp_len == 3 && t[exp_start] == '0')) return false;
  int e = 0;
  for (size_t k = exp_start; k < t.size(); ++k) {
    if (!digit(k)) return false;
    e = e * 10 + (t[k] - '0');
  }
  if (e > 290) return false;  // far from subnormals and overflow
  if (neg) e = -e;
  return e <= -5 || e >= 16;  // decpt = e + 1
}

std::string PyFloat(double x) {
  std::string s;
  AppendPyFloat(s, x);
  return s;
}

void AppendJsonFloat(std::string& out, double x) {
  if (std::isnan(x)) {
    out += "NaN";
    return;
  }
  if (std::isinf(x)) {
    out += x > 0 ? "Infinity" : "-Infinity";
    return;
  }
  AppendPyFloat(out, x);
}

void AppendFixed(std::string& out, double x, int digits) {
  if (std::isnan(x)) {
    out += "nan";
    return;
  }
  if (std::isinf(x)) {
    out += x > 0 ? "inf" : "-inf";
    return;
  }
  char buf[400];
  int n = std::snprintf(buf, sizeof(buf), "%.*f", digits, x);
  if (n > 0 && n < static_cast<int>(sizeof(buf))) out.append(buf, n);
}

std::string Fixed(double x, int digits) {
  std::string s;
  AppendFixed(s, x, digits);
  return s;
}

double RoundDecimals(double x, int digits) {
  if (!std::isfinite(x)) return x;
  std::string s = Fixed(x, digits);
  return std::strtod(s.c_str(), nullptr);
}

namespace {
struct CrcTable {
  uint32_t t[256];
  CrcTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
  }
};
const CrcTable kCrc;
}  // namespace

uint32_t Crc32(std::string_view bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = kCrc.t[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string Crc32Hex(std::string_view bytes) {
  char buf[9];
  std::snprintf(buf, sizeof(buf), "%08x", Crc32(bytes));
  return std::string(buf, 8);
}

namespace {
const char kHex[] = "0123456789abcdef";

void AppendU4(std::string& out, uint32_t cp) {
  out += "\\u";
  out += kHex[(cp >> 12) & 0xF];
  out += kHex[(cp >> 8) & 0xF];
  out += kHex[(cp >> 4) & 0xF];
  out += kHex[cp & 0xF];
}

// Decodes one UTF-8 sequence at s[i]; returns the code point and advances i. Input strings come
// from simdjson (validated UTF-8); a stray byte is returned as itself.
uint32_t DecodeUtf8(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + len > s.size()) len = 1;
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

// Approximation of Python's str.isprintable() for non-ASCII code points: the separator,
// control, format and private-use ranges that occur in practice.
bool PyPrintable(uint32_t cp) {
  if (cp < 0x20 || cp == 0x7F) return false;
  if (cp < 0x7F) return true;
  if (cp <= 0xA0 || cp == 0xAD) return false;
  if ((cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) || cp == 0x3000 ||
      cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0xE000 && cp <= 0xF8FF) || (cp >= 0xD800 && cp <= 0xDFFF) ||
      cp >= 0xF0000)
    return false;
  return true;
}
}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  out += '"';
  size_t i = 0;
  while (i < s.size()) {
    // Fast path over plain ASCII, 8 bytes at a time: a word passes when none of its bytes is
    // below 0x20, 0x7F or above, '"' or '\\'.
    size_t j = i;
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    while (j + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, s.data() + j, 8);
      uint64_t quote = w ^ (kOnes * '"'), slash = w ^ (kOnes * '\\');
      uint64_t bad = (w - kOnes * 0x20) | (w + kOnes * 0x01) | (quote - kOnes) | (slash - kOnes);
      // (x - 0x20) sets a byte's high bit for x < 0x20 (or x >= 0xA0); (x + 1) for x >= 0x7F;
      // (x ^ c) - 1 for x == c; w's own high bit for x >= 0x80.
      if (((bad | w) & kHigh) != 0) break;
      j += 8;
    }
    while (j < s.size()) {
      unsigned char c = static_cast<unsigned char>(s[j]);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7F) break;
      ++j;
    }
    out.append(s.data() + i, j - i);
    i = j;
    if (i >= s.size()) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default: AppendU4(out, c);
      }
      continue;
    }
    uint32_t cp = DecodeUtf8(s, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      AppendU4(out, 0xD800 + (cp >> 10));
      AppendU4(out, 0xDC00 + (cp & 0x3FF));
    } else {
      AppendU4(out, cp);
    }
  }
  out += '"';
}

void AppendPyReprString(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char q = (has_single && !has_double) ? '"' : '\'';
  out += q;
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {
      if (c == '\\' || c == static_cast<unsigned char>(q)) out += '\\';
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    size_t start = i;
    uint32_t cp = c < 0x80 ? (++i, c) : DecodeUtf8(s, i);
    if (cp == '\n') {
      out += "\\n";
      continue;
    }
    if (cp == '\r') {
      out += "\\r";
      continue;
    }
    if (cp == '\t') {
      out += "\\t";
      continue;
    }
    if (PyPrintable(cp)) {
      out.append(s.data() + start, i - start);
      continue;
    }
    char buf[12];
    if (cp < 0x100)
      std::snprintf(buf, sizeof(buf), "\\x%02x", cp);
    else if (cp < 0x10000)
      std::snprintf(buf, sizeof(buf), "\\u%04x", cp);
    else
      std::snprintf(buf, sizeof(buf), "\\U%08x", cp);
    out += buf;
  }
  out += q;
}

}  // namespace visprobe
