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

// The second pass (StreamNodeRecords) is in graph/node_records.h, §10 paging in graph/paging.h.

}  // namespace visprobe
