// Spec §16.1 (command line), §16.4 (logging), §16.5 (progress) and §17 item 9.
#include <catch2/catch.hpp>

#include <regex>

#include "app/args.h"
#include "app/graph_visualize.h"
#include "app/log.h"
#include "test_util.h"

using namespace visprobe;
using Argv = std::vector<std::string>;

TEST_CASE("§17.9 -tp and -o set the target and output paths; defaults") {
  auto r = ParseGraphVisualizeArgs({"-tp", "input.json", "-o", "output.json"});
  REQUIRE(r.ok());
  const auto& a = r.value();
  CHECK(a.target_path == "input.json");
  CHECK(a.output_path == "output.json");
  CHECK_FALSE(a.has_golden);
  CHECK_FALSE(a.layer_mapping);
  CHECK_FALSE(a.overflow_check);
  CHECK_FALSE(a.fuzzy_match);
  CHECK_FALSE(a.print_compare_log);
  CHECK_FALSE(a.progress_log);
  CHECK_FALSE(a.has_rank_size);
  CHECK(a.vpp == std::vector<int>{1});
  CHECK(a.order == std::vector<std::string>{"tp-cp-ep-dp-pp"});
  CHECK(a.file_type == "db");
}

TEST_CASE("§16.1 long forms, --opt=value and the golden path") {
  auto r = ParseGraphVisualizeArgs(
      {"--target_path=/t", "--output_path", "/o", "--golden_path=/g", "-fm", "--is_print_compare_log", "-progress_log"});
  REQUIRE(r.ok());
  CHECK(r.value().target_path == "/t");
  CHECK(r.value().output_path == "/o");
  CHECK(r.value().has_golden);
  CHECK(r.value().golden_path == "/g");
  CHECK(r.value().fuzzy_match);
  CHECK(r.value().print_compare_log);
  CHECK(r.value().progress_log);
  auto s = ParseGraphVisualizeArgs({"-tp=/t", "-o=/o"});
  REQUIRE(s.ok());
  CHECK(s.value().target_path == "/t");
  CHECK(s.value().output_path == "/o");
}

TEST_CASE("§17.9 -lm with a mapping file, -lm alone, and -lm followed by another option") {
  auto with = ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "-lm", "mapping.json"});
  REQUIRE(with.ok());
  CHECK(with.value().layer_mapping);
  CHECK(with.value().layer_mapping_file == "mapping.json");
  auto alone = ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "-lm"});
  REQUIRE(alone.ok());
  CHECK(alone.value().layer_mapping);
  CHECK(alone.value().layer_mapping_file.empty());
  auto before = ParseGraphVisualizeArgs({"-tp", "a", "-lm", "-oc", "-o", "b"});
  REQUIRE(before.ok());
  CHECK(before.value().layer_mapping);
  CHECK(before.value().layer_mapping_file.empty());
  CHECK(before.value().overflow_check);
  CHECK(before.value().output_path == "b");
  auto eq = ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "--layer_mapping=m.yaml"});
  REQUIRE(eq.ok());
  CHECK(eq.value().layer_mapping_file == "m.yaml");
}

TEST_CASE("§17.9 -oc sets the overflow flag, its absence leaves it false") {
  CHECK(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "-oc"}).value().overflow_check);
  CHECK(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "--overflow_check"}).value().overflow_check);
  CHECK_FALSE(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b"}).value().overflow_check);
}

TEST_CASE("§16.1 merge options take one or more integers / strings") {
  auto r =
      ParseGraphVisualizeArgs({"-tp", "a", "-o",    "b", "--rank_size", "8",        "4",        "--tp",        "8",   "4", "--pp",
                               "1",   "1", "--vpp", "2", "--order",     "tp-dp-pp", "dp-tp-pp", "--file_type", "json"});
  REQUIRE(r.ok());
  CHECK(r.value().has_rank_size);
  CHECK(r.value().rank_size == std::vector<int>{8, 4});
  CHECK(r.value().tp == std::vector<int>{8, 4});
  CHECK(r.value().pp == std::vector<int>{1, 1});
  CHECK(r.value().vpp == std::vector<int>{2});
  CHECK(r.value().order == std::vector<std::string>{"tp-dp-pp", "dp-tp-pp"});
  CHECK(r.value().file_type == "json");
  CHECK_FALSE(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "--rank_size", "x"}).ok());
  CHECK_FALSE(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "--rank_size"}).ok());
  CHECK_FALSE(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "--file_type", "xml"}).ok());
}

TEST_CASE("§16.1 missing required options are errors") {
  auto no_o = ParseGraphVisualizeArgs({"-tp", "a"});
  REQUIRE_FALSE(no_o.ok());
  CHECK(no_o.status().message() == "the following arguments are required: -o/--output_path");
  auto none = ParseGraphVisualizeArgs({});
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message() == "the following arguments are required: -tp/--target_path, -o/--output_path");
  CHECK_FALSE(ParseGraphVisualizeArgs({"-tp", "-o", "b"}).ok());  // -tp without its value
}

TEST_CASE("§16.1 unknown options are errors") {
  auto r = ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "--bogus"});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "unrecognized arguments: --bogus");
  CHECK_FALSE(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "extra"}).ok());
  CHECK_FALSE(ParseGraphVisualizeArgs({"-tp", "a", "-o", "b", "-oc=1"}).ok());
}

TEST_CASE("§16.4 log message sanitising") {
  CHECK(SanitizeLogMessage("a\nb\rc\x7f"
                           "d\be\ff\tg\vh") == "a_b_c_d_e_f_g_h");
  CHECK(SanitizeLogMessage("x%08y%0az%0bw%0cv%0du%7ft") == "x_y_z_w_v_u_t");
  CHECK(SanitizeLogMessage("100% done, %41 kept") == "100% done, %41 kept");
  CHECK(SanitizeLogMessage("plain") == "plain");
}

TEST_CASE("§16.4 MSPROBE_LOG_LEVEL threshold") {
  CHECK(LogThreshold(nullptr) == 1);
  CHECK(LogThreshold("0") == 0);
  CHECK(LogThreshold("1") == 1);
  CHECK(LogThreshold("2") == 2);
  CHECK(LogThreshold("3") == 3);
  CHECK(LogThreshold("4") == 4);
  CHECK(LogThreshold("") == 1);
  CHECK(LogThreshold("abc") == 1);
  CHECK(LogThreshold("5") == 1);
}

TEST_CASE("§16.4 log line format") {
  std::string line = FormatLogLine(LogLevel::kWarning, "hello\tworld");
  CHECK(std::regex_match(line, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[WARNING\] hello_world)")));
  CHECK(std::string(LogLevelName(LogLevel::kDebug)) == "DEBUG");
  CHECK(std::string(LogLevelName(LogLevel::kInfo)) == "INFO");
  CHECK(std::string(LogLevelName(LogLevel::kError)) == "ERROR");
}

TEST_CASE("§16.5 PROGRESS json text") {
  CHECK(ProgressJson(100.0, false, {}) == "{\"current_progress\": 100.0, \"process_running\": false, \"error_msg\": []}");
  CHECK(ProgressJson(2.0, true, {}) == "{\"current_progress\": 2.0, \"process_running\": true, \"error_msg\": []}");
  CHECK(ProgressJson(0, false, {"The file path /nonexist does not exist.", "An unexpected error occurred: \"x\""}) ==
        "{\"current_progress\": 0.0, \"process_running\": false, \"error_msg\": [\"The file path /nonexist does not exist.\", "
        "\"An unexpected error occurred: \\\"x\\\"\"]}");
}

namespace {

void CheckProgressProtocol(const vptest::RecordingReporter& rep) {
  REQUIRE_FALSE(rep.ticks.empty());
  int stopped = 0;
  double last = -1;
  for (const auto& t : rep.ticks) {
    if (!t.running) ++stopped;
    CHECK(t.percent >= last);  // non-decreasing
    CHECK(t.percent <= 100.0);
    last = t.percent;
  }
  CHECK(stopped == 1);
  CHECK_FALSE(rep.ticks.back().running);
}

}  // namespace

TEST_CASE("§16.2/§16.5 a failing run logs one ERROR line and ends with running=false exactly once") {
  vptest::TempDir t;
  GraphVisualizeArgs a;
  a.target_path = t / "nonexist";
  a.output_path = t / "out";
  RunOptions o;
  o.timestamp = "20240102030405";
  vptest::RecordingReporter rep;
  auto r = RunGraphVisualize(a, o, rep);
  REQUIRE_FALSE(r.ok());
  auto errors = rep.Messages(LogLevel::kError);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "An unexpected error occurred: The file path " + (t / "nonexist") + " does not exist.");
  CheckProgressProtocol(rep);
  CHECK(vptest::ListNames(t.path()).empty());  // nothing created
}

TEST_CASE("§16.2/§16.5 a failing build (bad layout) ends with running=false exactly once") {
  vptest::TempDir t;
  vptest::MakeDir(t / "in/rank0");
  vptest::MakeDir(t / "in/other");
  GraphVisualizeArgs a;
  a.target_path = t / "in";
  a.output_path = t / "out";
  RunOptions o;
  o.timestamp = "20240102030405";
  vptest::RecordingReporter rep;
  auto r = RunGraphVisualize(a, o, rep);
  REQUIRE_FALSE(r.ok());
  auto errors = rep.Messages(LogLevel::kError);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("An unexpected error occurred: The input path content does not conform"));
  CheckProgressProtocol(rep);
}

TEST_CASE("§16.3 -tp must be a directory") {
  vptest::TempDir t;
  vptest::WriteFile(t / "file.json", "{}");
  GraphVisualizeArgs a;
  a.target_path = t / "file.json";
  a.output_path = t / "out";
  RunOptions o;
  o.timestamp = "20240102030405";
  vptest::RecordingReporter rep;
  REQUIRE_FALSE(RunGraphVisualize(a, o, rep).ok());
  auto errors = rep.Messages(LogLevel::kError);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "An unexpected error occurred: The " + (t / "file.json") + " should be a dictionary!");
}

TEST_CASE("§16.5/§17.4 a successful build ends at 100 with running=false once, after the index messages") {
  vptest::TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  GraphVisualizeArgs a;
  a.target_path = t / "npu";
  a.output_path = t / "out";
  RunOptions o;
  o.timestamp = "20240102030405";
  vptest::RecordingReporter rep;
  auto r = RunGraphVisualize(a, o, rep);
  REQUIRE(r.ok());
  CheckProgressProtocol(rep);
  CHECK(rep.ticks.back().percent == 100.0);
  CHECK(rep.Messages(LogLevel::kError).empty());
  auto info = rep.Messages(LogLevel::kInfo);
  REQUIRE(info.size() >= 3);
  CHECK(info.front() == "Start building model graphs...");
  CHECK(info[info.size() - 2] == "Start adding index to db file, please wait...");
  CHECK(info.back() == "Adding index to db file completed.");
  CHECK(std::find(info.begin(), info.end(), "Start exporting graph for build_20240102030405.vis.db...") != info.end());
}

TEST_CASE("§17.4 a multi-step build batch ends with the batch success message and one file") {
  vptest::TempDir t;
  GraphVisualizeArgs a;
  a.target_path = t / "in";
  a.output_path = t / "out";
  for (const char* d : {"step0/rank0", "step0/rank2", "step1/rank0", "step3/rank2"})
    vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / (std::string("in/") + d));
  RunOptions o;
  o.timestamp = "20240102030405";
  vptest::RecordingReporter rep;
  auto r = RunGraphVisualize(a, o, rep);
  REQUIRE(r.ok());
  CheckProgressProtocol(rep);
  auto info = rep.Messages(LogLevel::kInfo);
  CHECK(std::find(info.begin(), info.end(), "Successfully exported build graph results.") != info.end());
  CHECK(info.back() == "Adding index to db file completed.");
  const std::string db = r.value().db_path;
  CHECK(vptest::Column(vptest::Query(db, "SELECT DISTINCT graph_id FROM tb_nodes ORDER BY step, rank")) ==
        std::vector<std::string>{"NPU_0_0", "NPU_0_2", "NPU_1_0", "NPU_3_2"});
  CHECK(vptest::Query(db, "SELECT rank_list, step_list FROM tb_config") == vptest::Rows{{"[0, 2]", "[0, 1, 3]"}});
  CHECK(vptest::ListNames(t / "out") == std::vector<std::string>{"build_20240102030405.vis.db"});
}

// The one reader behind graph_visualize, data2db and gather (app/argparse.h).
TEST_CASE("ReadArgs: required options and a positional, argparse's messages and order") {
  std::vector<OptSpec> specs(2);
  specs[0].short_name = "-o";
  specs[0].long_name = "--output_path";
  specs[0].required = true;
  specs[1].long_name = "--flag";
  specs[1].arity = OptSpec::Arity::kFlag;
  std::string out;
  bool flag = false;
  auto on = [&](const OptSpec& o, const Argv& v) {
    if (o.long_name == "--flag")
      flag = true;
    else
      out = v.at(0);
    return Status::Ok();
  };
  std::vector<std::string> parts;
  auto read = [&](const Argv& argv) {
    parts.clear();
    out.clear();
    flag = false;
    return ReadArgs(specs, argv, on, "PART", &parts);
  };
  CHECK(read({"a.db", "-o", "dir", "b.db", "--flag"}).ok());
  CHECK(out == "dir");
  CHECK(flag);
  CHECK(parts == Argv{"a.db", "b.db"});
  CHECK(read({"-o=x", "p"}).ok());
  CHECK(out == "x");
  CHECK(read({}).message() == "the following arguments are required: -o/--output_path, PART");
  CHECK(read({"p"}).message() == "the following arguments are required: -o/--output_path");
  CHECK(read({"-o", "d"}).message() == "the following arguments are required: PART");
  CHECK(read({"-o"}).message() == "argument -o/--output_path: expected one argument");
  CHECK(read({"-o", "--flag"}).message() == "argument -o/--output_path: expected one argument");
  CHECK(read({"-o", "-5", "p"}).ok());  // a negative number is a value
  CHECK(out == "-5");
  CHECK(read({"--flag=1", "-o", "d", "p"}).message() == "argument --flag: ignored explicit argument '1'");
  // Unknown options are reported after the required ones, all of them, in order.
  CHECK(read({"-o", "d", "p", "--bogus", "-x=1"}).message() == "unrecognized arguments: --bogus -x=1");
  CHECK(read({"--bogus"}).message() == "the following arguments are required: -o/--output_path, PART");
  // A conversion error ends the reading where it happens, as argparse's does.
  auto failing = [](const OptSpec&, const Argv& v) {
    return v.at(0) == "bad" ? InvalidInput("argument -o/--output_path: bad") : Status::Ok();
  };
  CHECK(ReadArgs(specs, {"-o", "bad", "--bogus"}, failing, "PART", &parts).message() == "argument -o/--output_path: bad");
}

TEST_CASE("ReadArgs: several values and an optional value") {
  std::vector<OptSpec> specs(2);
  specs[0].long_name = "--tp";
  specs[0].arity = OptSpec::Arity::kMany;
  specs[1].short_name = "-lm";
  specs[1].long_name = "--layer_mapping";
  specs[1].arity = OptSpec::Arity::kOptional;
  std::vector<Argv> seen;
  auto on = [&](const OptSpec&, const Argv& v) {
    seen.push_back(v);
    return Status::Ok();
  };
  CHECK(ReadArgs(specs, {"--tp", "2", "1", "-lm", "--tp=4", "3"}, on).ok());
  CHECK(seen == std::vector<Argv>{{"2", "1"}, {}, {"4", "3"}});
  CHECK(ReadArgs(specs, {"--tp"}, on).message() == "argument --tp: expected at least one argument");
  CHECK(ReadArgs(specs, {"stray"}, on).message() == "unrecognized arguments: stray");
}
