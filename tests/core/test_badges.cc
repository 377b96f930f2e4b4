// web-ui BEY-08: problem badges per expandable node (db/badges.h) and the vp_badges extension
// table the writer fills, checked against an independent recursive SQL aggregate over tb_nodes.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "app/graph_visualize.h"
#include "compare/compare.h"
#include "compare/compare_config.h"
#include "db/badges.h"
#include "db/schema.h"
#include "db/vis_db.h"
#include "test_util.h"

using namespace visprobe;
using vptest::kNull;
using vptest::Query;
using vptest::Rows;
using vptest::TempDir;

namespace {

// DefaultModel
//   Module.a            (module)
//     Module.a.b        (module)
//       leaf1 0.0   leaf2 0.5   leaf3 1.0
//     leaf4 unmatched, overflow high
//   Module.c            (module)
//     leaf5 0.1
//   leaf6 0.7 overflow medium
struct Fixture {
  Graph g;
  NodeId a, b, c, l[7];
  Fixture() {
    a = g.AddNode(NodeOp::kModule, "Module.a", g.root());
    b = g.AddNode(NodeOp::kModule, "Module.a.b", a);
    l[1] = g.AddNode(NodeOp::kFunctionApi, "Torch.leaf1.0.forward", b);
    l[2] = g.AddNode(NodeOp::kFunctionApi, "Torch.leaf2.0.forward", b);
    l[3] = g.AddNode(NodeOp::kFunctionApi, "Torch.leaf3.0.forward", b);
    l[4] = g.AddNode(NodeOp::kFunctionApi, "Torch.leaf4.0.forward", a);
    c = g.AddNode(NodeOp::kModule, "Module.c", g.root());
    l[5] = g.AddNode(NodeOp::kFunctionApi, "Torch.leaf5.0.forward", c);
    l[6] = g.AddNode(NodeOp::kFunctionApi, "Torch.leaf6.0.forward", g.root());
    const double p[7] = {0, 0.0, 0.5, 1.0, -1, 0.1, 0.7};
    for (int i = 1; i <= 6; ++i) {
      g.node(l[i]).precision_index = p[i];
      if (i != 4) g.node(l[i]).matched = 0;
    }
    for (NodeId m : {a, b, c}) g.node(m).matched = 0;
    g.node(g.root()).matched = 0;
    g.node(l[4]).overflow = Overflow::kHigh;
    g.node(l[6]).overflow = Overflow::kMedium;
  }
  std::vector<char> all() const { return std::vector<char>(g.size(), 1); }
};

std::map<std::string, BadgeRow> ByName(const Graph& g, const std::vector<BadgeRow>& rows) {
  std::map<std::string, BadgeRow> out;
  for (const auto& r : rows) out[std::string(g.node(r.node).name)] = r;
  return out;
}

}  // namespace

TEST_CASE("badges count the flagged leaves below every ancestor", "[badges]") {
  Fixture f;
  auto rows = ByName(f.g, ComputeBadges(f.g, f.all(), /*compare=*/true));
  // Leaves never get a row; Module.c has only a passing leaf, so no row either.
  CHECK(rows.size() == 3);
  REQUIRE(rows.count("Module.a.b"));
  const BadgeRow& b = rows["Module.a.b"];
  CHECK(b.worst == 1.0);
  CHECK((b.n_error == 1 && b.n_warning == 1 && b.n_unmatched == 0 && b.n_overflow == 0 && b.worst_overflow == 0));
  REQUIRE(rows.count("Module.a"));
  const BadgeRow& a = rows["Module.a"];
  CHECK(a.worst == 1.0);
  CHECK((a.n_error == 1 && a.n_warning == 1 && a.n_unmatched == 1 && a.n_overflow == 1));
  CHECK(a.worst_overflow == 2);  // high
  REQUIRE(rows.count("DefaultModel"));
  const BadgeRow& r = rows["DefaultModel"];
  CHECK(r.worst == 1.0);
  CHECK((r.n_error == 2 && r.n_warning == 1 && r.n_unmatched == 1 && r.n_overflow == 2 && r.worst_overflow == 2));
  CHECK(rows.count("Module.c") == 0);
}

TEST_CASE("badges: a module that is itself an error counts in its own badge and its ancestors' (issue 19)", "[badges]") {
  // The diverging layer of a real compare: the module's outputs are an error while every leaf in it
  // passes (leaves of Module.c: 0.1). Its own precision counts for itself and every ancestor.
  Fixture f;
  f.g.node(f.c).precision_index = 0.8;
  f.g.node(f.b).precision_index = 0.1;  // a passing module adds nothing
  auto rows = ByName(f.g, ComputeBadges(f.g, f.all(), /*compare=*/true));
  REQUIRE(rows.count("Module.c"));
  CHECK(rows["Module.c"].n_error == 1);
  CHECK(rows["Module.c"].n_warning == 0);
  CHECK(rows["Module.c"].worst == 0.8);
  CHECK(rows["DefaultModel"].n_error == 3);  // leaf3, leaf6 and Module.c
  CHECK(rows["Module.a.b"].n_error == 1);
  CHECK(rows["Module.a.b"].worst == 1.0);
  f.g.node(f.c).precision_index = 0.4;  // a warning module
  rows = ByName(f.g, ComputeBadges(f.g, f.all(), /*compare=*/true));
  CHECK(rows["Module.c"].n_warning == 1);
  CHECK(rows["DefaultModel"].n_warning == 2);
}

TEST_CASE("badges: nothing is unmatched outside a comparison", "[badges]") {
  Fixture f;
  auto rows = ByName(f.g, ComputeBadges(f.g, f.all(), /*compare=*/false));
  REQUIRE(rows.count("Module.a"));
  CHECK(rows["Module.a"].n_unmatched == 0);
  CHECK(rows["Module.a"].n_overflow == 1);
  CHECK(rows["DefaultModel"].n_unmatched == 0);
}

TEST_CASE("badges: bucket bounds follow the legend, values clamp into [0, 1]", "[badges]") {
  Graph g;
  NodeId m = g.AddNode(NodeOp::kModule, "Module.m", g.root());
  const double p = GENERATE(0.0, 0.29, 0.3, 0.59, 0.6, 1.0, 7.5);
  CAPTURE(p);
  NodeId leaf = g.AddNode(NodeOp::kFunctionApi, "Torch.x.0.forward", m);
  g.node(leaf).precision_index = p;
  g.node(leaf).matched = 0;
  auto rows = ByName(g, ComputeBadges(g, std::vector<char>(g.size(), 1), true));
  const bool error = p >= 0.6, warning = !error && p >= 0.3;
  if (!error && !warning) {
    CHECK(rows.empty());
  } else {
    REQUIRE(rows.count("Module.m"));
    CHECK(rows["Module.m"].n_error == (error ? 1u : 0u));
    CHECK(rows["Module.m"].n_warning == (warning ? 1u : 0u));
    CHECK(rows["Module.m"].worst == Approx(std::min(p, 1.0)));
  }
  // A 5-bucket legend (msProbe's older files): warning from 0.2, error from 0.8.
  BadgeThresholds five{0.2, 0.8};
  auto rows5 = ByName(g, ComputeBadges(g, std::vector<char>(g.size(), 1), true, five));
  const bool e5 = p >= 0.8, w5 = !e5 && p >= 0.2;
  CHECK(rows5.count("Module.m") == ((e5 || w5) ? 1u : 0u));
}

TEST_CASE("badges: the thresholds come from the file's legend", "[badges]") {
  // The engine's own legends (statistics, tensor, md5): 0.3 / 0.6, the defaults.
  for (CompareMode m : {CompareMode::kSummary, CompareMode::kRealData, CompareMode::kMd5}) {
    BadgeThresholds t = BadgeThresholdsFromLegend(NodeColorsJson(m));
    CHECK(t.warning == 0.3);
    CHECK(t.error == 0.6);
  }
  // msProbe's older five-bucket legend, keys in any order: warnings from the second bucket, errors
  // from the one named error.
  BadgeThresholds five = BadgeThresholdsFromLegend(
      R"({"#FF704D": {"value": [0.8, 1], "accuracy_level": "error"}, "#FFFCF3": {"value": [0, 0.2], "accuracy_level": "pass"},)"
      R"( "#FFEDBE": {"value": [0.2, 0.4], "accuracy_level": "warning"}, "#FFDC7F": {"value": [0.4, 0.6]},)"
      R"( "#FFC62E": {"value": [0.6, 0.8]}, "#C7C7C7": {"value": [], "accuracy_level": "unmatched node"}})");
  CHECK(five.warning == 0.2);
  CHECK(five.error == 0.8);
  // No bucket named error: the one starting highest.
  BadgeThresholds unnamed =
      BadgeThresholdsFromLegend(R"({"a": {"value": [0, 0.5]}, "b": {"value": [0.5, 0.9]}, "c": {"value": [0.9, 1]}})");
  CHECK(unnamed.warning == 0.5);
  CHECK(unnamed.error == 0.9);
  // Not a legend (structure mode's single bucket, null, broken text, a list): the defaults.
  for (const char* bad : {R"({"#C7C7C7": {"value": []}})", "null", "", "{\"a\": ", "[1, 2]", R"({"a": {"value": [0, "x"]}})"}) {
    CAPTURE(bad);
    BadgeThresholds t = BadgeThresholdsFromLegend(bad);
    CHECK(t.warning == 0.3);
    CHECK(t.error == 0.6);
  }
}

TEST_CASE("badges over flat arrays (the worker's msProbe files): the same rows as over the graph", "[badges]") {
  Fixture f;
  const size_t n = f.g.size();
  std::vector<int32_t> parent(n, -1);
  std::vector<double> precision(n, -1);
  std::vector<uint8_t> flags(n, 0), overflow(n, 0);
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = f.g.node(id);
    parent[id] = node.up == kNoNode ? -1 : static_cast<int32_t>(node.up);
    precision[id] = node.precision_index;
    flags[id] = (node.subnodes.empty() ? kBadgeLeaf : 0) | (node.matched == kNoNode ? kBadgeUnmatched : 0);
    overflow[id] = static_cast<uint8_t>(node.overflow);
  }
  auto graph_rows = ComputeBadges(f.g, f.all(), true);
  auto flat = ComputeBadgesFlat(n, parent.data(), precision.data(), flags.data(), overflow.data(), true, BadgeThresholds());
  REQUIRE(flat.size() == graph_rows.size());
  for (size_t i = 0; i < flat.size(); ++i) {
    CHECK(flat[i].index == graph_rows[i].node);
    CHECK(flat[i].worst == graph_rows[i].worst);
    CHECK(flat[i].n_error == graph_rows[i].n_error);
    CHECK(flat[i].n_warning == graph_rows[i].n_warning);
    CHECK(flat[i].n_unmatched == graph_rows[i].n_unmatched);
    CHECK(flat[i].n_overflow == graph_rows[i].n_overflow);
    CHECK(flat[i].worst_overflow == graph_rows[i].worst_overflow);
  }
  // NaN precision is no precision; an out-of-range overflow level is clamped to critical; a skipped
  // node stops the chain (nothing above it counts what is below it).
  precision[f.l[3]] = std::nan("");
  overflow[f.l[6]] = 9;
  flags[f.c] |= kBadgeSkip;
  std::map<uint32_t, FlatBadge> by;
  for (const FlatBadge& b :
       ComputeBadgesFlat(n, parent.data(), precision.data(), flags.data(), overflow.data(), true, BadgeThresholds()))
    by[b.index] = b;
  REQUIRE(by.count(f.b));
  CHECK(by[f.b].n_error == 0);
  CHECK(by[f.b].worst == 0.5);
  REQUIRE(by.count(f.g.root()));
  CHECK(by[f.g.root()].worst_overflow == 3);
  CHECK_FALSE(by.count(f.c));
}

TEST_CASE("badges: nodes that are not exported neither count nor get rows", "[badges]") {
  Fixture f;
  std::vector<char> written = f.all();
  written[f.l[3]] = 0;  // the error leaf
  written[f.c] = 0;
  auto rows = ByName(f.g, ComputeBadges(f.g, written, true));
  REQUIRE(rows.count("Module.a.b"));
  CHECK(rows["Module.a.b"].n_error == 0);
  CHECK(rows["Module.a.b"].worst == 0.5);
  CHECK(rows["DefaultModel"].n_error == 1);  // leaf6 only
}

TEST_CASE("badges: a malformed up chain that loops ends", "[badges]") {
  Fixture f;
  f.g.node(f.a).up = f.b;  // a <-> b
  auto rows = ComputeBadges(f.g, f.all(), true);
  CHECK_FALSE(rows.empty());
}

TEST_CASE("vp_badges rows equal a recursive SQL aggregate over tb_nodes", "[badges]") {
  TempDir tmp;
  vptest::CopyRankFolder(vptest::WorkedExampleDir("npu"), tmp / "npu");
  vptest::CopyRankFolder(vptest::WorkedExampleDir("bench"), tmp / "bench");
  GraphVisualizeArgs args;
  args.target_path = tmp / "npu";
  args.output_path = tmp / "out";
  args.overflow_check = true;
  const bool compare = GENERATE(false, true);
  CAPTURE(compare);
  if (compare) {
    args.has_golden = true;
    args.golden_path = tmp / "bench";
  }
  RunOptions opts;
  opts.timestamp = compare ? "20240102030406" : "20240102030405";
  vptest::RecordingReporter rep;
  auto run = RunGraphVisualize(args, opts, rep);
  INFO((run.ok() ? std::string() : run.status().message()));
  REQUIRE(run.ok());
  const std::string db = run.value().db_path;
  const std::string unmatched = compare ? "(l.matched_node_link IS NULL OR l.matched_node_link IN ('', '[]'))" : "0";
  const std::string sql =
      "WITH RECURSIVE up(step, rank, ds, name, p, unmatched, ov, a) AS ("
      "  SELECT step, rank, data_source, node_name, min(max(precision_index, 0.0), 1.0), " +
      unmatched +
      ", "
      "         CASE overflow_level WHEN 'medium' THEN 1 WHEN 'high' THEN 2 WHEN 'critical' THEN 3 ELSE 0 END, up_node"
      "  FROM tb_nodes l WHERE sub_nodes IS NULL OR sub_nodes IN ('', '[]')"
      // A module that is itself a warning or an error counts for itself and its ancestors.
      "  UNION ALL SELECT step, rank, data_source, node_name, min(precision_index, 1.0), 0, 0, node_name FROM tb_nodes"
      "  WHERE NOT (sub_nodes IS NULL OR sub_nodes IN ('', '[]')) AND precision_index >= 0.3"
      "  UNION ALL SELECT up.step, up.rank, up.ds, up.name, up.p, up.unmatched, up.ov, t.up_node FROM up JOIN tb_nodes t"
      "  ON t.step = up.step AND t.rank = up.rank AND t.data_source = up.ds AND t.node_name = up.a WHERE up.a != '')"
      "SELECT step, rank, ds, a, max(p), coalesce(sum(p >= 0.6), 0), coalesce(sum(p >= 0.3 AND p < 0.6), 0), sum(unmatched),"
      " sum(ov > 0), max(ov) FROM up WHERE a != '' GROUP BY step, rank, ds, a"
      " HAVING coalesce(sum(p >= 0.3), 0) + sum(unmatched) + sum(ov > 0) > 0 ORDER BY step, rank, ds, a";
  Rows expected = Query(db, sql);
  Rows got = Query(db,
                   "SELECT step, rank, data_source, node_name, worst, n_error, n_warning, n_unmatched, n_overflow, "
                   "worst_overflow FROM vp_badges ORDER BY step, rank, data_source, node_name");
  CHECK_FALSE(got.empty());  // the worked example has a critical overflow (and, compared, errors)
  CHECK(got == expected);
  CHECK(vptest::Column(Query(db, "SELECT name FROM pragma_index_info('vp_badges_scope') ORDER BY seqno")) ==
        std::vector<std::string>{"step", "rank", "data_source", "node_name"});
}
