// Manual matching recomputes a pair from the texts the database stores (web-ui MAT-03/MAT-04).
#include <catch2/catch.hpp>

#include "app/session.h"
#include "compare/manual_match.h"
#include "test_util.h"

using namespace visprobe;
using vptest::Query;

namespace {

// Compares the worked example natively and returns the database path.
std::string CompareWorkedExample(const std::string& out) {
  GraphVisualizeArgs a;
  a.target_path = vptest::WorkedExampleDir("npu");
  a.golden_path = vptest::WorkedExampleDir("bench");
  a.has_golden = true;
  a.output_path = out;
  RunOptions o;
  o.timestamp = "20240102030405";
  o.check_input_writable = false;
  vptest::RecordingReporter rep;
  auto r = RunGraphVisualize(a, o, rep);
  REQUIRE(r.ok());
  return r->db_path;
}

}  // namespace

TEST_CASE("manual match from stored texts gives the rows the engine wrote") {
  vptest::TempDir t;
  const std::string db = CompareWorkedExample(t / "out");
  for (const char* name : {"Functional.relu.0.forward", "Torch.sum.0.forward", "Functional.linear.0.forward",
                           "Module.fc1.Linear.parameters_grad.0"}) {
    INFO(name);
    auto npu = Query(db, std::string("SELECT input_data, output_data, precision_index FROM tb_nodes WHERE data_source='NPU' AND node_name='") + name + "'");
    auto bench = Query(db, std::string("SELECT input_data, output_data FROM tb_nodes WHERE data_source='Bench' AND node_name='") + name + "'");
    REQUIRE(npu.size() == 1);
    REQUIRE(bench.size() == 1);
    auto r = CompareStoredItems("summary", name, npu[0][0], npu[0][1], bench[0][0], bench[0][1]);
    REQUIRE(r.ok());
    CHECK(r->input_data == npu[0][0]);
    CHECK(r->output_data == npu[0][1]);
    CHECK(std::to_string(r->precision_index).substr(0, 3) == std::to_string(std::stod(npu[0][2])).substr(0, 3));
  }
}

TEST_CASE("unmatch strips every comparison field and keeps the items") {
  vptest::TempDir t;
  const std::string db = CompareWorkedExample(t / "out");
  auto npu = Query(db, "SELECT input_data FROM tb_nodes WHERE data_source='NPU' AND node_name='Functional.relu.0.forward'");
  auto stripped = StripComparisonFields(npu[0][0]);
  REQUIRE(stripped.ok());
  // The same text a plain build of the target writes for this node.
  GraphVisualizeArgs a;
  a.target_path = vptest::WorkedExampleDir("npu");
  a.output_path = t / "build";
  RunOptions o;
  o.timestamp = "20240102030406";
  o.check_input_writable = false;
  vptest::RecordingReporter rep;
  auto built = RunGraphVisualize(a, o, rep);
  REQUIRE(built.ok());
  auto plain = Query(built->db_path, "SELECT input_data FROM tb_nodes WHERE node_name='Functional.relu.0.forward'");
  CHECK(stripped.value() == plain[0][0]);
  CHECK(stripped->find("NormRelativeErr") == std::string::npos);
  CHECK(stripped->find("\"Functional.relu.0.forward.input.0\": {\"type\": \"torch.Tensor\"") != std::string::npos);
}

TEST_CASE("manual match refuses tensor mode and unknown tasks") {
  CHECK(CompareStoredItems("all", "x", "{}", "{}", "{}", "{}").status().message() == "Tensor files required for real-data matching");
  CHECK_FALSE(CompareStoredItems("bogus", "x", "{}", "{}", "{}", "{}").ok());
  CHECK_FALSE(CompareStoredItems("summary", "x", "{not json", "{}", "{}", "{}").ok());
}
