// §10 micro-step paging of a build; the compare pairing (match/match.cc) reuses the pieces.
#pragma once

#include <functional>

#include "graph/graph.h"

namespace visprobe {

// §10 paging: assigns micro_step ids (build mode) and returns the number of micro steps.
int PageMicroSteps(Graph& g);
// The pieces §10 shares with the compare pairing: split the root's children into batches
// (calling `also` for each child with its batch) and return the count; propagate ids down.
int AssignMicroBatches(Graph& g, const std::function<void(const Node&, int)>& also);
void PropagateMicroSteps(Graph& g);

}  // namespace visprobe
