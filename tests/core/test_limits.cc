// Input limits (base/limits.h, issue #8): each one fails with one message naming the file and the
// limit, and an input exactly at the limit still loads. The string and depth limits are tested
// at their real values; the others, whose real values need gigabytes, with lowered limits
// through the same options the engine passes the constants in.
#include <catch2/catch.hpp>

#include "base/limits.h"
#include "graph/builder.h"
#include "layout/layout.h"
#include "loader/json_reader.h"
#include "loader/json_records.h"
#include "test_util.h"

using namespace visprobe;
using vptest::BuildFromTexts;
using vptest::DumpWithData;
using vptest::TempDir;
using vptest::WriteFile;

// What README "Limits" promises: nothing a real large dump reaches.
static_assert(kMaxGraphNodes >= 10 * 10000000ull, "node limit well above 10 million");
static_assert(kMaxJsonStringBytes > (1u << 20), "string limit above 1 MiB");
static_assert(kMaxJsonRecordBytes >= 8 * kMaxJsonStringBytes, "a record holds several strings at the limit");

namespace {

#ifndef __EMSCRIPTEN__
constexpr int kThreads = 2;
#else
constexpr int kThreads = 1;  // the browser build has no threads; its reader runs the one-thread path
#endif

const char kConstruct[] = "{\"Module.a.A.forward.0\": null}";

std::string Nested(int levels) {
  return std::string(static_cast<size_t>(levels), '[') + std::string(static_cast<size_t>(levels), ']');
}

Status ReadAll(const std::string& path, const JsonReadOptions& o) {
  auto r = ReadJsonRecords(path, o, [](std::string_view, const JTree&, JIdx) { return Status::Ok(); });
  return r.ok() ? Status::Ok() : r.status();
}

Status ScanAll(const std::string& path, const JsonReadOptions& o) {
  auto r = ScanJsonKeys(path, o, [](std::string_view, uint64_t) { return Status::Ok(); });
  return r.ok() ? Status::Ok() : r.status();
}

Status ReadParallel(const std::string& path, const JsonReadOptions& o) {
  auto r = ReadJsonRecordsParallel(path, o, kThreads,
                                   [](int, std::string_view, uint64_t, const JTree&, JIdx) { return Status::Ok(); });
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace

TEST_CASE("limits: a string longer than kMaxJsonStringBytes names the file and the limit", "[limits]") {
  TempDir t;
  const std::string at_limit(kMaxJsonStringBytes, 'x');
  const std::string over(kMaxJsonStringBytes + 1, 'x');
  const std::string limit_text = "a string longer than the limit of " + std::to_string(kMaxJsonStringBytes) + " bytes";
  const std::string key_text = "longer than the limit of " + std::to_string(kMaxJsonStringBytes) + " bytes";
  SECTION("a dtype string in dump.json") {
    auto dump = [](const std::string& dtype) {
      return DumpWithData("{\"Module.a.A.forward.0\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"" + dtype +
                          "\", \"shape\": [1]}]}}");
    };
    REQUIRE(BuildFromTexts(t / "ok", kConstruct, dump(at_limit), "{}").ok());
    auto r = BuildFromTexts(t / "bad", kConstruct, dump(over), "{}");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::StartsWith("load json file \"dump.json\" failed. " + t / "bad/dump.json @ byte"));
    CHECK_THAT(r.status().message(), Catch::Contains(limit_text));
  }
  SECTION("a node name (a key) in construct.json") {
    auto r = BuildFromTexts(t / "bad", "{\"" + over + "\": null}", DumpWithData("{}"), "{}");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(),
               Catch::StartsWith("load json file \"construct.json\" failed. " + t / "bad/construct.json @ byte"));
    CHECK_THAT(r.status().message(), Catch::Contains(key_text));
  }
  SECTION("a record key of dump.json, read keys-only, with escapes") {
    // Escaped: the raw text is twice as long as the decoded name; only the decoded length counts.
    std::string escaped;
    for (size_t i = 0; i < kMaxJsonStringBytes; ++i) escaped += "\\/";
    auto ok = BuildFromTexts(t / "ok", kConstruct, DumpWithData("{\"" + escaped + "\": {}}"), "{}");
    REQUIRE(ok.ok());
    auto r = BuildFromTexts(t / "bad", kConstruct, DumpWithData("{\"" + escaped + "a\": {}}"), "{}");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains(t / "bad/dump.json @ byte"));
    CHECK_THAT(r.status().message(), Catch::Contains(key_text));
  }
  SECTION("a stack frame in stack.json") {
    auto r = BuildFromTexts(t / "bad", kConstruct, DumpWithData("{}"), "{\"Module.a.A.forward.0\": [\"" + over + "\"]}");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::StartsWith("load json file \"stack.json\" failed. " + t / "bad/stack.json @ byte"));
    CHECK_THAT(r.status().message(), Catch::Contains(limit_text));
  }
}

TEST_CASE("limits: nesting deeper than kMaxJsonDepth names the file and the limit", "[limits]") {
  TempDir t;
  const std::string limit_text = "JSON nesting deeper than the limit of " + std::to_string(kMaxJsonDepth) + " levels";
  const std::string ok_path = t / "ok.json", bad_path = t / "bad.json";
  WriteFile(ok_path, "{\"task\": 1, \"data\": {\"a\": " + Nested(kMaxJsonDepth) + "}}");
  WriteFile(bad_path, "{\"task\": 1, \"data\": {\"a\": " + Nested(kMaxJsonDepth + 1) + "}}");
  JsonReadOptions o;
  o.container_key = "data";
  REQUIRE(ReadAll(ok_path, o).ok());
  REQUIRE(ScanAll(ok_path, o).ok());
  for (const Status& s : {ReadAll(bad_path, o), ScanAll(bad_path, o), ReadParallel(bad_path, o)}) {
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::StartsWith(bad_path + " @ byte"));
    CHECK_THAT(s.message(), Catch::Contains(limit_text));
  }
}

TEST_CASE("limits: a record larger than max_record_bytes names the file, its offset and the limit", "[limits]") {
  TempDir t;
  JsonReadOptions o;
  o.container_key = "data";
  o.max_record_bytes = 1000;
  const size_t block = GENERATE(size_t(7), size_t(8) << 20);  // the check holds at any read size
  CAPTURE(block);
  o.block_bytes = block;
  const std::string small = "\"small\": [" + std::string(900, ' ') + "1]";
  const std::string big = "\"big\": [" + std::string(1100, ' ') + "1]";
  WriteFile(t / "ok.json", "{\"data\": {" + small + ", " + small + "}}");
  WriteFile(t / "bad.json", "{\"data\": {" + small + ", " + big + "}}");
  WriteFile(t / "meta.json", "{\"task\": \"" + std::string(1100, 'm') + "\", \"data\": {" + small + "}}");
  REQUIRE(ReadAll(t / "ok.json", o).ok());
  REQUIRE(ScanAll(t / "ok.json", o).ok());
  const uint64_t big_at = std::string("{\"data\": {" + small + ", ").size();
  for (const Status& s : {ReadAll(t / "bad.json", o), ScanAll(t / "bad.json", o), ReadParallel(t / "bad.json", o)}) {
    REQUIRE_FALSE(s.ok());
    CHECK(s.message() == t / "bad.json" + " @ byte " + std::to_string(big_at) +
                             ": the member starting here is larger than the limit of 1000 bytes for one member");
  }
  Status m = ScanAll(t / "meta.json", o);
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(m.message(), Catch::Contains("the members next to \"data\" are larger than the limit of 1000 bytes"));
  CHECK_THAT(m.message(), Catch::StartsWith(t / "meta.json @ byte"));
}

TEST_CASE("limits: the real record limit is kMaxJsonRecordBytes", "[limits]") {
  JsonReadOptions o;
  CHECK(o.max_record_bytes == kMaxJsonRecordBytes);
  CHECK(o.max_string_bytes == kMaxJsonStringBytes);
  CHECK(o.max_record_values == kMaxJsonRecordValues);
  CHECK(BuildOptions().max_nodes == kMaxGraphNodes);
  CHECK(PlanLimits().max_ranks == kMaxRanksPerStep);
  CHECK(PlanLimits().max_steps == kMaxStepsPerRun);
}

TEST_CASE("limits: a record with more than max_record_values values names the file and the limit", "[limits]") {
  TempDir t;
  JsonReadOptions o;
  o.max_record_values = 100;
  auto list = [](int n) {  // n elements: n + 1 values with the list itself
    std::string l = "[0";
    for (int i = 1; i < n; ++i) l += ",0";
    return l + "]";
  };
  const std::string list99 = list(99), list100 = list(100);
  WriteFile(t / "ok.json", "{\"a\": " + list99 + ", \"b\": " + list99 + "}");
  WriteFile(t / "bad.json", "{\"a\": " + list99 + ", \"b\": " + list100 + "}");
  REQUIRE(ReadAll(t / "ok.json", o).ok());
  Status s = ReadAll(t / "bad.json", o);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::StartsWith(t / "bad.json @ byte"));
  CHECK_THAT(s.message(), Catch::Contains("the member holds more than the limit of 100 values"));
}

TEST_CASE("limits: a graph with more than max_nodes nodes names the file and the limit", "[limits]") {
  TempDir t;
  BuildOptions o;
  o.max_nodes = 5;
  o.threads = GENERATE(1, kThreads);
  CAPTURE(o.threads);
  auto construct = [](int n, bool with_parents) {
    std::string s = "{";
    for (int i = 0; i < n; ++i)
      s += (i ? ", " : "") + std::string("\"Module.m") + std::to_string(i) +
           ".M.forward.0\": " + (with_parents ? "\"Module.p" + std::to_string(i) + ".P.forward.0\"" : std::string("null"));
    return s + "}";
  };
  auto data = [](int n) {
    std::string s = "{";
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::string("\"Torch.add.") + std::to_string(i) + ".forward\": {}";
    return s + "}";
  };
  // The root plus four nodes: at the limit.
  REQUIRE(BuildFromTexts(t / "ok", construct(4, false), DumpWithData(data(5)), "{}", o).ok());
  const std::string tail = ", the limit of nodes in one graph.";
  SECTION("construct.json entries") {
    auto r = BuildFromTexts(t / "bad", construct(6, false), DumpWithData("{}"), "{}", o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() ==
          "load json file \"construct.json\" failed. " + t / "bad/construct.json" + " holds more than 5 entries" + tail);
  }
  SECTION("parents named only as parents") {
    auto r = BuildFromTexts(t / "bad", construct(3, true), DumpWithData("{}"), "{}", o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() == t / "bad/construct.json" + " holds more than 5 nodes" + tail);
  }
  SECTION("dump.json records") {
    auto r = BuildFromTexts(t / "bad", construct(1, false), DumpWithData(data(6)), "{}", o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() ==
          "load json file \"dump.json\" failed. " + t / "bad/dump.json" + " holds more than 5 records" + tail);
  }
}

TEST_CASE("limits: more rank or step folders than the plan limits names the folder and the limit", "[limits]") {
  TempDir t;
  auto rank = [](const std::string& dir) {
    WriteFile(dir + "/construct.json", kConstruct);
    WriteFile(dir + "/dump.json", "{}");
    WriteFile(dir + "/stack.json", "{}");
  };
  PlanLimits limits;
  limits.max_ranks = 3;
  limits.max_steps = 2;
  for (int r = 0; r < 3; ++r) rank(t / "ranks/rank" + std::to_string(r));
  for (int s = 0; s < 2; ++s) rank(t / "steps/step" + std::to_string(s) + "/rank0");
  REQUIRE(PlanRun(t / "ranks", "", limits).ok());
  REQUIRE(PlanRun(t / "steps", "", limits).ok());
  rank(t / "ranks/rank3");
  rank(t / "steps/step2/rank0");
  auto ranks = PlanRun(t / "ranks", "", limits);
  REQUIRE_FALSE(ranks.ok());
  CHECK(ranks.status().message() == "The path " + t / "ranks" + " holds 4 rank folders, more than the limit of 3.");
  auto steps = PlanRun(t / "steps", "", limits);
  REQUIRE_FALSE(steps.ok());
  CHECK(steps.status().message() == "The path " + t / "steps" + " holds 3 step folders, more than the limit of 2.");
  auto compare = PlanRun(t / "ranks", t / "ranks", limits);
  REQUIRE_FALSE(compare.ok());
  CHECK(compare.status().message() == ranks.status().message());
}
