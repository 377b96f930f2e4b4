// Manual matching recomputes a pair from the texts the database stores (web-ui MAT-03/MAT-04).
#include <catch2/catch.hpp>

#include "app/graph_visualize.h"
#include "compare/manual_match.h"
#include "test_util.h"

using namespace visprobe;
using vptest::Query;

namespace {}  // namespace

TEST_CASE("manual match from stored texts gives the rows the engine wrote") {
  vptest::TempDir t;
  const std::string db = vptest::CompareWorkedExample(t / "out");
  for (const char* name : {"Functional.relu.0.forward", "Torch.sum.0.forward", "Functional.linear.0.forward",
                           "Module.fc1.Linear.parameters_grad.0"}) {
    INFO(name);
    auto npu = Query(
        db, std::string("SELECT input_data, output_data, precision_index FROM tb_nodes WHERE data_source='NPU' AND node_name='") +
                name + "'");
    auto bench = Query(
        db, std::string("SELECT input_data, output_data FROM tb_nodes WHERE data_source='Bench' AND node_name='") + name + "'");
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
  const std::string db = vptest::CompareWorkedExample(t / "out");
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
  CHECK(CompareStoredItems("all", "x", "{}", "{}", "{}", "{}").status().message() ==
        "Tensor files required for real-data matching");
  CHECK_FALSE(CompareStoredItems("bogus", "x", "{}", "{}", "{}", "{}").ok());
  CHECK_FALSE(CompareStoredItems("summary", "x", "{not json", "{}", "{}", "{}").ok());
}

namespace {

std::string RealDumper(const std::string& side) {
  return std::string(VP_SHARED_DIR) + "/fixtures/msprobe-real-dumper/" + side + "/step0/rank0";
}

}  // namespace

TEST_CASE("tensor-mode manual match reads the pair's .pt files and gives the rows the engine wrote") {
  // The real dumper's float32 run against its bf16-autocast run, compared by the engine; each pair
  // stripped of its comparison fields and matched again from the stored texts and the tensor folders.
  vptest::TempDir t;
  GraphVisualizeArgs a;
  a.target_path = RealDumper("pt_tensor_target");
  a.golden_path = RealDumper("pt_tensor_golden");
  a.has_golden = true;
  a.output_path = t / "out";
  RunOptions o;
  o.timestamp = "20240102030407";
  o.check_input_writable = false;
  vptest::RecordingReporter rep;
  auto run = RunGraphVisualize(a, o, rep);
  REQUIRE(run.ok());
  const std::string db = run->db_path;
  CHECK(Query(db, "SELECT task FROM tb_config")[0][0] == "all");
  int checked = 0;
  for (const char* name :
       {"Module.encoder.layers.0.mlp.dense_h_to_4h.Linear.forward.0", "Functional.gelu.0.forward", "Functional.gelu.1.backward",
        "Functional.cross_entropy.0.forward", "Functional.embedding.0.forward"}) {
    INFO(name);
    auto npu = Query(db, std::string("SELECT input_data, output_data, precision_index, dump_data_dir FROM tb_nodes WHERE "
                                     "data_source='NPU' AND node_name='") +
                             name + "'");
    auto bench = Query(
        db, std::string("SELECT input_data, output_data, dump_data_dir FROM tb_nodes WHERE data_source='Bench' AND node_name='") +
                name + "'");
    REQUIRE(npu.size() == 1);
    REQUIRE(bench.size() == 1);
    auto in = StripComparisonFields(npu[0][0]);
    auto out = StripComparisonFields(npu[0][1]);
    REQUIRE(in.ok());
    REQUIRE(out.ok());
    CHECK(*in != npu[0][0]);  // there were metrics to strip
    // Without the folders: refused. With them: the engine's own cells and precision.
    CHECK_FALSE(CompareStoredItems("all", name, *in, *out, bench[0][0], bench[0][1]).ok());
    auto r = CompareStoredItems("all", name, *in, *out, bench[0][0], bench[0][1], TensorDataDirs{npu[0][3], bench[0][2]});
    INFO(r.status().message());
    REQUIRE(r.ok());
    CHECK(r->input_data == npu[0][0]);
    CHECK(r->output_data == npu[0][1]);
    CHECK(std::to_string(r->precision_index) == std::to_string(std::stod(npu[0][2])));
    ++checked;
  }
  CHECK(checked == 5);
}

TEST_CASE("LocateTensorDir re-roots a stored dump_data_dir under the folder given for that side") {
  vptest::TempDir t;
  vptest::WriteFile(t / "mine/step0/rank0/dump_tensor_data/a.pt", "x");
  const std::string stored = "/home/someone/run7/step0/rank0/dump_tensor_data";
  auto d = LocateTensorDir(stored, t / "mine", "a.pt");
  REQUIRE(d.ok());
  CHECK(*d == t / "mine/step0/rank0/dump_tensor_data");
  // The folder given is the rank folder, or dump_tensor_data itself.
  CHECK(*LocateTensorDir(stored, t / "mine/step0/rank0", "a.pt") == t / "mine/step0/rank0/dump_tensor_data");
  CHECK(*LocateTensorDir(stored, t / "mine/step0/rank0/dump_tensor_data", "a.pt") == t / "mine/step0/rank0/dump_tensor_data");
  // The file is not there: a message naming the file and the folder.
  auto missing = LocateTensorDir(stored, t / "mine", "b.pt");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("b.pt") != std::string::npos);
  CHECK(missing.status().message().find(t / "mine") != std::string::npos);
}
