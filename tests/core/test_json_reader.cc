// Spec §2.1 (JSON value model) and §4.4 through the windowed reader: non-finite tokens, integer vs
// float, big integers, duplicate keys, any window/block size giving the same records, and errors
// that name the file and a byte offset.
#include <catch2/catch.hpp>

#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include <cmath>

#include "base/limits.h"
#include "loader/json_reader.h"
#include "loader/json_records.h"
#include "loader/record_splitter.h"
#include "test_util.h"

using namespace visprobe;
using vptest::TempDir;
using vptest::WriteFile;

namespace {

struct Records {
  Status status;
  std::vector<std::pair<std::string, std::string>> items;  // key, json.dumps(value)
  std::string meta;  // json.dumps(meta) in container mode
};

Records ReadAll(const std::string& path, const std::string& container, size_t window, size_t block) {
  Records out;
  JsonReadOptions o;
  o.container_key = container;
  o.window_bytes = window;
  o.block_bytes = block;
  auto r = ReadJsonRecords(path, o, [&](std::string_view k, const JTree& t, JIdx v) {
    std::string js;
    t.AppendJson(js, v);
    out.items.emplace_back(std::string(k), js);
    return Status::Ok();
  });
  out.status = r.ok() ? Status::Ok() : r.status();
  if (r.ok() && !container.empty()) r->meta.AppendJson(out.meta, r->meta_root);
  return out;
}

// A dump.json-like text with strings that contain braces, quotes, escapes and non-ASCII text.
const char kTricky[] = R"({"task": "statistics", "level": "mix",
  "info": {"data": {"not": "the container"}, "x": [1, {"y": "}"}]},
  "data": {
    "Module.a.A.forward.0": {"input_args": [{"type": "torch.Tensor", "Max": NaN, "Min": -Infinity, "Mean": Infinity, "Norm": 1e-05}], "s": "brace } and { and \" quote"},
    "Tensor.__add__.0.forward": {"k\"ey": "\\", "u": "\u00e9\ud83d\ude00", "nested": [[[], {}], [null, true, false]]},
    "weird , key": [1, 2.5, -3, 12345678901234567890123, "a,b:c"],
    "last": {}
  },
  "framework": "pytorch", "dump_data_dir": null}
)";

}  // namespace

TEST_CASE("§2.1 NaN, Infinity and -Infinity are accepted as floats") {
  auto p = vptest::ParseObject(R"({"a": NaN, "b": Infinity, "c": -Infinity, "d": [NaN, -Infinity, 1], "e":Infinity})");
  REQUIRE(p->status.ok());
  const JTree& t = p->tree;
  REQUIRE(t.Kind(p->Get("a")) == JKind::kFloat);
  CHECK(std::isnan(t.at(p->Get("a")).d));
  CHECK(t.at(p->Get("b")).d == std::numeric_limits<double>::infinity());
  CHECK(t.at(p->Get("c")).d == -std::numeric_limits<double>::infinity());
  CHECK(t.PyStr(p->Get("d")) == "[nan, -inf, 1]");
  CHECK(t.PyStr(p->Get("e")) == "inf");
  std::string js;
  t.AppendJson(js, p->Get("d"));
  CHECK(js == "[NaN, -Infinity, 1]");
}

TEST_CASE("§2.1 integers and floats stay distinct; big integers keep their digits") {
  auto p = vptest::ParseObject(
      R"({"i": 1, "f": 1.0, "e": 1e5, "neg": -7, "i64": 9223372036854775807, "u64": 18446744073709551615,
          "big": 123456789012345678901234567890, "nbig": -123456789012345678901234567890, "z": -0.0})");
  REQUIRE(p->status.ok());
  const JTree& t = p->tree;
  CHECK(t.Kind(p->Get("i")) == JKind::kInt);
  CHECK(t.PyStr(p->Get("i")) == "1");
  CHECK(t.Kind(p->Get("f")) == JKind::kFloat);
  CHECK(t.PyStr(p->Get("f")) == "1.0");
  CHECK(t.PyStr(p->Get("e")) == "100000.0");
  CHECK(t.PyStr(p->Get("neg")) == "-7");
  CHECK(t.PyStr(p->Get("i64")) == "9223372036854775807");
  CHECK(t.PyStr(p->Get("u64")) == "18446744073709551615");
  CHECK(t.PyStr(p->Get("big")) == "123456789012345678901234567890");
  CHECK(t.PyStr(p->Get("nbig")) == "-123456789012345678901234567890");
  CHECK(t.IsNumber(p->Get("big")));
  CHECK(t.Truthy(p->Get("big")));
  std::string js;
  t.AppendJson(js, p->Get("big"));
  CHECK(js == "123456789012345678901234567890");
  CHECK(t.PyStr(p->Get("z")) == "-0.0");
}

TEST_CASE("§2.1 duplicate keys: lookup returns the last value") {
  auto p = vptest::ParseObject(R"({"o": {"x": 1, "y": 2, "x": 3}, "o": {"x": 4}})");
  REQUIRE(p->status.ok());
  JIdx o = p->Get("o");
  REQUIRE(o != kJNone);
  CHECK(p->tree.PyStr(p->tree.Find(o, "x")) == "4");
  auto q = vptest::ParseObject(R"({"o": {"x": 1, "y": 2, "x": 3}})");
  CHECK(q->tree.PyStr(q->tree.Find(q->Get("o"), "x")) == "3");
}

TEST_CASE("§2.1/§2.2 duplicate keys: a dict keeps the first position with the last value") {
  // Python: str(json.loads('{"x": 1, "y": 2, "x": 3}')) == "{'x': 3, 'y': 2}"
  auto q = vptest::ParseObject(R"({"o": {"x": 1, "y": 2, "x": 3}})");
  REQUIRE(q->status.ok());
  CHECK(q->tree.PyStr(q->Get("o")) == "{'x': 3, 'y': 2}");
}

TEST_CASE("§2.1 Python truthiness of JSON values") {
  auto p = vptest::ParseObject(R"({"z": 0, "zf": 0.0, "n": NaN, "s": "", "l": [], "o": {}, "f": false, "nl": null, "one": [0]})");
  REQUIRE(p->status.ok());
  for (const char* k : {"z", "zf", "s", "l", "o", "f", "nl"}) CHECK_FALSE(p->tree.Truthy(p->Get(k)));
  CHECK(p->tree.Truthy(p->Get("n")));
  CHECK(p->tree.Truthy(p->Get("one")));
}

TEST_CASE("json reader: tiny windows and blocks give exactly the records of one big window") {
  TempDir t;
  const std::string path = t / "dump.json";
  WriteFile(path, kTricky);
  Records big = ReadAll(path, "data", 64u << 20, 8u << 20);
  REQUIRE(big.status.ok());
  REQUIRE(big.items.size() == 4);
  CHECK(big.items[0].first == "Module.a.A.forward.0");
  CHECK(big.items[1].first == "Tensor.__add__.0.forward");
  CHECK(big.items[2].first == "weird , key");
  CHECK(big.items[3].first == "last");
  CHECK(big.items[0].second ==
        "{\"input_args\": [{\"type\": \"torch.Tensor\", \"Max\": NaN, \"Min\": -Infinity, \"Mean\": Infinity, "
        "\"Norm\": 1e-05}], \"s\": \"brace } and { and \\\" quote\"}");
  CHECK(big.items[1].second ==
        "{\"k\\\"ey\": \"\\\\\", \"u\": \"\\u00e9\\ud83d\\ude00\", \"nested\": [[[], {}], [null, true, false]]}");
  CHECK(big.items[2].second == "[1, 2.5, -3, 12345678901234567890123, \"a,b:c\"]");
  CHECK(big.items[3].second == "{}");
  // The meta object keeps the other members, with the container replaced.
  CHECK_THAT(big.meta, Catch::Contains("\"task\": \"statistics\""));
  CHECK_THAT(big.meta, Catch::Contains("\"info\": {\"data\": {\"not\": \"the container\"}"));
  CHECK_THAT(big.meta, Catch::Contains("\"framework\": \"pytorch\""));
  CHECK_THAT(big.meta, Catch::Contains("\"dump_data_dir\": null"));

  for (size_t window : {size_t(1), size_t(64)}) {
    for (size_t block : {size_t(1), size_t(7), size_t(64)}) {
      INFO("window " << window << " block " << block);
      Records small = ReadAll(path, "data", window, block);
      REQUIRE(small.status.ok());
      CHECK(small.items == big.items);
      CHECK(small.meta == big.meta);
    }
  }
}

TEST_CASE("json reader: top-level members mode (construct.json / stack.json) with tiny windows") {
  TempDir t;
  const std::string path = t / "construct.json";
  WriteFile(path, "{\"Tensor1\": \"Module1\",\n \"Module1\": null, \"x\": [\"a\", 1], \"y\": {\"z\": \"}\"}}\n");
  Records big = ReadAll(path, "", 1u << 20, 1u << 20);
  REQUIRE(big.status.ok());
  REQUIRE(big.items.size() == 4);
  CHECK(big.items[0] == std::make_pair(std::string("Tensor1"), std::string("\"Module1\"")));
  CHECK(big.items[1] == std::make_pair(std::string("Module1"), std::string("null")));
  CHECK(big.items[3] == std::make_pair(std::string("y"), std::string("{\"z\": \"}\"}")));
  Records small = ReadAll(path, "", 1, 1);
  REQUIRE(small.status.ok());
  CHECK(small.items == big.items);
}

TEST_CASE("json reader: an empty object and a missing container give no records") {
  TempDir t;
  WriteFile(t / "a.json", "{}");
  Records a = ReadAll(t / "a.json", "", 64, 64);
  REQUIRE(a.status.ok());
  CHECK(a.items.empty());
  WriteFile(t / "b.json", "{\"task\": \"tensor\"}");
  Records b = ReadAll(t / "b.json", "data", 64, 64);
  REQUIRE(b.status.ok());
  CHECK(b.items.empty());
  CHECK(b.meta == "{\"task\": \"tensor\"}");
}

TEST_CASE("json reader: a truncated file is an error naming the file and a byte offset") {
  TempDir t;
  const std::string path = t / "dump.json";
  WriteFile(path, "{\"data\": {\"a\": {\"input_args\": [1, 2");
  for (size_t window : {size_t(1), size_t(4u << 20)}) {
    Records r = ReadAll(path, "data", window, 5);
    REQUIRE_FALSE(r.status.ok());
    CHECK_THAT(r.status.message(), Catch::Contains(path));
    CHECK_THAT(r.status.message(), Catch::Contains("@ byte"));
  }
}

TEST_CASE("json reader: trailing garbage is an error at its byte offset") {
  TempDir t;
  const std::string path = t / "stack.json";
  WriteFile(path, "{\"a\": 1} x");
  Records r = ReadAll(path, "", 64, 64);
  REQUIRE_FALSE(r.status.ok());
  CHECK_THAT(r.status.message(), Catch::Contains(path));
  CHECK_THAT(r.status.message(), Catch::Contains("@ byte 9"));
  WriteFile(path, "{\"a\": 1}{\"b\": 2}");
  Records r2 = ReadAll(path, "", 64, 64);
  REQUIRE_FALSE(r2.status.ok());
  CHECK_THAT(r2.status.message(), Catch::Contains("@ byte 8"));
}

TEST_CASE("json reader: a top level that is not an object is an error") {
  TempDir t;
  for (const char* text : {"[1, 2]", "\"abc\"", "42", "null"}) {
    INFO(text);
    const std::string path = t / "x.json";
    WriteFile(path, text);
    Records r = ReadAll(path, "", 64, 64);
    REQUIRE_FALSE(r.status.ok());
    CHECK_THAT(r.status.message(), Catch::Contains(path));
    CHECK_THAT(r.status.message(), Catch::Contains("@ byte"));
  }
  WriteFile(t / "y.json", "  [1]");
  Records r = ReadAll(t / "y.json", "", 64, 64);
  REQUIRE_FALSE(r.status.ok());
  CHECK_THAT(r.status.message(), Catch::Contains("@ byte 2: the top-level value is not a JSON object"));
}

TEST_CASE("json reader: invalid JSON inside a record names the offset of that record") {
  TempDir t;
  const std::string path = t / "dump.json";
  const std::string text = "{\"data\": {\"ok\": 1, \"bad\": {\"x\": tru}}}";
  WriteFile(path, text);
  Records r = ReadAll(path, "data", 1, 64);
  REQUIRE_FALSE(r.status.ok());
  CHECK_THAT(r.status.message(), Catch::Contains(path));
  CHECK_THAT(r.status.message(), Catch::Contains("@ byte " + std::to_string(text.find("\"bad\""))));
}

TEST_CASE("json reader: an empty file and a missing file are errors naming the file") {
  TempDir t;
  WriteFile(t / "empty.json", "");
  Records e = ReadAll(t / "empty.json", "", 64, 64);
  REQUIRE_FALSE(e.status.ok());
  CHECK_THAT(e.status.message(), Catch::Contains(t / "empty.json"));
  Records m = ReadAll(t / "missing.json", "", 64, 64);
  REQUIRE_FALSE(m.status.ok());
  CHECK_THAT(m.status.message(), Catch::Contains(t / "missing.json"));
}

TEST_CASE("record splitter: windows are whole members and respect the window size") {
  std::vector<std::string> windows;
  RecordSplitter s("", 10, [&](std::string& w, const std::vector<RecordOrigin>& o) {
    windows.push_back(w);
    CHECK_FALSE(o.empty());
    return Status::Ok();
  });
  const std::string text = "{\"a\": 1, \"b\": [2, 3], \"c\": {\"d\": \"e,}\"}}";
  for (char c : text) REQUIRE(s.Feed(&c, 1).ok());
  REQUIRE(s.Finish().ok());
  CHECK(s.records() == 3);
  // Every window is a JSON object of whole members.
  std::string all;
  for (const auto& w : windows) {
    auto p = vptest::ParseObject(w);
    CHECK(p->status.ok());
    all += w;
  }
  CHECK_THAT(all, Catch::Contains("\"c\": {\"d\": \"e,}\"}"));
}

namespace {
// Random dump-like JSON whose strings are dense with what the block scan must get right: quotes
// escaped by odd runs of backslashes, even runs before a closing quote, brackets and commas inside
// strings, long strings and deep nesting across 64-byte blocks.
std::string RandomString(std::mt19937& rng) {
  static const char* const kPieces[] = {"a",        "Module.x.forward.0",
                                        "\\\"",     "\\\\",
                                        "\\\\\\\"", "{",
                                        "}",        "[",
                                        "]",        ",",
                                        ":",        " ",
                                        "\\n",      "\\u00e9",
                                        "\\\\\\\\", "0123456789abcdef0123456789abcdef"};
  std::string s = "\"";
  const int n = std::uniform_int_distribution<int>(0, 12)(rng);
  for (int i = 0; i < n; ++i) s += kPieces[std::uniform_int_distribution<int>(0, 15)(rng)];
  return s + "\"";
}
std::string RandomValue(std::mt19937& rng, int depth) {
  const int kind = std::uniform_int_distribution<int>(0, depth > 6 ? 2 : 5)(rng);
  if (kind == 0) return RandomString(rng);
  if (kind == 1) return std::to_string(std::uniform_int_distribution<int>(-99999, 99999)(rng)) + ".5e-3";
  if (kind == 2) return "null";
  const int n = std::uniform_int_distribution<int>(0, 5)(rng);
  std::string s = kind == 3 ? "[" : "{\n ";
  for (int i = 0; i < n; ++i) {
    if (i) s += kind == 3 ? ", " : ",\n ";
    if (kind != 3) s += RandomString(rng) + ": ";
    s += RandomValue(rng, depth + 1);
  }
  return s + (kind == 3 ? "]" : "}");
}
struct SplitResult {
  std::vector<std::string> windows, keys;
  std::vector<uint64_t> file_pos;
  std::string meta, status;
  uint64_t records = 0;
};
SplitResult Split(const std::string& text, const std::string& container, bool keys_only, bool block_scan, std::mt19937& rng,
                  bool scalar_blocks = false) {
  SplitResult r;
  RecordSplitter s(container, 200, [&](std::string& w, const std::vector<RecordOrigin>& o) {
    r.windows.push_back(w);
    for (const auto& x : o) r.file_pos.push_back(x.file_pos);
    return Status::Ok();
  });
  s.SetBlockScan(block_scan);
  s.SetScalarBlocks(scalar_blocks);
  if (keys_only)
    s.SetKeysOnly([&](std::string_view k, uint64_t at) {
      r.keys.emplace_back(k);
      r.file_pos.push_back(at);
      return Status::Ok();
    });
  Status st;
  for (size_t at = 0; at < text.size() && st.ok();) {  // random chunks, mostly long enough for blocks
    const size_t n = std::min(text.size() - at, size_t(std::uniform_int_distribution<int>(1, 700)(rng)));
    st = s.Feed(text.data() + at, n);
    at += n;
  }
  if (st.ok()) st = s.Finish();
  r.status = st.ok() ? "ok" : st.message();
  r.meta = s.meta();
  r.records = s.records();
  return r;
}
}  // namespace

TEST_CASE("record splitter: the 64-byte block scan splits exactly as the byte scan, valid or not") {
  std::mt19937 gen(20261206);
  int compared = 0, failures_seen = 0;
  for (int round = 0; round < 400; ++round) {
    const bool container = round % 2 == 0;
    std::string text = container ? "{\"task\": \"statistics\", \"data\": {" : "{";
    const int records = std::uniform_int_distribution<int>(1, 12)(gen);
    for (int i = 0; i < records; ++i) text += (i ? ",\n" : "\n") + RandomString(gen) + ": " + RandomValue(gen, 0);
    text += container ? "}, \"dump_data_dir\": null}" : "}";
    if (round % 5 == 4) {  // damaged: a byte replaced, or the text cut
      const size_t at = std::uniform_int_distribution<size_t>(0, text.size() - 1)(gen);
      if (round % 10 == 4)
        text[at] = "\\\"{}[],x"[std::uniform_int_distribution<int>(0, 7)(gen)];
      else
        text.resize(at);
    }
    for (bool keys_only : {false, true}) {
      INFO("round " << round << " keys_only " << keys_only << " text " << text);
      std::mt19937 a(round), b(round), c(round);  // the same chunking every way
      const SplitResult bytes = Split(text, container ? "data" : "", keys_only, false, a);
      // The block scan with the SSE2 byte classes (where the build has SSE2), and with the
      // one-byte-at-a-time classes of a build without it.
      for (bool scalar : {false, true}) {
        INFO("scalar classes " << scalar);
        const SplitResult blocks = Split(text, container ? "data" : "", keys_only, true, scalar ? c : b, scalar);
        CHECK(blocks.status == bytes.status);
        CHECK(blocks.windows == bytes.windows);
        CHECK(blocks.keys == bytes.keys);
        CHECK(blocks.file_pos == bytes.file_pos);
        CHECK(blocks.meta == bytes.meta);
        CHECK(blocks.records == bytes.records);
      }
      ++compared;
      if (bytes.status != "ok") ++failures_seen;
    }
  }
  CHECK(compared == 800);
  CHECK(failures_seen > 20);  // the damaged texts did reach the error paths
}

TEST_CASE("record splitter: the block scan stops at the nesting limit and at the value's end") {
  // Deeper than the limit inside one record, in a text long enough for blocks: the same error.
  std::string deep = "{\"data\": {\"k\": ";
  for (int i = 0; i < kMaxJsonDepth + 5; ++i) deep += "[";
  for (int i = 0; i < kMaxJsonDepth + 5; ++i) deep += "]";
  deep += "}}";
  std::string err[2];
  for (int on = 0; on < 2; ++on) {
    RecordSplitter s("data", 1 << 20, [](std::string&, const std::vector<RecordOrigin>&) { return Status::Ok(); });
    s.SetBlockScan(on == 1);
    Status st = s.Feed(deep.data(), deep.size());
    err[on] = st.ok() ? "ok" : st.message();
  }
  CHECK_THAT(err[1], Catch::Contains("nesting deeper than the limit"));
  CHECK(err[1] == err[0]);
  // A record value of 100 KB of strings with brackets: one window, whole.
  std::string big = "{\"data\": {\"a\": [";
  for (int i = 0; i < 3000; ++i) big += (i ? ", " : "") + std::string("\"x}]\\\\\\\"{[,\"");
  big += "], \"b\": 1}}";
  std::vector<std::string> windows;
  RecordSplitter s("data", 1, [&](std::string& w, const std::vector<RecordOrigin>&) {
    windows.push_back(w);
    return Status::Ok();
  });
  REQUIRE(s.Feed(big.data(), big.size()).ok());
  REQUIRE(s.Finish().ok());
  REQUIRE(windows.size() == 2);
  CHECK(windows[0] == "{" + big.substr(10, big.size() - 10 - 10) + "}");
  CHECK(windows[1] == "{\"b\": 1}");
}

namespace {
std::vector<std::string> ScanKeys(const std::string& path, const std::string& container, size_t window, size_t block,
                                  Status* st) {
  std::vector<std::string> keys;
  JsonReadOptions o;
  o.container_key = container;
  o.window_bytes = window;
  o.block_bytes = block;
  auto r = ScanJsonKeys(path, o, [&](std::string_view k, uint64_t) {
    keys.emplace_back(k);
    return Status::Ok();
  });
  *st = r.ok() ? Status::Ok() : r.status();
  return keys;
}
}  // namespace

TEST_CASE("json reader: the key scan gives the decoded record keys of the full read") {
  TempDir t;
  const std::string path = t / "dump.json";
  WriteFile(path, kTricky);
  Status st;
  auto keys = ScanKeys(path, "data", 4u << 20, 8u << 20, &st);
  REQUIRE(st.ok());
  CHECK(keys == std::vector<std::string>{"Module.a.A.forward.0", "Tensor.__add__.0.forward", "weird , key", "last"});
  WriteFile(t / "esc.json", R"({"data": {"k\"ey": 1, "caf\u00e9": 2, "tab\t": 3}})");
  auto esc = ScanKeys(t / "esc.json", "data", 4u << 20, 3, &st);
  REQUIRE(st.ok());
  CHECK(esc == std::vector<std::string>{"k\"ey", "caf\xC3\xA9", "tab\t"});
  WriteFile(t / "bad.json", R"({"data": {"a": 1} x)");
  ScanKeys(t / "bad.json", "data", 4u << 20, 8u << 20, &st);
  CHECK_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains(t / "bad.json"));
}

TEST_CASE("json reader: the key scan works with any window size (many records)") {
  // One member per record; the scan keeps no windows, so the window size must not matter.
  TempDir t;
  const std::string path = t / "dump.json";
  std::string text = "{\"task\": \"statistics\", \"data\": {";
  std::vector<std::string> expected;
  for (int i = 0; i < 200; ++i) {
    std::string k = "Torch.op" + std::to_string(i) + ".0.forward";
    expected.push_back(k);
    text += (i ? ", \"" : "\"") + k + "\": {\"input_args\": [1]}";
  }
  text += "}}";
  WriteFile(path, text);
  for (size_t window : {size_t(1), size_t(64), size_t(4u << 20)}) {
    INFO("window " << window);
    Status st;
    std::vector<std::string> keys;
    CHECK_NOTHROW(keys = ScanKeys(path, "data", window, 64, &st));
    CHECK(st.ok());
    CHECK(keys == expected);
  }
}

TEST_CASE("parallel windows: the same records as one thread, and the first failing window decides the error") {
  vptest::TempDir t;
  std::string dump = vptest::WorkedExampleDir("npu") + "/dump.json";
  auto collect = [&](int workers, size_t window) {
    std::vector<std::string> keys;
    std::mutex mu;
    JsonReadOptions o;
    o.container_key = "data";
    o.window_bytes = window;
    auto r = ReadJsonRecordsParallel(dump, o, workers, [&](int, std::string_view k, uint64_t pos, const JTree&, JIdx) {
      std::lock_guard<std::mutex> g(mu);
      keys.push_back(std::string(k) + "@" + std::to_string(pos));
      return Status::Ok();
    });
    REQUIRE(r.ok());
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  auto one = collect(1, 64);
  CHECK(one.size() == 8);
#ifndef __EMSCRIPTEN__  // the browser build has no threads; its reader runs the one-thread path
  CHECK(collect(2, 64) == one);
  CHECK(collect(3, 1) == one);
#endif
  // A broken record: the error names the file and the same byte whatever the worker count.
  std::string text = vptest::ReadFile(dump);
  text.replace(text.find("\"Max\": 0.5"), 10, "\"Max\": 0.5.5");
  vptest::WriteFile(t / "dump.json", text);
  JsonReadOptions o;
  o.container_key = "data";
  o.window_bytes = 1;
  auto fn = [](int, std::string_view, uint64_t, const JTree&, JIdx) { return Status::Ok(); };
  auto a = ReadJsonRecordsParallel(t / "dump.json", o, 1, fn);
#ifndef __EMSCRIPTEN__
  auto b = ReadJsonRecordsParallel(t / "dump.json", o, 3, fn);
#else
  auto b = ReadJsonRecordsParallel(t / "dump.json", o, 1, fn);
#endif
  REQUIRE_FALSE(a.ok());
  REQUIRE_FALSE(b.ok());
  CHECK(a.status().message() == b.status().message());
  CHECK(a.status().message().find("dump.json @ byte") != std::string::npos);
  // Two windows fail: the first in the file must decide even when a later one, already being parsed,
  // fails after it. Each window is a slow record (its callback sleeps) and a broken one; the first
  // window's failure comes after 50 ms, the second's after 300 ms.
  std::string pad(200, 'x');
  std::string two = "{\"data\": {";
  for (int w = 0; w < 2; ++w)
    two += std::string(w ? ", " : "") + "\"r" + std::to_string(w) + "a\": {\"p\": \"" + pad + "\"}, \"r" + std::to_string(w) +
           "b\": {\"input\": [1.5.5]}";
  // Then enough valid windows that the splitter is still waiting for queue space when one fails.
  for (int r = 2; r < 60; ++r) two += ", \"r" + std::to_string(r) + "\": {\"p\": \"" + pad + "\"}";
  two += "}}";
  vptest::WriteFile(t / "two.json", two);
  JsonReadOptions ow = o;
  ow.window_bytes = 230;  // r0a alone is shorter: each window holds an "a" and a "b" record
  int ms0 = 50, ms1 = 300;
  auto slow = [&ms0, &ms1](int, std::string_view k, uint64_t, const JTree&, JIdx) {
    if (k == "r0a") std::this_thread::sleep_for(std::chrono::milliseconds(ms0));
    if (k == "r1a") std::this_thread::sleep_for(std::chrono::milliseconds(ms1));
    if (k.size() > 1 && k.back() != 'a') std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the rest: slow too
    return Status::Ok();
  };
  auto first = ReadJsonRecordsParallel(t / "two.json", ow, 1, slow);
  REQUIRE_FALSE(first.ok());
  const size_t r0b = two.find("\"r0b\"");
  INFO(first.status().message());
  CHECK(first.status().message().find("two.json @ byte " + std::to_string(r0b) + ":") != std::string::npos);
#ifndef __EMSCRIPTEN__
  auto par = ReadJsonRecordsParallel(t / "two.json", ow, 3, slow);
  REQUIRE_FALSE(par.ok());
  CHECK(par.status().message() == first.status().message());
  // The other order: the later window fails first and cancels the queue while the first window is
  // still being parsed; its failure, when it comes, decides.
  ms0 = 300;
  ms1 = 50;
  auto swapped = ReadJsonRecordsParallel(t / "two.json", ow, 3, slow);
  REQUIRE_FALSE(swapped.ok());
  CHECK(swapped.status().message() == first.status().message());
#endif
}

TEST_CASE("json reader: the text probe (md5 keys) finds the needle at every offset, across block seams, and only there") {
  TempDir t;
  const std::string path = t / "dump.json";
  JsonReadOptions o;
  o.container_key = "data";
  o.find_text = "\"md5\"";
  // Near misses everywhere ("md5 and md6", a quote on one side only), the real key at offset k.
  const std::string filler = R"("Max": 1.5, "md": "md55", "md5x": "xmd5", "m_d5": 5, )";
  for (size_t k = 0; k < 70; ++k) {
    for (bool with : {false, true}) {
      std::string rec = "{\"data\": {\"r\": {" + std::string(k, ' ') + filler + filler;
      rec += with ? "\"md5\": \"ab\"" : "\"md6\": \"ab\"";
      rec += ", " + filler + "\"z\": 0}}}";
      WriteFile(path, rec);
      for (size_t block : {size_t(7), size_t(16), size_t(33), size_t(8) << 20}) {
        o.block_bytes = block;
        auto r = ScanJsonKeys(path, o, [](std::string_view, uint64_t) { return Status::Ok(); });
        REQUIRE(r.ok());
        INFO("offset " << k << ", block " << block);
        CHECK(r->found_text == with);
      }
    }
  }
}
