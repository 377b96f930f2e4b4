// graph_visualize's streamed pipeline (spec §1.2): the planner makes one unit per (step, rank)
// graph, or per target/golden pair, in (step, rank) order; each unit's structure is built on a
// worker thread ahead of the writer (db/run_executor.h RunExecutor), then its rows stream from
// dump.json into the .vis.db (app/stream_rows.h), compared against the golden side's when there is
// one (app/run_stages.h PlanCompare).
#pragma once

#include "app/graph_visualize.h"

namespace visprobe {

// Errors are returned, not logged (RunGraphVisualize logs them).
Result<RunSummary> RunStreamedGraphVisualize(const GraphVisualizeArgs& args, const RunOptions& opts, Reporter& rep);

}  // namespace visprobe
