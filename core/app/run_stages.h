// The stages both graph_visualize pipelines share (app/session.cc: per-rank graphs streamed from
// dump.json; app/merge_run.cc: rank graphs merged in memory, §15). Each rule lives here once, so
// the two paths cannot drift apart again: the tb_config row, the cross-framework checks of a
// compare (§8.5), the collection rule (§9.7) and the writer's settings.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/reporter.h"
#include "base/status.h"
#include "compare/compare.h"
#include "db/vis_db.h"
#include "graph/graph.h"

namespace visprobe {

using StageLog = std::function<void(LogLevel, const std::string&)>;

// Python's str() of a list of ints: "[0, 1, 2]".
std::string JsonIntList(const std::vector<int>& v);

// The run's tb_config row (§13.2): a build, or a compare in `mode`.
ConfigRow MakeConfigRow(bool compare, CompareMode mode, int micro_steps, bool overflow_check, const std::vector<int>& rank_list,
                        const std::vector<int>& step_list);

// §8.5: a compare across frameworks needs -lm, and the pair of dump.json framework fields must be one
// msProbe supports. Warns (through `log`) for a side whose dump.json has no framework field.
Status CheckFrameworks(const Graph& target, const Graph& golden, bool layer_mapping, const StageLog& log);

// §9.7: API collections take the largest precision index of their direct children (0 in tensor
// mode, where the reference computes them before the tensor metrics exist). A merged graph's
// _All_Ranks collection holds _Rank<r> collections, which take theirs first.
void ApplyCollectionRule(Graph& g, CompareMode mode);
// The same rule for one node (nothing for a node it does not cover), once the nodes below it have
// their precision indices: rows written in post-order apply it as each collection's turn comes.
void ApplyCollectionRuleTo(Graph& g, NodeId id, CompareMode mode);

// The writer's settings for a run whose largest dump.json has `largest_dump_bytes`. `beside_parse`:
// the rows are inserted on a thread of their own while other threads parse (the streamed path with
// threads), where index upkeep during the inserts hides behind the parsing; otherwise one pass per
// index at the end is cheaper.
DbOptions WriterOptions(uint64_t largest_dump_bytes, bool beside_parse);

}  // namespace visprobe
