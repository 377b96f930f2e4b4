// The stages both graph_visualize pipelines share (app/graph_run.cc: per-rank graphs streamed from
// dump.json; app/merge_run.cc: rank graphs merged in memory, §15). Each rule lives here once, so
// the two paths cannot drift apart again: the tb_config row, the cross-framework checks of a
// compare (§8.5), the collection rule (§9.7) and the writer's settings.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app/gather.h"
#include "app/graph_visualize.h"
#include "db/run_executor.h"
#include "db/shard_part.h"

#include "base/reporter.h"
#include "base/status.h"
#include "compare/compare.h"
#include "db/vis_db.h"
#include "graph/graph.h"

namespace visprobe {

using StageLog = std::function<void(LogLevel, const Message&)>;

// The lines msProbe's graph_visualize logs at each stage (INFO unless said), written here once for
// both pipelines (the page translates them: web/src/engine_text.js).
namespace lines {
inline Message StartBuildingGraphs() { return Msg<msg::kStartBuildingModelGraphs>(); }
inline Message StartProcessing(const std::string& step_folder) { return Msg<msg::kStartProcessingData>(step_folder); }
inline Message StartBuildingGraph(const std::string& rank_folder) { return Msg<msg::kStartBuildingGraph>(rank_folder); }
inline Message GraphBuilt(int step, const std::string& rank_folder) {
  return Msg<msg::kBuildingGraphStepRank>(step, rank_folder);
}
inline Message GraphsBuilt() { return Msg<msg::kModelGraphsBuiltSuccessfully>(); }
inline Message StartComparing(const std::string& rank) { return Msg<msg::kStartComparingData>(rank); }
inline Message Compared(const std::string& rank) { return Msg<msg::kComparingDataFinished>(rank); }
inline Message StartExportingBuild(const std::string& file) { return Msg<msg::kStartExportingGraph>(file); }
inline Message StartExportingCompare(const std::string& file) { return Msg<msg::kStartExportingCompareGraph>(file); }
// A graph's rows are in (`where`: the file's real path).
inline Message Exported(bool compare, const std::string& where) {
  return compare ? Msg<msg::kExportingCompareGraphResult>(where) : Msg<msg::kModelGraphExportedSuccessfully>(where);
}
// Every graph of a batch run is in.
inline Message AllExported(bool compare) {
  return compare ? Msg<msg::kSuccessfullyExportedCompareGraph>() : Msg<msg::kSuccessfullyExportedBuildGraph>();
}
// ERROR: the database refused a graph's rows (§13.9).
inline Message ExportFailed(bool compare, const std::string& file, const Status& error) {
  return compare ? Msg<msg::kFailedExportCompareGraph>(file, error) : Msg<msg::kFailedExportModelGraph>(file, error);
}
}  // namespace lines

// Python's str() of a list of ints: "[0, 1, 2]".
std::string JsonIntList(const std::vector<int>& v);

// The run's tb_config row (§13.2): a build, or a compare in `mode`.
ConfigRow MakeConfigRow(bool compare, CompareMode mode, int micro_steps, bool overflow_check, const std::vector<int>& rank_list,
                        const std::vector<int>& step_list);

// §8.5: a compare across frameworks needs -lm, and the pair of dump.json framework fields must be one
// msProbe supports. Warns (through `log`) for a side whose dump.json has no framework field.
Status CheckFrameworks(const Graph& target, const Graph& golden, bool layer_mapping, const StageLog& log);

// The compare stage's plan for one target/golden pair, the same for streamed and merged graphs:
// the mode (§9.1), the matched pairs and the settings CompareNode takes.
struct ComparePlan {
  CompareMode mode = CompareMode::kSummary;
  std::vector<std::pair<NodeId, NodeId>> pairs;  // (target node, golden node)
  CompareSettings settings;
};

// Detects the mode, computes the layer mapping (-lm; §8.4: a failure warns and leaves it empty),
// checks the frameworks (§8.5), matches the nodes (-fm fuzzy, -lm mapping, else by name; a merged
// pair always fuzzily, §8.2) and, in tensor mode, reads .npy files from the two rank folders
// (-tensor_log lines through `log`).
Result<ComparePlan> PlanCompare(Graph& target, Graph& golden, const GraphVisualizeArgs& args, bool merged,
                                const std::string& target_dir, const std::string& golden_dir, const StageLog& log);

// §9.7: API collections take the largest precision index of their direct children (0 in tensor
// mode, where the reference computes them before the tensor metrics exist). A merged graph's
// _All_Ranks collection holds _Rank<r> collections, which take theirs first.
void ApplyCollectionRule(Graph& g, CompareMode mode);
// The same rule for one node (nothing for a node it does not cover), once the nodes below it have
// their precision indices: rows written in post-order apply it as each collection's turn comes.
void ApplyCollectionRuleTo(Graph& g, NodeId id, CompareMode mode);

// The writer's settings for a run whose largest dump.json has `largest_dump_bytes`. `streamed`: the
// rows come from dump.json as it is parsed (the streamed path, with threads or on one thread as in
// the browser build). Then every index is made first and kept up during the inserts: with threads
// that upkeep hides behind the parsing, and on one thread it costs less than a table scan and a
// sort per index at the end (wasm CLI: 40 MB compare 0.87x and 0.96x, medium build 0.94x and 0.97x;
// see README). Merged runs (rows from memory) keep the indexes whose keys come in row order during
// the inserts and sort the others once at the end.
DbOptions WriterOptions(uint64_t largest_dump_bytes, bool streamed);

// The emit stage both paths end in: the .vis.db a run writes, from its claimed name to the file
// renamed into place. Open checks and makes the output folder, claims the name through the run's
// executor (db/run_executor.h: it removes the temporary file if the run fails), opens the writer
// with WriterOptions (and RunOptions::held_bytes) and, for a shard, writes its part's vp_shard rows
// (the executor's plan); every unit's rows then go through db(); the first unit's tb_config row wins.
class RunOutput {
 public:
  static Result<std::unique_ptr<RunOutput>> Open(const GraphVisualizeArgs& args, const RunOptions& opts, RunExecutor& ex,
                                                 uint64_t largest_dump_bytes, bool streamed);
  VisDbWriter& db() { return *db_; }
  const std::string& file() const { return file_; }  // the file's name, in the output folder
  std::string where() const;  // its real path
  Status Config(const ConfigRow& row);  // the first call writes tb_config
  Status UnitDone(int64_t unit);  // a shard records the unit's rowid ranges
  // A shard's end: its part is committed as written (the gather makes indexes and links), with a
  // line saying what it holds (`written` of `units`: "3 of 8 graphs", or "(step, DP replica) units" for
  // a merge's `replicas`) and how to gather the parts.
  Result<std::string> FinishPart(size_t written, size_t units, bool replicas);
  // A whole run's end: the indexes, then (`cross_rank_links`, batch runs) §14's links across ranks
  // (progress lines through `log`), then the file is renamed into place.
  Result<std::string> Finish(bool cross_rank_links, bool overflow_check, const StageLog& log);

 private:
  RunOutput(Reporter& rep) : rep_(rep), marks_(PartTables()) {}
  Reporter& rep_;
  std::string dir_, file_;
  std::unique_ptr<VisDbWriter> db_;
  PartMeta part_;
  bool sharded_ = false, config_written_ = false;
  UnitMarks marks_;
};

}  // namespace visprobe
