// graph_visualize with --rank_size on rank folders (spec §15): every step's rank graphs are built
// (with their items in memory), merged per side, compared pairwise (fuzzy matching) and written to
// one .vis.db, or, with --file_type json, written as merged dump folders (§15.9).
#pragma once

#include <vector>

#include "app/graph_visualize.h"
#include "layout/layout.h"
#include "merge/parallel_params.h"

namespace visprobe {

// `kind` is the target's layout (RANKS or STEPS); `params` holds one ParallelParam per side.
// Errors are returned, not logged (RunGraphVisualize logs them).
Result<RunSummary> RunMergedGraphVisualize(const GraphVisualizeArgs& args, const std::vector<ParallelParam>& params,
                                           LayoutKind kind, const RunOptions& opts, Reporter& rep);

}  // namespace visprobe
