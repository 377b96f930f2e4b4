// The merger behind MergeRankGraphs (spec §15.3-§15.8), shared by graph_merger.cc (collections,
// groups, strategies), tp_merger.cc (TP) and pp_merger.cc (PP, VPP). Internal to core/merge.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "merge/graph_merger.h"
#include "merge/merge_graph.h"
#include "merge/merge_items.h"

namespace visprobe {
namespace merge_detail {

constexpr const char* kAllRanks = "Apis_Between_Modules_All_Ranks";
constexpr const char* kCollection = "Apis_Between_Modules";

inline bool StartsWith(std::string_view s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }
inline bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }
inline bool Unmerged(std::string_view id) { return id == "clip_grad" || id == "optimizer"; }
// Python's "parts[1] += suffix" on a '.'-separated name.
std::string AppendToSecondSegment(std::string_view id, const std::string& suffix);

struct ItemLoc {
  MergeGraph* g;
  NodeId node;
  ItemSide side;
  size_t index;
  const CmpItem* values() const { return ItemValues(g->node(node).items, side, index); }
};
// Items to merge under one key ("input.0", "parameters.weight", ...): the main item first.
struct Gathered {
  std::string key;
  std::vector<ItemLoc> items;
};
using GatheredList = std::vector<Gathered>;

class Merger {
 public:
  Merger(const ParallelParam& p, bool is_bench, const MergeLogFn& log, const MergeProgressFn& progress)
      : p_(p), side_(is_bench ? "Bench" : "NPU"), log_(log), progress_(progress) {}

  Result<std::vector<RankGraph>> Run(std::vector<RankGraph> ranks);
  using TpMapping = std::map<int, std::vector<int>>;

 private:
  // Run's plans by strategy (§15.2): TP only or PP / VPP only, TP with PP, and TP, PP and DP.
  Status RunGroups(MergeStrategy strategy, std::vector<MergeGraph*>* outputs);
  Status RunTpPp(MergeStrategy strategy, const std::vector<MergeGraph*>& all, std::vector<MergeGraph*>* outputs);
  Status RunFull(MergeStrategy strategy, std::vector<MergeGraph*>* outputs);
  // A PP group merged (§15.7), then its virtual pipeline chunks (§15.8) when there are.
  void MergePpGroup(const std::vector<MergeGraph*>& group, MergeStrategy strategy);
  // g is an output of the merge: kept until the end.
  void Output(MergeGraph* g, std::vector<MergeGraph*>* outputs);
  void Log(LogLevel l, const Message& m) const {
    if (log_) log_(l, m);
  }
  void StageDone() {
    if (progress_) progress_(++stages_done_, MergeStageCount(p_));
  }

  // §15.3
  void MergeCollections(const std::vector<MergeGraph*>& results);
  void SortCollections(MergeGraph& g);
  // §15.5
  Result<RankGroups> TpGroups();
  Result<RankGroups> PpGroups();
  Result<std::vector<std::vector<MergeGraph*>>> ByGroups(const RankGroups& groups);
  // §15.6
  void MergeTp(const std::vector<MergeGraph*>& results, const TpMapping& mapping);
  std::vector<std::pair<MergeGraph*, NodeId>> OthersFor(MergeGraph& main, NodeId m, const std::vector<MergeGraph*>& others,
                                                        const TpMapping& mapping);
  void ParamsToMerge(MergeGraph& main, NodeId m, const std::vector<std::pair<MergeGraph*, NodeId>>& others, bool compare,
                     GatheredList* in, GatheredList* out);
  std::vector<std::string> MergeParams(GatheredList& list);
  std::string RanksHeader(MergeGraph& main, NodeId m, const std::vector<std::pair<MergeGraph*, NodeId>>& others);
  void MatmulReduce(MergeGraph& main, NodeId m, const std::vector<MergeGraph*>& others, const TpMapping& mapping);
  void ColumnRow(MergeGraph& main, NodeId m, const std::vector<MergeGraph*>& others, const TpMapping& mapping);
  // §15.7
  void MergePp(const std::vector<MergeGraph*>& results);
  bool MergeNode(MergeGraph& G, NodeId m, const std::vector<MergeGraph*>& others);
  void MergeNodeTree(MergeGraph& G, NodeId top, const std::vector<MergeGraph*>& others);
  NodeId AdoptMarked(MergeGraph& G, MergeGraph& from, NodeId n);
  void MergeUniqueChildren(MergeGraph& G, NodeId m, const std::vector<std::pair<MergeGraph*, NodeId>>& others);
  void SortMarked(MergeGraph& G, NodeId start);
  void RenameMarked(MergeGraph& G, NodeId n);
  void MergeRootUnique(MergeGraph& G, const std::vector<MergeGraph*>& graphs);
  // §15.8
  void VppData(MergeGraph& G);
  void VppChunks(MergeGraph& G);
  void LayersRenumber(MergeGraph& G, const std::vector<NodeId>& list, bool forward);

  // Frees the graphs of `group` other than its first, once their group is merged: what the merge
  // kept of them has been copied into the first.
  // A graph is freed only once no group still to merge holds it and it is not an output
  // (discovered groups may overlap).
  void ReleaseMerged(const std::vector<MergeGraph*>& group);
  void CountUses(const std::vector<std::vector<MergeGraph*>>& groups);

  const ParallelParam& p_;
  std::string side_;
  const MergeLogFn& log_;
  const MergeProgressFn& progress_;
  size_t stages_done_ = 0;
  std::vector<std::unique_ptr<MergeGraph>> graphs_;  // by position in the input
  std::map<int, MergeGraph*> by_rank_;
  std::map<const MergeGraph*, int> uses_;  // pending groups holding a graph
  std::set<const MergeGraph*> kept_;  // outputs
};

}  // namespace merge_detail
}  // namespace visprobe
