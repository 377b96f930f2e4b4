#include "app/run_stages.h"

#include <algorithm>

#include "match/layer_mapping.h"

namespace visprobe {

std::string JsonIntList(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) { if (i) s += ", "; s += std::to_string(v[i]); }
  return s + "]";
}

ConfigRow MakeConfigRow(bool compare, CompareMode mode, int micro_steps, bool overflow_check, const std::vector<int>& rank_list,
                        const std::vector<int>& step_list) {
  ConfigRow cfg;
  cfg.micro_steps = micro_steps;
  cfg.overflow_check = overflow_check;
  if (compare) {
    cfg.graph_type = "compare";
    cfg.task = CompareTask(mode);
    cfg.has_tool_tip = true;
    cfg.tool_tip = ToolTipJson(mode);
    cfg.node_colors = NodeColorsJson(mode);
  }
  cfg.rank_list = JsonIntList(rank_list.empty() ? std::vector<int>{0} : rank_list);
  cfg.step_list = JsonIntList(step_list.empty() ? std::vector<int>{0} : step_list);
  return cfg;
}

Status CheckFrameworks(const Graph& target, const Graph& golden, bool layer_mapping, const StageLog& log) {
  ASSIGN_OR_RETURN(std::string tdet, DetectFramework(target));
  ASSIGN_OR_RETURN(std::string gdet, DetectFramework(golden));
  if (tdet != gdet && !layer_mapping)
    return InvalidInput("The cross_frame graph comparison failed. Please specify -lm or --layer_mapping when performing "
                        "cross_frame graph comparison.");
  if (!target.framework_given)
    log(LogLevel::kWarning, "Unable to get framework information from target dump.json, default setting is pytorch.");
  if (!golden.framework_given)
    log(LogLevel::kWarning, "Unable to get framework information from golden dump.json, default setting is pytorch.");
  const std::string& tf = target.framework;
  const std::string& gf = golden.framework;
  bool pair_ok = (tf == "pytorch" && gf == "pytorch") ||
                 ((tf == "mindspore" || tf == "mindtorch") && (gf == "pytorch" || gf == "mindspore"));
  if (!pair_ok)
    return InvalidInput("Unrecognized framework, target now is " + tf + ", golden now is " + gf + ", please check dump.json.");
  return Status::Ok();
}

namespace {
double LargestOfChildren(const Graph& g, NodeId c, CompareMode mode) {
  double m = 0;
  if (mode != CompareMode::kRealData)
    for (NodeId k : g.node(c).subnodes) m = std::max(m, std::max(0.0, g.node(k).precision_index));
  return m;
}
}  // namespace

void ApplyCollectionRule(Graph& g, CompareMode mode) {
  if (mode == CompareMode::kStructure) return;
  for (NodeId c : g.node(g.root()).subnodes) {
    if (g.node(c).op != NodeOp::kApiCollection) continue;
    for (NodeId k : g.node(c).subnodes)
      if (g.node(k).op == NodeOp::kApiCollection) g.node(k).precision_index = LargestOfChildren(g, k, mode);
    g.node(c).precision_index = LargestOfChildren(g, c, mode);
  }
}

void ApplyCollectionRuleTo(Graph& g, NodeId id, CompareMode mode) {
  if (mode == CompareMode::kStructure || g.node(id).op != NodeOp::kApiCollection) return;
  const NodeId up = g.node(id).up;
  if (up == kNoNode) return;
  const bool top = up == g.root();
  const bool inner = !top && g.node(up).op == NodeOp::kApiCollection && g.node(up).up == g.root();
  if (top || inner) g.node(id).precision_index = LargestOfChildren(g, id, mode);
}

DbOptions WriterOptions(uint64_t largest_dump_bytes, bool beside_parse) {
  DbOptions dbo;
  // With a writer thread of its own, index maintenance during the inserts hides behind the parsing
  // (measured: 4.2 s instead of 4.9 s on a 250 MB dump); single-threaded, one pass at the end is cheaper.
  dbo.indexes_first = beside_parse;
  // The primary-key and node-name indexes take inserts in random order: once they outgrow the
  // page cache every insert reads and writes pages. A cache of a quarter of the dump bytes (at
  // most 256 MiB) keeps them resident (measured on a 1.1 GB dump: rows streamed in 15.8 s
  // instead of 27.7 s, same peak RSS, which is reached while construct.json loads).
  dbo.cache_kib = std::max<int64_t>(16384, std::min<int64_t>(262144, static_cast<int64_t>(largest_dump_bytes / 4096)));
  return dbo;
}

}  // namespace visprobe
