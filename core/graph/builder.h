// Graph building from one rank folder (spec §4, §6, §7, §10, §11): construct.json gives the
// hierarchy, dump.json is streamed in windows and each record is turned into the node's items
// (and its overflow level) as it passes, stack.json gives the call stacks.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/limits.h"
#include "base/status.h"
#include "graph/graph.h"
#include "graph/items.h"

namespace visprobe {

struct BuildOptions {
  bool overflow_check = false;
  // Load every node's items into the graph (tests, small inputs). The CLI streams them into the
  // database instead (StreamNodeRecords), so memory follows the graph, not dump.json.
  bool keep_items = true;
  ItemOptions items;
  size_t window_bytes = 4u << 20;
  // > 1: dump.json's keys are scanned on a second thread while construct.json loads (native).
  int threads = 1;
  // Nodes of the graph, construct.json entries and dump.json records (base/limits.h; tests lower it).
  uint64_t max_nodes = kMaxGraphNodes;
  // Called while dump.json is read: bytes done, bytes total.
  std::function<void(uint64_t, uint64_t)> progress;
};

// Builds the graph of the folder holding construct.json, dump.json and stack.json. The first pass
// over dump.json reads only its keys and meta members; with keep_items the second pass follows.
Result<std::unique_ptr<Graph>> BuildGraph(const std::string& rank_dir, const BuildOptions& opts);

// Second pass: parses dump.json's records in windows; for the last record of every graph node
// it renders the items (§7), sets the node's overflow level (§11) and batch p2p info (§6.8)
// and calls `fn`. Records of names that are not nodes are skipped.
using NodeRecordFn = std::function<Status(NodeId id, const NodeItems& items)>;
Status StreamNodeRecords(Graph& g, const BuildOptions& opts, const NodeRecordFn& fn);
// The same with the windows parsed by `workers` threads; `fn` is called concurrently, with the
// worker index (each node exactly once, in no particular order).
using WorkerRecordFn = std::function<Status(int worker, NodeId id, const NodeItems& items)>;
Status StreamNodeRecordsParallel(Graph& g, const BuildOptions& opts, int workers, const WorkerRecordFn& fn);

// §10 paging: assigns micro_step ids (build mode) and returns the number of micro steps.
int PageMicroSteps(Graph& g);
// The pieces §10 shares with the compare pairing: split the root's children into batches
// (calling `also` for each child with its batch) and return the count; propagate ids down.
int AssignMicroBatches(Graph& g, const std::function<void(const Node&, int)>& also);
void PropagateMicroSteps(Graph& g);

}  // namespace visprobe
