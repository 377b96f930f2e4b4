// Spec §2: Python-compatibility primitives (float repr, fixed point, CRC-32, json.dumps strings,
// repr of strings, pystr of JSON values).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/pyfmt.h"
#include "base/pypow.h"
#include "test_util.h"

using namespace visprobe;

namespace {
std::string JsonStr(const std::string& s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}
std::string ReprStr(const std::string& s) {
  std::string out;
  AppendPyReprString(out, s);
  return out;
}
std::string JsonFloat(double d) {
  std::string out;
  AppendJsonFloat(out, d);
  return out;
}
}  // namespace

TEST_CASE("§2.3 pyrepr_float: scientific form below 1e-4 and from 1e16 on") {
  CHECK(PyFloat(1e-05) == "1e-05");
  CHECK(PyFloat(1.5e-07) == "1.5e-07");
  CHECK(PyFloat(1e16) == "1e+16");
  CHECK(PyFloat(2.5e20) == "2.5e+20");
  CHECK(PyFloat(9.9999e-05) == "9.9999e-05");
  CHECK(PyFloat(1.123123123123e-11) == "1.123123123123e-11");
  CHECK(PyFloat(-1e-05) == "-1e-05");
}

TEST_CASE("§2.3 pyrepr_float: fixed form always has a digit after the point") {
  CHECK(PyFloat(0.0001) == "0.0001");
  CHECK(PyFloat(0.00012345) == "0.00012345");
  CHECK(PyFloat(0.5) == "0.5");
  CHECK(PyFloat(1.0) == "1.0");
  CHECK(PyFloat(100.0) == "100.0");
  CHECK(PyFloat(123456789012345.0) == "123456789012345.0");
  CHECK(PyFloat(1e15) == "1000000000000000.0");
  CHECK(PyFloat(9999999999999998.0) == "9999999999999998.0");
  CHECK(PyFloat(1.2 - 1.0) == "0.19999999999999996");
  CHECK(PyFloat(0.1 + 0.2) == "0.30000000000000004");
  CHECK(PyFloat(2.4494898319244385) == "2.4494898319244385");
}

TEST_CASE("§2.3 pyrepr_float: signs, zero and non-finite values") {
  CHECK(PyFloat(0.0) == "0.0");
  CHECK(PyFloat(-0.0) == "-0.0");
  CHECK(PyFloat(-2.5) == "-2.5");
  CHECK(PyFloat(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(PyFloat(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(PyFloat(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("§2.6 json floats: non-finite values are NaN / Infinity / -Infinity") {
  CHECK(JsonFloat(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(JsonFloat(std::numeric_limits<double>::infinity()) == "Infinity");
  CHECK(JsonFloat(-std::numeric_limits<double>::infinity()) == "-Infinity");
  CHECK(JsonFloat(1e-05) == "1e-05");
  CHECK(JsonFloat(0.5) == "0.5");
}

TEST_CASE("§2.4 fmt_fixed is correctly rounded on the binary value; RoundDecimals re-parses it") {
  CHECK(Fixed(89.99999993823302, 6) == "90.000000");
  CHECK(Fixed(0.123456789, 6) == "0.123457");
  CHECK(Fixed(2.675, 2) == "2.67");  // 2.675 is 2.67499999... in binary
  CHECK(Fixed(0.125, 2) == "0.12");  // exact tie: round half to even
  CHECK(Fixed(2.5, 0) == "2");
  CHECK(Fixed(-1.5, 3) == "-1.500");
  CHECK(RoundDecimals(0.9999999, 6) == 1.0);
  CHECK(RoundDecimals(0.12345678901234567, 12) == 0.123456789012);
  CHECK(RoundDecimals(0.993999088548123, 6) == 0.993999);
  CHECK(std::isinf(RoundDecimals(std::numeric_limits<double>::infinity(), 6)));
}

TEST_CASE("§2.5 CRC-32 as 8 lowercase hex digits") {
  CHECK(Crc32Hex("1") == "83dcefb7");
  CHECK(Crc32Hex("") == "00000000");
  CHECK(Crc32Hex("False") == "ea0c4734");
  CHECK(Crc32Hex("0.5") == "869ef18d");
  CHECK(Crc32Hex("torch.float32") == "d8ca9648");
  CHECK(Crc32Hex("0") == "f4dbdf21");
  CHECK(Crc32("1") == 0x83dcefb7u);
}

TEST_CASE("§2.6 json strings: ensure_ascii with lowercase \\u escapes and surrogate pairs") {
  CHECK(JsonStr("") == "\"\"");
  CHECK(JsonStr("DefaultModel") == "\"DefaultModel\"");
  CHECK(JsonStr("\xC3\xA9") == "\"\\u00e9\"");  // é
  CHECK(JsonStr("\xE4\xB8\xAD") == "\"\\u4e2d\"");  // 中
  CHECK(JsonStr("\xF0\x9F\x98\x80") == "\"\\ud83d\\ude00\"");  // U+1F600
  CHECK(JsonStr("a\xF0\x9F\x98\x80z") == "\"a\\ud83d\\ude00z\"");
}

TEST_CASE("§2.6 json strings: quote, backslash and control characters") {
  CHECK(JsonStr("\"") == "\"\\\"\"");
  CHECK(JsonStr("\\") == "\"\\\\\"");
  CHECK(JsonStr("\n\r\t\b\f") == "\"\\n\\r\\t\\b\\f\"");
  CHECK(JsonStr(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(JsonStr(std::string("a\0b", 3)) == "\"a\\u0000b\"");
  CHECK(JsonStr("File /app/train.py, line 5, in <module>, \n out = model(x)") ==
        "\"File /app/train.py, line 5, in <module>, \\n out = model(x)\"");
}

TEST_CASE("§2.6 json strings: DEL (0x7f) is a control character and is escaped") {
  // Python: json.dumps("\x7f") == '"\\u007f"' (ensure_ascii escapes everything outside ' '..'~').
  CHECK(JsonStr("\x7f") == "\"\\u007f\"");
}

TEST_CASE("§2.2 repr of strings: quote choice") {
  CHECK(ReprStr("abc") == "'abc'");
  CHECK(ReprStr("") == "''");
  CHECK(ReprStr("it's") == "\"it's\"");
  CHECK(ReprStr("say \"hi\"") == "'say \"hi\"'");
  CHECK(ReprStr("it's \"x\"") == "'it\\'s \"x\"'");
}

TEST_CASE("§2.2 repr of strings: escapes of backslash, newline, tab and non-printable characters") {
  CHECK(ReprStr("a\\b") == "'a\\\\b'");
  CHECK(ReprStr("\n\r\t") == "'\\n\\r\\t'");
  CHECK(ReprStr("\x01") == "'\\x01'");
  CHECK(ReprStr("\x7f") == "'\\x7f'");
  CHECK(ReprStr("\xC2\x85") == "'\\x85'");  // U+0085 NEL
  CHECK(ReprStr("\xC2\xA0") == "'\\xa0'");  // U+00A0 NBSP
  CHECK(ReprStr("\xE2\x80\x8B") == "'\\u200b'");  // U+200B ZERO WIDTH SPACE
  CHECK(ReprStr("\xEE\x80\x80") == "'\\ue000'");  // U+E000 private use
  CHECK(ReprStr("\xC3\xA9") == "'\xC3\xA9'");  // printable é kept as is
  CHECK(ReprStr("\xF0\x9F\x98\x80") == "'\xF0\x9F\x98\x80'");
}

TEST_CASE("§2.2 pystr of JSON-derived values") {
  auto p = vptest::ParseObject(
      R"({"null": null, "t": true, "f": false, "i": -12, "fl": 1.0, "s": "text", "l01": [0, 1], "l23": [2, 3],
          "la": ["a", null], "o": {"a": 1}, "nested": {"k": [1.5, "it's", {"x": false}]}, "e": [], "eo": {}})");
  REQUIRE(p->status.ok());
  const JTree& t = p->tree;
  CHECK(t.PyStr(p->Get("null")) == "None");
  CHECK(t.PyStr(p->Get("t")) == "True");
  CHECK(t.PyStr(p->Get("f")) == "False");
  CHECK(t.PyStr(p->Get("i")) == "-12");
  CHECK(t.PyStr(p->Get("fl")) == "1.0");
  CHECK(t.PyStr(p->Get("s")) == "text");
  CHECK(t.PyStr(p->Get("l01")) == "[0, 1]");
  CHECK(t.PyStr(p->Get("l23")) == "[2, 3]");
  CHECK(t.PyStr(p->Get("la")) == "['a', None]");
  CHECK(t.PyStr(p->Get("o")) == "{'a': 1}");
  CHECK(t.PyStr(p->Get("nested")) == "{'k': [1.5, \"it's\", {'x': False}]}");
  CHECK(t.PyStr(p->Get("e")) == "[]");
  CHECK(t.PyStr(p->Get("eo")) == "{}");
  std::string repr;
  t.AppendPyRepr(repr, p->Get("s"));
  CHECK(repr == "'text'");
}

TEST_CASE("§2.6 json.dumps of JSON-derived values (separators, order, non-finite)") {
  auto p = vptest::ParseObject(R"({"v": {"b": [1, 2.0, NaN, "\u00e9"], "a": {}, "c": [], "d": null, "e": true}})");
  REQUIRE(p->status.ok());
  std::string out;
  p->tree.AppendJson(out, p->Get("v"));
  CHECK(out == "{\"b\": [1, 2.0, NaN, \"\\u00e9\"], \"a\": {}, \"c\": [], \"d\": null, \"e\": true}");
}

namespace {
// json.dumps of an ASCII string (plus "é"), one byte at a time: the reference the word-at-a-time
// scan of AppendJsonString must match.
std::string RefJson(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    char buf[8];
    if (c == 0xC3 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xA9) {
      out += "\\u00e9";
      ++i;
    } else if (c == '"')
      out += "\\\"";
    else if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\b')
      out += "\\b";
    else if (c == '\f')
      out += "\\f";
    else if (c < 0x20 || c == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}
}  // namespace

TEST_CASE("§2.6 json strings: the 8-byte scan finds every byte to escape, at every position") {
  const unsigned char specials[] = {0x00, 0x01, '\n', 0x1F, '"', '\\', 0x7F, 0xC3};
  const char plain[] = " !#[]~0A}{z";
  std::string base;
  for (int i = 0; i < 40; ++i) base += plain[i % (sizeof plain - 1)];
  for (size_t len : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 33u, 40u}) {
    std::string s = base.substr(0, len);
    CHECK(JsonStr(s) == "\"" + s + "\"");
    for (size_t pos = 0; pos < len; ++pos) {
      for (unsigned char sp : specials) {
        std::string t = s;
        t[pos] = static_cast<char>(sp);
        if (sp == 0xC3) t.insert(pos + 1, 1, static_cast<char>(0xA9));  // "é", a whole UTF-8 sequence
        INFO("length " << len << ", byte " << int(sp) << " at " << pos);
        CHECK(JsonStr(t) == RefJson(t));
        std::string two = t + t;  // two specials, 0 to 40 bytes apart
        CHECK(JsonStr(two) == RefJson(two));
      }
    }
  }
}

TEST_CASE("PyPow is Python's float ** (glibc's pow on its FMA path), not x * x or sqrt") {
  // Inputs where CPython's x ** 2 differs from x * x and x ** 0.5 from sqrt(x) (found with glibc,
  // checked with python3: (x ** 2).hex()).
  struct Case {
    double x, y, python, other;
  };
  const Case cases[] = {
      {0x1.f0a63b79f28c7p+0, 2.0, 0x1.e1c24934ddec1p+1, 0x1.e1c24934ddec2p+1},
      {0x1.b53cbc099409p+0, 2.0, 0x1.75643430b1011p+1, 0x1.75643430b1012p+1},
      {0x1.bc3a2cdda2032p+0, 2.0, 0x1.816cec6c9322ap+1, 0x1.816cec6c93229p+1},
      {0x1.6c98eb48fed4bp+21, 0.5, 0x1.b00ec41094a5dp+10, 0x1.b00ec41094a5ep+10},
      {0x1.25040b00ec3b2p+7, 0.5, 0x1.8354556869a83p+3, 0x1.8354556869a82p+3},
      {0x1.1c52da7535191p-21, 0.5, 0x1.7d8a8dbfed735p-11, 0x1.7d8a8dbfed734p-11},
  };
  for (const Case& c : cases) {
    CAPTURE(c.x, c.y);
    CHECK(visprobe::PyPow(c.x, c.y) == c.python);
    CHECK(c.python != c.other);
  }
  CHECK(visprobe::PyPow(3.0, 2.0) == 9.0);
  CHECK(visprobe::PyPow(0.0, 0.5) == 0.0);
}

TEST_CASE("PyPow gives glibc's pow bit for bit over 200,000 pseudo-random inputs, in both builds") {
  // The hash of glibc 2.36's pow (x86-64, FMA variant; what CPython's ** gives there) over the same
  // inputs: x in [2^-200, 2^200), y = 0.5, 2 and random in [-8, 8).
  uint64_t s = 0x9E3779B97F4A7C15ull, h = 1469598103934665603ull;
  for (int i = 0; i < 200000; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    uint64_t b = (s >> 12) | 0x3ff0000000000000ull;
    double x;
    std::memcpy(&x, &b, 8);
    x = std::ldexp(x, static_cast<int>(s % 400) - 200);
    double y = i % 3 == 0 ? 0.5 : i % 3 == 1 ? 2.0 : std::ldexp(static_cast<double>(s >> 40) / 16777216.0 - 0.5, 4);
    double p = visprobe::PyPow(x, y);
    uint64_t u;
    std::memcpy(&u, &p, 8);
    h = (h ^ u) * 1099511628211ull;
  }
  CHECK(h == 0xa18486be8b9b052cull);
}

TEST_CASE("a float token accepted as repr is exactly what AppendPyFloat prints for it") {
  // Tokens in every layout a JSON writer may use; whenever IsPyFloatRepr says yes, formatting the
  // double the token reads as must give the token back. Shorter decimals (the dumps' statistics)
  // must mostly be accepted, or the check would say nothing.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> digits(1, 17), fixed(0, 20), pick(0, 5);
  std::uniform_real_distribution<double> mant(-10.0, 10.0);
  std::uniform_int_distribution<int> exp10(-30, 30);
  size_t accepted = 0, short_repr = 0, short_accepted = 0;
  char buf[512];
  for (int n = 0; n < 200000; ++n) {
    double x = mant(rng) * std::pow(10.0, exp10(rng));
    if (pick(rng) == 0) x = std::round(x * 1e4) / 1e4;  // short decimals, as bf16 statistics are
    std::string tok;
    switch (pick(rng)) {
      case 0: tok = PyFloat(x); break;
      case 1:
        std::snprintf(buf, sizeof buf, "%.*g", digits(rng), x);
        tok = buf;
        break;
      case 2:
        std::snprintf(buf, sizeof buf, "%.*f", fixed(rng), x);
        tok = buf;
        break;
      case 3:
        std::snprintf(buf, sizeof buf, "%.*e", digits(rng), x);
        tok = buf;
        break;
      case 4: tok = PyFloat(x) + "0"; break;
      default:
        tok = PyFloat(x);
        if (tok.find('e') == std::string::npos) tok.insert(tok[0] == '-' ? 1 : 0, "0");
        break;
    }
    const std::string repr = PyFloat(std::strtod(tok.c_str(), nullptr));
    if (IsPyFloatRepr(tok)) {
      ++accepted;
      INFO("token " << tok);
      REQUIRE(repr == tok);
    }
    if (tok == repr && tok.size() <= 12) {
      ++short_repr;
      if (IsPyFloatRepr(tok)) ++short_accepted;
    }
  }
  CHECK(accepted > 20000);
  CHECK(short_accepted * 10 >= short_repr * 9);
  // The layouts by hand.
  for (const char* yes : {"0.0", "-0.0", "964.0", "1000.0", "6.1875", "-0.025634765625", "0.0001", "1e-05", "1.5e+16", "1e+16",
                          "1000000000000000.0", "2.5e-100", "0.30000000000001"})
    CHECK(IsPyFloatRepr(yes));
  for (const char* no : {"1.50",
                         "00.5",
                         "1.",
                         ".5",
                         "1e5",
                         "1E-05",
                         "1e-5",
                         "1.0e-05",
                         "0.00001",
                         "1e+15",
                         "10000000000000000.0",
                         "1e-005",
                         "0.1234567890123456",
                         "1.2345678901234567e-05",
                         "5e-324",
                         "1e+300",
                         "NaN",
                         "Infinity",
                         "1",
                         "-",
                         "",
                         "0.1x",
                         "1e+16 "})
    CHECK_FALSE(IsPyFloatRepr(no));
}

namespace {
// repr(float) the slow way, for checking AppendPyFloat: the fewest significant digits (%.*e) that
// read back as x, laid out as Python does (fixed for -4 <= exponent < 16, else d.ddde+XX).
std::string RefRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  int prec = 0;
  for (prec = 0; prec < 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*e", prec, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", prec, x);
  std::string s(buf);
  const size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string mant = s.substr(0, e);
  const bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out + eb;
  }
  const int decpt = exp + 1;
  if (decpt <= 0) return out + "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  if (decpt >= static_cast<int>(digits.size())) return out + digits + std::string(decpt - digits.size(), '0') + ".0";
  return out + digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
}
}  // namespace

TEST_CASE("§2.3 pyrepr_float matches a reference repr over random bit patterns and every layout") {
  CHECK(RefRepr(0.1) == "0.1");  // the reference itself
  CHECK(RefRepr(1e16) == "1e+16");
  CHECK(RefRepr(123456789012345680.0) == "1.2345678901234568e+17");
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> exp10(-330, 310), digits(1, 17);
  std::vector<double> xs = {5e-324,
                            2.2250738585072014e-308,
                            1.7976931348623157e308,
                            0.0001,
                            0.00009999999999999999,
                            9999999999999998.0,
                            1e15,
                            123.0,
                            1e-4,
                            1.5,
                            -2.5e-7,
                            1234567890123456.7};
  for (int n = 0; n < 100000; ++n) {
    uint64_t bits = rng();
    double x;
    std::memcpy(&x, &bits, sizeof x);
    xs.push_back(x);
    // Decimals with few digits across the fixed and exponent layouts (the dumps' statistics).
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*fe%d", digits(rng) % 6, static_cast<double>(rng() % 100000) / 100.0, exp10(rng) / 10);
    xs.push_back(std::strtod(buf, nullptr));
  }
  for (double x : xs) {
    std::string got;
    AppendPyFloat(got, x);
    std::string via_writer = "ab";
    {
      StrWriter w(via_writer);
      AppendPyFloat(w, x);
    }
    INFO("x = " << RefRepr(x));
    REQUIRE(got == RefRepr(x));
    REQUIRE(via_writer == "ab" + got);
  }
}

TEST_CASE("§2.6 json strings: the writer's plain-text test and copy agree with the general escaping") {
  const unsigned char specials[] = {0x00, 0x1F, '"', '\\', 0x7F, 0x80, 0xC3, 0xFF};
  std::string base;
  for (int i = 0; i < 40; ++i) base += static_cast<char>(' ' + (i * 7) % 90 + (i % 3 == 0 ? 3 : 0));
  for (char& c : base)
    if (c == '"' || c == '\\') c = 'x';
  for (size_t len = 0; len <= 40; ++len) {
    const std::string s = base.substr(0, len);
    CHECK(JsonPlain(s.data(), s.size()));
    for (size_t pos = 0; pos < len; ++pos) {
      for (unsigned char sp : specials) {
        std::string t = s;
        t[pos] = static_cast<char>(sp);
        INFO("length " << len << ", byte " << int(sp) << " at " << pos);
        CHECK_FALSE(JsonPlain(t.data(), t.size()));
        std::string w_out = "{";
        {
          StrWriter w(w_out);
          AppendJsonString(w, t);
          w.Put('}');
        }
        CHECK(w_out == "{" + JsonStr(t) + "}");
      }
    }
  }
  // Growing past the first room: many pieces through one writer, as a record's items go.
  std::string big, ref;
  {
    StrWriter w(big);
    for (int i = 0; i < 5000; ++i) {
      const std::string piece = "k" + std::to_string(i) + (i % 7 == 0 ? "\n" : "");
      AppendJsonString(w, piece);
      w.Put(", ");
      ref += JsonStr(piece) + ", ";
    }
    CHECK(w.size() == ref.size());
  }
  CHECK(big == ref);
}
