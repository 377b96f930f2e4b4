// The second pass over dump.json: every node's last record parsed into items and handed to the
// caller, on one thread or several.
#pragma once

#include <functional>

#include "base/status.h"
#include "graph/builder.h"
#include "graph/graph.h"
#include "graph/items.h"

namespace visprobe {

// Second pass: parses dump.json's records in windows; for the last record of every graph node
// it renders the items (§7), sets the node's overflow level (§11) and batch p2p info (§6.8)
// and calls `fn`. Records of names that are not nodes are skipped.
using NodeRecordFn = std::function<Status(NodeId id, const NodeItems& items)>;
Status StreamNodeRecords(Graph& g, const BuildOptions& opts, const NodeRecordFn& fn);
// The same with the windows parsed by `workers` threads; `fn` is called concurrently, with the
// worker index (each node exactly once, in no particular order).
using WorkerRecordFn = std::function<Status(int worker, NodeId id, const NodeItems& items)>;
Status StreamNodeRecordsParallel(Graph& g, const BuildOptions& opts, int workers, const WorkerRecordFn& fn);

}  // namespace visprobe
