// Spec §3 (input layout detection) and §17 items 1, 8: classify, list_named, find_proc_dir, id_of,
// and the (step, rank) plan of build and compare runs.
#include <catch2/catch.hpp>

#include "layout/layout.h"
#include "test_util.h"

using namespace visprobe;
using vptest::SamplesDir;
using vptest::TempDir;
using vptest::WriteFile;

namespace {
const char kNamingError[] =
    "The input path content does not conform to the expected naming convention. It is expected to be all "
    "step{number} named folders (such as step0), all rank{number} named folders (such as rank0), or all files.";

void WriteRank(const std::string& dir) {
  WriteFile(dir + "/construct.json", "{\"Module1\": null}");
  WriteFile(dir + "/dump.json", "{}");
  WriteFile(dir + "/stack.json", "{}");
}
}  // namespace

TEST_CASE("§3.1/§17.1 classify the shared multi-step fixture") {
  auto steps = Classify(SamplesDir("vis_multi_step_rank"));
  REQUIRE(steps.ok());
  CHECK(steps.value() == LayoutKind::kSteps);
  auto ranks = Classify(SamplesDir("vis_multi_step_rank/step0"));
  REQUIRE(ranks.ok());
  CHECK(ranks.value() == LayoutKind::kRanks);
  auto files = Classify(SamplesDir("vis_multi_step_rank/step0/rank0"));
  REQUIRE(files.ok());
  CHECK(files.value() == LayoutKind::kFiles);
}

TEST_CASE("§3.1/§17.1 mixed rank and step folders are refused with the naming-convention message") {
  auto r = Classify(SamplesDir("vis_bad_layout/step1"));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::StartsWith(kNamingError));
  // msProbe's text, then the folder it is about (visprobe names the offending folder).
  CHECK(r.status().message() == std::string(kNamingError) + " Found in " + SamplesDir("vis_bad_layout/step1") + ".");
}

TEST_CASE("§3.1 rule 1: an empty folder is an error") {
  TempDir t;
  auto r = Classify(t.path());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "The path " + t.path() + " is empty.");
}

TEST_CASE("§3.1 rules 2-5 on synthetic folders") {
  TempDir t;
  SECTION("dump_tensor_data makes a FILES folder even next to other folders") {
    WriteFile(t / "a/dump.json", "{}");
    vptest::MakeDir(t / "a/dump_tensor_data");
    vptest::MakeDir(t / "a/rank0");
    auto r = Classify(t / "a");
    REQUIRE(r.ok());
    CHECK(r.value() == LayoutKind::kFiles);
  }
  SECTION("files next to rank folders are ignored") {
    WriteRank(t / "a/rank0");
    WriteRank(t / "a/rank1");
    WriteFile(t / "a/notes.txt", "x");
    auto r = Classify(t / "a");
    REQUIRE(r.ok());
    CHECK(r.value() == LayoutKind::kRanks);
  }
  SECTION("a single folder named rank") {
    vptest::MakeDir(t / "a/rank");
    auto r = Classify(t / "a");
    REQUIRE(r.ok());
    CHECK(r.value() == LayoutKind::kRanks);
  }
  SECTION("a proc folder") {
    vptest::MakeDir(t / "a/proc123");
    auto r = Classify(t / "a");
    REQUIRE(r.ok());
    CHECK(r.value() == LayoutKind::kRanks);
  }
  SECTION("rank01 is a rank folder for classification (^rank\\d+$)") {
    vptest::MakeDir(t / "a/rank01");
    auto r = Classify(t / "a");
    REQUIRE(r.ok());
    CHECK(r.value() == LayoutKind::kRanks);
  }
  SECTION("step folders") {
    vptest::MakeDir(t / "a/step0");
    vptest::MakeDir(t / "a/step3");
    auto r = Classify(t / "a");
    REQUIRE(r.ok());
    CHECK(r.value() == LayoutKind::kSteps);
  }
  SECTION("other folder names are an error") {
    vptest::MakeDir(t / "a/rank0");
    vptest::MakeDir(t / "a/extra");
    auto r = Classify(t / "a");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::StartsWith(kNamingError));
  }
}

TEST_CASE("§3.2 list_named: lenient mode skips names that do not match, rank01 included") {
  TempDir t;
  for (const char* d : {"rank10", "rank2", "rank", "rank01", "rankx"}) vptest::MakeDir(t / d);
  WriteFile(t / "notes.txt", "x");
  auto r = ListNamed(t.path(), "rank", false);
  REQUIRE(r.ok());
  CHECK(r.value() == std::vector<std::string>{"rank", "rank2", "rank10"});
}

TEST_CASE("§3.2 list_named: strict mode fails on the first non-matching entry") {
  TempDir t;
  vptest::MakeDir(t / "rank0");
  vptest::MakeDir(t / "rank01");
  auto r = ListNamed(t.path(), "rank", true);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() ==
        "dump_dir contains 'rank01'. Expected 'rank'. This name is not in the format of dump output. Please check "
        "and delete irrelevant files in " +
            t.path() + " and try again.");
  vptest::TempDir ok;
  vptest::MakeDir(ok / "step1");
  vptest::MakeDir(ok / "step0");
  auto s = ListNamed(ok.path(), "step", true);
  REQUIRE(s.ok());
  CHECK(s.value() == std::vector<std::string>{"step0", "step1"});
}

TEST_CASE("§3.2 find_proc_dir needs exactly one proc folder") {
  TempDir t;
  vptest::MakeDir(t / "one/proc7");
  auto one = FindProcDir(t / "one");
  REQUIRE(one.ok());
  CHECK(one.value() == "proc7");
  vptest::MakeDir(t / "none/rank0");
  auto none = FindProcDir(t / "none");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message() ==
        "No or multiple proc directories were found in the " + (t / "none") + ". Expected exactly one.");
  vptest::MakeDir(t / "two/proc1");
  vptest::MakeDir(t / "two/proc2");
  CHECK_FALSE(FindProcDir(t / "two").ok());
}

TEST_CASE("§3.2 id_of") {
  CHECK(IdOf("rank", true).value() == 0);
  CHECK(IdOf("step", false).value() == 0);
  CHECK(IdOf("proc12", true).value() == 0);
  CHECK(IdOf("rank0", true).value() == 0);
  CHECK(IdOf("rank17", true).value() == 17);
  CHECK(IdOf("step3", false).value() == 3);
  CHECK_FALSE(IdOf("rankx", true).ok());
  CHECK_FALSE(IdOf("stepx", false).ok());
}

TEST_CASE("§3.2 id_of failure messages are the spec's texts, then the name") {
  auto r = IdOf("rankx", true);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() ==
        "The folder name format is incorrect, expected rank+number, such as rank0, step1, etc. Found 'rankx'.");
  auto s = IdOf("stepx", false);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().message() ==
        "The folder name format is incorrect, expected step+number, such as rank0, step1, etc. Found 'stepx'.");
}

TEST_CASE("§3.3 build plan of the multi-step fixture") {
  auto r = PlanRun(SamplesDir("vis_multi_step_rank"), "");
  REQUIRE(r.ok());
  const LayoutPlan& p = r.value();
  CHECK(p.kind == LayoutKind::kSteps);
  CHECK(p.step_list == std::vector<int>{0, 1, 2});
  REQUIRE(p.jobs.size() == 4);
  std::vector<std::pair<int, int>> sr;
  for (const auto& j : p.jobs) sr.emplace_back(j.step, j.rank);
  CHECK(sr == std::vector<std::pair<int, int>>{{0, 0}, {0, 1}, {1, 0}, {2, 0}});
  CHECK(p.jobs[1].target_dir == SamplesDir("vis_multi_step_rank") + "/step0/rank1");
  CHECK(p.jobs[0].golden_dir.empty());
  CHECK(p.rank_lists == std::vector<std::vector<int>>{{0, 1}, {0}, {0}});
}

TEST_CASE("§3.4/§17.8 compare of step0 (rank0, rank1) with step1 (rank0) compares rank0 only") {
  auto r = PlanRun(SamplesDir("vis_multi_step_rank/step0"), SamplesDir("vis_multi_step_rank/step1"));
  REQUIRE(r.ok());
  const LayoutPlan& p = r.value();
  CHECK(p.kind == LayoutKind::kRanks);
  REQUIRE(p.jobs.size() == 1);
  CHECK(p.jobs[0].rank == 0);
  CHECK(p.jobs[0].step == 0);
  CHECK(p.jobs[0].target_dir == SamplesDir("vis_multi_step_rank/step0") + "/rank0");
  CHECK(p.jobs[0].golden_dir == SamplesDir("vis_multi_step_rank/step1") + "/rank0");
  CHECK(p.rank_lists == std::vector<std::vector<int>>{{0}});
  CHECK(p.step_list == std::vector<int>{0});
}

TEST_CASE("§3.4/§16.3 a rank folder without construct.json fails with the does-not-exist message") {
  auto r = PlanRun(SamplesDir("vis_bad_layout/step0"), "");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "The file path " + SamplesDir("vis_bad_layout/step0") + "/rank1/construct.json does not exist.");
}

TEST_CASE("§3.3 a stray entry in a STEPS folder fails the strict step enumeration") {
  TempDir t;
  WriteRank(t / "run/step0/rank0");
  WriteFile(t / "run/readme.txt", "x");
  REQUIRE(Classify(t / "run").value() == LayoutKind::kSteps);
  auto r = PlanRun(t / "run", "");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::StartsWith("dump_dir contains 'readme.txt'. Expected 'step'."));
}

TEST_CASE("§3.4 compare errors: inconsistent layouts, disjoint ranks, disjoint steps") {
  TempDir t;
  WriteRank(t / "steps/step0/rank0");
  WriteRank(t / "ranks/rank0");
  WriteRank(t / "ranks_b/rank1");
  WriteRank(t / "steps_b/step1/rank0");
  auto inconsistent = PlanRun(t / "steps", t / "ranks");
  REQUIRE_FALSE(inconsistent.ok());
  CHECK(inconsistent.status().message() == "The directory structures of npu_path and bench_path are inconsistent.");
  auto ranks = PlanRun(t / "ranks", t / "ranks_b");
  REQUIRE_FALSE(ranks.ok());
  CHECK(ranks.status().message() == "The ranks in the two runs are completely different. Unable to match the ranks.");
  auto steps = PlanRun(t / "steps", t / "steps_b");
  REQUIRE_FALSE(steps.ok());
  CHECK(steps.status().message() == "Two steps cannot obtain intersection.");
}

TEST_CASE("§3.3 a RANKS folder without rank folders uses its single proc folder") {
  TempDir t;
  WriteRank(t / "run/proc5");
  auto r = PlanRun(t / "run", "");
  REQUIRE(r.ok());
  REQUIRE(r.value().jobs.size() == 1);
  CHECK(r.value().jobs[0].rank == 0);
  CHECK(r.value().jobs[0].target_dir == t / "run/proc5");
}
