// §6.6: recompute modules (activation checkpointing). A module the stack (PyTorch) or the name
// (MindSpore) shows to be recomputed leaves the root for the backward module of the forward one
// it recomputes.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "graph/rank_inputs.h"

namespace visprobe {

// Whether a module's call stack (stack.json frames) is the one torch's checkpoint re-runs it from.
bool IsRecomputeByStack(const std::vector<std::string>& frames);

// Moves the recompute modules among the root's children under their backward parents.
void MoveRecomputeNodes(Graph& g, const Stacks& stacks);

}  // namespace visprobe
