// The SSE2 / wasm SIMD stage 1 (core/loader/simd_stage1.cc) against simdjson's own stage 1:
// natively against the SIMD kernel simdjson chose (same structurals and same error on valid and
// broken input alike), in the wasm build against simdjson's scalar fallback (the same structurals
// on valid JSON; the fallback reports some broken inputs differently, and the engine now behaves
// like the native build there). Also: the wasm build really runs it.
#include <catch2/catch.hpp>

#include <dirent.h>

#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "loader/json_reader.h"
#include "loader/json_tree.h"
#include "loader/simd_stage1.h"
#include "simdjson.h"
#include "test_util.h"

using visprobe::json_internal::Sse2Stage1;
using visprobe::json_internal::Sse2Stage1Implementation;
using visprobe::json_internal::UseSse2Stage1WhereScalar;

namespace {

struct Outcome {
  simdjson::error_code error;
  std::vector<uint32_t> indexes;  // the structurals and the three sentinels (len, len, 0) on success
};

// Input bytes followed by padding that is not part of the input (stage 1 must not read it as such).
std::string Padded(const std::string& s) { return s + std::string(simdjson::SIMDJSON_PADDING, '"'); }

Outcome Mine(const std::string& s) {
  const std::string buf = Padded(s);
  std::vector<uint32_t> out(s.size() + 3);
  uint32_t n = 0;
  Outcome o;
  o.error = Sse2Stage1(reinterpret_cast<const uint8_t*>(buf.data()), s.size(), out.data(), &n);
  if (o.error == simdjson::SUCCESS) o.indexes.assign(out.begin(), out.begin() + n + 3);
  return o;
}

Outcome Theirs(const simdjson::implementation* impl, const std::string& s) {
  const std::string buf = Padded(s);
  std::unique_ptr<simdjson::internal::dom_parser_implementation> p;
  Outcome o;
  o.error = impl->create_dom_parser_implementation(std::max<size_t>(s.size(), 1), 64, p);
  if (o.error) return o;
  o.error = p->stage1(reinterpret_cast<const uint8_t*>(buf.data()), s.size(), simdjson::stage1_mode::regular);
  if (o.error == simdjson::SUCCESS)
    o.indexes.assign(p->structural_indexes.get(), p->structural_indexes.get() + p->n_structural_indexes + 3);
  return o;
}

// The reference: simdjson's SIMD kernel natively; its scalar fallback where that is all it has.
const simdjson::implementation* Reference(bool* simd) {
  const simdjson::implementation* fallback = simdjson::get_available_implementations()["fallback"];
  for (const simdjson::implementation* impl : simdjson::get_available_implementations()) {
    const std::string name = impl->name();
    if (name != "fallback" && name != "sse2_stage1" && impl->supported_by_runtime_system()) {
      *simd = true;
      return impl;
    }
  }
  *simd = false;
  return fallback;
}

std::string Escaped(const std::string& s) {
  std::ostringstream o;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F && c != '\\')
      o << c;
    else
      o << "\\x" << std::hex << static_cast<int>(c) << std::dec;
  }
  return o.str();
}

// Valid JSON with everything stage 1 must get right: escapes (runs of backslashes, \" and \u),
// multi-byte UTF-8, numbers and literals, nesting and all four whitespace bytes.
class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

  void Space(std::string& o) {
    static const char* const kSpaces[] = {"", "", "", " ", "\n", "\t", "\r\n  ", "    "};
    o += kSpaces[Pick(8)];
  }
  void String(std::string& o) {
    static const char* const kPieces[] = {"a",
                                          "Module.layers.0",
                                          "\\\"",
                                          "\\\\",
                                          "\\\\\\\\\\\\\\\\",
                                          "\\n",
                                          "\\u00e9",
                                          "\\/",
                                          "\xc3\xa9",
                                          "\xe4\xb8\xad",
                                          "\xf0\x9f\x98\x80",
                                          " ",
                                          ",:[]{}",
                                          "0",
                                          "\\\\\\\"",
                                          "true",
                                          "\x7f"};
    o += '"';
    const int n = Pick(12);
    for (int i = 0; i < n; ++i) o += kPieces[Pick(17)];
    if (Pick(6) == 0) o += std::string(static_cast<size_t>(Pick(70)), 'x');  // long strings cross blocks
    o += '"';
  }
  void Value(std::string& o, int depth) {
    const int k = depth > 6 ? Pick(4) : Pick(7);
    switch (k) {
      case 0: String(o); break;
      case 1: {
        static const char* const kNums[] = {"0", "-1", "3.25", "1e-07", "-0.0", "123456789012", "2.5E+10"};
        o += kNums[Pick(7)];
        break;
      }
      case 2: o += Pick(2) ? "true" : (Pick(2) ? "false" : "null"); break;
      case 3: String(o); break;
      case 4:
      case 5: {  // object
        o += '{';
        const int n = Pick(5);
        for (int i = 0; i < n; ++i) {
          if (i) o += ',';
          Space(o);
          String(o);
          Space(o);
          o += ':';
          Space(o);
          Value(o, depth + 1);
          Space(o);
        }
        o += '}';
        break;
      }
      default: {  // array
        o += '[';
        const int n = Pick(5);
        for (int i = 0; i < n; ++i) {
          if (i) o += ',';
          Space(o);
          Value(o, depth + 1);
          Space(o);
        }
        o += ']';
      }
    }
  }
  std::string Doc() {
    std::string o;
    Space(o);
    Value(o, 0);
    Space(o);
    return o;
  }
  // Bytes that break JSON in every way stage 1 notices: unclosed strings, control characters in
  // strings, stray backslashes, 0x0C / 0x1A (which simdjson's kernels classify as operators),
  // invalid UTF-8 (lone continuation, truncated and overlong sequences, surrogates, 0xFF).
  void Break(std::string& s) {
    static const char* const kBad[] = {"\"",
                                       "\\",
                                       "\x01",
                                       "\x1f",
                                       "\x0c",
                                       "\x1a",
                                       "\x80",
                                       "\xc3",
                                       "\xe4\xb8",
                                       "\xc0\xaf",
                                       "\xed\xa0\x80",
                                       "\xff",
                                       "\xf4\x90\x80\x80",
                                       "a",
                                       " ",
                                       "\t"};
    const int edits = 1 + Pick(3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = s.empty() ? 0 : static_cast<size_t>(Pick(static_cast<int>(s.size()) + 1));
      const char* bad = kBad[Pick(16)];
      if (Pick(3) == 0 && at < s.size()) s.erase(at, 1);
      s.insert(at, bad);
    }
  }
  std::string Noise() {  // short random strings over the bytes that matter
    static const char kAlphabet[] = "\"\\{}[],: \t\n\r0a-e.\x0c\x1a\x01\x80\xc3\xa9";
    std::string s(static_cast<size_t>(Pick(150)), ' ');
    for (char& c : s) c = kAlphabet[Pick(static_cast<int>(sizeof kAlphabet) - 1)];
    return s;
  }

 private:
  std::mt19937 rng_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream o;
  o << f.rdbuf();
  return o.str();
}

void JsonFilesUnder(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
      out.push_back(path);
    else if (name.find('.') == std::string::npos)
      JsonFilesUnder(path, out);
  }
  closedir(d);
}

}  // namespace

TEST_CASE("SIMD stage 1: the structurals and errors of simdjson's own stage 1") {
  if (!Sse2Stage1Implementation()) SUCCEED("this build has no SSE2 stage 1");
  if (!Sse2Stage1Implementation()) return;
  bool simd = false;
  const simdjson::implementation* ref = Reference(&simd);
  REQUIRE(ref != nullptr);
  INFO("reference: " << ref->name());
  Gen gen(20261206);
  int compared = 0, broken = 0, valid_errors = 0;
  std::string first_mismatch;
  auto compare = [&](const std::string& s, bool valid) {
    const Outcome a = Mine(s), b = Theirs(ref, s);
    if (valid && b.error != simdjson::SUCCESS) ++valid_errors;
    // The fallback reports some broken inputs with another error (or none): compare those natively only.
    if (!valid && !simd) return;
    if (!valid) broken += b.error != simdjson::SUCCESS;
    ++compared;
    if ((a.error != b.error || a.indexes != b.indexes) && first_mismatch.empty())
      first_mismatch = "input [" + Escaped(s) + "]: mine " + simdjson::error_message(a.error) + " with " +
                       std::to_string(a.indexes.size()) + " indexes, simdjson " + simdjson::error_message(b.error) + " with " +
                       std::to_string(b.indexes.size());
  };
  for (int i = 0; i < 3000; ++i) {
    std::string doc = gen.Doc();
    compare(doc, true);
    gen.Break(doc);
    compare(doc, false);
    compare(gen.Noise(), false);
  }
  // Every length around the block size, a string or a run of backslashes ending at each position.
  for (size_t n = 0; n <= 200; ++n) {
    compare(std::string(n, ' ') + "[1]", true);
    compare("[\"" + std::string(n, 'a') + "\\\\\"]", true);
    compare("[\"" + std::string(n, '\\') + "\"]", n % 2 == 0);
    compare("[" + std::string(n, '1') + "]", n > 0 && n < 2);
  }
  // Every byte value next to the block boundary, outside and inside a string; UTF-8 cut short at
  // the end of inputs of 63, 64, 65 and 128 bytes (in a full block and in the padded last one).
  for (int b = 0; b < 256; ++b) {
    const std::string c(1, static_cast<char>(b));
    for (size_t at : {0, 1, 15, 16, 62, 63, 64, 65, 127}) {
      compare("[" + std::string(at, ' ') + c + " ]", false);
      compare("[\"" + std::string(at, 'a') + c + "\"]", false);
    }
  }
  for (size_t len : {63, 64, 65, 128})
    for (const char* cut : {"\xc3", "\xe4\xb8", "\xf0\x9f\x98", "\xc3\xa9"}) {
      std::string s = "\"" + std::string(len, 'a');
      s.resize(len - std::char_traits<char>::length(cut) - 1);
      compare(s + cut + "\"", false);  // the string's last character cut short (or whole: \xc3\xa9)
      compare(s + "\"" + cut, false);  // after the string
    }
  for (const char* doc : {"[]", "[[[]]]", "{}", "{\"a\":[,,", "[1,", "\"", "\\", "[\"\\\\\"]", "1", "-", "nul"})
    compare(doc, false);
  // The real samples, whole files.
  std::vector<std::string> files;
  JsonFilesUnder(vptest::SamplesDir(""), files);
  REQUIRE(files.size() >= 20);
  for (const std::string& f : files) compare(ReadAll(f), true);
  INFO(first_mismatch);
  CHECK(first_mismatch.empty());
  CHECK(valid_errors == 0);  // the generator makes valid JSON
  CHECK(compared >= (simd ? 9000 : 3000));
  if (simd) CHECK(broken > 3000);  // most broken inputs really are errors for simdjson
}

TEST_CASE("SIMD stage 1: used by the parsers exactly where simdjson has only its scalar fallback") {
  const bool used = UseSse2Stage1WhereScalar();
#if defined(__EMSCRIPTEN__)
  CHECK(used == (Sse2Stage1Implementation() != nullptr));  // the wasm builds compile with -msse2
  if (used) CHECK(simdjson::get_active_implementation()->name() == "sse2_stage1");
#else
  CHECK_FALSE(used);
  CHECK(simdjson::get_active_implementation()->name() != "fallback");
#endif
  // Whatever runs stage 1, a document with escapes, UTF-8 and every value kind parses to the same
  // tree; a broken one fails with simdjson's error.
  visprobe::JTree tree;
  visprobe::JIdx root = 0;
  const std::string doc = "{\"a\\\"b\": [1, -2.5e3, true, null, \"\\u00e9\\\\\", {\"\xe4\xb8\xad\": \"x\\ny\"}], \"k\":\"" +
                          std::string(100, '\\') + "\"}";
  REQUIRE(visprobe::ParseJsonText(doc, tree, &root).ok());
  std::string text;
  tree.AppendPyRepr(text, root);
  CHECK(text ==
        "{'a\"b': [1, -2500.0, True, None, '\xc3\xa9\\\\', {'\xe4\xb8\xad': 'x\\ny'}], 'k': '" + std::string(100, '\\') + "'}");
  CHECK_FALSE(visprobe::ParseJsonText("{\"a\": \"unclosed}", tree, &root).ok());
  CHECK_FALSE(visprobe::ParseJsonText("{\"a\": \"\x01\"}", tree, &root).ok());
  CHECK_FALSE(visprobe::ParseJsonText("{\"a\": \"\xc3\"}", tree, &root).ok());
}

namespace {
// A canonical text of a document walked with simdjson's on-demand API (the API the engine uses):
// every value with its kind, strings unescaped, numbers as their tokens; "error N" where it fails.
bool Walk(simdjson::ondemand::value v, std::string& out, int depth) {
  namespace od = simdjson::ondemand;
  if (depth > 64) return false;
  od::json_type t;
  if (v.type().get(t)) return false;
  switch (t) {
    case od::json_type::array: {
      od::array a;
      if (v.get_array().get(a)) return false;
      out += '[';
      for (auto el : a) {
        od::value ev;
        if (el.get(ev) || !Walk(ev, out, depth + 1)) return false;
        out += ',';
      }
      out += ']';
      return true;
    }
    case od::json_type::object: {
      od::object o;
      if (v.get_object().get(o)) return false;
      out += '{';
      for (auto fr : o) {
        od::field f;
        std::string_view k;
        if (std::move(fr).get(f) || f.unescaped_key(false).get(k)) return false;
        out += "k:";
        out += k;
        out += '=';
        if (!Walk(f.value(), out, depth + 1)) return false;
        out += ',';
      }
      out += '}';
      return true;
    }
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s)) return false;
      out += "s:";
      out += s;
      return true;
    }
    case od::json_type::number: {
      double d;
      if (v.get_double().get(d)) return false;
      out += "n:" + std::to_string(d);
      return true;
    }
    case od::json_type::boolean: {
      bool b;
      if (v.get_bool().get(b)) return false;
      out += b ? "true" : "false";
      return true;
    }
    default: {
      bool n = false;
      if (v.is_null().get(n) || !n) return false;
      out += "null";
      return true;
    }
  }
}

std::string Canonical(simdjson::ondemand::parser& p, const std::string& s) {
  simdjson::padded_string doc(s);
  simdjson::ondemand::document d;
  if (auto e = p.iterate(doc).get(d)) return std::string("error ") + simdjson::error_message(e);
  simdjson::ondemand::value v;
  if (auto e = d.get_value().get(v)) return std::string("error ") + simdjson::error_message(e);
  std::string out;
  if (!Walk(v, out, 0)) return "error in the walk";
  return d.at_end() ? out : out + " (trailing content)";
}
}  // namespace

TEST_CASE("SIMD stage 1: on-demand parsers built on it read documents as simdjson's own do") {
  const simdjson::implementation* impl = Sse2Stage1Implementation();
  if (!impl) SUCCEED("this build has no SSE2 stage 1");
  if (!impl) return;
  // A parser whose stage 1 is this one, also natively (and so under the sanitizers): simdjson's
  // parsers take their implementation from the active one when they first allocate.
  simdjson::ondemand::parser mine, theirs;
  const simdjson::implementation* active = simdjson::get_active_implementation();
  simdjson::get_active_implementation() = impl;
  const simdjson::error_code allocated = mine.allocate(1 << 16);
  simdjson::get_active_implementation() = active;
  REQUIRE(allocated == simdjson::SUCCESS);
  REQUIRE(theirs.allocate(1 << 16) == simdjson::SUCCESS);
  Gen gen(7);
  int same_ok = 0, same_error = 0;
  std::string first_mismatch;
  for (int i = 0; i < 2000; ++i) {
    std::string doc = gen.Doc();
    if (i % 2) gen.Break(doc);
    doc = "[" + doc + "]";  // an array around it: a scalar document is not a value to walk
    if (doc.size() >= (1 << 16)) continue;
    const std::string a = Canonical(mine, doc), b = Canonical(theirs, doc);
    if (a == b)
      (a.rfind("error", 0) == 0 ? same_error : same_ok)++;
    else if (first_mismatch.empty())
      first_mismatch = "[" + Escaped(doc) + "]: " + a + " | " + b;
  }
  INFO(first_mismatch);
  CHECK(first_mismatch.empty());
  CHECK(same_ok > 1000);  // every valid document and some of the broken ones
  CHECK(same_error > 300);  // most broken ones fail, with the same error
}
