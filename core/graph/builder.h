// Graph building from one rank folder (spec §4, §6, §7, §10, §11): construct.json gives the
// hierarchy, dump.json is streamed in windows and each record is turned into the node's items
// (and its overflow level) as it passes, stack.json gives the call stacks.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "graph/graph.h"
#include "graph/items.h"

namespace visprobe {

struct BuildOptions {
  bool overflow_check = false;
  ItemOptions items;
  size_t window_bytes = 4u << 20;
  // Called while dump.json is read: bytes done, bytes total.
  std::function<void(uint64_t, uint64_t)> progress;
};

// Builds the graph of the folder holding construct.json, dump.json and stack.json.
Result<std::unique_ptr<Graph>> BuildGraph(const std::string& rank_dir, const BuildOptions& opts);

// §10 paging: assigns micro_step ids (build mode) and returns the number of micro steps.
int PageMicroSteps(Graph& g);

// Pieces exposed for the unit tests of §17.
bool IsRecomputeByStack(const std::vector<std::string>& frames);

}  // namespace visprobe
