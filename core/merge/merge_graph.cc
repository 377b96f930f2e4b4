#include "merge/merge_graph.h"

#include <utility>

#include "merge/merge_items.h"

namespace visprobe {

MergeGraph::MergeGraph(RankGraph r) : r_(std::move(r)) {
  const Graph& g = *r_.graph;
  info_.resize(g.size());
  entries_.reserve(g.size());
  for (NodeId id = 0; id < g.size(); ++id) {
    info_[id].rank = r_.rank;
    info_[id].origin = NodeOrigin{r_.rank, g.node(id).name};
    // The builder registers every node under its name, in creation order.
    if (g.Find(g.node(id).name) == id) Set(g.node(id).name, id);
  }
}

RankGraph MergeGraph::Finish() {
  std::vector<std::pair<std::string_view, NodeId>> index;
  for (const Entry& e : entries_)
    if (e.live) index.emplace_back(e.key, e.id);
  r_.graph->ResetIndex(index);
  r_.graph->repeated_names = true;
  r_.origin.resize(info_.size());
  for (size_t i = 0; i < info_.size(); ++i) r_.origin[i] = info_[i].origin;
  return std::move(r_);
}

NodeId MergeGraph::Find(std::string_view key) const {
  auto it = pos_.find(key);
  return it == pos_.end() ? kNoNode : entries_[it->second].id;
}

void MergeGraph::Erase(std::string_view key) {
  auto it = pos_.find(key);
  if (it == pos_.end()) return;
  entries_[it->second].live = false;
  pos_.erase(it);
}

void MergeGraph::Set(std::string_view key, NodeId id) {
  auto it = pos_.find(key);
  if (it != pos_.end()) {
    entries_[it->second].id = id;
    return;
  }
  std::string_view stable = r_.graph->Intern(key);
  pos_.emplace(stable, entries_.size());
  entries_.push_back(Entry{stable, id, true});
}

void MergeGraph::Rekey(std::string_view old_key, std::string_view new_key) {
  auto it = pos_.find(old_key);
  if (it == pos_.end() || old_key == new_key) return;
  size_t at = it->second;
  NodeId id = entries_[at].id;
  if (Has(new_key)) {
    Erase(old_key);
    Set(new_key, id);
    return;
  }
  pos_.erase(it);
  std::string_view stable = r_.graph->Intern(new_key);
  entries_[at].key = stable;
  pos_.emplace(stable, at);
}

std::vector<NodeId> MergeGraph::Values() const {
  std::vector<NodeId> out;
  out.reserve(pos_.size());
  for (const Entry& e : entries_)
    if (e.live) out.push_back(e.id);
  return out;
}

NodeId MergeGraph::AddAccumulated(NodeOp op, const std::string& base) {
  uint32_t& k = accumulate_[base];
  std::string id = base + "." + std::to_string(k++);
  Node n;
  n.name = r_.graph->Intern(id);
  n.op = op;
  NodeId nid = r_.graph->AppendNode(std::move(n));
  info_.resize(r_.graph->size());
  info_[nid].rank = r_.rank;
  info_[nid].origin = NodeOrigin{r_.rank, node(nid).name};
  Set(node(nid).name, nid);
  return nid;
}

void MergeGraph::Rename(NodeId id, const std::string& name) {
  std::string old(node(id).name);
  SetName(id, name);
  RenameItemKeys(node(id).items, old, name);
}

NodeId MergeGraph::Import(const MergeGraph& other, NodeId top) {
  const Graph& og = other.g();
  auto& smap = stack_map_[&og];
  if (smap.empty()) smap.assign(og.stacks.size(), -1);
  // Pre-order copy with an explicit stack: (source node, parent in this graph).
  std::vector<std::pair<NodeId, NodeId>> stack{{top, kNoNode}};
  NodeId result = kNoNode;
  while (!stack.empty()) {
    auto [src, parent] = stack.back();
    stack.pop_back();
    const Node& s = og.node(src);
    Node n = s;
    n.name = r_.graph->Intern(s.name);
    n.up = parent;
    n.subnodes.clear();
    if (s.stack >= 0) {
      int32_t& mapped = smap[static_cast<size_t>(s.stack)];
      if (mapped < 0) {
        mapped = static_cast<int32_t>(r_.graph->stacks.size());
        r_.graph->stacks.push_back(og.stacks[static_cast<size_t>(s.stack)]);
      }
      n.stack = mapped;
    }
    NodeId nid = r_.graph->AppendNode(std::move(n));
    info_.resize(r_.graph->size());
    info_[nid] = other.info(src);
    info_[nid].origin.name = r_.graph->Intern(other.info(src).origin.name);
    if (parent == kNoNode)
      result = nid;
    else
      node(parent).subnodes.push_back(nid);
    for (auto it = s.subnodes.rbegin(); it != s.subnodes.rend(); ++it) stack.emplace_back(*it, nid);
  }
  return result;
}

void MergeGraph::RegisterTree(NodeId top, const MergeLogFn& log) {
  std::vector<NodeId> stack{top};
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    std::string_view name = node(id).name;
    if (Has(name)) {
      if (log) log(LogLevel::kWarning, Msg<msg::kNameIsExist>(name));
    } else {
      Set(name, id);
    }
    const auto& subs = node(id).subnodes;
    for (auto it = subs.rbegin(); it != subs.rend(); ++it) stack.push_back(*it);
  }
}

std::vector<std::string> MergeGraph::AncestorNames(NodeId id) const {
  std::vector<std::string> out;
  for (NodeId a : g().Ancestors(id)) out.emplace_back(node(a).name);
  return out;
}

}  // namespace visprobe
