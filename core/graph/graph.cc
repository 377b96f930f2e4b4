#include "graph/graph.h"

#include <algorithm>
#include <unordered_set>

#include "base/prefault.h"

namespace visprobe {

const char* OverflowName(Overflow o) {
  switch (o) {
    case Overflow::kMedium: return "medium";
    case Overflow::kHigh: return "high";
    case Overflow::kCritical: return "critical";
    default: return nullptr;
  }
}

namespace {
// `.` in the reference's patterns is unescaped: "Tensor1" is an API (§5.2).
bool PrefixAny(std::string_view n, std::string_view word, bool need_char) {
  if (n.size() < word.size() + (need_char ? 1 : 0)) return false;
  return n.compare(0, word.size(), word) == 0;
}
}  // namespace

NodeOp OpOfName(std::string_view n) {
  static const char* kModules[] = {"Module", "Cell"};
  static const char* kModuleWords[] = {"optimizer", "clip_grad", "DefaultModel"};
  static const char* kApis[] = {"Tensor",    "Torch", "Functional",     "NPU",      "VF", "Distributed", "Aten", "Mint",
                                "Primitive", "Jit",   "MintFunctional", "MindSpeed"};
  for (const char* m : kModules)
    if (PrefixAny(n, m, true)) return NodeOp::kModule;
  for (const char* m : kModuleWords)
    if (PrefixAny(n, m, false)) return NodeOp::kModule;
  for (const char* a : kApis)
    if (PrefixAny(n, a, true)) return NodeOp::kFunctionApi;
  return NodeOp::kModule;
}

Graph::Graph() {
  Node root;
  root.name = names_.Copy("DefaultModel");
  root.op = NodeOp::kModule;
  nodes_.push_back(std::move(root));
  index_.emplace(nodes_[0].name, 0);
}

void Graph::Reserve(size_t n, size_t prefault) {
  nodes_.reserve(n);
  index_.reserve(n);
  const size_t room = std::min(prefault, nodes_.capacity() - nodes_.size());
  if (room) PrefaultWritable(reinterpret_cast<const char*>(nodes_.data()) + nodes_.size() * sizeof(Node), room * sizeof(Node));
}

NodeId Graph::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? kNoNode : it->second;
}

NodeId Graph::Find(std::string_view name, size_t hash) const {
  auto it = index_.find(name, hash);
  return it == index_.end() ? kNoNode : it->second;
}

NodeId Graph::AddNode(NodeOp op, std::string_view name, NodeId parent, bool accumulate) {
  const NodeId nid = static_cast<NodeId>(nodes_.size());
  std::string_view stored;
  if (accumulate) {
    std::string id(name);
    uint32_t& k = accumulate_[id];
    id += "." + std::to_string(k++);
    stored = names_.Copy(id);
    index_.emplace(stored, nid);  // a node of that name already there keeps the index
  } else {
    // Interned first (the index's keys point into names_), so one hash lookup both checks and inserts.
    stored = names_.Copy(name);
    auto [it, inserted] = index_.try_emplace(stored, nid);
    if (!inserted) {
      names_.DropLast(stored);
      return it->second;
    }
  }
  Node n;
  n.name = stored;
  n.op = op;
  nodes_.push_back(std::move(n));
  AddUpnode(nid, parent);
  return nid;
}

void Graph::AddUpnode(NodeId n, NodeId parent) {
  if (parent == kNoNode || parent == n || nodes_[n].up != kNoNode) return;
  nodes_[n].up = parent;
  nodes_[parent].subnodes.push_back(n);
}

std::string_view Graph::Intern(std::string_view name) { return names_.Copy(name); }

NodeId Graph::AppendNode(Node n) {
  nodes_.push_back(std::move(n));
  return static_cast<NodeId>(nodes_.size() - 1);
}

void Graph::ResetIndex(const std::vector<std::pair<std::string_view, NodeId>>& entries) {
  index_.clear();
  index_.reserve(entries.size());
  for (const auto& [name, id] : entries) index_[name] = id;
}

std::vector<NodeId> Graph::Ancestors(NodeId n) const {
  std::vector<NodeId> out;
  AncestorsInto(n, &out);
  return out;
}

void Graph::AncestorsInto(NodeId n, std::vector<NodeId>* out) const {
  out->clear();
  // Chains are short: only one longer than kShort pays for cycle detection (a cycle of parents,
  // which malformed input can make, has no ancestors).
  constexpr size_t kShort = 256;
  NodeId p = nodes_[n].up;
  for (; p != kNoNode && out->size() < kShort; p = nodes_[p].up) {
    if (p == n) {
      out->clear();
      return;
    }
    out->push_back(p);
  }
  if (p != kNoNode) {
    std::unordered_set<NodeId> seen(out->begin(), out->end());
    seen.insert(n);
    if (seen.size() != out->size() + 1) {
      out->clear();
      return;
    }
    for (; p != kNoNode; p = nodes_[p].up) {
      if (!seen.insert(p).second) {
        out->clear();
        return;
      }
      out->push_back(p);
    }
  }
  std::reverse(out->begin(), out->end());
}

}  // namespace visprobe
