// Node matching between the target graph and the golden graph (spec §8.1-§8.3), and the
// micro-step paging of a compared pair (§10).
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace visprobe {

enum class MatchKind { kDefault, kFuzzy, kMapping };

// Matches target `n` against golden `b`: sets Node::matched (and Graph::matched_graph) on both sides and returns the matched
// pairs (target node, golden node) in the order the reference compares them (BFS over the target).
// `mapping` (target name -> golden name, "N/A" = unmatched) is used in kMapping only.
std::vector<std::pair<NodeId, NodeId>> MatchGraphs(Graph& n, Graph& b, MatchKind kind,
                                                   const std::unordered_map<std::string, std::string>& mapping);

// §10 paging of a compared pair; returns the number of micro steps.
int PageMicroStepsPair(Graph& n, Graph& b);

}  // namespace visprobe
