// Graph merge for parallel strategies (spec §15.2-§15.8): the per-rank graphs of one step are
// merged into one graph per DP replica (TP, PP, VPP, TP+PP, TP+PP+DP), the loose API
// collections of the ranks into Apis_Between_Modules_All_Ranks nodes (§15.3).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/reporter.h"
#include "base/status.h"
#include "graph/graph.h"
#include "merge/parallel_params.h"

namespace visprobe {

// Where a node of a merged graph comes from: the rank whose dump holds it and its name there.
struct NodeOrigin {
  int rank = 0;
  std::string_view name;  // interned in the merged graph
};

// One build result (the reference's BuildGraphResult): a rank's graph with its items loaded and
// their raw values captured, or, after the merge, a merged graph.
struct RankGraph {
  std::unique_ptr<Graph> graph;
  int rank = 0;
  int step = 0;
  int micro_steps = 1;
  std::string dir;  // rank folder the graph (its main rank) was built from
  std::vector<NodeOrigin> origin;  // per node; filled by the merge
};

using MergeLogFn = std::function<void(LogLevel, const Message&)>;
// Called after each merge stage: stages done, stages in all (MergeStageCount).
using MergeProgressFn = std::function<void(size_t done, size_t total)>;

// The merge stages of one side (§16.5): one per merged group — rank_size/tp (TP), rank_size/pp
// (PP, VPP), rank_size/pp + rank_size/pp/tp (TP+PP, Full); 1 without parallelism.
size_t MergeStageCount(const ParallelParam& p);

// Merges the rank graphs of one step (any order; matched to groups by rank). `is_bench` selects
// the log prefix ([Bench] / [NPU]). Returns one graph per DP replica, each keeping the rank of the
// first member of its group.
Result<std::vector<RankGraph>> MergeRankGraphs(std::vector<RankGraph> ranks, const ParallelParam& p, bool is_bench,
                                               const MergeLogFn& log, const MergeProgressFn& progress = nullptr);

// Pieces exposed for the unit tests (§15.5, §15.8).
// Chains of a p2p send map (rank -> peer, in insertion order).
RankGroups TraceP2PChains(const std::vector<std::pair<int, int>>& next);
// replace_chunk: the second name segment, when all digits, replaced by `k`.
std::string ReplaceChunk(std::string_view id, int k);

}  // namespace visprobe
