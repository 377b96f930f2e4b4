// The rows of a streamed graph (app/graph_run.cc): dump.json's records parsed a window at a time,
// rendered and written to the .vis.db as they pass, on worker threads ahead of a writer thread
// (native) or all on the calling thread (the browser build).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "db/vis_db.h"
#include "graph/builder.h"
#include "graph/graph.h"

namespace visprobe {

// Called for every node record before its row is rendered: may return comparison fields for
// the items (target side of a compare) or keep the captured values (golden side).
using RowHook = std::function<void(NodeId id, const NodeItems& items, std::vector<std::string>* in_extra,
                                   std::vector<std::string>* out_extra)>;

// Streams one graph's dump.json records into the database. With workers > 0 (native), `workers`
// threads parse and render windows of records while this thread inserts the rows; with 0 all of
// it happens in this thread (the browser build).
Status StreamRows(Graph& g, const BuildOptions& bo, VisDbWriter& db, int workers, const RowHook& hook);

// The rows StreamRows hands over: those of the nodes with a record in dump.json; `before_own` runs
// before a node's own row is written (in post-order).
RowPlan StreamedRows(const Graph& g, std::function<void(NodeId)> before_own = nullptr);

}  // namespace visprobe
