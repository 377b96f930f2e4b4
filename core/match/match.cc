#include "match/match.h"

#include <deque>

#include "graph/builder.h"
#include "graph/paging.h"

namespace visprobe {
namespace {

bool SameAncestorNames(const Graph& n, NodeId ni, const Graph& b, NodeId bi) {
  std::vector<NodeId> an = n.Ancestors(ni), ab = b.Ancestors(bi);
  if (an.size() != ab.size()) return false;
  for (size_t k = 0; k < an.size(); ++k)
    if (n.node(an[k]).name != b.node(ab[k]).name) return false;
  return true;
}

// BFS over the nodes reachable from the root (children enqueued after their parent).
std::vector<NodeId> Bfs(const Graph& g) {
  std::vector<NodeId> order;
  std::vector<char> seen(g.size(), 0);
  std::deque<NodeId> q{g.root()};
  seen[g.root()] = 1;
  while (!q.empty()) {
    NodeId id = q.front();
    q.pop_front();
    order.push_back(id);
    for (NodeId c : g.node(id).subnodes)
      if (!seen[c]) {
        seen[c] = 1;
        q.push_back(c);
      }
  }
  return order;
}

// Link n <-> b: each side's matched_node_link is the other side's ancestors followed by the other
// side's id (for the default match both lists are the same names).
void CrossLink(Graph& n, NodeId ni, Graph& b, NodeId bi) {
  n.matched_graph = &b;
  b.matched_graph = &n;
  n.node(ni).matched = bi;
  b.node(bi).matched = ni;
}

// "Torch.matmul.2.forward" -> "Torch.matmul.forward" (every ".<digits>." -> "."), "_rank<d>" removed.
std::string RecountKey(std::string_view id) {
  std::string k(id);
  for (;;) {
    bool changed = false;
    for (size_t i = 0; i < k.size(); ++i) {
      if (k[i] != '.') continue;
      size_t j = i + 1;
      while (j < k.size() && k[j] >= '0' && k[j] <= '9') ++j;
      if (j > i + 1 && j < k.size() && k[j] == '.') {
        k.erase(i, j - i);
        changed = true;
        break;
      }
    }
    if (!changed) break;
  }
  for (size_t p = k.find("_rank"); p != std::string::npos; p = k.find("_rank", p)) {
    size_t j = p + 5;
    while (j < k.size() && k[j] >= '0' && k[j] <= '9') ++j;
    if (j > p + 5)
      k.erase(p, j - p);
    else
      p += 5;
  }
  return k;
}

std::vector<std::pair<std::string, NodeId>> Recount(const Graph& g, NodeId id) {
  std::vector<std::pair<std::string, NodeId>> out;
  std::unordered_map<std::string, int> cnt;
  for (NodeId c : g.node(id).subnodes) {
    if (g.node(c).op != NodeOp::kFunctionApi) continue;
    std::string k = RecountKey(g.node(c).name);
    int n = ++cnt[k];
    out.emplace_back(k + std::to_string(n), c);
  }
  return out;
}

}  // namespace

std::vector<std::pair<NodeId, NodeId>> MatchGraphs(Graph& n, Graph& b, MatchKind kind,
                                                   const std::unordered_map<std::string, std::string>& mapping) {
  std::vector<std::pair<NodeId, NodeId>> pairs;
  for (NodeId ni : Bfs(n)) {
    const std::string name(n.node(ni).name);
    if (kind == MatchKind::kDefault) {
      NodeId bi = b.Find(name);
      if (bi == kNoNode || !SameAncestorNames(n, ni, b, bi)) continue;
      CrossLink(n, ni, b, bi);
      pairs.emplace_back(ni, bi);
    } else if (kind == MatchKind::kMapping) {
      auto it = mapping.find(name);
      const std::string& target = it == mapping.end() ? name : it->second;
      NodeId bi = b.Find(target);
      if (bi == kNoNode) continue;
      CrossLink(n, ni, b, bi);
      pairs.emplace_back(ni, bi);
    } else {
      if (n.node(ni).op == NodeOp::kFunctionApi) continue;
      NodeId bi = b.Find(name);
      if (bi == kNoNode) continue;
      CrossLink(n, ni, b, bi);
      pairs.emplace_back(ni, bi);
      auto rb = Recount(b, bi);
      std::unordered_map<std::string, NodeId> rbm(rb.begin(), rb.end());
      for (const auto& [key, nc] : Recount(n, ni)) {
        auto f = rbm.find(key);
        if (f == rbm.end()) continue;
        CrossLink(n, nc, b, f->second);
        pairs.emplace_back(nc, f->second);
      }
    }
  }
  return pairs;
}

int PageMicroStepsPair(Graph& n, Graph& b) {
  if (n.micro_step_num >= 0) return n.micro_step_num + 1;
  int batches = AssignMicroBatches(n, [&b](const Node& x, int batch) {
    if (x.matched == kNoNode) return;
    NodeId bi = b.Find(b.node(x.matched).name);  // the first node of that name, as msProbe looks it up
    if (bi != kNoNode) b.node(bi).micro_step = batch;
  });
  PropagateMicroSteps(n);
  // Golden root children still unset take the number at the end of their name (reference quirk).
  for (NodeId c : b.node(b.root()).subnodes) {
    Node& x = b.node(c);
    if (x.micro_step != kMicroStepUnset) continue;
    std::string_view nm = x.name;
    auto dot = nm.rfind('.');
    std::string_view last = dot == std::string_view::npos ? nm : nm.substr(dot + 1);
    bool digits = !last.empty() && last.size() < 9;
    for (char ch : last)
      if (ch < '0' || ch > '9') digits = false;
    x.micro_step = digits ? std::stoi(std::string(last)) : 0;
  }
  PropagateMicroSteps(b);
  return batches;
}

}  // namespace visprobe
