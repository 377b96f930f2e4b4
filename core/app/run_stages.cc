#include "app/run_stages.h"

#include <algorithm>
#include <chrono>

#include "base/fs.h"
#include "compare/compare_config.h"
#include "compare/tensor_metrics.h"
#include "db/distributed.h"
#include "match/framework.h"
#include "match/layer_mapping.h"
#include "match/match.h"

namespace visprobe {

std::string JsonIntList(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
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
  if (tdet != gdet && !layer_mapping) return InvalidInput(Msg<msg::kCrossFrameGraphComparison>());
  if (!target.framework_given) log(LogLevel::kWarning, Msg<msg::kUnableGetFrameworkInformation>("target"));
  if (!golden.framework_given) log(LogLevel::kWarning, Msg<msg::kUnableGetFrameworkInformation>("golden"));
  const std::string& tf = target.framework;
  const std::string& gf = golden.framework;
  bool pair_ok = (tf == "pytorch" && gf == "pytorch") ||
                 ((tf == "mindspore" || tf == "mindtorch") && (gf == "pytorch" || gf == "mindspore"));
  if (!pair_ok) return InvalidInput(Msg<msg::kUnrecognizedFrameworkTargetNow>(tf, gf));
  return Status::Ok();
}

Result<ComparePlan> PlanCompare(Graph& gn, Graph& gb, const GraphVisualizeArgs& args, bool merged, const std::string& target_dir,
                                const std::string& golden_dir, const StageLog& log) {
  ComparePlan plan;
  ASSIGN_OR_RETURN(plan.mode, DetectCompareMode(gn, gb));
  const MatchKind kind = merged || args.fuzzy_match ? MatchKind::kFuzzy
                         : args.layer_mapping       ? MatchKind::kMapping
                                                    : MatchKind::kDefault;
  std::unordered_map<std::string, std::string> mapping;
  if (kind == MatchKind::kMapping) {  // §8.4: computed first
    auto m = ComputeLayerMapping(gn.dump_path, gb.dump_path, args.layer_mapping_file);
    if (m.ok())
      mapping = std::move(m.value());
    else
      log(LogLevel::kWarning, Msg<msg::kLayerMappingFileParsing>());
  }
  RETURN_IF_ERROR(CheckFrameworks(gn, gb, args.layer_mapping, log));
  plan.pairs = MatchGraphs(gn, gb, kind, mapping);
  plan.settings.mode = plan.mode;
  plan.settings.parallel_merge = merged;
  if (plan.mode == CompareMode::kRealData) {
    TensorLogFn tensor_log;
    if (args.print_compare_log) tensor_log = [log](const Message& m) { log(LogLevel::kInfo, m); };
    plan.settings.tensor_metrics = TensorMetricsFor(target_dir, golden_dir, tensor_log);
  }
  return plan;
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

DbOptions WriterOptions(uint64_t largest_dump_bytes, bool streamed) {
  DbOptions dbo;
  // Streamed rows: every index kept up during the inserts. With a writer thread of its own that
  // hides behind the parsing (4.2 s instead of 4.9 s on a 250 MB dump); on one thread (the browser
  // build) it saves the table scans at the end, which under Node read every page back through JS.
  dbo.indexes_first = streamed;
  // Otherwise (merged runs), the indexes whose keys come in row order are still kept up during the
  // inserts: appended to 64 rows a statement, they cost less than a table scan and a sort each.
  dbo.in_row_order_indexes_first = true;
  // The primary-key and node-name indexes take inserts in random order: once they outgrow the
  // page cache every insert reads and writes pages. A cache of a quarter of the dump bytes (at
  // most 256 MiB) keeps them resident (measured on a 1.1 GB dump: rows streamed in 15.8 s
  // instead of 27.7 s, same peak RSS, which is reached while construct.json loads).
  dbo.cache_kib = std::max<int64_t>(16384, std::min<int64_t>(262144, static_cast<int64_t>(largest_dump_bytes / 4096)));
  return dbo;
}

Result<std::unique_ptr<RunOutput>> RunOutput::Open(const GraphVisualizeArgs& args, const RunOptions& opts, RunExecutor& ex,
                                                   uint64_t largest_dump_bytes, bool streamed) {
  const RunPlan& plan = ex.plan();
  std::unique_ptr<RunOutput> out(new RunOutput(ex.reporter()));
  RETURN_IF_ERROR(CheckNewPath(args.output_path));
  RETURN_IF_ERROR(MakeDirs(args.output_path));
  ASSIGN_OR_RETURN(std::string db_path,
                   ex.ClaimOutput(args.output_path, VisStem(args.has_golden, opts.timestamp, plan.shard), ".vis.db"));
  out->dir_ = args.output_path;
  out->file_ = BaseName(db_path);
  DbOptions dbo = WriterOptions(largest_dump_bytes, streamed);
  if (opts.held_bytes) dbo.held_bytes = opts.held_bytes;
  ASSIGN_OR_RETURN(out->db_, VisDbWriter::Open(db_path, dbo));
  out->sharded_ = plan.sharded();
  if (out->sharded_) {
    out->part_ = plan.Part();
    RETURN_IF_ERROR(WritePartMeta(out->db_->handle(), out->part_));
  }
  return out;
}

std::string RunOutput::where() const { return RealPath(dir_) + "/" + file_; }

Status RunOutput::Config(const ConfigRow& row) {
  if (config_written_) return Status::Ok();
  config_written_ = true;
  return db_->WriteConfig(row);
}

Status RunOutput::UnitDone(int64_t unit) { return sharded_ ? marks_.Mark(db_->handle(), unit) : Status::Ok(); }

Result<std::string> RunOutput::FinishPart(size_t written, size_t units, bool replicas) {
  ASSIGN_OR_RETURN(std::string path, db_->Commit());
  const char* gather = "visprobe gather -o OUT PART.vis.db ...";
  rep_.Log(LogLevel::kInfo, replicas
                                ? Msg<msg::kShardUnitsWrittenJoin>(part_.shard, part_.shards, written, units, path, gather)
                                : Msg<msg::kShardGraphsWrittenJoin>(part_.shard, part_.shards, written, units, path, gather));
  return path;
}

Result<std::string> RunOutput::Finish(bool cross_rank_links, bool overflow_check, const StageLog& log) {
  rep_.Log(LogLevel::kInfo, Msg<msg::kStartAddingIndexDb>());
  const auto t0 = std::chrono::steady_clock::now();
  RETURN_IF_ERROR(db_->CreateIndexes());
  if (cross_rank_links) {
    auto d = AnalyzeDistributed(db_->handle(), overflow_check, [&log](const auto& m) { log(LogLevel::kInfo, m); });
    if (!d.ok()) return d.status();
  }
  ASSIGN_OR_RETURN(std::string path, db_->Commit());
  rep_.Log(LogLevel::kDebug, Msg<msg::kIndexesCommitTime>(
                                 std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count())));
  rep_.Log(LogLevel::kInfo, Msg<msg::kAddingIndexDbFile>());
  return path;
}

}  // namespace visprobe
