// Spec §13.3 (node order and what is written): post-order, rows handed to the writer in any order
// going in in node_order (held in memory, then in a temporary table), rows never handed over, a
// compare's reserved rowids, many rows to a statement, and an aborted writer.
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <algorithm>

#include "db/vis_db.h"
#include "test_util.h"

using namespace visprobe;
using vptest::DbLeftovers;
using vptest::kNull;
using vptest::Query;
using vptest::Rows;
using vptest::TempDir;

TEST_CASE("§13.3 post-order: children before parents, only reachable nodes, each once") {
  Graph g;
  NodeId a = g.AddNode(NodeOp::kModule, "a", g.root());
  g.AddNode(NodeOp::kModule, "a1", a);
  g.AddNode(NodeOp::kModule, "a2", a);
  g.AddNode(NodeOp::kModule, "b", g.root());
  g.AddNode(NodeOp::kModule, "orphan", kNoNode);
  std::vector<std::string> names;
  for (NodeId id : PostOrder(g)) names.push_back(vptest::NameOf(g, id));
  CHECK(names == std::vector<std::string>{"a1", "a2", "a", "b", "DefaultModel"});
}

TEST_CASE("§13.1 an aborted writer leaves no file behind") {
  TempDir t;
  const std::string path = t / "x.vis.db";
  {
    auto w = VisDbWriter::Open(path, DbOptions());
    REQUIRE(w.ok());
    Graph g;
    REQUIRE(w.value()->WriteGraph(g, GraphRowsInfo()).ok());
    w.value()->Abort();
  }
  CHECK(vptest::ListNames(t.path()).empty());
  {
    auto w = VisDbWriter::Open(path, DbOptions());
    REQUIRE(w.ok());
  }  // destroyed without Commit
  CHECK(vptest::ListNames(t.path()).empty());
}

namespace {
// A graph of `modules` modules under the root, each with `leaves` leaf APIs (post-order: a module's
// leaves, the module, ..., the root).
Graph WideGraph(int modules, int leaves) {
  Graph g;
  for (int m = 0; m < modules; ++m) {
    NodeId mod = g.AddNode(NodeOp::kModule, "Module.m" + std::to_string(m) + ".forward.0", g.root());
    for (int l = 0; l < leaves; ++l)
      g.AddNode(NodeOp::kFunctionApi, "Functional.f" + std::to_string(m) + "_" + std::to_string(l) + ".forward", mod);
  }
  return g;
}

// The texts a planned row of node `id` carries (large enough that a few fill a small hold).
std::string RowText(const Graph& g, NodeId id, const char* side) {
  return std::string("{\"") + vptest::NameOf(g, id) + "." + side + ".0\": \"" + std::string(200, 'x') + "\"}";
}
}  // namespace

TEST_CASE("§13.3 rows handed over in any order go in in node_order (held in memory, past the limit in a temporary table)") {
  const Graph g = WideGraph(20, 10);
  const std::vector<NodeId> post = PostOrder(g);
  // Leaves are planned (they come from dump.json), modules and the root come from the graph.
  RowPlan plan;
  plan.given.assign(g.size(), 0);
  std::vector<NodeId> handed;
  for (NodeId id : post)
    if (g.node(id).subnodes.empty()) {
      plan.given[id] = 1;
      handed.push_back(id);
    }
  std::vector<NodeId> own_calls;
  plan.before_own = [&own_calls](NodeId id) { own_calls.push_back(id); };
  std::reverse(handed.begin(), handed.end());  // the worst order: every row but the last waits
  for (size_t held_bytes : {size_t(64) << 20, size_t(2000)})
    for (bool blocks : {false, true}) {
      DYNAMIC_SECTION("hold limit " << held_bytes << (blocks ? ", rows in blocks of 7" : ", one row at a time")) {
        TempDir t;
        const std::string path = t / "x.vis.db";
        DbOptions o;
        o.held_bytes = held_bytes;
        auto w = VisDbWriter::Open(path, o);
        REQUIRE(w.ok());
        own_calls.clear();
        REQUIRE(w.value()->BeginGraph(g, GraphRowsInfo(), plan).ok());
        if (!blocks) {
          for (NodeId id : handed)
            REQUIRE(w.value()->WriteRenderedRow(id, RowText(g, id, "input"), RowText(g, id, "output")).ok());
        } else {  // as StreamRows hands them over: rows rendered into shared blocks, held by reference
          for (size_t i = 0; i < handed.size(); i += 7) {
            auto b = std::make_shared<RowBlock>();
            for (size_t j = i; j < std::min(handed.size(), i + 7); ++j) {
              b->ids.push_back(handed[j]);
              b->text += RowText(g, handed[j], "input");
              b->cuts.push_back(b->text.size());
              b->text += RowText(g, handed[j], "output");
              b->cuts.push_back(b->text.size());
            }
            REQUIRE(w.value()->WriteRows(b).ok());
          }
        }
        auto rows = w.value()->EndGraph();
        REQUIRE(rows.ok());
        CHECK(rows.value() == post.size());
        REQUIRE(w.value()->Commit().ok());
        // rowid order = node_order, every row once, each planned row with its own texts.
        CHECK(Query(path, "SELECT count(*), min(rowid), max(rowid), sum(rowid - 1 = node_order) FROM tb_nodes") ==
              Rows{{std::to_string(post.size()), "1", std::to_string(post.size()), std::to_string(post.size())}});
        for (NodeId id : {handed.front(), handed.back(), handed[handed.size() / 2]})
          CHECK(Query(path, "SELECT input_data, output_data FROM tb_nodes WHERE node_name = '" + vptest::NameOf(g, id) + "'") ==
                Rows{{RowText(g, id, "input"), RowText(g, id, "output")}});
        // The modules and the root went in from the graph, each once, after their children.
        CHECK(own_calls.size() == post.size() - handed.size());
        CHECK(own_calls.back() == g.root());
        // No temporary table is left in the file.
        CHECK(Query(path, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'vp_held%'") == Rows{{"0"}});
      }
    }
}

TEST_CASE("§13.3 a row planned but never handed over goes in from the graph's items at the end") {
  const Graph g = WideGraph(2, 2);
  RowPlan plan;
  plan.given.assign(g.size(), 0);
  const std::vector<NodeId> post = PostOrder(g);
  plan.given[post[0]] = 1;  // never comes
  plan.given[post[1]] = 1;  // comes, and must wait for post[0] until the end
  TempDir t;
  const std::string path = t / "x.vis.db";
  auto w = VisDbWriter::Open(path, DbOptions());
  REQUIRE(w.ok());
  REQUIRE(w.value()->BeginGraph(g, GraphRowsInfo(), plan).ok());
  REQUIRE(w.value()->WriteRenderedRow(post[1], "{\"a\": 1}", "{}").ok());
  REQUIRE(w.value()->EndGraph().ok());
  REQUIRE(w.value()->Commit().ok());
  CHECK(Query(path, "SELECT rowid, node_order, node_name, input_data FROM tb_nodes WHERE node_order < 2 ORDER BY rowid") ==
        Rows{{"1", "0", vptest::NameOf(g, post[0]), "{}"}, {"2", "1", vptest::NameOf(g, post[1]), "{\"a\": 1}"}});
}

TEST_CASE("§13.3 a compare's target rows take the rowids before the golden's, which are written first") {
  const Graph target = WideGraph(3, 2), golden = WideGraph(2, 2);
  TempDir t;
  const std::string path = t / "x.vis.db";
  auto w = VisDbWriter::Open(path, DbOptions());
  REQUIRE(w.ok());
  REQUIRE(w.value()->WriteGraph(WideGraph(1, 1), GraphRowsInfo()).ok());  // 3 rows of an earlier (step, rank)
  GraphRowsInfo ninfo, binfo;
  ninfo.rank = binfo.rank = 1;
  binfo.data_source = "Bench";
  ninfo.first_rowid = w.value()->ReserveRows(PostOrder(target).size());
  CHECK(ninfo.first_rowid == 4);
  REQUIRE(w.value()->WriteGraph(golden, binfo).ok());
  REQUIRE(w.value()->WriteGraph(target, ninfo).ok());
  GraphRowsInfo next;
  next.rank = 2;
  REQUIRE(w.value()->WriteGraph(WideGraph(1, 1), next).ok());  // the next (step, rank) follows both
  REQUIRE(w.value()->Commit().ok());
  CHECK(Query(path,
              "SELECT graph_id, min(rowid), max(rowid), sum(rowid - min_id = node_order) FROM tb_nodes "
              "JOIN (SELECT graph_id AS gid, min(rowid) AS min_id FROM tb_nodes GROUP BY graph_id) ON gid = graph_id "
              "GROUP BY graph_id ORDER BY min(rowid)") == Rows{{"NPU_0_0", "1", "3", "3"},
                                                               {"NPU_0_1", "4", "13", "10"},
                                                               {"Bench_0_1", "14", "20", "7"},
                                                               {"NPU_0_2", "21", "23", "3"}});
}

TEST_CASE(
    "§13.3 rows go in many to a statement: whole batches, a partial one at the end, and a refused row still fails the graph") {
  // Modules of 12 leaves until there are two whole batches and part of a third (16 a statement:
  // 3 modules, 40 rows; 64: 10 modules, 131 rows).
  const size_t batch = VisDbWriter::kRowsPerStatement;
  const int modules = static_cast<int>(2 * batch / 13 + 1);
  const Graph g = WideGraph(modules, 12);
  const std::vector<NodeId> post = PostOrder(g);
  const size_t n = post.size();
  REQUIRE(n > 2 * batch);
  REQUIRE(n < 3 * batch);
  const std::string count = std::to_string(n);
  {
    TempDir t;
    const std::string path = t / "x.vis.db";
    auto w = VisDbWriter::Open(path, DbOptions());
    REQUIRE(w.ok());
    auto rows = w.value()->WriteGraph(g, GraphRowsInfo());
    REQUIRE(rows.ok());
    CHECK(rows.value() == n);
    REQUIRE(w.value()->Commit().ok());
    CHECK(Query(path, "SELECT count(*), sum(rowid - 1 = node_order), count(DISTINCT node_name) FROM tb_nodes") ==
          Rows{{count, count, count}});
    // Each row has its own node's texts (binding row k of a batch to row k's parameters): the first
    // and last row of each batch.
    for (size_t k : {size_t(0), batch - 1, batch, 2 * batch - 1, 2 * batch, n - 1})
      CHECK(Query(path, "SELECT node_name, up_node FROM tb_nodes WHERE node_order = " + std::to_string(k)) ==
            Rows{{vptest::NameOf(g, post[k]), g.node(post[k]).up == kNoNode ? "" : vptest::NameOf(g, g.node(post[k]).up)}});
  }
  {
    // A second row of one node: the primary key refuses it when its batch goes in, and the graph fails.
    TempDir t;
    const std::string path = t / "x.vis.db";
    auto w = VisDbWriter::Open(path, DbOptions());
    REQUIRE(w.ok());
    REQUIRE(w.value()->BeginGraph(g, GraphRowsInfo()).ok());
    REQUIRE(w.value()->WriteRenderedRow(post[3], "{}", "{}").ok());
    REQUIRE(w.value()->WriteRenderedRow(post[3], "{}", "{}").ok());  // staged, not in yet
    auto rows = w.value()->EndGraph();
    REQUIRE_FALSE(rows.ok());
    CHECK_THAT(rows.status().message(), Catch::Contains("UNIQUE constraint failed: tb_nodes.rowid"));
    w.value()->Abort();
    CHECK(DbLeftovers(t.path()).empty());
  }
}
