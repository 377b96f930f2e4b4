// §10 micro-step paging of a build; the compare pairing (match/match.cc) reuses the pieces.
#include "graph/paging.h"

#include <functional>
#include <vector>

namespace visprobe {

int AssignMicroBatches(Graph& g, const std::function<void(const Node&, int)>& also) {
  int batch = 0;
  bool seen_backward = false;
  for (NodeId c : g.node(g.root()).subnodes) {
    Node& n = g.node(c);
    if (n.op == NodeOp::kModule) {
      if (n.name.find(".forward.") != std::string_view::npos) {
        if (seen_backward) {
          ++batch;
          seen_backward = false;
        }
      } else {
        seen_backward = true;  // any module id without ".forward." counts as backward
      }
    }
    n.micro_step = batch;
    if (also) also(n, batch);
  }
  return batch + 1;
}

void PropagateMicroSteps(Graph& g) {
  // Pre-order, iterative: unset nodes take their parent's id (the root itself stays unset).
  const Node& root = g.node(g.root());
  std::vector<NodeId> stack(root.subnodes.rbegin(), root.subnodes.rend());
  std::vector<char> seen(g.size(), 0);
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (seen[id]) continue;
    seen[id] = 1;
    const Node& n = g.node(id);
    for (auto it = n.subnodes.rbegin(); it != n.subnodes.rend(); ++it) {
      Node& ch = g.node(*it);
      if (ch.micro_step == kMicroStepUnset) ch.micro_step = n.micro_step;
      stack.push_back(*it);
    }
  }
}

int PageMicroSteps(Graph& g) {
  if (g.micro_step_num >= 0) return g.micro_step_num + 1;
  int batches = AssignMicroBatches(g, nullptr);
  PropagateMicroSteps(g);
  return batches;
}

}  // namespace visprobe
