// Spec §13 (the .vis.db file) and §18.3 (worked example rows), §17 items 62, 63: statement texts,
// schema, indexes, rows written by a real run, and what is left behind when a run fails.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <sys/stat.h>
#include <algorithm>

#include "app/graph_visualize.h"
#include "db/schema.h"
#include "db/vis_db.h"
#include "test_util.h"

using namespace visprobe;
using vptest::DbLeftovers;
using vptest::kNull;
using vptest::Query;
using vptest::Rows;
using vptest::TempDir;

namespace {

const char kTs[] = "20240102030405";

struct Run {
  Result<RunSummary> result = Status(Code::kInternal, "not run");
  vptest::RecordingReporter rep;
};

std::unique_ptr<Run> BuildRun(const std::string& target, const std::string& out, bool overflow = false) {
  auto r = std::make_unique<Run>();
  GraphVisualizeArgs a;
  a.target_path = target;
  a.output_path = out;
  a.overflow_check = overflow;
  RunOptions o;
  o.timestamp = kTs;
  r->result = RunGraphVisualize(a, o, r->rep);
  return r;
}

// The worked example (§18.1 target side) built into <tmp>/out; returns the database path.
struct WorkedBuild {
  TempDir tmp;
  std::string db;
  std::unique_ptr<Run> run;
  WorkedBuild() {
    vptest::CopyRankFolder(vptest::WorkedExampleDir(), tmp / "npu");
    run = BuildRun(tmp / "npu", tmp / "out");
    db = tmp / (std::string("out/build_") + kTs + ".vis.db");
  }
};

}  // namespace

TEST_CASE("§17.62 CREATE TABLE statement text") {
  TableDef t{"t", {{"id", "INTEGER PRIMARY KEY"}, {"name", "TEXT NOT NULL"}}};
  auto s = CreateTableSql(t);
  REQUIRE(s.ok());
  CHECK(s.value() == "CREATE TABLE IF NOT EXISTS t (\n    id INTEGER PRIMARY KEY,\n    name TEXT NOT NULL\n);");
}

TEST_CASE("§17.62 INSERT statement texts") {
  TableDef t{"t", {{"id", "INTEGER PRIMARY KEY"}, {"name", "TEXT NOT NULL"}}};
  CHECK(InsertSql(t, OnConflict::kAbort).value() == "INSERT INTO t (id, name) VALUES (?, ?)");
  CHECK(InsertSql(t, OnConflict::kIgnore).value() == "INSERT OR IGNORE INTO t (id, name) VALUES (?, ?)");
  CHECK(InsertSql(t, OnConflict::kFail, true, 2).value() ==
        "INSERT OR FAIL INTO t (rowid, id, name) VALUES (?, ?, ?), (?, ?, ?)");
}

TEST_CASE("§17.62 unsafe identifiers are rejected as potential SQL injection") {
  TableDef bad_table{"t; DROP TABLE x", {{"id", "TEXT"}}};
  TableDef bad_col{"t", {{"id", "TEXT"}, {"na-me", "TEXT"}}};
  TableDef empty_col{"t", {{"", "TEXT"}}};
  for (const TableDef* t : {&bad_table, &bad_col, &empty_col}) {
    auto c = CreateTableSql(*t);
    REQUIRE_FALSE(c.ok());
    CHECK_THAT(c.status().message(), Catch::Contains("potential SQL injection"));
    CHECK_FALSE(InsertSql(*t, OnConflict::kAbort).ok());
  }
  IndexDef bad_idx{"i1", {"step", "rank)"}};
  CHECK_FALSE(CreateIndexSql("tb_nodes", bad_idx).ok());
  CHECK_FALSE(CreateIndexSql("tb nodes", NodeIndexes()[0]).ok());
}

TEST_CASE("§13.7 index statement text and the seven index definitions") {
  CHECK(CreateIndexSql("tb_nodes", NodeIndexes()[0]).value() ==
        "CREATE INDEX IF NOT EXISTS index1 ON tb_nodes (step, rank, data_source, up_node, node_order)");
  REQUIRE(NodeIndexes().size() == 7);
  std::vector<std::vector<std::string>> cols;
  for (const auto& i : NodeIndexes()) cols.emplace_back(i.columns.begin(), i.columns.end());
  CHECK(cols == std::vector<std::vector<std::string>>{{"step", "rank", "data_source", "up_node", "node_order"},
                                                      {"step", "rank", "data_source", "node_name"},
                                                      {"step", "rank", "data_source", "node_order"},
                                                      {"step", "rank", "node_order"},
                                                      {"step", "rank", "micro_step_id", "node_order"},
                                                      {"step", "rank", "modified", "matched_node_link"},
                                                      {"is_distributed"}});
}

TEST_CASE("§13.2 tb_nodes has the 22 columns in order with their declared types") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  Rows info = Query(w.db, "SELECT name, type, \"notnull\", pk FROM pragma_table_info('tb_nodes') ORDER BY cid");
  Rows expected = {{"id", "TEXT", "0", "1"},
                   {"graph_id", "TEXT", "1", "0"},
                   {"node_order", "INTEGER", "1", "0"},
                   {"node_name", "TEXT", "1", "0"},
                   {"node_type", "TEXT", "1", "0"},
                   {"up_node", "TEXT", "0", "0"},
                   {"sub_nodes", "TEXT", "0", "0"},
                   {"precision_index", "INTEGER", "0", "0"},
                   {"overflow_level", "TEXT", "0", "0"},
                   {"micro_step_id", "INTEGER", "1", "0"},
                   {"matched_node_link", "TEXT", "0", "0"},
                   {"stack_id", "TEXT", "0", "0"},
                   {"parallel_merge_info", "TEXT", "0", "0"},
                   {"matched_distributed", "TEXT", "0", "0"},
                   {"modified", "INTEGER", "1", "0"},
                   {"input_data", "TEXT", "0", "0"},
                   {"output_data", "TEXT", "0", "0"},
                   {"data_source", "TEXT", "0", "0"},
                   {"dump_data_dir", "TEXT", "0", "0"},
                   {"step", "INTEGER", "1", "0"},
                   {"rank", "INTEGER", "1", "0"},
                   {"is_distributed", "INTEGER", "0", "0"}};
  CHECK(info == expected);
}

TEST_CASE("§13.4/§13.6 tb_config and tb_stack columns") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  Rows cfg = Query(w.db, "SELECT name, type, \"notnull\", pk FROM pragma_table_info('tb_config') ORDER BY cid");
  CHECK(cfg == Rows{{"id", "TEXT", "0", "1"},
                    {"graph_type", "TEXT", "1", "0"},
                    {"task", "TEXT", "0", "0"},
                    {"tool_tip", "TEXT", "0", "0"},
                    {"micro_steps", "INTEGER", "0", "0"},
                    {"overflow_check", "INTEGER", "0", "0"},
                    {"node_colors", "TEXT", "1", "0"},
                    {"rank_list", "TEXT", "1", "0"},
                    {"step_list", "TEXT", "1", "0"}});
  Rows st = Query(w.db, "SELECT name, type, pk FROM pragma_table_info('tb_stack') ORDER BY cid");
  CHECK(st == Rows{{"id", "TEXT", "1"}, {"stack_info", "TEXT", "0"}});
}

TEST_CASE("§17.63/§13.7 all seven indexes exist after a run") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  Rows idx = Query(
      w.db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tb_nodes' AND name LIKE 'index%' ORDER BY name");
  CHECK(vptest::Column(idx) == std::vector<std::string>{"index1", "index2", "index3", "index4", "index5", "index6", "index7"});
  CHECK(vptest::Column(Query(w.db, "SELECT name FROM pragma_index_info('index5') ORDER BY seqno")) ==
        std::vector<std::string>{"step", "rank", "micro_step_id", "node_order"});
  CHECK(vptest::Column(Query(w.db, "SELECT name FROM pragma_index_info('index7')")) ==
        std::vector<std::string>{"is_distributed"});
}

TEST_CASE("§18.3 tb_nodes rows of the worked example build") {
  WorkedBuild w;
  INFO(w.run->result.status().message());
  REQUIRE(w.run->result.ok());
  CHECK(w.run->result.value().db_path == w.db);
  Rows rows =
      Query(w.db, "SELECT node_order, node_name, node_type, up_node, sub_nodes, stack_id FROM tb_nodes ORDER BY node_order");
  Rows expected = {
      {"0", "Functional.linear.0.forward", "1", "Module.fc1.Linear.forward.0", "", "NPU_0_0_0"},
      {"1", "Module.fc1.Linear.forward.0", "0", "DefaultModel", "[\"Functional.linear.0.forward\"]", "NPU_0_0_1"},
      {"2", "Functional.relu.0.forward", "1", "Apis_Between_Modules.0", "", "NPU_0_0_2"},
      {"3", "Torch.sum.0.forward", "1", "Apis_Between_Modules.0", "", "NPU_0_0_2"},
      {"4", "Torch.sum.0.backward", "1", "Apis_Between_Modules.0", "", "NPU_0_0_2"},
      {"5", "Apis_Between_Modules.0", "9", "DefaultModel",
       "[\"Functional.relu.0.forward\", \"Torch.sum.0.forward\", \"Torch.sum.0.backward\"]", "NPU_0_0_3"},
      {"6", "Functional.linear.0.backward", "1", "Module.fc1.Linear.backward.0", "", "NPU_0_0_0"},
      {"7", "Module.fc1.Linear.parameters_grad.0", "0", "Module.fc1.Linear.backward.0", "", "NPU_0_0_3"},
      {"8", "Module.fc1.Linear.backward.0", "0", "DefaultModel",
       "[\"Functional.linear.0.backward\", \"Module.fc1.Linear.parameters_grad.0\"]", "NPU_0_0_1"},
      {"9", "DefaultModel", "0", "",
       "[\"Module.fc1.Linear.forward.0\", \"Apis_Between_Modules.0\", \"Module.fc1.Linear.backward.0\"]", "NPU_0_0_3"}};
  CHECK(rows == expected);
}

TEST_CASE("§18.3 constant columns of every worked-example row") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  Rows rows = Query(w.db,
                    "SELECT id, node_name, graph_id, precision_index, overflow_level, micro_step_id, matched_node_link, "
                    "parallel_merge_info, matched_distributed, modified, data_source, dump_data_dir, step, rank, "
                    "is_distributed FROM tb_nodes ORDER BY node_order");
  REQUIRE(rows.size() == 10);
  for (const auto& r : rows) {
    INFO(r[1]);
    CHECK(r[0] == "NPU_0_0_" + r[1]);
    CHECK(r ==
          std::vector<std::string>{r[0], r[1], "NPU_0_0", kNull, kNull, "0", "[]", "", "{}", "0", "NPU", kNull, "0", "0", "0"});
  }
}

TEST_CASE("§13.2 node_type is stored as TEXT and the root's up_node is ''") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  CHECK(Query(w.db, "SELECT DISTINCT typeof(node_type) FROM tb_nodes") == Rows{{"text"}});
  CHECK(vptest::Column(Query(w.db, "SELECT DISTINCT node_type FROM tb_nodes ORDER BY node_type")) ==
        std::vector<std::string>{"0", "1", "9"});
  CHECK(Query(w.db, "SELECT node_name, typeof(up_node) FROM tb_nodes WHERE up_node = ''") == Rows{{"DefaultModel", "text"}});
  CHECK(Query(w.db, "SELECT count(*) FROM tb_nodes WHERE up_node IS NULL") == Rows{{"0"}});
  CHECK(Query(w.db, "SELECT DISTINCT typeof(step), typeof(rank), typeof(node_order), typeof(micro_step_id) FROM tb_nodes") ==
        Rows{{"integer", "integer", "integer", "integer"}});
}

TEST_CASE("§18.3 tb_stack rows of the worked example build") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  Rows rows = Query(w.db, "SELECT id, stack_info FROM tb_stack ORDER BY id");
  Rows expected = {
      {"NPU_0_0_0",
       R"J(["File /app/model.py, line 10, in forward, \n return F.linear(x, self.weight, self.bias)", "File /app/train.py, line 5, in <module>, \n out = model(x)"])J"},
      {"NPU_0_0_1", R"J(["File /app/train.py, line 5, in <module>, \n out = model(x)"])J"},
      {"NPU_0_0_2", R"J(["File /app/train.py, line 6, in <module>, \n loss = torch.relu(out).sum()"])J"},
      {"NPU_0_0_3", "[]"}};
  CHECK(rows == expected);
}

TEST_CASE("§18.3 tb_config row of a single build") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  CHECK(Query(w.db,
              "SELECT id, graph_type, task, tool_tip, micro_steps, overflow_check, node_colors, rank_list, step_list FROM "
              "tb_config") == Rows{{"1", "build", "", kNull, "1", "0", "null", "[0]", "[0]"}});
}

TEST_CASE("§18.3 exact input_data / output_data texts of the worked example") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  auto cell = [&](const std::string& col, const std::string& node) {
    Rows r = Query(w.db, "SELECT " + col + " FROM tb_nodes WHERE node_name = '" + node + "'");
    REQUIRE(r.size() == 1);
    return r[0][0];
  };
  CHECK(
      cell("input_data", "Torch.sum.0.forward") ==
      R"({"Torch.sum.0.forward.input.0": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": "[2, 3]", "Max": "0.5", "Min": "0.0", "Mean": "0.2", "Norm": "0.9", "requires_grad": "True", "data_name": "-1"}, "Torch.sum.0.forward.input.1": {"value": "null"}, "Torch.sum.0.forward.input.2": {"type": "int", "value": "1", "data_name": "-1", "requires_grad": "null", "Max": "1", "Min": "1", "Mean": "1", "Norm": "1", "dtype": "<class int>", "shape": "[]"}, "Torch.sum.0.forward.input.dtype": {"type": "torch.dtype", "value": "torch.float32", "data_name": "-1", "requires_grad": "null", "Max": "torch.float32", "Min": "torch.float32", "Mean": "torch.float32", "Norm": "torch.float32", "dtype": "<class str>", "shape": "[]"}})");
  CHECK(
      cell("output_data", "Torch.sum.0.forward") ==
      R"({"Torch.sum.0.forward.output.0": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": "[]", "Max": "inf", "Min": "inf", "Mean": "inf", "Norm": "inf", "requires_grad": "True", "data_name": "-1"}})");
  CHECK(
      cell("output_data", "Torch.sum.0.backward") ==
      R"({"Torch.sum.0.backward.output.0": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": "[2, 3]", "Max": "1.0", "Min": "1.0", "Mean": "1.0", "Norm": "2.4494898319244385", "requires_grad": "False", "data_name": "-1"}, "Torch.sum.0.backward.output.1": {"value": "null"}, "Torch.sum.0.backward.output.2": {"value": "null"}})");
  CHECK(cell("output_data", "Module.fc1.Linear.parameters_grad.0") == "{}");
  CHECK(cell("input_data", "DefaultModel") == "{}");
  CHECK(cell("output_data", "Apis_Between_Modules.0") == "{}");
}

TEST_CASE("§18.3 items kept in the graph (BuildGraph) equal the texts streamed into the database") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  auto built = BuildGraph(w.tmp / "npu", BuildOptions());
  REQUIRE(built.ok());
  const Graph& g = *built.value();
  Rows rows = Query(w.db, "SELECT node_name, input_data, output_data FROM tb_nodes ORDER BY node_order");
  REQUIRE(rows.size() == 10);
  for (const auto& r : rows) {
    INFO(r[0]);
    NodeId id = g.Find(r[0]);
    REQUIRE(id != kNoNode);
    CHECK(vptest::ItemsJson(g.node(id).items, false) == r[1]);
    CHECK(vptest::ItemsJson(g.node(id).items, true) == r[2]);
  }
}

TEST_CASE("§18.3 item keys of the worked example's module and parameters_grad nodes") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  auto keys = [&](const std::string& col, const std::string& node) {
    return vptest::Column(Query(
        w.db, "SELECT j.key FROM tb_nodes, json_each(tb_nodes." + col + ") AS j WHERE node_name = '" + node + "' ORDER BY j.id"));
  };
  CHECK(keys("input_data", "Module.fc1.Linear.parameters_grad.0") ==
        std::vector<std::string>{"Module.fc1.Linear.parameters_grad.0.weight", "Module.fc1.Linear.parameters_grad.0.bias"});
  CHECK(keys("input_data", "Module.fc1.Linear.forward.0") ==
        std::vector<std::string>{"Module.fc1.Linear.forward.0.input.0", "Module.fc1.Linear.forward.0.parameters.weight",
                                 "Module.fc1.Linear.forward.0.parameters.bias"});
  CHECK(keys("output_data", "Module.fc1.Linear.forward.0") == std::vector<std::string>{"Module.fc1.Linear.forward.0.output.0"});
  CHECK(keys("input_data", "Functional.relu.0.forward") ==
        std::vector<std::string>{"Functional.relu.0.forward.input.0", "Functional.relu.0.forward.input.inplace"});
}

TEST_CASE("§11.3/§13.4 a build with -oc stores critical for Torch.sum.0.forward and overflow_check 1") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  auto run = BuildRun(t / "npu", t / "out", true);
  REQUIRE(run->result.ok());
  const std::string db = run->result.value().db_path;
  CHECK(Query(db, "SELECT node_name, overflow_level FROM tb_nodes WHERE overflow_level IS NOT NULL") ==
        Rows{{"Torch.sum.0.forward", "critical"}});
  CHECK(Query(db, "SELECT overflow_check FROM tb_config") == Rows{{"1"}});
}

TEST_CASE("§13.1 the output holds only the finished .vis.db (no -wal, -shm or temporary file)") {
  WorkedBuild w;
  REQUIRE(w.run->result.ok());
  CHECK(vptest::ListNames(w.tmp / "out") == std::vector<std::string>{std::string("build_") + kTs + ".vis.db"});
  struct stat st;
  REQUIRE(::stat(w.db.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  CHECK(Query(w.db, "PRAGMA journal_mode") != Rows{{"wal"}});
}

TEST_CASE("§13.1 missing output folders are created with mode 0750") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  auto run = BuildRun(t / "npu", t / "a/b");
  REQUIRE(run->result.ok());
  for (const char* d : {"a", "a/b"}) {
    struct stat st;
    REQUIRE(::stat((t / d).c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0750);
  }
}

TEST_CASE("§13.1/§13.9 a failing run leaves no .vis.db and no temporary file: truncated dump.json") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  std::string dump = vptest::ReadFile(t / "npu/dump.json");
  vptest::WriteFile(t / "npu/dump.json", dump.substr(0, dump.size() / 2));
  vptest::MakeDir(t / "out");
  auto run = BuildRun(t / "npu", t / "out");
  REQUIRE_FALSE(run->result.ok());
  CHECK(DbLeftovers(t / "out").empty());
  auto errors = run->rep.Messages(LogLevel::kError);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("An unexpected error occurred: load json file \"dump.json\" failed."));
}

TEST_CASE("§13.1 a failing run leaves no .vis.db and no temporary file: empty construct.json") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  vptest::WriteFile(t / "npu/construct.json", "{}");
  vptest::MakeDir(t / "out");
  auto run = BuildRun(t / "npu", t / "out");
  REQUIRE_FALSE(run->result.ok());
  CHECK(DbLeftovers(t / "out").empty());
  auto errors = run->rep.Messages(LogLevel::kError);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::StartsWith("An unexpected error occurred: The content of 'construct.json' is empty"));
}

TEST_CASE("§16.2/§4.2 the ERROR line of an empty construct.json is the exception message, then the folder") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  vptest::WriteFile(t / "npu/construct.json", "{}");
  auto run = BuildRun(t / "npu", t / "out");
  REQUIRE_FALSE(run->result.ok());
  auto errors = run->rep.Messages(LogLevel::kError);
  REQUIRE(errors.size() == 1);
  // visprobe appends the folder to msProbe's text, so a batch run names the failing rank.
  CHECK(errors[0] ==
        "An unexpected error occurred: The content of 'construct.json' is empty, failed to build graph. When dumping "
        "data, it is necessary to select level L0 or mix in order to collect model structure data, that is, the "
        "content of 'construct.json' is not empty. (in " +
            (t / "npu") + ")");
}

TEST_CASE("§13.1 issue 18: a run whose time-stamped name is taken writes the first free _N name and says so") {
  // msProbe appends to the existing file and fails with "UNIQUE constraint failed: tb_nodes.id";
  // visprobe never overwrites or appends to a finished database.
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  auto first = BuildRun(t / "npu", t / "out");
  REQUIRE(first->result.ok());
  const std::string db = first->result.value().db_path;
  CHECK(first->rep.Messages(LogLevel::kWarning).empty());
  const std::string before = vptest::ReadFile(db);
  for (int k = 1; k <= 2; ++k) {
    auto again = BuildRun(t / "npu", t / "out");  // the same second: the same time stamp
    REQUIRE(again->result.ok());
    const std::string name = std::string("build_") + kTs + "_" + std::to_string(k) + ".vis.db";
    CHECK(again->result.value().db_path == (t / "out") + "/" + name);
    CHECK(again->rep.Messages(LogLevel::kWarning) ==
          std::vector<std::string>{std::string("build_") + kTs + ".vis.db already exists in " + (t / "out") +
                                   " (or another run is writing it); this run writes " + name + "."});
    CHECK(Query(again->result.value().db_path, "SELECT count(*) FROM tb_nodes") == Rows{{"10"}});
    CHECK(Query(again->result.value().db_path, "SELECT count(*) FROM tb_stack") == Rows{{"4"}});
  }
  CHECK(vptest::ReadFile(db) == before);
  CHECK(vptest::ListNames(t / "out") == std::vector<std::string>{std::string("build_") + kTs + ".vis.db",
                                                                 std::string("build_") + kTs + "_1.vis.db",
                                                                 std::string("build_") + kTs + "_2.vis.db"});
}

TEST_CASE("§13.1 a name whose temporary file exists (a run in flight) is skipped, not shared") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  vptest::WriteFile(t / (std::string("out/build_") + kTs + ".vis.db.tmp"), "another run's rows");
  auto run = BuildRun(t / "npu", t / "out");
  REQUIRE(run->result.ok());
  CHECK(run->result.value().db_path == t / (std::string("out/build_") + kTs + "_1.vis.db"));
  CHECK(vptest::ReadFile(t / (std::string("out/build_") + kTs + ".vis.db.tmp")) == "another run's rows");
}

TEST_CASE("§13.9 a failed export logs Failed to export model graph, file: <name>, error: <e>") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  // Another connection holds a read transaction on the database being written, so the writer's
  // commit fails with "database is locked".
  sqlite3* other = nullptr;
  auto r = std::make_unique<Run>();
  GraphVisualizeArgs a;
  a.target_path = t / "npu";
  a.output_path = t / "out";
  RunOptions o;
  o.timestamp = kTs;
  const std::string temp = t / (std::string("out/build_") + kTs + ".vis.db.tmp");
  o.release_memory = [&] {
    REQUIRE(sqlite3_open(temp.c_str(), &other) == SQLITE_OK);
    REQUIRE(sqlite3_exec(other, "BEGIN; SELECT count(*) FROM sqlite_master;", nullptr, nullptr, nullptr) == SQLITE_OK);
  };
  r->result = RunGraphVisualize(a, o, r->rep);
  sqlite3_close(other);
  REQUIRE(other != nullptr);
  REQUIRE_FALSE(r->result.ok());
  CHECK(DbLeftovers(t / "out").empty());
  auto errors = r->rep.Messages(LogLevel::kError);
  const std::string expected =
      std::string("Failed to export model graph, file: build_") + kTs + ".vis.db, error: An sqlite3 error occurred: ";
  bool found = false;
  // One ERROR line: "An unexpected error occurred: " + the §13.9 text.
  for (const auto& e : errors) found = found || e == "An unexpected error occurred: " + e.substr(30) && e.find(expected) == 30;
  INFO("errors: " << Catch::Detail::stringify(errors));
  CHECK(found);
  // The failure is the database's, not dump.json's.
  for (const auto& e : errors) CHECK_THAT(e, !Catch::Contains("load json file \"dump.json\" failed"));
}

TEST_CASE("§2.1 a dump record repeated in dump.json: the last one is written") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  std::string dump = vptest::ReadFile(t / "npu/dump.json");
  const std::string tail = "\n}}";
  REQUIRE(dump.rfind(tail) != std::string::npos);
  dump.insert(dump.rfind(tail),
              R"(,
 "Functional.relu.0.forward": {"input_args": [{"type": "int", "value": 5}]})");
  vptest::WriteFile(t / "npu/dump.json", dump);
  auto run = BuildRun(t / "npu", t / "out");
  INFO(run->result.status().message());
  REQUIRE(run->result.ok());
  const std::string db = run->result.value().db_path;
  CHECK(
      Query(db, "SELECT input_data, output_data FROM tb_nodes WHERE node_name = 'Functional.relu.0.forward'") ==
      Rows{
          {R"({"Functional.relu.0.forward.input.0": {"type": "int", "value": "5", "data_name": "-1", "requires_grad": "null", "Max": "5", "Min": "5", "Mean": "5", "Norm": "5", "dtype": "<class int>", "shape": "[]"}})",
           "{}"}});
  CHECK(Query(db, "SELECT count(*) FROM tb_nodes") == Rows{{"10"}});
}

TEST_CASE("§2.1/§6.7 a parameters_grad record repeated in dump.json: the last one is written") {
  TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t / "npu");
  std::string dump = vptest::ReadFile(t / "npu/dump.json");
  const std::string tail = "\n}}";
  REQUIRE(dump.rfind(tail) != std::string::npos);
  dump.insert(dump.rfind(tail),
              R"(,
 "Module.fc1.Linear.parameters_grad.0": {"weight": [{"type": "int", "value": 5}]})");
  vptest::WriteFile(t / "npu/dump.json", dump);
  auto run = BuildRun(t / "npu", t / "out");
  INFO(run->result.status().message());
  REQUIRE(run->result.ok());
  const std::string db = run->result.value().db_path;
  CHECK(
      Query(db, "SELECT input_data FROM tb_nodes WHERE node_name = 'Module.fc1.Linear.parameters_grad.0'") ==
      Rows{
          {R"({"Module.fc1.Linear.parameters_grad.0.weight": {"type": "int", "value": "5", "data_name": "-1", "requires_grad": "null", "Max": "5", "Min": "5", "Mean": "5", "Norm": "5", "dtype": "<class int>", "shape": "[]"}})"}});
}

TEST_CASE("§17.63 graph id and node id of a graph written for step 5, rank 2") {
  TempDir t;
  Graph g;
  g.AddNode(NodeOp::kModule, "node_123", g.root());
  const std::string path = t / "x.vis.db";
  DbOptions o;
  auto w = VisDbWriter::Open(path, o);
  REQUIRE(w.ok());
  GraphRowsInfo info;
  info.data_source = "test_source";
  info.step = 5;
  info.rank = 2;
  auto rows = w.value()->WriteGraph(g, info);
  REQUIRE(rows.ok());
  CHECK(rows.value() == 2);
  REQUIRE(w.value()->WriteConfig(ConfigRow()).ok());
  REQUIRE(w.value()->CreateIndexes().ok());
  auto done = w.value()->Commit();
  REQUIRE(done.ok());
  CHECK(done.value() == path);
  CHECK(Query(path,
              "SELECT id, graph_id, node_order, up_node, sub_nodes, stack_id, data_source, step, rank, input_data, "
              "output_data, dump_data_dir FROM tb_nodes ORDER BY node_order") ==
        Rows{{"test_source_5_2_node_123", "test_source_5_2", "0", "DefaultModel", "", "test_source_5_2_0", "test_source", "5",
              "2", "{}", "{}", kNull},
             {"test_source_5_2_DefaultModel", "test_source_5_2", "1", "", "[\"node_123\"]", "test_source_5_2_0", "test_source",
              "5", "2", "{}", "{}", kNull}});
  CHECK(Query(path, "SELECT id, stack_info FROM tb_stack") == Rows{{"test_source_5_2_0", "[]"}});
}

TEST_CASE("§13.4 tb_config: the first written row wins") {
  TempDir t;
  const std::string path = t / "x.vis.db";
  auto w = VisDbWriter::Open(path, DbOptions());
  REQUIRE(w.ok());
  ConfigRow first;
  first.micro_steps = 3;
  first.rank_list = "[0, 2]";
  first.step_list = "[0, 1, 3]";
  ConfigRow second;
  second.graph_type = "compare";
  second.micro_steps = 7;
  REQUIRE(w.value()->WriteConfig(first).ok());
  REQUIRE(w.value()->WriteConfig(second).ok());
  REQUIRE(w.value()->Commit().ok());
  CHECK(Query(path, "SELECT * FROM tb_config") == Rows{{"1", "build", "", kNull, "3", "0", "null", "[0, 2]", "[0, 1, 3]"}});
}
