// The trend importer (trend-analyzer.md §2-§8, §13): value rules, CSV reader, tags, and whole
// imports of tiny dump / monitor folders written to a temp dir, read back with SQLite.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "base/strings.h"
#include "test_util.h"
#include "trend/csv.h"
#include "trend/dump_import.h"
#include "trend/monitor_import.h"
#include "trend/tags.h"
#include "trend/trend_import.h"
#include "trend/values.h"

using namespace visprobe;
using vptest::kNull;
using vptest::Query;
using vptest::RecordingReporter;
using vptest::Rows;
using vptest::TempDir;
using vptest::WriteFile;

namespace {

// ---- JSON text builders ------------------------------------------------------------------------

std::string Tensor(const std::string& stats, const std::string& dtype = "torch.float32",
                   const std::string& type = "torch.Tensor") {
  return "{\"type\": \"" + type + "\", \"dtype\": \"" + dtype + "\", \"shape\": [2, 2], " + stats + ", \"requires_grad\": true}";
}

// A float32 tensor whose statistics are all derived from `x`: Norm x, Max x/2, Min -x/4, Mean x/8.
std::string T(double x) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "\"Norm\": %.17g, \"Max\": %.17g, \"Min\": %.17g, \"Mean\": %.17g", x, x / 2, -x / 4, x / 8);
  return Tensor(buf);
}

const std::string kT = T(1.0);
const std::string kInt = Tensor("\"Norm\": 3, \"Max\": 3, \"Min\": 3, \"Mean\": 3", "torch.int64");

// "$T" -> a default float tensor, "$I" -> an int64 tensor (not eligible).
std::string J(std::string s) {
  s = ReplaceAll(s, "$T", kT);
  return ReplaceAll(s, "$I", kInt);
}

std::string DumpJson(const std::string& data_members) { return vptest::DumpWithData("{" + data_members + "}"); }

std::string Fwd(const std::string& ins, const std::string& outs) {
  return "{\"input_args\": [" + ins + "], \"input_kwargs\": {}, \"output\": [" + outs + "]}";
}
std::string Bwd(const std::string& ins, const std::string& outs) {
  return "{\"input\": [" + ins + "], \"output\": [" + outs + "]}";
}
std::string M(const std::string& key, const std::string& value) { return "\"" + key + "\": " + value; }

// Issue 47: a message and every message nested in it carry an id (the page translates by id).
bool HasIds(const Message& m) {
  if (m.id() == msg::kNone) return false;
  for (const auto& a : m.args())
    if (a.nested && !HasIds(*a.nested)) return false;
  return true;
}

// ---- a data / db folder pair -------------------------------------------------------------------

struct Trend {
  TempDir dir;
  RecordingReporter rep;
  TrendOptions opts;

  Trend() {
    vptest::MakeDir(data());
    vptest::MakeDir(db());
    opts.data_dir = data();
    opts.db_dir = db();
    opts.created_utc = "2024-01-01T00:00:00Z";
  }
  std::string data() const { return dir / "data"; }
  std::string db() const { return dir / "db"; }
  std::string dump_db() const { return dir / "db/dump_data.trend.db"; }
  std::string monitor_db() const { return dir / "db/monitor_data.trend.db"; }

  // step<s>/<folder>/dump.json (+ construct.json unless null).
  void Rank(int step, const std::string& folder, const std::string& dump, const char* construct = "{}") {
    std::string d = data() + "/step" + std::to_string(step) + "/" + folder;
    WriteFile(d + "/dump.json", dump);
    if (construct) WriteFile(d + "/construct.json", construct);
    WriteFile(d + "/stack.json", "{}");
  }
  void Csv(const std::string& folder, const std::string& file, const std::string& text) {
    WriteFile(data() + "/" + folder + "/" + file, text);
  }

  Result<TrendImportResult> Dump(bool micro = true, const std::string& format = "auto") {
    opts.micro_step = micro;
    opts.format = format;
    return ImportDumpTrend(opts, rep);
  }
  Result<TrendImportResult> Monitor(bool micro = true, int threads = 1) {
    opts.micro_step = micro;
    opts.process_num = threads;
    return ImportMonitorTrend(opts, rep);
  }

  bool Logged(LogLevel level, const std::string& text) const {
    for (const auto& l : rep.lines)
      if (l.level == level && l.msg == text) return true;
    return false;
  }
  bool LoggedContaining(LogLevel level, const std::string& part) const {
    for (const auto& l : rep.lines)
      if (l.level == level && l.msg.find(part) != std::string::npos) return true;
    return false;
  }
  bool AllLoggedHaveIds() const {
    for (const auto& m : rep.messages)
      if (!HasIds(m)) return false;
    return true;
  }
  std::string Log() const {
    std::string s;
    for (const auto& l : rep.lines) s += std::string(LogLevelName(l.level)) + " " + l.msg + "\n";
    return s;
  }
};

// Rows of a dump database as "rank|step|metric|target|micro|norm|max|min|mean", sorted.
std::vector<std::string> DumpRows(const std::string& db) {
  Rows rows = Query(db,
                    "SELECT d.rank, d.step, m.metric_name, t.target_name, t.micro_step, d.norm, d.max, d.min, d.mean "
                    "FROM trend_data d JOIN monitoring_targets t USING (target_id) "
                    "JOIN monitoring_metrics m USING (metric_id) ORDER BY 1, 2, 3, 4, 5");
  std::vector<std::string> out;
  for (const auto& r : rows) {
    std::string s;
    for (size_t i = 0; i < r.size(); ++i) s += (i ? "|" : "") + r[i];
    out.push_back(s);
  }
  return out;
}

// "rank|step|metric|target|micro" only.
std::vector<std::string> DumpKeys(const std::string& db) {
  Rows rows = Query(db,
                    "SELECT d.rank, d.step, m.metric_name, t.target_name, t.micro_step "
                    "FROM trend_data d JOIN monitoring_targets t USING (target_id) "
                    "JOIN monitoring_metrics m USING (metric_id) ORDER BY 1, 2, 3, 4, 5");
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r[0] + "|" + r[1] + "|" + r[2] + "|" + r[3] + "|" + r[4]);
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// "name|vpp|micro" of every target, by id.
std::vector<std::string> Targets(const std::string& db) {
  std::vector<std::string> out;
  for (const auto& r : Query(db, "SELECT target_name, vpp_stage, micro_step FROM monitoring_targets ORDER BY target_id"))
    out.push_back(r[0] + "|" + r[1] + "|" + r[2]);
  return out;
}

// global_stats as column -> text.
std::map<std::string, std::string> GlobalStats(const std::string& db) {
  Rows cols = Query(db, "SELECT name FROM pragma_table_info('global_stats') ORDER BY cid");
  Rows vals = Query(db, "SELECT * FROM global_stats");
  REQUIRE(vals.size() == 1);
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < cols.size(); ++i) out[cols[i][0]] = vals[0][i];
  return out;
}

std::vector<std::string> TableColumns(const std::string& db, const std::string& table) {
  return vptest::Column(Query(db, "SELECT name FROM pragma_table_info('" + table + "') ORDER BY cid"));
}

// Every table's rows, for whole-database comparisons.
std::map<std::string, Rows> AllTables(const std::string& db) {
  std::map<std::string, Rows> out;
  for (const auto& t : Query(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
    std::string order;
    size_t n = TableColumns(db, t[0]).size();
    for (size_t i = 1; i <= n; ++i) order += (i > 1 ? ", " : "") + std::to_string(i);
    out[t[0]] = Query(db, "SELECT * FROM \"" + t[0] + "\" ORDER BY " + order);
  }
  return out;
}

std::optional<double> JsonStat(const std::string& value_json) {
  auto p = vptest::ParseObject("{\"v\": " + value_json + "}");
  REQUIRE(p->status.ok());
  return NormalizeJsonStat(p->tree, p->Get("v"));
}

std::vector<std::pair<std::string, std::string>> TagPairs(const std::vector<TrendTag>& tags) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& t : tags) out.emplace_back(t.category, t.name);
  std::sort(out.begin(), out.end());
  return out;
}

using TagList = std::vector<std::pair<std::string, std::string>>;  // (category, name)
TagList Tags(TagList t) {
  std::sort(t.begin(), t.end());
  return t;
}

// All records of a CSV text; an error message as the only record's only field on failure.
std::vector<std::vector<std::string>> ReadCsv(const std::string& text, std::string* error = nullptr) {
  CsvReader r(text);
  std::vector<std::string_view> f;
  std::vector<std::vector<std::string>> out;
  for (;;) {
    auto more = r.Next(f);
    if (!more.ok()) {
      if (error) *error = more.status().message();
      return out;
    }
    if (!more.value()) break;
    out.emplace_back(f.begin(), f.end());
  }
  return out;
}

using Recs = std::vector<std::vector<std::string>>;

#ifdef __EMSCRIPTEN__
const std::vector<int> kThreadCounts{1};  // the browser build has no threads: one-thread path only
#else
const std::vector<int> kThreadCounts{1, 4, 3};
#endif

}  // namespace

// =============================================================================================
// §6 value normalisation
// =============================================================================================

TEST_CASE("§6 reference vectors of the value normalisation", "[trend]") {
  CHECK(JsonStat("3.14") == 3.14);
  CHECK(JsonStat("42") == 42.0);
  CHECK(JsonStat("0") == 0.0);
  CHECK(JsonStat("-5.5") == -5.5);
  CHECK(JsonStat("\"  3.14  \"") == 3.14);
  CHECK(JsonStat("\"42\"") == 42.0);
  CHECK(JsonStat("\"-1.5\"") == -1.5);
  CHECK_FALSE(JsonStat("\"not_a_number\""));
  CHECK_FALSE(JsonStat("null"));
  CHECK_FALSE(JsonStat("[1, 2, 3]"));
  CHECK(JsonStat("1000001000") == 1e9);
  CHECK(JsonStat("1000001000.0") == 1e9);
  CHECK(JsonStat("-1000001000") == -1e9);
}

TEST_CASE("§6 sentinels, booleans, objects, exponent forms and big integers", "[trend]") {
  CHECK(JsonStat("Infinity") == 1000000001.0);
  CHECK(JsonStat("-Infinity") == -1000000001.0);
  CHECK_FALSE(JsonStat("NaN"));
  CHECK(JsonStat("true") == 1.0);
  CHECK(JsonStat("false") == 0.0);
  CHECK_FALSE(JsonStat("{\"a\": 1}"));
  CHECK_FALSE(JsonStat("{}"));
  CHECK(JsonStat("5e12") == 1e9);
  CHECK(JsonStat("-5e12") == -1e9);
  CHECK(JsonStat("1e9") == 1e9);
  CHECK(JsonStat("-1e9") == -1e9);
  CHECK(JsonStat("999999999.5") == 999999999.5);
  CHECK(JsonStat("2.5e-3") == 0.0025);
  CHECK(JsonStat("12345678901234567890") == 1e9);
  CHECK(JsonStat("-12345678901234567890") == -1e9);
  CHECK(JsonStat("\"inf\"") == 1000000001.0);
  CHECK(JsonStat("\"-Infinity\"") == -1000000001.0);
  CHECK(JsonStat("\" INF \"") == 1000000001.0);
  CHECK_FALSE(JsonStat("\"nan\""));
  CHECK_FALSE(JsonStat("\"NaN\""));
  CHECK(JsonStat("\"1e3\"") == 1000.0);
  CHECK(JsonStat("\"5e12\"") == 1e9);
  CHECK_FALSE(JsonStat("\"\""));
  CHECK(JsonStat("\"  -2 \"") == -2.0);
}

TEST_CASE("§6 ClipTrendValue", "[trend]") {
  CHECK(ClipTrendValue(HUGE_VAL) == kTrendPosInf);
  CHECK(ClipTrendValue(-HUGE_VAL) == kTrendNegInf);
  CHECK(kTrendPosInf == 1000000001.0);
  CHECK(kTrendNegInf == -1000000001.0);
  CHECK_FALSE(ClipTrendValue(std::nan("")));
  CHECK(ClipTrendValue(1e9 + 0.5) == 1e9);
  CHECK(ClipTrendValue(-1e9 - 0.5) == -1e9);
  CHECK(ClipTrendValue(1e9) == 1e9);
  CHECK(ClipTrendValue(-0.0) == 0.0);
  CHECK(ClipTrendValue(123.25) == 123.25);
  CHECK(ClipTrendValue(1e300) == 1e9);
  CHECK(ClipTrendValue(-1e300) == -1e9);
}

TEST_CASE("ParsePyFloat follows Python's float()", "[trend]") {
  auto is = [](const char* s, double v) {
    auto r = ParsePyFloat(s);
    CAPTURE(s);
    REQUIRE(r);
    CHECK(*r == v);
  };
  auto bad = [](const char* s) {
    CAPTURE(s);
    CHECK_FALSE(ParsePyFloat(s));
  };
  is("1", 1.0);
  is("-0", -0.0);
  is("+1.5", 1.5);
  is("  \t2.5\n ", 2.5);
  is(".5", 0.5);
  is("5.", 5.0);
  is("1e5", 1e5);
  is("1E+05", 1e5);
  is("2.5e-3", 0.0025);
  is("1_000", 1000.0);
  is("1_0.0_1", 10.01);
  is("1e1_0", 1e10);
  is("1e400", HUGE_VAL);
  is("-1e400", -HUGE_VAL);
  is("1e-400", 0.0);
  is("inf", HUGE_VAL);
  is("INF", HUGE_VAL);
  is("-Infinity", -HUGE_VAL);
  is("iNfInItY", HUGE_VAL);
  is("+inf", HUGE_VAL);
  is("0.1", 0.1);
  is("123456789012345678901234567890", 1.2345678901234568e29);
  for (const char* s : {"nan", "NaN", "-nan", "+NAN"}) {
    CAPTURE(s);
    auto r = ParsePyFloat(s);
    REQUIRE(r);
    CHECK(std::isnan(*r));
  }
  bad("");
  bad("   ");
  bad(".");
  bad("e5");
  bad("1e");
  bad("1e+");
  bad("--1");
  bad("+-1");
  bad("1__0");
  bad("_1");
  bad("1_");
  bad("1_.5");
  bad("1._5");
  bad("1.0_e5");
  bad("1_e5");
  bad("0x10");
  bad("1.5.2");
  bad("1 000");
  bad("infinit");
  bad("infinityy");
  bad("nana");
  bad("in f");
  bad("abc");
  bad("1,5");
  bad("1e5.5");
}

TEST_CASE("§5.2 missing-value tokens", "[trend]") {
  const char* tokens[] = {"",     "#N/A", "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                          "<NA>", "N/A",  "NA",       "NULL", "NaN",     "None",     "n/a",  "nan",  "null"};
  for (const char* t : tokens) {
    CAPTURE(t);
    CHECK(IsCsvMissingToken(t));
    CHECK_FALSE(NormalizeCsvStat(t));
    CHECK_FALSE(ParseCsvInt(t));
  }
  for (const char* t : {"none", "Null", "na", " NA", "NA ", "0", "inf", "N/A/", "nul"}) {
    CAPTURE(t);
    CHECK_FALSE(IsCsvMissingToken(t));
  }
  CHECK(NormalizeCsvStat("inf") == 1000000001.0);
  CHECK(NormalizeCsvStat("-inf") == -1000000001.0);
  CHECK(NormalizeCsvStat("Infinity") == 1000000001.0);
  CHECK(NormalizeCsvStat("1.5") == 1.5);
  CHECK(NormalizeCsvStat(" 2.5 ") == 2.5);
  CHECK(NormalizeCsvStat("2e10") == 1e9);
  CHECK(NormalizeCsvStat("-2e10") == -1e9);
  CHECK_FALSE(NormalizeCsvStat("NAN"));  // not a token, but float('NAN') is NaN -> NULL
  CHECK_FALSE(NormalizeCsvStat("abc"));
  CHECK_FALSE(NormalizeCsvStat("[2, 4]"));
}

TEST_CASE("§5.2 integer cells: integral text, decimal text truncated, junk rejected", "[trend]") {
  CHECK(ParseCsvInt("3") == 3);
  CHECK(ParseCsvInt("0") == 0);
  CHECK(ParseCsvInt("-2") == -2);
  CHECK(ParseCsvInt("3.0") == 3);
  CHECK(ParseCsvInt("3.9") == 3);
  CHECK(ParseCsvInt("-3.9") == -3);
  CHECK(ParseCsvInt("1e2") == 100);
  CHECK(ParseCsvInt("120000") == 120000);
  CHECK_FALSE(ParseCsvInt("abc"));
  CHECK_FALSE(ParseCsvInt("inf"));
  CHECK_FALSE(ParseCsvInt("-inf"));
  CHECK_FALSE(ParseCsvInt("NAN"));
  CHECK_FALSE(ParseCsvInt("1-2"));
}

// =============================================================================================
// CSV reader
// =============================================================================================

TEST_CASE("CsvReader: plain records, quotes, \"\" escapes, embedded newlines", "[trend]") {
  CHECK(ReadCsv("a,b,c\n1,2,3\n") == Recs{{"a", "b", "c"}, {"1", "2", "3"}});
  CHECK(ReadCsv("a,b") == Recs{{"a", "b"}});
  CHECK(ReadCsv("\"a,b\",c\n") == Recs{{"a,b", "c"}});
  CHECK(ReadCsv("\"say \"\"hi\"\"\",x\n") == Recs{{"say \"hi\"", "x"}});
  CHECK(ReadCsv("0,n,0,\"[2, 4]\",torch.bfloat16\n") == Recs{{"0", "n", "0", "[2, 4]", "torch.bfloat16"}});
  CHECK(ReadCsv("\"\",x\n") == Recs{{"", "x"}});
  CHECK(ReadCsv("a,,c\n") == Recs{{"a", "", "c"}});
  CHECK(ReadCsv("a,\n") == Recs{{"a", ""}});
  CHECK(ReadCsv("a,") == Recs{{"a", ""}});
  CHECK(ReadCsv(",\n") == Recs{{"", ""}});
  CHECK(ReadCsv("\"\"\"\"\n") == Recs{{"\""}});

  CsvReader r("h1,h2\n\"line1\nline2\",z\nnext,1\n");
  std::vector<std::string_view> f;
  REQUIRE(r.Next(f).value());
  CHECK(r.line() == 1);
  REQUIRE(r.Next(f).value());
  REQUIRE(f.size() == 2);
  CHECK(f[0] == "line1\nline2");
  CHECK(f[1] == "z");
  CHECK(r.line() == 2);
  REQUIRE(r.Next(f).value());
  CHECK(f[0] == "next");
  CHECK(r.line() == 4);
  auto end = r.Next(f);
  REQUIRE(end.ok());
  CHECK_FALSE(end.value());
}

TEST_CASE("CsvReader: CRLF, a UTF-8 BOM and blank lines", "[trend]") {
  CHECK(ReadCsv("a,b\r\n1,2\r\n") == Recs{{"a", "b"}, {"1", "2"}});
  CHECK(ReadCsv("a,b\r\n\"x\r\ny\",2\r\n") == Recs{{"a", "b"}, {"x\r\ny", "2"}});
  CHECK(ReadCsv("\xEF\xBB\xBFname,step\n0,1\n") == Recs{{"name", "step"}, {"0", "1"}});
  CHECK(ReadCsv("\xEF\xBB\xBF\"name\",step\n") == Recs{{"name", "step"}});
  CHECK(ReadCsv("a\n\n\nb\n") == Recs{{"a"}, {"b"}});
  CHECK(ReadCsv("\r\n\r\na,b\r\n\r\n1,2") == Recs{{"a", "b"}, {"1", "2"}});
  CHECK(ReadCsv("a\r1\r") == Recs{{"a"}, {"1"}});
  CHECK(ReadCsv("").empty());
  CHECK(ReadCsv("\n\n").empty());
  CHECK(ReadCsv("\xEF\xBB\xBF").empty());
  // A BOM is stripped only at the very start.
  CHECK(ReadCsv("a\n\xEF\xBB\xBF"
                "b\n") == Recs{{"a"},
                               {"\xEF\xBB\xBF"
                                "b"}});
}

TEST_CASE("CsvReader: malformed quotes are errors naming the line", "[trend]") {
  std::string err;
  auto recs = ReadCsv("a,b\nx\"y,z\n", &err);
  CHECK(recs == Recs{{"a", "b"}});
  CHECK(err.find("line 2") != std::string::npos);
  CHECK(err.find("quote") != std::string::npos);

  err.clear();
  ReadCsv("a,b\n1,2\n\"never closed,3\n4,5\n", &err);
  CHECK(err.find("line 3") != std::string::npos);
  CHECK(err.find("unterminated") != std::string::npos);

  err.clear();
  ReadCsv("\"ab\"c,d\n", &err);
  CHECK(err.find("line 1") != std::string::npos);
  CHECK_FALSE(err.empty());

  err.clear();
  ReadCsv("\"a\nb\nc\",1\n\"open\n", &err);
  CHECK(err.find("line 4") != std::string::npos);  // the record starts on line 4
}

// =============================================================================================
// §7 tags
// =============================================================================================

TEST_CASE("§7.1 dump target tags: every row of the table", "[trend]") {
  struct Case {
    const char* name;
    TagList tags;
  };
  const Case cases[] = {
      {"Module.layer1.conv.input.0", {{"default", "Module"}, {"index", "input.0"}, {"module", "layer1.conv"}}},
      {"Module.testlayername.layer.1.blocks.1.conv2.Conv2d.input.2",
       {{"default", "Module"},
        {"index", "input.2"},
        {"layer", "layer.1"},
        {"layer", "blocks.1"},
        {"module", "testlayername"},
        {"module", "conv2.Conv2d"}}},
      {"Module.blocks.0.fsdp_wrapped_module.norm.1.WanLayerNorm.output.0",
       {{"default", "Module"},
        {"index", "output.0"},
        {"layer", "blocks.0"},
        {"layer", "norm.1"},
        {"module", "fsdp_wrapped_module"},
        {"module", "WanLayerNorm"}}},
      {"Module.0.module.module.language_model.encoder.layers.3.self_attention.core_attention.CoreAttention.output.0",
       {{"default", "Module"},
        {"index", "output.0"},
        {"layer", "layers.3"},
        {"module", "module.module.language_model.encoder"},
        {"module", "self_attention.core_attention.CoreAttention"}}},
      {"Module.a.1.2.b.input.0", {{"default", "Module"}, {"index", "input.0"}, {"layer", "a.1"}, {"module", "b"}}},
      {"Module.layers.10.11.X.input.0", {{"default", "Module"}, {"index", "input.0"}, {"layer", "layers.10"}, {"module", "X"}}},
      {"Module.model.layers.0.Layer.weight",
       {{"default", "Module"}, {"index", "Layer.weight"}, {"layer", "layers.0"}, {"module", "model"}}},
      {"Module.conv2.Conv2d.parameters.weight",
       {{"default", "Module"}, {"index", "parameters.weight"}, {"module", "conv2.Conv2d"}}},
      {"Cell.x.Dense.input.0", {{"default", "Cell"}, {"index", "input.0"}, {"module", "x.Dense"}}},
      {"a.b.Module.c.output.0", {{"default", "Module"}, {"index", "output.0"}, {"module", "a.b.c"}}},
      {"Module.7.input.0", {{"default", "Module"}, {"index", "input.0"}}},
      {"Module.input.0", {}},
      {"Tensor.add.input.1", {{"function", "Tensor.add"}, {"index", "input.1"}}},
      {"Functional.linear.output.0", {{"function", "Functional.linear"}, {"index", "output.0"}}},
      {"function_name.input.0", {{"function", "function_name"}, {"index", "input.0"}}},
      {"short.key", {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    CHECK(TagPairs(DumpTargetTags(c.name)) == Tags(c.tags));
  }
}

TEST_CASE("§7.1 edge cases: Cell and Module together, single part, duplicates not repeated", "[trend]") {
  CHECK(DumpTargetTags("x").empty());
  CHECK(DumpTargetTags("").empty());
  CHECK(TagPairs(DumpTargetTags("Module.Cell.input.0")).empty());  // body empty after removal
  CHECK(TagPairs(DumpTargetTags("Module.a.Cell.b.input.0")) ==
        Tags({{"default", "Module"}, {"default", "Cell"}, {"index", "input.0"}, {"module", "a.b"}}));
  // The same layer tag twice in one name is one tag.
  auto tags = DumpTargetTags("Module.layers.0.x.layers.0.y.output.0");
  CHECK(std::count(tags.begin(), tags.end(), TrendTag{"layers.0", "layer"}) == 1);
}

TEST_CASE("§7.2 monitor target tags: every row of the table", "[trend]") {
  struct Case {
    const char* name;
    TagList tags;
  };
  const Case cases[] = {
      {"module.decoder.layers.0.input_layernorm.weight",
       {{"module", "module"},
        {"module", "decoder"},
        {"module", "layers"},
        {"module", "input_layernorm"},
        {"module", "weight"},
        {"layer", "layers.0"}}},
      {"layers.23.mlp.linear_fc1.weight",
       {{"module", "layers"}, {"module", "mlp"}, {"module", "linear_fc1"}, {"module", "weight"}, {"layer", "layers.23"}}},
      {"decoder.layers.0.mlp.output",
       {{"module", "decoder"}, {"module", "layers"}, {"module", "mlp"}, {"module", "output"}, {"layer", "layers.0"}}},
      {"a.1.2.b", {{"module", "a"}, {"module", "b"}, {"layer", "a.1"}}},
      {"0.weight", {{"module", "weight"}}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    auto tags = MonitorTargetTags(c.name);
    CHECK(TagPairs(tags) == Tags(c.tags));
    for (const auto& t : tags) CHECK((t.category == "module" || t.category == "layer"));
  }
  CHECK(TagPairs(MonitorTargetTags("7")).empty());
  CHECK(TagPairs(MonitorTargetTags("nan")) == Tags({{"module", "nan"}}));
}

// =============================================================================================
// §4 dump entries
// =============================================================================================

TEST_CASE("§4.3 metric classification vectors and literal replace-all", "[trend]") {
  Trend t;
  std::string data =
      J(M("model.layer1.forward.0", "{\"is_recompute\": false, \"input_args\": [$T]}") + ", " +
        M("model.layer1.forward.1", "{\"is_recompute\": true, \"input_args\": [$T]}") + ", " +
        M("model.layer1.backward.0", "{\"input\": [$T]}") + ", " + M("model.layer1.parameters_grad", "{\"weight\": [$T]}") +
        ", " + M("module.forward_image.backward.0", "{\"is_recompute\": true, \"input\": [$T]}") + ", " +
        M("a.b.c.0.forward", "{\"input_args\": [$T]}") + ", " + M("model.layer1", "{\"input_args\": [$T], \"weight\": [$T]}") +
        ", " + M("Module.fsdp_unit.parameters_grad.something", "{\"weight\": [$T]}") + ", " +
        M("old_prefix.layer1.forward", "{\"input_args\": [$T]}") + ", " +
        M("Functional.forward_fn.0.forward", "{\"input_args\": [$T]}") + ", " +
        M("Module.forward.Linear.forward.0", "{\"input_args\": [$T]}") + ", " +
        M("Module.x.Linear.forward.3.extra", "{\"input_args\": [$T]}") + ", " +
        M("Module.y.parameters_grad", "{\"bias\": [$T]}") + ", " + M("Module.z.Linear.backward", "{\"output\": [$T]}"));
  t.Rank(0, "rank0", DumpJson(data));
  t.opts.mapping = {{"old_prefix", "new_prefix"}};
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  REQUIRE(r->written);
  CHECK(Sorted(DumpKeys(t.dump_db())) == Sorted({
                                             "0|0|forward|model.layer1.input.0|0",
                                             "0|0|recompute|model.layer1.input.0|1",
                                             "0|0|backward|model.layer1.input.0|0",
                                             "0|0|parameters_grad|model.layer1.weight|0",
                                             "0|0|backward|module.forward_image.input.0|0",
                                             "0|0|forward|a.b.c.input.0|0",
                                             "0|0|parameters_grad|Module.fsdp_unit.weight|0",
                                             "0|0|forward|new_prefix.layer1.input.0|0",
                                             "0|0|forward|Functional_fn.input.0|0",
                                             "0|0|forward|Module.Linear.input.0|0",
                                             "0|0|forward|Module.x.Linear.3.extra.input.0|0",
                                             "0|0|parameters_grad|Module.y.bias|0",
                                             "0|0|backward|Module.z.Linear.output.0|0",
                                         }));
}

TEST_CASE("§4.4 call index: trailing digits of the transformed key", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module._fsdp_wrapped_module.blocks.18._fsdp_wrapper_module.ffn.1.GELU.forward.18", Fwd("$T", "")) + ", " +
                    M("Tensor.add.9.forward", Fwd("$T", "")) + ", " + M("module.conv1.forward", Fwd("$T", "")) + ", " +
                    M("Module.big.forward.007", Fwd("$T", "")))));
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  CHECK(Sorted(Targets(t.dump_db())) ==
        Sorted({"Module._fsdp_wrapped_module.blocks.18._fsdp_wrapper_module.ffn.1.GELU.input.0|0|18", "Tensor.add.input.0|0|9",
                "module.conv1.input.0|0|0", "Module.big.input.0|0|7"}));
}

TEST_CASE("§13.1 a non-micro file with module.conv1.forward and module.fc.backward gives 3 rows", "[trend]") {
  Trend t;
  t.Rank(0, "rank0", DumpJson(J(M("module.conv1.forward", Fwd("$T", "$T")) + ", " + M("module.fc.backward", Bwd("$T", "")))));
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|backward|module.fc.input.0|0",
                                                          "0|0|forward|module.conv1.input.0|0",
                                                          "0|0|forward|module.conv1.output.0|0"});
  CHECK(Query(t.dump_db(), "SELECT COUNT(*) FROM trend_data")[0][0] == "3");
  CHECK(Query(t.dump_db(), "SELECT vpp_stage FROM monitoring_targets WHERE vpp_stage <> 0").empty());
}

TEST_CASE("§4.5 eligibility: reference counts per metric", "[trend]") {
  const std::string dt = Tensor("\"Norm\": 1.0", "torch.float32", "DTensor");
  const std::string f4 = Tensor("\"Norm\": 1.0", "Float4");
  const std::string list3 = kT + ", " + dt + ", " + f4;
  const std::string mixed = "{\"input_args\": [" + list3 + "], \"output\": [" + list3 + "], \"input\": [" + list3 +
                            "], \"parameters\": {\"weight\": [" + kT + "], \"bias\": [" + kT + "]}}";
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("A.full.forward.0",
                      "{\"input_args\": [$T], \"output\": [$T], \"parameters\": {\"weight\": [$T], "
                      "\"bias\": [$T]}}") +
                    ", " + M("A.full.backward.0", Bwd("$T", "$T")) + ", " +
                    M("A.full.parameters_grad", "{\"weight\": [$T], \"bias\": [$T]}") + ", " + M("B.mixed.forward.0", mixed) +
                    ", " + M("B.mixed.backward.0", mixed) + ", " + M("B.mixed.parameters_grad", mixed) + ", " +
                    M("C.recomp.forward.0", "{\"is_recompute\": true, \"input_args\": [" + list3 + "], \"output\": [" + list3 +
                                                "], \"parameters\": {\"weight\": [$T], \"bias\": [$T]}}"))));
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  auto count = [&](const std::string& prefix, const std::string& metric) {
    return Query(t.dump_db(),
                 "SELECT COUNT(*) FROM trend_data d JOIN monitoring_targets t USING (target_id) "
                 "JOIN monitoring_metrics m USING (metric_id) WHERE m.metric_name = '" +
                     metric + "' AND t.target_name LIKE '" + prefix + ".%'")[0][0];
  };
  CHECK(count("A.full", "forward") == "4");
  CHECK(count("A.full", "backward") == "2");
  CHECK(count("A.full", "parameters_grad") == "2");
  CHECK(count("B.mixed", "forward") == "4");
  CHECK(count("B.mixed", "backward") == "2");
  CHECK(count("B.mixed", "parameters_grad") == "3");
  CHECK(count("C.recomp", "recompute") == "4");
  auto names = vptest::Column(Query(t.dump_db(),
                                    "SELECT target_name FROM monitoring_targets WHERE target_name LIKE "
                                    "'B.mixed.%' OR target_name LIKE 'A.full.%' ORDER BY 1"));
  CHECK(names == std::vector<std::string>{"A.full.bias", "A.full.input.0", "A.full.output.0", "A.full.parameters.bias",
                                          "A.full.parameters.weight", "A.full.weight", "B.mixed.input", "B.mixed.input.0",
                                          "B.mixed.input_args", "B.mixed.output", "B.mixed.output.0", "B.mixed.parameters.bias",
                                          "B.mixed.parameters.weight"});
}

TEST_CASE("§4.5 eligible types x dtypes, skipped records still count positions", "[trend]") {
  const char* types[] = {"torch.Tensor", "mindspore.Tensor", "mindtorch.Tensor"};
  const char* dtypes[] = {"Float16", "Float32", "BFloat16", "torch.float16", "torch.float32", "torch.bfloat16"};
  std::string ok_inputs;
  for (const char* ty : types)
    for (const char* d : dtypes) ok_inputs += (ok_inputs.empty() ? "" : ", ") + Tensor("\"Norm\": 1.0", d, ty);
  const std::string bad_inputs =
      "null, 5, \"str\", true, [" + kT + "], {}, " + Tensor("\"Norm\": 1.0", "torch.float64") + ", " +
      Tensor("\"Norm\": 1.0", "Float64") + ", " + Tensor("\"Norm\": 1.0", "torch.int64") + ", " +
      Tensor("\"Norm\": 1.0", "torch.bool") + ", " + Tensor("\"Norm\": 1.0", "float32") + ", " +
      Tensor("\"Norm\": 1.0", "torch.Float32") + ", " + Tensor("\"Norm\": 1.0", "torch.float32", "Torch.Tensor") + ", " +
      Tensor("\"Norm\": 1.0", "torch.float32", "DTensor") + ", " + Tensor("\"Norm\": 1.0", "torch.float32", "int") +
      ", {\"type\": \"torch.Tensor\", \"Norm\": 1.0}, {\"dtype\": \"torch.float32\", \"Norm\": 1.0}, " + kT;
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(M("Ok.all.forward.0", Fwd(ok_inputs, "")) + ", " + M("Bad.all.forward.0", Fwd(bad_inputs, "")) + ", " +
                  M("Kw.only.forward.0", "{\"input_args\": [], \"input_kwargs\": {\"x\": " + kT + "}}")));
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  CHECK(Query(t.dump_db(), "SELECT COUNT(*) FROM monitoring_targets WHERE target_name LIKE 'Ok.all.input.%'")[0][0] == "18");
  CHECK(vptest::Column(Query(t.dump_db(), "SELECT target_name FROM monitoring_targets WHERE target_name LIKE 'Bad.%'")) ==
        std::vector<std::string>{"Bad.all.input.17"});
  CHECK(Query(t.dump_db(), "SELECT COUNT(*) FROM monitoring_targets WHERE target_name LIKE 'Kw.%'")[0][0] == "0");
}

TEST_CASE("§4.5 forward parameters: string skipped, list kept, object ignored; Float4 gradient skipped", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("P.mod.forward.0",
                      "{\"input_args\": [], \"output\": [], \"parameters\": {\"weight\": \"abc\", "
                      "\"bias\": [$T], \"gamma\": $T, \"beta\": [], \"delta\": [5, $T]}}") +
                    ", " +
                    M("P.mod.parameters_grad", "{\"weight\": [" + Tensor("\"Norm\": 1.0", "Float4") +
                                                   "], \"bias\": [$T], "
                                                   "\"extra\": \"x\", \"obj\": $T}"))));
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  CHECK(DumpKeys(t.dump_db()) ==
        std::vector<std::string>{"0|0|forward|P.mod.parameters.bias|0", "0|0|parameters_grad|P.mod.bias|0"});
}

TEST_CASE("§4.6/§4.7 statistics: capitalised keys, missing keys NULL, §6 applied", "[trend]") {
  Trend t;
  const std::string only_norm = Tensor("\"Norm\": 2.5, \"max\": 7.0");
  const std::string specials = Tensor("\"Norm\": 5e12, \"Max\": Infinity, \"Min\": -Infinity, \"Mean\": NaN");
  const std::string strings = Tensor("\"Norm\": null, \"Max\": \"7.5\", \"Min\": \"  -2 \", \"Mean\": \"bad\"");
  t.Rank(0, "rank0", DumpJson(M("S.a.forward.0", Fwd(only_norm + ", " + specials + ", " + strings, ""))));
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  CHECK(DumpRows(t.dump_db()) ==
        std::vector<std::string>{"0|0|forward|S.a.input.0|0|2.5|<NULL>|<NULL>|<NULL>",
                                 "0|0|forward|S.a.input.1|0|1000000000.0|1000000001.0|-1000000001.0|<NULL>",
                                 "0|0|forward|S.a.input.2|0|<NULL>|7.5|-2.0|<NULL>"});
  CHECK(Query(t.dump_db(),
              "SELECT typeof(norm) FROM trend_data d JOIN monitoring_targets USING (target_id) "
              "WHERE target_name = 'S.a.input.0'")[0][0] == "real");
}

TEST_CASE("§4.2 mapping: pairs in file order, each a literal replace-all", "[trend]") {
  NameMapping m{{"layers.0.Layer", "L0"}, {"L0", "Z"}, {".GPT", ""}};
  CHECK(ApplyNameMapping(m, "Module.model.layers.0.Layer.forward.0") == "Module.model.Z.forward.0");
  CHECK(ApplyNameMapping(m, "Module.model.GPT.forward.0") == "Module.model.forward.0");
  CHECK(ApplyNameMapping({{"a.b", "x.y"}}, "a.b.a.b") == "x.y.x.y");
  CHECK(ApplyNameMapping({{".*", "!"}}, "a.b") == "a.b");  // not a regex
  CHECK(ApplyNameMapping({}, "same") == "same");

  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.model.layers.0.Layer.forward.0", Fwd("$T", "")) + ", " +
                    M("Module.model.GPT.forward.0", Fwd("$T", "")))));
  WriteFile(t.dir / "map.json", "{\"layers.0.Layer\": \"L0\", \"L0\": \"Z\", \".GPT\": \"\"}");
  auto loaded = LoadNameMapping(t.dir / "map.json");
  REQUIRE(loaded.ok());
  CHECK(loaded.value() == m);
  t.opts.mapping = loaded.value();
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  CHECK(Sorted(Targets(t.dump_db())) == Sorted({"Module.model.Z.input.0|0|0", "Module.model.input.0|0|0"}));
}

TEST_CASE("§4.2 mapping can alter .forward tokens; micro-step resolution uses unmapped keys", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.root.forward.0", Fwd("$T", "")) + ", " +
                    M("Module.root.sub.forward.0", "{\"input_args\": [$T], \"input\": [$T]}"))),
         "{\"Module.root.forward.0\": null, \"Module.root.sub.forward.0\": \"Module.root.forward.0\"}");
  t.opts.mapping = {{".root", ".R"}, {".sub.forward", ".sub.backward"}};
  auto r = t.Dump(true);
  REQUIRE(r.ok());
  CHECK(DumpKeys(t.dump_db()) ==
        std::vector<std::string>{"0|0|backward|Module.R.sub.input.0|0", "0|0|forward|Module.R.input.0|0"});
}

TEST_CASE("§4.2 LoadNameMapping validation", "[trend]") {
  TempDir d;
  auto fails = [&](const std::string& text, const std::string& detail) {
    WriteFile(d / "m.json", text);
    auto r = LoadNameMapping(d / "m.json");
    CAPTURE(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().rfind("Load json file " + (d / "m.json") + " failed.", 0) == 0);
    if (!detail.empty()) CHECK(r.status().message().find(detail) != std::string::npos);
  };
  fails("[1, 2]", "");
  fails("\"text\"", "");
  fails("{\"a\": 1}", "\"a\"");
  fails("{\"a\": \"b\", \"c\": null}", "\"c\"");
  fails("{\"a\": [\"b\"]}", "");
  fails("{\"\": \"x\"}", "empty key");
  fails("{\"a\": \"b\"", "");
  auto missing = LoadNameMapping(d / "nope.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("Load json file") == 0);
  // The reason is nested with its own id, not flattened into the text.
  WriteFile(d / "m.json", "{\"\": \"x\"}");
  const Status bad = LoadNameMapping(d / "m.json").status();
  const Message& why = bad.detail();
  CHECK(why.id() == msg::kLoadJsonFailedPath);
  REQUIRE(why.args().size() == 2);
  REQUIRE(why.args()[1].nested);
  CHECK(why.args()[1].nested->id() == msg::kMappingHasEmptyKey);

  WriteFile(d / "ok.json", "{\"z\": \"1\", \"a\": \"2\", \"m\": \"\"}");
  auto ok = LoadNameMapping(d / "ok.json");
  REQUIRE(ok.ok());
  CHECK(ok.value() == NameMapping{{"z", "1"}, {"a", "2"}, {"m", ""}});
  WriteFile(d / "empty.json", "{}");
  auto empty = LoadNameMapping(d / "empty.json");
  REQUIRE(empty.ok());
  CHECK(empty.value().empty());
}

// =============================================================================================
// §3.3 micro steps
// =============================================================================================

TEST_CASE("§13.1 root extraction: integer values are slots", "[trend]") {
  SECTION("all four keys in slot 3") {
    Trend t;
    t.Rank(0, "rank0",
           DumpJson(J(M("Module.layer1.forward", Fwd("$T", "")) + ", " + M("Module.layer2.forward", Fwd("$T", "")) + ", " +
                      M("Module.layer1.backward", Bwd("$T", "")) + ", " + M("Module.layer2.backward", Bwd("$T", "")))),
           "{\"Module.layer1.forward\": 3, \"Module.layer2.forward\": 3, \"Module.layer1.backward\": "
           "\"Module.layer1.forward\", \"Module.layer2.backward\": \"Module.layer2.forward\"}");
    auto r = t.Dump(true);
    REQUIRE(r.ok());
    CHECK(DumpKeys(t.dump_db()) ==
          std::vector<std::string>{"0|3|backward|Module.layer1.input.0|0", "0|3|backward|Module.layer2.input.0|0",
                                   "0|3|forward|Module.layer1.input.0|0", "0|3|forward|Module.layer2.input.0|0"});
    CHECK(t.Logged(LogLevel::kInfo, "Step 0 processing completed. Total micro steps identified: [4]"));
    auto gs = GlobalStats(t.dump_db());
    CHECK(gs["min_step"] == "0");
    CHECK(gs["max_step"] == "3");
  }
  SECTION("slots 0 and 1") {
    Trend t;
    t.Rank(0, "rank0", DumpJson(J(M("Module.layer1.forward", Fwd("$T", "")) + ", " + M("Module.layer2.forward", Fwd("$T", "")))),
           "{\"Module.layer1.forward\": 0, \"Module.layer2.forward\": 1}");
    REQUIRE(t.Dump(true).ok());
    CHECK(DumpKeys(t.dump_db()) ==
          std::vector<std::string>{"0|0|forward|Module.layer1.input.0|0", "0|1|forward|Module.layer2.input.0|0"});
  }
  SECTION("a backward key with null value gets its forward twin's slot") {
    Trend t;
    t.Rank(0, "rank0", DumpJson(J(M("Module.layer1.forward", Fwd("$T", "")) + ", " + M("Module.layer1.backward", Bwd("$T", "")))),
           "{\"Module.layer1.forward\": 0, \"Module.layer1.backward\": null}");
    REQUIRE(t.Dump(true).ok());
    CHECK(DumpKeys(t.dump_db()) ==
          std::vector<std::string>{"0|0|backward|Module.layer1.input.0|0", "0|0|forward|Module.layer1.input.0|0"});
    CHECK(t.Logged(LogLevel::kInfo, "Step 0 processing completed. Total micro steps identified: [1]"));
  }
}

TEST_CASE("§13.1 renumbering per micro step", "[trend]") {
  SECTION("two modules in slot 3 both become .0") {
    Trend t;
    t.Rank(0, "rank0",
           DumpJson(J(M("Module.layer1.forward.10", Fwd("$T", "")) + ", " + M("Module.layer2.forward.11", Fwd("$T", "")))),
           "{\"Module.layer1.forward.10\": 3, \"Module.layer2.forward.11\": 3}");
    REQUIRE(t.Dump(true).ok());
    CHECK(DumpKeys(t.dump_db()) ==
          std::vector<std::string>{"0|3|forward|Module.layer1.input.0|0", "0|3|forward|Module.layer2.input.0|0"});
  }
  SECTION("different slots, both .0") {
    Trend t;
    t.Rank(0, "rank0",
           DumpJson(J(M("Module.layer1.forward.10", Fwd("$T", "")) + ", " + M("Module.layer2.forward.20", Fwd("$T", "")))),
           "{\"Module.layer1.forward.10\": 0, \"Module.layer2.forward.20\": 1}");
    REQUIRE(t.Dump(true).ok());
    CHECK(DumpKeys(t.dump_db()) ==
          std::vector<std::string>{"0|0|forward|Module.layer1.input.0|0", "0|1|forward|Module.layer2.input.0|0"});
  }
  SECTION("API style, no number, and sorting by the original number") {
    Trend t;
    t.Rank(0, "rank0",
           DumpJson(J(M("Module.layer1.10.forward", Fwd("$T", "")) + ", " + M("Module.layer.forward", Fwd("$T", "")) + ", " +
                      M("Tensor.add.12.forward", Fwd("$T", "")) + ", " + M("Tensor.add.5.forward", Fwd(T(2.0), "")) + ", " +
                      M("Tensor.add.7.forward", Fwd(T(3.0), "")))),
           "{\"Module.layer1.10.forward\": 0, \"Module.layer.forward\": 0, \"Tensor.add.12.forward\": 0, "
           "\"Tensor.add.5.forward\": 0, \"Tensor.add.7.forward\": 0}");
    REQUIRE(t.Dump(true).ok());
    CHECK(DumpRows(t.dump_db()) == std::vector<std::string>{
                                       "0|0|forward|Module.layer.input.0|0|1.0|0.5|-0.25|0.125",
                                       "0|0|forward|Module.layer1.input.0|0|1.0|0.5|-0.25|0.125",
                                       "0|0|forward|Tensor.add.input.0|0|2.0|1.0|-0.5|0.25",
                                       "0|0|forward|Tensor.add.input.0|1|3.0|1.5|-0.75|0.375",
                                       "0|0|forward|Tensor.add.input.0|2|1.0|0.5|-0.25|0.125",
                                   });
  }
}

TEST_CASE("§3.3 roots: parentless Module/Cell/optimizer keys; APIs with null parent get no slot", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")) + ", " + M("Tensor.top.0.forward", Fwd("$T", "")) + ", " +
                    M("Cell.b.forward.0", Fwd("$T", "")) + ", " + M("Tensor.empty.0.forward", Fwd("$T", "")) + ", " +
                    M("Tensor.clip.0.forward", Fwd("$T", "")) + ", " + M("Tensor.orphan.0.forward", Fwd("$T", "")) + ", " +
                    M("Tensor.opt.3.forward", Fwd("$T", "")) + ", " + M("Module.a.backward.0", Bwd("$T", "")) + ", " +
                    M("Module.solo.backward.0", Bwd("$T", "")))),
         "{\"Module.a.forward.0\": null, \"Tensor.top.0.forward\": null, \"Cell.b.forward.0\": null, "
         "\"Tensor.empty.0.forward\": \"\", \"Tensor.clip.0.forward\": \"clip_grad\", "
         "\"Tensor.orphan.0.forward\": \"Module.absent.forward.0\", \"Module.a.backward.0\": null, "
         "\"Module.solo.backward.0\": null, \"optimizer\": null, \"Tensor.opt.3.forward\": \"optimizer\"}");
  REQUIRE(t.Dump(true).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|backward|Module.a.input.0|0", "0|0|forward|Module.a.input.0|0",
                                                          "0|1|forward|Cell.b.input.0|0", "0|2|forward|Tensor.opt.input.0|0"});
  CHECK(t.Logged(LogLevel::kInfo, "Step 0 processing completed. Total micro steps identified: [3]"));
}

TEST_CASE("§3.3.5 nothing placed: every entry used with slot 0 and its original name", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Tensor.add.4.forward", Fwd("$T", "")) + ", " + M("Module.m.forward.2", Fwd("$T", "")) + ", " +
                    M("Module.m.parameters_grad", "{\"weight\": [$T]}"))),
         "{\"Tensor.add.4.forward\": \"\", \"Module.m.forward.2\": \"Module.missing.forward.0\"}");
  t.Rank(1, "rank0", DumpJson(J(M("Module.m.forward.2", Fwd("$T", "")))), "{}");
  REQUIRE(t.Dump(true).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.m.input.0|2", "0|0|forward|Tensor.add.input.0|4",
                                                          "0|0|parameters_grad|Module.m.weight|0",
                                                          "0|1|forward|Module.m.input.0|2"});
  auto gs = GlobalStats(t.dump_db());
  CHECK(gs["max_step"] == "1");
}

TEST_CASE("§13.2 parent chain cycle: nodes unplaced with a WARNING", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.root.forward.0", Fwd("$T", "")) + ", " + M("A.x.forward.0", Fwd("$T", "")) + ", " +
                    M("B.y.forward.0", Fwd("$T", "")) + ", " + M("Module.c.forward.0", Fwd("$T", "")) + ", " +
                    M("Self.loop.forward.0", Fwd("$T", "")))),
         "{\"Module.root.forward.0\": null, \"A.x.forward.0\": \"B.y.forward.0\", \"B.y.forward.0\": \"A.x.forward.0\", "
         "\"Module.c.forward.0\": \"Module.root.forward.0\", \"Self.loop.forward.0\": \"Self.loop.forward.0\"}");
  auto r = t.Dump(true);
  REQUIRE(r.ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.c.input.0|0", "0|0|forward|Module.root.input.0|0"});
  CHECK(t.LoggedContaining(LogLevel::kWarning, t.data() + "/step0/rank0/construct.json"));
}

TEST_CASE("§13.2 list values without the Megatron marker are [parent, micro]", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.root.forward.0", Fwd("$T", "")) + ", " + M("Module.c.forward.0", Fwd("$T", "")) + ", " +
                    M("Module.root.forward.1", Fwd("$T", "")))),
         "{\"Module.root.forward.0\": [null, 0], \"Module.c.forward.0\": [\"Module.root.forward.0\", 0], "
         "\"Module.root.forward.1\": [null, 1]}");
  REQUIRE(t.Dump(true).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.c.input.0|0", "0|0|forward|Module.root.input.0|0",
                                                          "0|1|forward|Module.root.input.0|0"});
}

TEST_CASE("§3.3.1 Megatron marker: list values replaced by their parent, the marker dropped", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.root.forward.0", Fwd("$T", "")) + ", " + M("Module.c.forward.0", Fwd("$T", "")) + ", " +
                    M("Module.root.forward.1", Fwd("$T", "")) + ", " + M("Module.c.forward.1", Fwd("$T", "")))),
         "{\"Module.root.forward.0\": [null, 0], \"Module.c.forward.0\": [\"Module.root.forward.0\", 0], "
         "\"Module.root.forward.1\": [null, 1], \"Module.c.forward.1\": [\"Module.root.forward.1\", 1], "
         "\"megatron_micro_step_number\": 2}");
  REQUIRE(t.Dump(true).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.c.input.0|0", "0|0|forward|Module.root.input.0|0",
                                                          "0|1|forward|Module.c.input.0|0", "0|1|forward|Module.root.input.0|0"});
  CHECK(t.Logged(LogLevel::kInfo, "Step 0 processing completed. Total micro steps identified: [2]"));
}

TEST_CASE("§13.2 Megatron marker with a 3-element list is an error; no database, no temp file", "[trend]") {
  Trend t;
  t.Rank(0, "rank0", DumpJson(J(M("Module.root.forward.0", Fwd("$T", "")))),
         "{\"megatron_micro_step_number\": 1, \"Module.root.forward.0\": [null, 0, 1]}");
  auto r = t.Dump(true);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("construct.json") != std::string::npos);
  CHECK(vptest::ListNames(t.db()).empty());
  // Micro-step counting off: construct.json is not read at all.
  auto off = t.Dump(false);
  REQUIRE(off.ok());
  CHECK(off->written);
}

TEST_CASE("§13.2 a module literally named forward; a root key that is a dump entry", "[trend]") {
  Trend t;
  t.Rank(
      0, "rank0",
      DumpJson(J(M("Module.forward.Linear.forward.0", Fwd("$T", "$T")) + ", " + M("Module.model.GPT.forward.0", Fwd("$T", "")))),
      "{\"Module.forward.Linear.forward.0\": null, \"Module.model.GPT.forward.0\": null}");
  REQUIRE(t.Dump(true).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.Linear.input.0|0",
                                                          "0|0|forward|Module.Linear.output.0|0",
                                                          "0|1|forward|Module.model.GPT.input.0|0"});
}

TEST_CASE("§13.2 dump.json without data (D-6) keeps the construct-derived count", "[trend]") {
  Trend t;
  t.Rank(0, "rank0", "{\"task\": \"statistics\", \"level\": \"L0\"}",
         "{\"Module.r.forward.0\": null, \"Module.r.forward.1\": null}");
  t.Rank(1, "rank0", DumpJson(J(M("Module.r.forward.0", Fwd("$T", "")))), "{\"Module.r.forward.0\": null}");
  auto r = t.Dump(true);
  REQUIRE(r.ok());
  CHECK(r->files == 2);
  CHECK(t.LoggedContaining(LogLevel::kWarning, t.data() + "/step0/rank0/dump.json"));
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|2|forward|Module.r.input.0|0"});
  auto gs = GlobalStats(t.dump_db());
  CHECK(gs["max_step"] == "2");
  CHECK(t.Logged(LogLevel::kInfo, "Step 0 processing completed. Total micro steps identified: [2]"));
}

TEST_CASE("§13.1 {\"data\": {}}: no rows, count 1; 2 steps x 2 ranks -> 4 files, one global_stats row", "[trend]") {
  for (bool micro : {true, false}) {
    CAPTURE(micro);
    Trend t;
    for (int s = 0; s < 2; ++s)
      for (int k = 0; k < 2; ++k) t.Rank(s, "rank" + std::to_string(k), "{\"data\": {}}", "{}");
    auto r = t.Dump(micro);
    REQUIRE(r.ok());
    CHECK(r->written);
    CHECK(r->files == 4);
    CHECK(Query(t.dump_db(), "SELECT COUNT(*) FROM trend_data")[0][0] == "0");
    CHECK(Query(t.dump_db(), "SELECT COUNT(*) FROM global_stats")[0][0] == "1");
    auto gs = GlobalStats(t.dump_db());
    CHECK(gs["max_rank"] == "1");
    CHECK(gs["min_step"] == "0");
    CHECK(gs["max_step"] == "1");
    CHECK(gs["forward"] == "norm,max,min,mean");
    CHECK(gs["parameters_grad"] == "norm,max,min,mean");
    CHECK_FALSE(t.LoggedContaining(LogLevel::kWarning, "dump.json"));
    if (micro) CHECK(t.Logged(LogLevel::kInfo, "Step 1 processing completed. Total micro steps identified: [1, 1]"));
  }
}

TEST_CASE("§4.1 non-object entry values are skipped", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.a.forward.0", "[$T]") + ", " + M("Module.s.forward.0", "\"text\"") + ", " +
                    M("Module.n.forward.0", "null") + ", " + M("Module.b.forward.0", Fwd("$T", "")))));
  REQUIRE(t.Dump(false).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.b.input.0|0"});
}

TEST_CASE("§3.2 micro off: steps are folder numbers, min_step is the smallest step", "[trend]") {
  SECTION("steps 0 and 2") {
    Trend t;
    t.Rank(0, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
    t.Rank(2, "rank0", DumpJson(J(M("Module.a.forward.1", Fwd("$T", "")))));
    REQUIRE(t.Dump(false).ok());
    auto gs = GlobalStats(t.dump_db());
    CHECK(gs["min_step"] == "0");
    CHECK(gs["max_step"] == "2");
    CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.a.input.0|0", "0|2|forward|Module.a.input.0|1"});
  }
  SECTION("steps 2 and 5") {
    Trend t;
    t.Rank(5, "rank3", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
    t.Rank(2, "rank1", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
    REQUIRE(t.Dump(false).ok());
    auto gs = GlobalStats(t.dump_db());
    CHECK(gs["min_step"] == "2");
    CHECK(gs["max_step"] == "5");
    CHECK(gs["max_rank"] == "3");
  }
  SECTION("micro on compresses the gap") {
    Trend t;
    t.Rank(0, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))), "{\"Module.a.forward.0\": null}");
    t.Rank(2, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))), "{\"Module.a.forward.0\": null}");
    REQUIRE(t.Dump(true).ok());
    auto gs = GlobalStats(t.dump_db());
    CHECK(gs["min_step"] == "0");
    CHECK(gs["max_step"] == "1");
    CHECK(Query(t.dump_db(), "SELECT step, original_step, micro_step FROM trend_step_map ORDER BY step") ==
          Rows{{"0", "0", "0"}, {"1", "2", "0"}});
  }
}

TEST_CASE("§13.2 several ranks of different micro counts: slot count = maximum", "[trend]") {
  Trend t;
  const char* three = "{\"Module.r.forward.0\": null, \"Module.r.forward.1\": null, \"Module.r.forward.2\": null}";
  t.Rank(0, "rank0", DumpJson(J(M("Module.r.forward.0", Fwd("$T", "")) + ", " + M("Module.r.forward.2", Fwd("$T", "")))), three);
  t.Rank(0, "rank1", DumpJson(J(M("Module.r.forward.0", Fwd("$T", "")))), "{\"Module.r.forward.0\": null}");
  t.Rank(1, "rank0", DumpJson(J(M("Module.r.forward.0", Fwd("$T", "")))), "{\"Module.r.forward.0\": null}");
  t.Rank(1, "rank1", DumpJson(J(M("Module.r.forward.1", Fwd("$T", "")))),
         "{\"Module.r.forward.0\": null, \"Module.r.forward.1\": null}");
  REQUIRE(t.Dump(true).ok());
  CHECK(t.Logged(LogLevel::kInfo, "Step 0 processing completed. Total micro steps identified: [3, 1]"));
  CHECK(t.Logged(LogLevel::kInfo, "Step 1 processing completed. Total micro steps identified: [1, 2]"));
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.r.input.0|0", "0|2|forward|Module.r.input.0|0",
                                                          "0|3|forward|Module.r.input.0|0", "1|0|forward|Module.r.input.0|0",
                                                          "1|4|forward|Module.r.input.0|0"});
  auto gs = GlobalStats(t.dump_db());
  CHECK(gs["min_step"] == "0");
  CHECK(gs["max_step"] == "4");
  CHECK(Query(t.dump_db(), "SELECT step, original_step, micro_step FROM trend_step_map ORDER BY step") ==
        Rows{{"0", "0", "0"}, {"1", "0", "1"}, {"2", "0", "2"}, {"3", "1", "0"}, {"4", "1", "1"}});
}

TEST_CASE("§3.3.6 missing construct.json in micro mode (D-5): WARNING, entries in slot 0", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.a.forward.3", Fwd("$T", "")) + ", " + M("Module.a.parameters_grad", "{\"weight\": [$T]}"))),
         nullptr);
  t.Rank(1, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))), "{\"Module.a.forward.0\": null}");
  auto r = t.Dump(true);
  REQUIRE(r.ok());
  CHECK(t.LoggedContaining(LogLevel::kWarning, t.data() + "/step0/rank0"));
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.a.input.0|3",
                                                          "0|0|parameters_grad|Module.a.weight|0",
                                                          "0|1|forward|Module.a.input.0|0"});
}

TEST_CASE("§14 K-1: micro mode drops entries absent from construct.json (parameters_grad)", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")) + ", " + M("Module.a.parameters_grad", "{\"weight\": [$T]}") + ", " +
                    M("Tensor.unlisted.0.forward", Fwd("$T", "")))),
         "{\"Module.a.forward.0\": null}");
  REQUIRE(t.Dump(true).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.a.input.0|0"});
  std::filesystem::remove(t.dump_db());  // a finished database is never replaced: start afresh
  REQUIRE(t.Dump(false).ok());
  CHECK(DumpKeys(t.dump_db()) == std::vector<std::string>{"0|0|forward|Module.a.input.0|0",
                                                          "0|0|forward|Tensor.unlisted.input.0|0",
                                                          "0|0|parameters_grad|Module.a.weight|0"});
}

// =============================================================================================
// §2.2 dump scan
// =============================================================================================

TEST_CASE("§2.2 empty data folder and stepabc: no step WARNING, INFO in auto, ERROR with --format dump", "[trend]") {
  for (bool stepabc : {false, true}) {
    CAPTURE(stepabc);
    Trend t;
    if (stepabc) WriteFile(t.data() + "/stepabc/rank0/dump.json", DumpJson(""));
    auto r = t.Dump(true, "auto");
    REQUIRE(r.ok());
    CHECK_FALSE(r->written);
    CHECK(t.Logged(LogLevel::kWarning,
                   "No valid 'step*' directories found in: " + t.data() + ", Expected directory names like 'step0'."));
    const std::string none = "No valid dump data discovered in: " + t.data() +
                             ", dump import skipped. See preceding scan warnings for the exact reason.";
    CHECK(t.Logged(LogLevel::kInfo, none));
    CHECK_FALSE(t.Logged(LogLevel::kError, none));
    CHECK(vptest::ListNames(t.db()).empty());
    t.rep.lines.clear();
    r = t.Dump(true, "dump");
    REQUIRE(r.ok());
    CHECK(t.Logged(LogLevel::kError, none));
  }
}

TEST_CASE("§2.2 step0/rankabc: step seen, skipped entries listed, ERROR", "[trend]") {
  Trend t;
  WriteFile(t.data() + "/step0/rankabc/dump.json", DumpJson(""));
  auto r = t.Dump(true, "auto");
  REQUIRE(r.ok());
  CHECK_FALSE(r->written);
  CHECK(t.Logged(LogLevel::kWarning, "No valid 'rank*' or 'proc*' directories found in: " + t.data() +
                                         "/step0. Expected directory names like 'rank0' or 'proc0'. Skipped entries: rankabc"));
  CHECK(t.Logged(LogLevel::kError, "No valid dump data discovered in: " + t.data() +
                                       ", dump import skipped. See preceding scan warnings for the exact reason."));
  CHECK_FALSE(t.LoggedContaining(LogLevel::kWarning, "No valid 'step*'"));
  CHECK(vptest::ListNames(t.db()).empty());
}

TEST_CASE("§2.2 step without rank/proc entries, and files or bad suffixes as skipped entries", "[trend]") {
  Trend t;
  vptest::MakeDir(t.data() + "/step0/other");
  WriteFile(t.data() + "/step1/rank0", "a file");
  vptest::MakeDir(t.data() + "/step1/proc");
  vptest::MakeDir(t.data() + "/step1/rank-1");
  REQUIRE(t.Dump(true).ok());
  CHECK(t.Logged(LogLevel::kWarning, "No valid 'rank*' or 'proc*' directories found in: " + t.data() +
                                         "/step0. Expected directory names like 'rank0' or 'proc0'. Skipped entries: "
                                         "(none — no rank*/proc* entries at all)"));
  bool found = false;
  for (const auto& l : t.rep.lines) {
    if (l.msg.rfind("No valid 'rank*' or 'proc*' directories found in: " + t.data() + "/step1.", 0) != 0) continue;
    found = true;
    std::string list = l.msg.substr(l.msg.find("Skipped entries: ") + 17);
    std::vector<std::string_view> names = Split(list, ',');
    std::set<std::string> got;
    for (auto n : names) got.insert(std::string(n.substr(n.front() == ' ' ? 1 : 0)));
    CHECK(got == std::set<std::string>{"proc", "rank-1", "rank0"});
  }
  CHECK(found);
  CHECK(t.AllLoggedHaveIds());
}

TEST_CASE("§2.2 rank folder without dump.json: WARNING, step absent", "[trend]") {
  Trend t;
  vptest::MakeDir(t.data() + "/step0/rank0");
  t.Rank(1, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
  REQUIRE(t.Dump(false).ok());
  CHECK(t.Logged(LogLevel::kWarning, "No 'dump.json' file found in: " + t.data() + "/step0/rank0"));
  CHECK_FALSE(t.LoggedContaining(LogLevel::kWarning, "No valid 'rank*'"));
  auto gs = GlobalStats(t.dump_db());
  CHECK(gs["min_step"] == "1");
  CHECK(gs["max_step"] == "1");
}

TEST_CASE("§2.2 rank0 + proc0 + proc1 -> ranks 0, 1, 2; procs sorted numerically; per step", "[trend]") {
  Trend t;
  t.Rank(0, "rank0", DumpJson(M("Module.a.forward.0", Fwd(T(10), ""))));
  t.Rank(0, "proc0", DumpJson(M("Module.a.forward.0", Fwd(T(20), ""))));
  t.Rank(0, "proc1", DumpJson(M("Module.a.forward.0", Fwd(T(30), ""))));
  t.Rank(1, "proc10", DumpJson(M("Module.a.forward.0", Fwd(T(40), ""))));
  t.Rank(1, "proc3", DumpJson(M("Module.a.forward.0", Fwd(T(50), ""))));
  t.Rank(1, "rank4", DumpJson(M("Module.a.forward.0", Fwd(T(60), ""))));
  REQUIRE(t.Dump(false).ok());
  CHECK(t.Logged(LogLevel::kInfo, "Step 0: proc to rank mapping - {'proc0': 1, 'proc1': 2}"));
  CHECK(t.Logged(LogLevel::kInfo, "Step 1: proc to rank mapping - {'proc3': 5, 'proc10': 6}"));
  CHECK(t.AllLoggedHaveIds());
  CHECK(Query(t.dump_db(), "SELECT step, rank, norm FROM trend_data ORDER BY step, rank") == Rows{{"0", "0", "10.0"},
                                                                                                  {"0", "1", "20.0"},
                                                                                                  {"0", "2", "30.0"},
                                                                                                  {"1", "4", "60.0"},
                                                                                                  {"1", "5", "50.0"},
                                                                                                  {"1", "6", "40.0"}});
  CHECK(GlobalStats(t.dump_db())["max_rank"] == "6");

  Trend p;
  p.Rank(0, "proc10", DumpJson(M("Module.a.forward.0", Fwd(T(1), ""))));
  p.Rank(0, "proc3", DumpJson(M("Module.a.forward.0", Fwd(T(2), ""))));
  REQUIRE(p.Dump(false).ok());
  CHECK(p.Logged(LogLevel::kInfo, "Step 0: proc to rank mapping - {'proc3': 0, 'proc10': 1}"));
  CHECK(Query(p.dump_db(), "SELECT rank, norm FROM trend_data ORDER BY rank") == Rows{{"0", "2.0"}, {"1", "1.0"}});
}

TEST_CASE("§2.2 D-2: step and rank numbers are ASCII digits only", "[trend]") {
  Trend t;
  for (const char* step : {"step1_0", "step+1", "step 1", "step-1", "step"}) {
    t.Rank(0, "rank0", DumpJson(""), nullptr);
    std::filesystem::rename(t.data() + "/step0", t.data() + "/" + step);
  }
  WriteFile(t.data() + "/step7", "not a folder");
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  CHECK_FALSE(r->written);
  CHECK(t.LoggedContaining(LogLevel::kWarning, "No valid 'step*' directories found"));

  Trend u;
  u.Rank(1, "rank02", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
  std::filesystem::rename(u.data() + "/step1", u.data() + "/step01");
  u.Rank(3, "rank1_0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
  REQUIRE(u.Dump(false).ok());
  CHECK(Query(u.dump_db(), "SELECT DISTINCT step, rank FROM trend_data") == Rows{{"1", "2"}});
}

// =============================================================================================
// §2.3 monitor folders, §5 CSV files
// =============================================================================================

namespace {
std::string OneRow(const std::string& name, double norm = 1.0) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", norm);
  return "vpp_stage,name,step,norm\n0," + name + ",0," + buf + "\n";
}

// "rank|name" of every monitor row.
std::vector<std::string> RankNames(const std::string& db) {
  std::vector<std::string> out;
  for (const auto& r : Query(db,
                             "SELECT d.rank, t.target_name FROM trend_data d JOIN monitoring_targets t "
                             "USING (target_id) ORDER BY 1, 2"))
    out.push_back(r[0] + "|" + r[1]);
  return out;
}
}  // namespace

TEST_CASE("§2.3 monitor folder regex and time tags", "[trend]") {
  Trend t;
  const char* ignored[] = {"rank0",
                           "Dec03_21-34-40-rank0",
                           "Dec03_21-34-40-rank123456-x",
                           "abcdefghijklmnopqrstuvwxyz-rank7-x",
                           "Dec03_21-34-40-rankA-x",
                           "Dec03.21-34-40-rank7-x"};
  for (const char* f : ignored) t.Csv(f, "actv_0-0.csv", OneRow(std::string("ign.") + f));
  t.Csv("Dec03_21-34-40-rank003-abc", "actv_0-0.csv", OneRow("r3"));
  t.Csv("Feb28_01-02-03-rank5-x", "actv_0-0.csv", OneRow("r5"));
  t.Csv("dec3_9-4-5-rank8-x", "actv_0-0.csv", OneRow("r8"));
  t.Csv("DEC31_23-59-61-rank9-x", "actv_0-0.csv", OneRow("r9"));
  // (folder, time tag): the greedy group takes the last "-rank<d>-" within 20 characters.
  const std::pair<const char*, const char*> invalid[] = {{"Feb29_01-02-03-rank4-x", "Feb29_01-02-03"},
                                                         {"Feb30_01-02-03-rank4-y", "Feb30_01-02-03"},
                                                         {"abc-rank3-x", "abc"},
                                                         {"-rank5-x", ""},
                                                         {"Dec03_24-00-00-rank6-x", "Dec03_24-00-00"},
                                                         {"Dec03_21-60-00-rank6-y", "Dec03_21-60-00"},
                                                         {"Dec03_21-34-62-rank6-z", "Dec03_21-34-62"},
                                                         {"Dex03_21-34-40-rank6-w", "Dex03_21-34-40"},
                                                         {"Nov31_01-02-03-rank6-v", "Nov31_01-02-03"},
                                                         {"Dec00_01-02-03-rank6-u", "Dec00_01-02-03"},
                                                         {"Dec03_21-34-40-rank1-rank10-x", "Dec03_21-34-40-rank1"}};
  for (const auto& [f, tag] : invalid) t.Csv(f, "actv_0-0.csv", OneRow(std::string("bad.") + f));
  WriteFile(t.data() + "/Dec03_21-34-40-rank11-file", "not a folder");
  auto r = t.Monitor(true);
  REQUIRE(r.ok());
  REQUIRE(r->written);
  CHECK(RankNames(t.monitor_db()) == std::vector<std::string>{"3|r3", "5|r5", "8|r8", "9|r9"});
  for (const auto& [f, tag] : invalid) {
    CAPTURE(f);
    CHECK(t.LoggedContaining(LogLevel::kWarning, "illegal timestamp: " + std::string(tag) +
                                                     ", timestamp should be prefix of existing output dirpath, like "
                                                     "'Dec03_21-34-40'."));
  }
  for (const char* f : ignored) CHECK_FALSE(t.LoggedContaining(LogLevel::kWarning, f));
  CHECK(GlobalStats(t.monitor_db())["max_rank"] == "9");
}

TEST_CASE("§2.3 D-4: two folders for one rank, the latest time tag wins with a WARNING", "[trend]") {
  Trend t;
  t.Csv("Dec03_21-34-40-rank1-aaaa", "actv_0-0.csv", OneRow("old1"));
  t.Csv("Dec04_01-00-00-rank1-0000", "actv_0-0.csv", OneRow("new1"));
  t.Csv("Dec03_21-34-40-rank2-aaaa", "actv_0-0.csv", OneRow("tie_small"));
  t.Csv("Dec03_21-34-40-rank2-bbbb", "actv_0-0.csv", OneRow("tie_big"));
  t.Csv("Jan05_00-00-00-rank6-zzzz", "actv_0-0.csv", OneRow("jan"));
  t.Csv("Dec01_00-00-00-rank6-aaaa", "actv_0-0.csv", OneRow("dec"));
  t.Csv("Dec01_00-00-09-rank7-a", "actv_0-0.csv", OneRow("sec9"));
  t.Csv("Dec01_00-00-10-rank7-a", "actv_0-0.csv", OneRow("sec10"));
  auto r = t.Monitor(true);
  REQUIRE(r.ok());
  CHECK(RankNames(t.monitor_db()) == std::vector<std::string>{"1|new1", "2|tie_big", "6|dec", "7|sec10"});
  CHECK(t.LoggedContaining(LogLevel::kWarning, t.data() + "/Dec03_21-34-40-rank1-aaaa"));
  CHECK(t.LoggedContaining(LogLevel::kWarning, t.data() + "/Dec03_21-34-40-rank2-aaaa"));
  CHECK(t.LoggedContaining(LogLevel::kWarning, t.data() + "/Jan05_00-00-00-rank6-zzzz"));
  CHECK(t.LoggedContaining(LogLevel::kWarning, t.data() + "/Dec01_00-00-09-rank7-a"));
  CHECK_FALSE(t.LoggedContaining(LogLevel::kWarning, "Dec04_01-00-00-rank1-0000"));
}

TEST_CASE("§5.1 file names: whole-name match of <metric>_<a>-<b>.csv", "[trend]") {
  Trend t;
  const std::string f = "Dec03_21-34-40-rank0-abcd1234";
  const std::pair<const char*, bool> files[] = {
      {"actv_0-1.csv", true},           {"actv_grad_0-1.csv", true},
      {"grad_unreduced_2-3.csv", true}, {"other_0-0.csv", true},
      {"actv_0-1.csv.bak", false},      {"actv_0-4_part_2.csv", false},
      {"linear_hook_0-0.csv", false},   {"attention_hook_0-0.csv", false},
      {"stack_info.csv", false},        {"bogus_0-1.csv", false},
      {"actv_0-1.CSV", false},          {"actv_a-1.csv", false},
      {"actv_01.csv", false},           {"actv_-1.csv", false},
      {"actv_1-.csv", false},           {"Actv_0-1.csv", false},
      {"actv_0-1-2.csv", false},        {"xactv_0-1.csv", false},
      {"anomaly.json", false},          {"actv_+1-2.csv", false},
  };
  for (const auto& [name, used] : files) t.Csv(f, name, OneRow(std::string("n.") + name));
  t.Csv(f + "/sub", "actv_5-5.csv", OneRow("n.sub"));
  vptest::MakeDir(t.data() + "/" + f + "/exp_avg_0-1.csv");
  auto r = t.Monitor(true);
  REQUIRE(r.ok());
  REQUIRE(r->written);
  std::vector<std::string> want;
  for (const auto& [name, used] : files)
    if (used) want.push_back(std::string("0|n.") + name);
  CHECK(RankNames(t.monitor_db()) == Sorted(want));
  CHECK(Query(t.monitor_db(), "SELECT metric_id, metric_name FROM monitoring_metrics ORDER BY 1") ==
        Rows{{"1", "actv"}, {"2", "actv_grad"}, {"3", "grad_unreduced"}, {"4", "other"}});
  CHECK(r->files == 4);
}

TEST_CASE("§5.2 row validation: invalid rows skipped with a WARNING, name cells kept verbatim", "[trend]") {
  Trend t;
  const std::string f = "Dec03_21-34-40-rank0-abcd1234";
  t.Csv(f, "actv_0-9.csv",
        "name,vpp_stage,micro_step,step,norm\n"
        "good,0,0,1,1.0\n"
        "badvpp,abc,0,1,2.0\n"
        "emptyvpp,,0,1,3.0\n"
        "badstep,0,0,x,4.0\n"
        "badmicro,0,nan,1,5.0\n"
        ",0,0,2,6.0\n"
        "trunc,1.0,1.9,3.0,7.0\n"
        "\"quoted, name\",0,0,4,8.0\n"
        " spaced ,0,0,5,9.0\n"
        "short,0\n");
  t.Csv(f, "grad_reduced_0-9.csv", "name,step,norm\nnovpp,0,1.0\n");
  t.Csv(f, "exp_avg_0-9.csv", "vpp_stage,step,norm\n0,0,1.0\n");
  auto r = t.Monitor(false);
  REQUIRE(r.ok());
  CHECK(Query(t.monitor_db(),
              "SELECT t.target_name, t.vpp_stage, t.micro_step, d.step, d.norm FROM trend_data d "
              "JOIN monitoring_targets t USING (target_id) ORDER BY d.norm") == Rows{{"good", "0", "0", "1", "1.0"},
                                                                                     {"nan", "0", "0", "2", "6.0"},
                                                                                     {"trunc", "1", "1", "3", "7.0"},
                                                                                     {"quoted, name", "0", "0", "4", "8.0"},
                                                                                     {" spaced ", "0", "0", "5", "9.0"}});
  const std::string file = t.data() + "/" + f + "/actv_0-9.csv";
  CHECK(t.LoggedContaining(LogLevel::kWarning, "Skip invalid row in " + file + ": "));
  int skips = 0;
  for (const auto& l : t.rep.lines) skips += l.msg.rfind("Skip invalid row in " + file + ": ", 0) == 0;
  CHECK(skips == 5);  // badvpp, emptyvpp, badstep, badmicro, short (empty micro_step)
  CHECK(t.LoggedContaining(LogLevel::kWarning, "Skip invalid row in " + t.data() + "/" + f + "/grad_reduced_0-9.csv"));
  CHECK(t.LoggedContaining(LogLevel::kWarning, "Skip invalid row in " + t.data() + "/" + f + "/exp_avg_0-9.csv"));
  CHECK(t.AllLoggedHaveIds());
  CHECK(vptest::Column(Query(t.monitor_db(), "SELECT metric_name FROM monitoring_metrics")) == std::vector<std::string>{"actv"});
}

TEST_CASE("§5.2 monitor stat cells: missing tokens NULL, infinities sentinels, clipping", "[trend]") {
  Trend t;
  t.Csv("Dec03_21-34-40-rank0-abcd1234", "actv_0-0.csv",
        "vpp_stage,name,step,norm,min,max,zeros,nans,mean,shape,dtype\n"
        "0,a,0,NA,-inf,inf,#N/A,null,Infinity,\"[2, 4]\",torch.bfloat16\n"
        "0,b,0,2e10,-2e10,1e9,,None,-Infinity,\"[2, 4]\",torch.bfloat16\n"
        "0,c,0,abc,0.5,\" 1.5 \",NaN,-nan,n/a,x,y\n");
  REQUIRE(t.Monitor(true).ok());
  CHECK(Query(t.monitor_db(),
              "SELECT t.target_name, norm, min, max, zeros, nans, mean FROM trend_data d "
              "JOIN monitoring_targets t USING (target_id) ORDER BY 1") ==
        Rows{{"a", kNull, "-1000000001.0", "1000000001.0", kNull, kNull, "1000000001.0"},
             {"b", "1000000000.0", "-1000000000.0", "1000000000.0", kNull, kNull, "-1000000001.0"},
             {"c", kNull, "0.5", "1.5", kNull, kNull, kNull}});
}

TEST_CASE("§5.3 statistic union per metric, canonical order, D-9 for metrics without rows", "[trend]") {
  Trend t;
  t.Csv("Dec03_21-34-40-rank0-a", "actv_0-0.csv", "vpp_stage,name,step,min,norm,id,shape,dtype,unknown\n0,x,0,1,2,3,s,d,u\n");
  t.Csv("Dec03_21-34-40-rank1-a", "actv_0-0.csv", "entropy,max,zeros,vpp_stage,name,step\n4,5,,0,x,0\n");
  t.Csv("Dec03_21-34-40-rank1-a", "exp_avg_0-0.csv", "name,step,sr,norm\nx,0,1,2\n");  // no vpp_stage
  t.Csv("Dec03_21-34-40-rank1-a", "grad_reduced_0-0.csv", "vpp_stage,name,step,jacobian\n");  // header only
  t.Csv("Dec03_21-34-40-rank1-a", "exp_avg_sq_0-0.csv", "");  // empty
  auto r = t.Monitor(true);
  REQUIRE(r.ok());
  REQUIRE(r->written);
  CHECK(TableColumns(t.monitor_db(), "trend_data") ==
        std::vector<std::string>{"rank", "step", "target_id", "metric_id", "norm", "min", "max", "zeros", "entropy"});
  auto gs = GlobalStats(t.monitor_db());
  CHECK(gs.size() == 4);
  CHECK(gs["actv"] == "norm,min,max,zeros,entropy");
  CHECK(gs.count("exp_avg") == 0);
  CHECK(gs.count("grad_reduced") == 0);
  CHECK(vptest::Column(Query(t.monitor_db(), "SELECT metric_name FROM monitoring_metrics")) == std::vector<std::string>{"actv"});
  CHECK(Query(t.monitor_db(), "SELECT rank, norm, min, max, zeros, entropy FROM trend_data ORDER BY rank") ==
        Rows{{"0", "2.0", "1.0", kNull, kNull, kNull}, {"1", kNull, kNull, "5.0", kNull, "4.0"}});
  CHECK(GlobalStats(t.monitor_db())["max_rank"] == "1");
}

TEST_CASE("§5.3/§8.2 monitor: only metrics and columns of metrics with targets; none at all -> key columns", "[trend]") {
  Trend t;
  t.Csv("Dec03_21-34-40-rank0-a", "other_0-0.csv", "vpp_stage,name,step,id\n0,x,0,7\n");
  auto r = t.Monitor(true);
  REQUIRE(r.ok());
  REQUIRE(r->written);
  CHECK(TableColumns(t.monitor_db(), "trend_data") == std::vector<std::string>{"rank", "step", "target_id", "metric_id"});
  CHECK(GlobalStats(t.monitor_db())["other"] == "");
  CHECK(Query(t.monitor_db(), "SELECT COUNT(*) FROM trend_data")[0][0] == "1");
}

TEST_CASE("§3.4 monitor micro steps: reference examples", "[trend]") {
  SECTION("steps 10 and 20, micro on: offsets {10: 0, 20: 1}") {
    Trend t;
    t.Csv("Dec03_21-34-40-rank0-a", "actv_10-20.csv",
          "vpp_stage,name,step,micro_step,norm,max\n0,layer1,10,0,0.1,1.0\n0,layer2,20,1,0.2,2.0\n");
    REQUIRE(t.Monitor(true).ok());
    CHECK(Query(t.monitor_db(), "SELECT rank, step, target_id, metric_id, norm, max FROM trend_data ORDER BY step") ==
          Rows{{"0", "0", "1", "1", "0.1", "1.0"}, {"0", "2", "2", "1", "0.2", "2.0"}});
    CHECK(Targets(t.monitor_db()) == std::vector<std::string>{"layer1|0|0", "layer2|0|0"});
    auto gs = GlobalStats(t.monitor_db());
    CHECK(gs["min_step"] == "0");
    CHECK(gs["max_step"] == "2");
    CHECK(Query(t.monitor_db(), "SELECT step, original_step, micro_step FROM trend_step_map ORDER BY step") ==
          Rows{{"0", "10", "0"}, {"1", "20", "0"}, {"2", "20", "1"}});
  }
  SECTION("the same, micro off: CSV steps, micro_step in the target") {
    Trend t;
    t.Csv("Dec03_21-34-40-rank0-a", "actv_10-20.csv",
          "vpp_stage,name,step,micro_step,min,max\n0,layer1,10,0,0.1,1.0\n0,layer2,20,1,0.2,2.0\n");
    REQUIRE(t.Monitor(false).ok());
    CHECK(Targets(t.monitor_db()) == std::vector<std::string>{"layer1|0|0", "layer2|0|1"});
    auto gs = GlobalStats(t.monitor_db());
    CHECK(gs["min_step"] == "10");
    CHECK(gs["max_step"] == "20");
    CHECK(gs["actv"] == "min,max");
    CHECK(Query(t.monitor_db(), "SELECT step FROM trend_data ORDER BY step") == Rows{{"10"}, {"20"}});
  }
  SECTION("steps 0 and 1 with two micro steps each, plus grad_reduced") {
    Trend t;
    t.Csv("Dec03_21-34-40-rank0-a", "actv_0-1.csv",
          "vpp_stage,name,step,micro_step,norm\n0,a,0,0,1\n0,a,0,1,2\n0,a,1,0,3\n0,a,1,1,4\n");
    t.Csv("Dec03_21-34-40-rank0-a", "grad_reduced_0-1.csv", "vpp_stage,name,step,norm\n0,w,0,10\n0,w,1,11\n");
    REQUIRE(t.Monitor(true).ok());
    CHECK(Query(t.monitor_db(),
                "SELECT m.metric_name, d.step, d.norm FROM trend_data d JOIN monitoring_metrics m "
                "USING (metric_id) ORDER BY 1, 2") == Rows{{"actv", "0", "1.0"},
                                                           {"actv", "1", "2.0"},
                                                           {"actv", "2", "3.0"},
                                                           {"actv", "3", "4.0"},
                                                           {"grad_reduced", "0", "10.0"},
                                                           {"grad_reduced", "2", "11.0"}});
    CHECK(GlobalStats(t.monitor_db())["max_step"] == "3");
    CHECK(Targets(t.monitor_db()) == std::vector<std::string>{"a|0|0", "w|0|0"});
  }
  SECTION("steps 10 and 20 without micro_step columns: gaps compressed") {
    Trend t;
    t.Csv("Dec03_21-34-40-rank0-a", "grad_reduced_10-20.csv", "vpp_stage,name,step,norm\n0,w,20,2\n0,w,10,1\n");
    REQUIRE(t.Monitor(true).ok());
    CHECK(Query(t.monitor_db(), "SELECT step, norm FROM trend_data ORDER BY step") == Rows{{"0", "1.0"}, {"1", "2.0"}});
    CHECK(GlobalStats(t.monitor_db())["max_step"] == "1");
  }
  SECTION("no step column means step 0; the micro count is the maximum over ranks and files") {
    Trend t;
    t.Csv("Dec03_21-34-40-rank0-a", "actv_0-0.csv", "vpp_stage,name,micro_step,norm\n0,a,0,1\n");
    t.Csv("Dec03_21-34-40-rank1-a", "actv_0-0.csv", "vpp_stage,name,step,micro_step,norm\n0,a,0,2,3\n0,a,1,0,4\n");
    REQUIRE(t.Monitor(true).ok());
    CHECK(Query(t.monitor_db(), "SELECT rank, step, norm FROM trend_data ORDER BY rank, step") ==
          Rows{{"0", "0", "1.0"}, {"1", "2", "3.0"}, {"1", "3", "4.0"}});
    CHECK(GlobalStats(t.monitor_db())["max_step"] == "3");
  }
}

TEST_CASE("§13.1 monitor: ranks 0 and 2, invalid_metric ignored, non-micro global stats", "[trend]") {
  Trend t;
  t.Csv("Dec03_21-34-40-rank0-a", "actv_0-100.csv",
        "vpp_stage,name,step,micro_step,min,max\n0,layer1,10,0,1,2\n0,layer2,20,1,3,4\n");
  t.Csv("Dec03_21-34-40-rank2-a", "grad_reduced_100-200.csv", "vpp_stage,name,step,max,min\n0,w,15,5,6\n");
  t.Csv("Dec03_21-34-40-rank2-a", "invalid_metric_100-200.csv", "vpp_stage,name,step,norm\n0,bad,99,1\n");
  REQUIRE(t.Monitor(false).ok());
  auto gs = GlobalStats(t.monitor_db());
  CHECK(gs == std::map<std::string, std::string>{
                  {"min_step", "10"}, {"max_step", "20"}, {"max_rank", "2"}, {"actv", "min,max"}, {"grad_reduced", "min,max"}});
  CHECK(TableColumns(t.monitor_db(), "global_stats") ==
        std::vector<std::string>{"min_step", "max_step", "max_rank", "actv", "grad_reduced"});
  CHECK(vptest::Column(Query(t.monitor_db(), "SELECT DISTINCT rank FROM trend_data ORDER BY 1")) ==
        std::vector<std::string>{"0", "2"});
  CHECK(Query(t.monitor_db(), "SELECT COUNT(*) FROM monitoring_targets WHERE target_name = 'bad'")[0][0] == "0");
}

TEST_CASE("§5.5 duplicates: the first row of a key wins (file order by name, then row order)", "[trend]") {
  Trend t;
  const std::string f = "Dec03_21-34-40-rank0-a";
  t.Csv(f, "actv_1-2.csv", "vpp_stage,name,step,micro_step,norm\n0,x,1,0,30\n");
  t.Csv(f, "actv_0-1.csv", "vpp_stage,name,step,micro_step,norm\n0,x,1,0,10\n0,x,1,0,20\n0,y,0,0,5\n");
  REQUIRE(t.Monitor(false).ok());
  CHECK(Query(t.monitor_db(),
              "SELECT t.target_name, d.step, d.norm FROM trend_data d JOIN monitoring_targets t "
              "USING (target_id) ORDER BY 1, 2") == Rows{{"x", "1", "10.0"}, {"y", "0", "5.0"}});
  // Dump: a repeated (rank, step, target, metric) keeps the first entry's values.
  Trend d;
  d.Rank(0, "rank0", DumpJson(M("Module.a.forward.0", Fwd(T(1), "")) + ", " + M("Module.a.0.forward", Fwd(T(2), ""))));
  REQUIRE(d.Dump(false).ok());
  CHECK(Query(d.dump_db(), "SELECT norm FROM trend_data") == Rows{{"1.0"}});
}

TEST_CASE("§5.4 monitor targets shared across metrics; mapping applied to names; §7.3 tags per metric", "[trend]") {
  Trend t;
  t.Csv("Dec03_21-34-40-rank0-a", "actv_0-0.csv", "vpp_stage,name,step,norm\n0,module.layers.0.mlp,0,1\n");
  t.Csv("Dec03_21-34-40-rank0-a", "exp_avg_0-0.csv",
        "vpp_stage,name,step,norm\n0,module.layers.0.mlp,0,2\n1,module.layers.0.mlp,0,3\n");
  t.opts.mapping = {{"module.", ""}};
  REQUIRE(t.Monitor(true).ok());
  CHECK(Targets(t.monitor_db()) == std::vector<std::string>{"layers.0.mlp|0|0", "layers.0.mlp|1|0"});
  CHECK(Query(t.monitor_db(),
              "SELECT tag_name, category, metric_id FROM monitoring_tags ORDER BY metric_id, category, "
              "tag_name") == Rows{{"layers.0", "layer", "1"},
                                  {"layers", "module", "1"},
                                  {"mlp", "module", "1"},
                                  {"layers.0", "layer", "2"},
                                  {"layers", "module", "2"},
                                  {"mlp", "module", "2"}});
  CHECK(Query(t.monitor_db(),
              "SELECT COUNT(*) FROM tag_target_mapping m JOIN monitoring_tags g USING (tag_id) "
              "WHERE g.metric_id = 1")[0][0] == "3");
  CHECK(Query(t.monitor_db(),
              "SELECT COUNT(*) FROM tag_target_mapping m JOIN monitoring_tags g USING (tag_id) "
              "WHERE g.metric_id = 2")[0][0] == "6");
}

TEST_CASE("§7.3 dump tags stored per metric", "[trend]") {
  Trend t;
  t.Rank(0, "rank0",
         DumpJson(J(M("Module.layer1.conv.forward.0", Fwd("$T", "")) + ", " + M("Module.layer1.conv.backward.0", Bwd("$T", "")) +
                    ", " + M("Tensor.add.0.forward", Fwd("$T", "")))));
  REQUIRE(t.Dump(false).ok());
  CHECK(Query(t.dump_db(),
              "SELECT m.metric_name, g.category, g.tag_name FROM monitoring_tags g JOIN "
              "monitoring_metrics m USING (metric_id) ORDER BY g.metric_id, g.category, g.tag_name") ==
        Rows{{"forward", "default", "Module"},
             {"forward", "function", "Tensor.add"},
             {"forward", "index", "input.0"},
             {"forward", "module", "layer1.conv"},
             {"backward", "default", "Module"},
             {"backward", "index", "input.0"},
             {"backward", "module", "layer1.conv"}});
  CHECK(Query(t.dump_db(), "SELECT COUNT(*) FROM tag_target_mapping")[0][0] == "8");
  CHECK(Query(t.dump_db(), "SELECT metric_id, metric_name FROM monitoring_metrics ORDER BY 1") ==
        Rows{{"1", "forward"}, {"2", "backward"}, {"3", "recompute"}, {"4", "parameters_grad"}});
}

TEST_CASE("§5.6 process_num 1 and 4 give identical databases", "[trend]") {
  Trend t;
  // 3 ranks; rank 0 has 120 files (two work batches), with duplicates across files.
  for (int k = 0; k < 120; ++k) {
    std::string rows = "vpp_stage,name,step,micro_step,norm,max\n";
    for (int i = 0; i < 20; ++i)
      rows += std::to_string(i % 2) + ",module.layers." + std::to_string(i) + ".mlp," + std::to_string(k / 2) + "," +
              std::to_string(k % 3) + "," + std::to_string(k * 100 + i) + ".5,1\n";
    t.Csv("Dec03_21-34-40-rank0-a", "actv_" + std::to_string(k) + "-" + std::to_string(k) + ".csv", rows);
  }
  for (int r = 1; r < 3; ++r) {
    for (const char* m : {"grad_reduced", "exp_avg", "exp_avg_sq", "param_origin", "actv_grad"}) {
      for (int k = 0; k < 2; ++k) {
        std::string rows = "vpp_stage,name,step,norm,mean,zeros\n";
        for (int s = 0; s < 30; ++s)
          rows += "0,module.layers." + std::to_string(s % 7) + ".w" + std::to_string(r) + "," + std::to_string(s + k * 20) + "," +
                  std::to_string(s * r + k * 1000) + ",0.25,nan\n";
        t.Csv("Dec03_21-34-4" + std::to_string(r) + "-rank" + std::to_string(r) + "-b",
              std::string(m) + "_" + std::to_string(k) + "-" + std::to_string(k + 1) + ".csv", rows);
      }
    }
  }
  for (bool micro : {true, false}) {
    CAPTURE(micro);
    std::map<int, std::map<std::string, Rows>> dbs;
    for (int threads : kThreadCounts) {
      t.rep.lines.clear();
      std::filesystem::remove(t.monitor_db());  // a finished database is never replaced: start afresh
      auto r = t.Monitor(micro, threads);
      REQUIRE(r.ok());
      REQUIRE(r->written);
      CHECK(t.Logged(LogLevel::kInfo, "Split 3 ranks into 4 batches (batch_size=100, total_files=140)"));
      dbs[threads] = AllTables(t.monitor_db());
      CHECK(vptest::ListNames(t.db()) == std::vector<std::string>{"monitor_data.trend.db"});
    }
    CHECK(dbs[1].size() >= 7);
    CHECK(dbs[1]["trend_data"].size() > 2000);
    for (int threads : kThreadCounts) {
      CAPTURE(threads);
      for (const auto& [name, rows] : dbs[1]) {
        CAPTURE(name);
        CHECK(dbs[threads][name] == rows);
      }
    }
  }
}

// =============================================================================================
// §8 files: replacement, failures, D-19
// =============================================================================================

TEST_CASE("§8.1 an existing database is kept, the next run writes dump_data_1 with a WARNING; a plain single-file database",
          "[trend]") {
  Trend t;
  t.Rank(0, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
  REQUIRE(t.Dump(false).ok());
  CHECK_FALSE(t.LoggedContaining(LogLevel::kWarning, "already exists"));
  t.Rank(0, "rank0", DumpJson(J(M("Module.b.forward.0", Fwd("$T", "")))));
  auto r = t.Dump(false);
  REQUIRE(r.ok());
  const std::string second = t.db() + "/dump_data_1.trend.db";
  CHECK(r->db_path == second);
  CHECK(t.Logged(LogLevel::kWarning, "dump_data.trend.db already exists in " + t.db() +
                                         " (or another run is writing it); this run writes dump_data_1.trend.db."));
  CHECK(Targets(t.dump_db()) == std::vector<std::string>{"Module.a.input.0|0|0"});
  CHECK(Targets(second) == std::vector<std::string>{"Module.b.input.0|0|0"});
  CHECK(vptest::ListNames(t.db()) == std::vector<std::string>{"dump_data.trend.db", "dump_data_1.trend.db"});
  CHECK(Query(t.dump_db(), "PRAGMA journal_mode")[0][0] == "delete");
  CHECK(Query(t.dump_db(), "PRAGMA foreign_keys")[0][0] == "0");
  CHECK(TableColumns(t.dump_db(), "trend_data") ==
        std::vector<std::string>{"rank", "step", "target_id", "metric_id", "norm", "max", "min", "mean"});
  CHECK(TableColumns(t.dump_db(), "global_stats") ==
        std::vector<std::string>{"max_rank", "min_step", "max_step", "forward", "backward", "recompute", "parameters_grad"});
  CHECK(Query(t.dump_db(), "SELECT value FROM trend_meta WHERE key = 'source_format'") == Rows{{"dump"}});
  CHECK(Query(t.dump_db(), "SELECT value FROM trend_meta WHERE key = 'micro_step'") == Rows{{"false"}});
}

TEST_CASE("§8.1 D-8: a failed dump import leaves the old database byte-identical and no temp file", "[trend]") {
  Trend t;
  t.Rank(0, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
  REQUIRE(t.Dump(true).ok());
  const std::string before = vptest::ReadFile(t.dump_db());
  REQUIRE(before.size() > 1000);
  t.Rank(1, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
  t.Rank(2, "rank0", "{\"data\": {\"Module.a.forward.0\": {\"input_args\": [" + kT + ", {\"type\": ");
  t.Rank(3, "rank0", DumpJson(J(M("Module.a.forward.0", Fwd("$T", "")))));
  t.rep.lines.clear();
  auto r = t.Dump(true);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find(t.data() + "/step2/rank0/dump.json") != std::string::npos);
  CHECK(vptest::ListNames(t.db()) == std::vector<std::string>{"dump_data.trend.db"});
  CHECK(vptest::ReadFile(t.dump_db()) == before);
  CHECK_FALSE(t.Logged(LogLevel::kInfo, "Dump data import completed. DB: " + t.dump_db()));

  // Without an old database nothing is left at all.
  std::filesystem::remove(t.dump_db());
  REQUIRE_FALSE(t.Dump(false).ok());
  CHECK(vptest::ListNames(t.db()).empty());
}

TEST_CASE("§8.1 D-8: a failed monitor import leaves the old database byte-identical and no temp file", "[trend]") {
  Trend t;
  const std::string f = "Dec03_21-34-40-rank0-a";
  t.Csv(f, "actv_0-0.csv", OneRow("a"));
  REQUIRE(t.Monitor(true).ok());
  const std::string before = vptest::ReadFile(t.monitor_db());
  t.Csv(f, "actv_1-1.csv", "vpp_stage,name,step,norm\n0,\"never closed,1,2\n");
  for (int threads : kThreadCounts) {
    auto r = t.Monitor(true, threads);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find(t.data() + "/" + f + "/actv_1-1.csv") != std::string::npos);
    CHECK(vptest::ListNames(t.db()) == std::vector<std::string>{"monitor_data.trend.db"});
    CHECK(vptest::ReadFile(t.monitor_db()) == before);
  }
}

TEST_CASE("§8.1 D-19: matching monitor folders without usable CSV keep an old database", "[trend]") {
  Trend t;
  const std::string f = "Dec03_21-34-40-rank0-a";
  t.Csv(f, "actv_0-0.csv", OneRow("a"));
  REQUIRE(t.Monitor(true).ok());
  const std::string before = vptest::ReadFile(t.monitor_db());
  std::filesystem::remove(t.data() + "/" + f + "/actv_0-0.csv");
  t.Csv(f, "stack_info.csv", OneRow("s"));
  t.Csv(f, "linear_hook_0-0.csv", OneRow("h"));
  t.rep.lines.clear();
  auto r = t.Monitor(true);
  REQUIRE(r.ok());
  CHECK_FALSE(r->written);
  CHECK(t.Logged(LogLevel::kWarning, "No valid CSV files found"));
  CHECK(t.Logged(LogLevel::kError, "No valid data files found during pre-scan"));
  CHECK_FALSE(t.LoggedContaining(LogLevel::kWarning, "already exists"));
  CHECK(vptest::ReadFile(t.monitor_db()) == before);

  // Header-only metric files: nothing usable either.
  t.Csv(f, "actv_0-0.csv", "vpp_stage,name,step,norm\n");
  t.rep.lines.clear();
  r = t.Monitor(true);
  REQUIRE(r.ok());
  CHECK_FALSE(r->written);
  CHECK(t.Logged(LogLevel::kError, "No valid data files found during pre-scan"));
  CHECK(vptest::ReadFile(t.monitor_db()) == before);
  CHECK(vptest::ListNames(t.db()) == std::vector<std::string>{"monitor_data.trend.db"});
}

TEST_CASE("§2.1 monitor with no matching folder: WARNING, no database created or deleted", "[trend]") {
  Trend t;
  WriteFile(t.monitor_db(), "old bytes");
  vptest::MakeDir(t.data() + "/step0/rank0");
  vptest::MakeDir(t.data() + "/anomaly_detected/rank0");
  auto r = t.Monitor(true);
  REQUIRE(r.ok());
  CHECK_FALSE(r->written);
  CHECK(t.Logged(LogLevel::kWarning, "No valid monitor directories found in: " + t.data()));
  CHECK(vptest::ReadFile(t.monitor_db()) == "old bytes");
}
