// Manual matching's pairing rules (core/compare/manual_pairing.h): which nodes a match or an unmatch
// pairs, and the rows it writes, read from and written to a real compare database the way the
// page's worker does it.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <map>

#include "app/graph_visualize.h"
#include "compare/manual_pairing.h"
#include "test_util.h"

using namespace visprobe;

namespace {

// A compare database opened read-write: rows read and updates written as the worker does.
class VisDb {
 public:
  explicit VisDb(const std::string& path) { REQUIRE(sqlite3_open(path.c_str(), &db_) == SQLITE_OK); }
  ~VisDb() { sqlite3_close(db_); }
  VisDb(const VisDb&) = delete;
  VisDb& operator=(const VisDb&) = delete;

  std::optional<StoredNodeRow> Read(MatchSide side, const std::string& name) const {
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db_,
                               "SELECT node_name, node_type, up_node, sub_nodes, matched_node_link, input_data, output_data, "
                               "dump_data_dir FROM tb_nodes WHERE step = 0 AND rank = 0 AND data_source = ? AND node_name = ?",
                               -1, &st, nullptr) == SQLITE_OK);
    sqlite3_bind_text(st, 1, MatchSideName(side), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, name.c_str(), -1, SQLITE_TRANSIENT);
    std::optional<StoredNodeRow> r;
    if (sqlite3_step(st) == SQLITE_ROW) {
      auto text = [&](int c) {
        const unsigned char* s = sqlite3_column_text(st, c);
        return s ? std::string(reinterpret_cast<const char*>(s)) : std::string();
      };
      r = StoredNodeRow{text(0), sqlite3_column_int64(st, 1), text(2), text(3), text(4), text(5), text(6), text(7)};
    }
    sqlite3_finalize(st);
    return r;
  }
  StoredNodeReader Reader() const {
    return [this](MatchSide side, const std::string& name) { return Read(side, name); };
  }
  // The worker's two UPDATEs.
  void Apply(const ManualMatchPlan& plan) {
    for (const MatchedNodeUpdate& u : plan.updates) {
      sqlite3_stmt* st = nullptr;
      const char* sql = u.set_items ? "UPDATE tb_nodes SET matched_node_link = ?, precision_index = ?, input_data = ?, "
                                      "output_data = ?, modified = 1 WHERE step = 0 AND rank = 0 AND data_source = ? AND "
                                      "node_name = ?"
                                    : "UPDATE tb_nodes SET matched_node_link = ?, modified = 1 WHERE step = 0 AND rank = 0 "
                                      "AND data_source = ? AND node_name = ?";
      REQUIRE(sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) == SQLITE_OK);
      int i = 1;
      sqlite3_bind_text(st, i++, u.matched_node_link.c_str(), -1, SQLITE_TRANSIENT);
      if (u.set_items) {
        if (u.precision_index < 0)
          sqlite3_bind_null(st, i++);
        else
          sqlite3_bind_double(st, i++, u.precision_index);
        sqlite3_bind_text(st, i++, u.input_data.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, i++, u.output_data.c_str(), -1, SQLITE_TRANSIENT);
      }
      sqlite3_bind_text(st, i++, MatchSideName(u.side), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, i++, u.node_name.c_str(), -1, SQLITE_TRANSIENT);
      REQUIRE(sqlite3_step(st) == SQLITE_DONE);
      REQUIRE(sqlite3_changes(db_) == 1);
      sqlite3_finalize(st);
    }
  }

 private:
  sqlite3* db_ = nullptr;
};

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Rows in memory, for shapes the worked example has not got.
struct Rows {
  std::map<std::pair<MatchSide, std::string>, StoredNodeRow> rows;
  void Add(MatchSide side, const std::string& name, int64_t type, const std::string& up, const std::string& subs = "",
           const std::string& link = "[]") {
    rows[{side, name}] = StoredNodeRow{name, type, up, subs, link, "{}", "{}", ""};
  }
  void Both(const std::string& name, int64_t type, const std::string& up, const std::string& subs = "") {
    Add(MatchSide::kNpu, name, type, up, subs);
    Add(MatchSide::kBench, name, type, up, subs);
  }
  StoredNodeReader Reader() const {
    return [this](MatchSide side, const std::string& name) -> std::optional<StoredNodeRow> {
      auto it = rows.find({side, name});
      if (it == rows.end()) return std::nullopt;
      return it->second;
    };
  }
};

}  // namespace

TEST_CASE("pairing: children pair by type and name without numbers; twins swap forward and backward", "[manual_pairing]") {
  // A module: its class and direction; an API: its name and direction.
  CHECK(ChildPairingKey(0, "Module.fc1.Linear.forward.0") == "0:Linear.forward");
  CHECK(ChildPairingKey(0, "Module.layers.3.mlp.MLP.backward.12") == "0:MLP.backward");
  CHECK(ChildPairingKey(0, "Module.fc1.Linear.parameters_grad.0") == "0:Linear.parameters_grad");
  CHECK(ChildPairingKey(1, "Functional.linear.0.forward") == "1:linear.forward");
  CHECK(ChildPairingKey(1, "Torch.sum.17.backward") == "1:sum.backward");
  CHECK(ChildPairingKey(9, "Apis_Between_Modules.0") == "9:");
  CHECK(ChildPairingKey(0, "DefaultModel") == "0:DefaultModel");
  CHECK(TwinNodeName("Module.fc1.Linear.forward.0") == "Module.fc1.Linear.backward.0");
  CHECK(TwinNodeName("Functional.linear.0.backward") == "Functional.linear.0.forward");
  CHECK(TwinNodeName("Module.forward_net.Net.forward.0") == "Module.backward_net.Net.backward.0");
  CHECK(TwinNodeName("Module.fc1.Linear.parameters_grad.0") == "Module.fc1.Linear.parameters_grad.0");
}

TEST_CASE("pairing: unmatch and match again with descendants give back the rows the engine wrote", "[manual_pairing]") {
  vptest::TempDir t;
  const std::string path = vptest::CompareWorkedExample(t / "out", "20240102030408");
  const vptest::Rows before =
      vptest::Query(path,
                    "SELECT data_source, node_name, matched_node_link, input_data, output_data, precision_index FROM "
                    "tb_nodes ORDER BY rowid");
  VisDb db(path);
  ManualMatchRequest req;
  req.task = "summary";
  req.npu = req.bench = "Module.fc1.Linear.forward.0";
  req.descendants = true;
  // Unmatch: the module, its API, then the backward twin and its two children.
  auto un = PlanManualUnmatch(req, db.Reader());
  REQUIRE(un.ok());
  const Pairs five = {{"Module.fc1.Linear.forward.0", "Module.fc1.Linear.forward.0"},
                      {"Functional.linear.0.forward", "Functional.linear.0.forward"},
                      {"Module.fc1.Linear.backward.0", "Module.fc1.Linear.backward.0"},
                      {"Functional.linear.0.backward", "Functional.linear.0.backward"},
                      {"Module.fc1.Linear.parameters_grad.0", "Module.fc1.Linear.parameters_grad.0"}};
  CHECK(un->pairs == five);
  REQUIRE(un->updates.size() == 10);
  CHECK(un->updates[0].side == MatchSide::kNpu);
  CHECK(un->updates[0].matched_node_link == "[]");
  CHECK(un->updates[0].precision_index < 0);
  CHECK(un->updates[0].input_data.find("Max diff") == std::string::npos);
  CHECK(un->updates[1].side == MatchSide::kBench);
  CHECK_FALSE(un->updates[1].set_items);
  db.Apply(*un);
  // Unmatched now: a second unmatch is refused, and a match of two different types too.
  CHECK(PlanManualUnmatch(req, db.Reader()).status().message() == "These nodes are not matched with each other");
  ManualMatchRequest mixed = req;
  mixed.bench = "Functional.linear.0.forward";
  CHECK(PlanManualMatch(mixed, db.Reader()).status().message() == "Node types differ");
  // Match again: the same five pairs, and every row as the engine wrote it.
  auto again = PlanManualMatch(req, db.Reader());
  REQUIRE(again.ok());
  CHECK(again->pairs == five);
  CHECK(again->updates[0].matched_node_link == "[\"DefaultModel\", \"Module.fc1.Linear.forward.0\"]");
  CHECK(again->updates[2].matched_node_link ==
        "[\"DefaultModel\", \"Module.fc1.Linear.forward.0\", \"Functional.linear.0.forward\"]");
  db.Apply(*again);
  const vptest::Rows after =
      vptest::Query(path,
                    "SELECT data_source, node_name, matched_node_link, input_data, output_data, precision_index FROM "
                    "tb_nodes ORDER BY rowid");
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    INFO(before[i][0] << " " << before[i][1]);
    for (size_t c = 0; c < 5; ++c) CHECK(after[i][c] == before[i][c]);
    if (before[i][5] == vptest::kNull)
      CHECK(after[i][5] == vptest::kNull);
    else
      CHECK(std::stod(after[i][5]) == Approx(std::stod(before[i][5])));
  }
  CHECK(PlanManualMatch(req, db.Reader()).status().message() == "Both nodes must be unmatched.");
}

TEST_CASE("pairing: descendants pair in order by key, matched children left alone", "[manual_pairing]") {
  Rows r;
  r.Both("Module.block.Block.forward.0", 0, "",
         R"(["Functional.linear.0.forward", "Functional.relu.0.forward", )"
         R"("Functional.linear.1.forward"])");
  r.Both("Functional.relu.0.forward", 1, "Module.block.Block.forward.0");
  r.Both("Functional.linear.0.forward", 1, "Module.block.Block.forward.0");
  // Bench's linears are numbered differently; its relu is already matched elsewhere.
  r.Add(MatchSide::kBench, "Module.block.Block.forward.0", 0, "",
        R"(["Functional.linear.5.forward", "Functional.linear.6.forward", "Functional.relu.0.forward"])");
  r.Add(MatchSide::kBench, "Functional.linear.5.forward", 1, "Module.block.Block.forward.0");
  r.Add(MatchSide::kBench, "Functional.linear.6.forward", 1, "Module.block.Block.forward.0");
  r.Add(MatchSide::kBench, "Functional.relu.0.forward", 1, "Module.block.Block.forward.0", "",
        R"(["Functional.relu.9.forward"])");
  r.Add(MatchSide::kNpu, "Functional.linear.1.forward", 1, "Module.block.Block.forward.0");
  ManualMatchRequest req;
  req.task = "summary";
  req.npu = req.bench = "Module.block.Block.forward.0";
  req.descendants = true;
  auto plan = PlanManualMatch(req, r.Reader());
  REQUIRE(plan.ok());
  const Pairs want = {{"Module.block.Block.forward.0", "Module.block.Block.forward.0"},
                      {"Functional.linear.0.forward", "Functional.linear.5.forward"},
                      {"Functional.linear.1.forward", "Functional.linear.6.forward"}};
  CHECK(plan->pairs == want);
  REQUIRE(plan->updates.size() == 6);
  // Each side's link: the counterpart's ancestors, then the counterpart.
  CHECK(plan->updates[2].node_name == "Functional.linear.0.forward");
  CHECK(plan->updates[2].matched_node_link == "[\"Module.block.Block.forward.0\", \"Functional.linear.5.forward\"]");
  CHECK(plan->updates[3].node_name == "Functional.linear.5.forward");
  CHECK(plan->updates[3].matched_node_link == "[\"Module.block.Block.forward.0\", \"Functional.linear.0.forward\"]");
  // Without descendants: the pair alone (no twin here).
  req.descendants = false;
  CHECK(PlanManualMatch(req, r.Reader())->pairs == Pairs{want[0]});
  req.npu = "Module.nothere.forward.0";
  CHECK(PlanManualMatch(req, r.Reader()).status().message() == "Please select the debug-side unmatched node!");
}

TEST_CASE("pairing: the twin follows only when unmatched on both sides and of one type", "[manual_pairing]") {
  Rows r;
  r.Both("Module.fc.Linear.forward.0", 0, "");
  r.Add(MatchSide::kNpu, "Module.fc.Linear.backward.0", 0, "");
  r.Add(MatchSide::kBench, "Module.fc.Linear.backward.0", 0, "", "", R"(["Module.other.backward.0"])");
  ManualMatchRequest req;
  req.task = "md5";
  req.npu = req.bench = "Module.fc.Linear.backward.0";
  CHECK(PlanManualMatch(req, r.Reader()).status().message() == "Both nodes must be unmatched.");
  req.npu = req.bench = "Module.fc.Linear.forward.0";
  CHECK(PlanManualMatch(req, r.Reader())->pairs.size() == 1);  // the Bench twin is matched elsewhere
  r.Add(MatchSide::kBench, "Module.fc.Linear.backward.0", 0, "");
  // Matching the backward node brings its forward twin.
  req.npu = req.bench = "Module.fc.Linear.backward.0";
  auto plan = PlanManualMatch(req, r.Reader());
  REQUIRE(plan.ok());
  CHECK(plan->pairs == Pairs{{"Module.fc.Linear.backward.0", "Module.fc.Linear.backward.0"},
                             {"Module.fc.Linear.forward.0", "Module.fc.Linear.forward.0"}});
}

TEST_CASE("pairing: matched_node_link is json.dumps text, non-ASCII and quotes escaped", "[manual_pairing]") {
  CHECK(MatchedNodeLinkJson({}) == "[]");
  CHECK(MatchedNodeLinkJson({"DefaultModel", "Module.a.A.forward.0"}) == "[\"DefaultModel\", \"Module.a.A.forward.0\"]");
  // json.dumps(["Module.\u5c42.forward.0", "say \"hi\"\t\x7f", "\U0001F600"]) in Python.
  CHECK(MatchedNodeLinkJson({"Module.\xe5\xb1\x82.forward.0", "say \"hi\"\t\x7f", "\xf0\x9f\x98\x80"}) ==
        R"(["Module.\u5c42.forward.0", "say \"hi\"\t\u007f", "\ud83d\ude00"])");
  // Through a match: the Bench node's ancestors with a non-ASCII module name.
  Rows r;
  r.Both("Module.\xe5\xb1\x82.Layer.forward.0", 0, "", R"(["Functional.relu.0.forward"])");
  r.Both("Functional.relu.0.forward", 1, "Module.\xe5\xb1\x82.Layer.forward.0");
  ManualMatchRequest req;
  req.task = "summary";
  req.npu = req.bench = "Functional.relu.0.forward";
  auto plan = PlanManualMatch(req, r.Reader());
  REQUIRE(plan.ok());
  CHECK(plan->updates[0].matched_node_link == R"(["Module.\u5c42.Layer.forward.0", "Functional.relu.0.forward"])");
}
