// A rank graph while it is being merged: the reference's node_map (insertion-ordered, keyed by the
// name a node had when it was registered, which need not be its current name), the per-node merge
// attributes, and the edits the mergers make (rename, copy a subtree in from another rank).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/graph.h"
#include "merge/graph_merger.h"

namespace visprobe {

struct MergeNodeInfo {
  int rank = 0;  // the rank the node was built on (§15.2)
  bool pp_merged = false;  // is_pp_merged (§15.7)
  bool has_pp_index = false;
  int pp_index = 0;
  NodeOrigin origin;
};

class MergeGraph {
 public:
  explicit MergeGraph(RankGraph r);
  RankGraph Finish();  // the merged graph, its Find() answering from the node map

  Graph& g() { return *r_.graph; }
  const Graph& g() const { return *r_.graph; }
  Node& node(NodeId id) { return r_.graph->node(id); }
  const Node& node(NodeId id) const { return r_.graph->node(id); }
  NodeId root() const { return 0; }
  int rank() const { return r_.rank; }
  MergeNodeInfo& info(NodeId id) { return info_[id]; }
  const MergeNodeInfo& info(NodeId id) const { return info_[id]; }

  // The node map.
  NodeId Find(std::string_view key) const;
  bool Has(std::string_view key) const { return Find(key) != kNoNode; }
  void Erase(std::string_view key);
  // node_map[key] = id: an existing key keeps its position.
  void Set(std::string_view key, NodeId id);
  // Moves `old_key`'s entry to `new_key` keeping its position in the insertion order (a present
  // `new_key` takes the node instead, and `old_key` leaves the map).
  void Rekey(std::string_view old_key, std::string_view new_key);
  // The nodes of the map in insertion order.
  std::vector<NodeId> Values() const;
  // add_node(op, base, accumulate=True): "<base>.<k>", registered, no parent.
  NodeId AddAccumulated(NodeOp op, const std::string& base);

  void SetName(NodeId id, std::string_view name) { node(id).name = r_.graph->Intern(name); }
  // Renames a node and its item keys (the map is not touched).
  void Rename(NodeId id, const std::string& name);
  // Copies the subtree of `other` at `top` into this graph (not registered, no parent). The copy
  // keeps every node's rank and origin.
  NodeId Import(const MergeGraph& other, NodeId top);
  // Registers `top` and all its descendants (pre-order); a key already present is kept and
  // reported as "<id> is exist!".
  void RegisterTree(NodeId top, const MergeLogFn& log);
  // Forgets what Import remembers about `other` (its stacks already copied here), before `other`
  // is released.
  void ForgetImportsFrom(const MergeGraph& other) { stack_map_.erase(&other.g()); }
  std::vector<std::string> AncestorNames(NodeId id) const;

  // Incremented whenever the root's child list is replaced by a new one (not appended to), so a
  // loop over it can behave like Python's iteration over the old list object.
  int root_list_version = 0;

 private:
  struct Entry {
    std::string_view key;
    NodeId id;
    bool live;
  };
  RankGraph r_;
  std::vector<MergeNodeInfo> info_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string_view, size_t> pos_;
  std::unordered_map<std::string, uint32_t> accumulate_;
  std::unordered_map<const Graph*, std::vector<int32_t>> stack_map_;
};

}  // namespace visprobe
