// The graph of one (step, rank) dump: plain data, nodes in a vector indexed by NodeId, in the
// order the reference inserts them into its node_map (§6.1).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/arena.h"
#include "base/name_map.h"

namespace visprobe {

using NodeId = uint32_t;
constexpr NodeId kNoNode = 0xFFFFFFFFu;
// Node::micro_step before paging gives it one; -1 is a value the dumper writes, so "unset" is apart from it.
constexpr int32_t kMicroStepUnset = INT32_MIN;

enum class NodeOp : uint8_t { kModule = 0, kFunctionApi = 1, kApiCollection = 9 };
enum class Overflow : uint8_t { kNone = 0, kMedium, kHigh, kCritical };
const char* OverflowName(Overflow o);  // nullptr for kNone

// One formatted input/output item (§7, §12). `text` holds the item's fields as JSON members
// without the braces, so comparison fields can be appended later.
struct ItemRef {
  uint32_t key_off = 0, key_len = 0;
  uint32_t text_off = 0, text_len = 0;
  bool collapsed = false;  // written as {"value": "null"} (§12 rule 4)
  bool process_group = false;  // a torch.ProcessGroup: the reference keeps type, group_ranks, group_id
      // and data_name only, so comparison fields are not added either
  uint32_t cmp = UINT32_MAX;  // index into NodeItems::cmp when comparison values were captured
};

// A raw value of an item field, as the comparison sees it (§9.3): the JSON value after §7's
// item construction (booleans of the leaf already turned into "True"/"False").
struct CmpValue {
  enum Kind : uint8_t { kNull, kBool, kInt, kFloat, kString, kJson } kind = kNull;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;  // string value, or the JSON text of a list / object / big integer (kJson)
};

enum class ItemState : uint8_t { kInput, kOutput, kParameters, kParametersGrad, kDebug };

// The values of one item that the comparison uses (§9.2-§9.6). (clang-tidy 14 reports the loop
// index of the implicit copy of `stats`, a name the compiler makes, as a reserved identifier.)
struct CmpItem {  // NOLINT(bugprone-reserved-identifier)
  std::string name;  // full_op_name: the row's "NPU Name" / "Bench Name"
  ItemState state = ItemState::kInput;
  CmpValue dtype, shape, requires_grad, stats[4], md5;  // stats: Max, Min, Mean, Norm
  std::string data_name;  // "-1" when absent
};

// The items of one node; keys and texts live in `blob`.
struct NodeItems {
  std::string blob;
  std::vector<ItemRef> inputs, outputs;
  std::vector<CmpItem> cmp;  // filled when ItemOptions::capture is set
  std::string_view Key(const ItemRef& r) const { return {blob.data() + r.key_off, r.key_len}; }
  std::string_view Text(const ItemRef& r) const { return {blob.data() + r.text_off, r.text_len}; }
  bool empty() const { return inputs.empty() && outputs.empty(); }
};

struct BatchP2PInfo {
  std::string op, peer, group_id;  // JSON texts of the values ("null" when missing)
};

struct Node {
  std::string_view name;  // interned in Graph::names_
  NodeOp op = NodeOp::kModule;
  NodeId up = kNoNode;
  std::vector<NodeId> subnodes;
  NodeItems items;
  int32_t stack = -1;  // index into Graph::stacks; -1 = no stack ("[]")
  int32_t micro_step = kMicroStepUnset;  // unset is stored as 0; -1 is a real value (Megatron, before the first micro step)
  Overflow overflow = Overflow::kNone;
  bool has_data = false;  // a dump.json record exists for this node
  uint32_t dump_records = 0;  // how many records of dump.json carry this name
  uint64_t last_record = UINT64_MAX;  // file offset of the last of them: the one that counts (§2.1)
  double precision_index = -1;  // < 0: NULL (build mode, unmatched, no items)
  // matched_node_link (compare mode): the counterpart in Graph::matched_graph; the link is its
  // ancestors' names and its own (§8), made when the row is written, not kept as strings per node.
  NodeId matched = kNoNode;
  std::vector<BatchP2PInfo> batch_p2p;
  std::vector<std::string> merge_info;  // parallel_merge_info (§15)
};

struct StackEntry {
  std::string json;  // json.dumps of the stack value
  std::vector<std::string> frames;  // the frames when the value is a list of strings
};

class Graph {
 public:
  Graph();
  NodeId root() const { return 0; }
  Node& node(NodeId id) { return nodes_[id]; }
  const Node& node(NodeId id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  // Room for `n` nodes: growing the node vector by doubling copied it whole (a transient of
  // 300 MB on a 1.1 GB dump); reserved pages that are never used are never resident.
  // `prefault`: the kernel maps the room for that many of the next nodes now (base/prefault.h), so
  // adding them does not stop at each new page; the room beyond them stays unmapped.
  void Reserve(size_t n, size_t prefault = 0);
  NodeId Find(std::string_view name) const;
  // The same with the name's std::hash already computed.
  NodeId Find(std::string_view name, size_t hash) const;
  // add_node: returns the existing node when `name` exists (unless accumulate).
  NodeId AddNode(NodeOp op, std::string_view name, NodeId parent, bool accumulate = false);
  // add_upnode: first parent wins; no self-parenting.
  void AddUpnode(NodeId n, NodeId parent);
  // Ancestor ids from the root down to n's parent; empty on a cycle.
  std::vector<NodeId> Ancestors(NodeId n) const;
  void AncestorsInto(NodeId n, std::vector<NodeId>* out) const;  // the same into a reused vector

  // Edits used by the parallel merge (§15), which renames nodes and moves them between graphs.
  // Stable storage for a name (valid as long as the graph).
  std::string_view Intern(std::string_view name);
  // Appends `n` as is (its name must be interned here); the node map is not touched.
  NodeId AppendNode(Node n);
  // Replaces the node map (name -> node, what Find sees) with `entries`.
  void ResetIndex(const std::vector<std::pair<std::string_view, NodeId>>& entries);

  std::vector<StackEntry> stacks;
  std::string framework = "pytorch";
  bool framework_given = false;  // dump.json had a truthy "framework"
  // §8.5: the "framework" member when it is "pytorch" or "mindspore", else empty; set once the
  // dump.json keys were scanned (saves the compare a second read of the file).
  std::optional<std::string> framework_field;
  std::string task, level;
  bool has_dump_data_dir = false;  // false -> NULL in the database
  const Graph* matched_graph = nullptr;  // the other side of a compare (Node::matched)
  std::string dump_data_dir;
  int micro_step_num = -1;  // Megatron construct: N (largest 0-based micro step)
  // Several reachable nodes may share a name (a merged graph, §15): the export then keeps the first
  // one met and skips the others with their subtrees, as the reference's traversal by id does.
  bool repeated_names = false;
  bool has_data_key = false;  // dump.json has a "data" member
  bool data_is_dict = false;  // ... and it is an object
  bool has_md5 = false;  // dump.json mentions "md5" (md5-mode statistics, §9.1)
  uint64_t dump_bytes = 0, dump_records = 0;
  std::string dump_path;  // the dump.json the graph was built from
  // Offsets of every record's key in dump.json (file order) and of the "data" object's closing
  // brace, from the first pass: the second pass reads records straight from them.
  std::vector<uint64_t> record_pos;
  uint64_t data_end = UINT64_MAX;
  // Seconds spent in the phases of the structure pass (reported at DEBUG level).
  double t_construct = 0, t_stack = 0, t_nodes = 0, t_scan = 0, t_post = 0, t_scanner = 0;

 private:
  std::vector<Node> nodes_;
  TextArena names_;  // stable storage for node names
  NameMap<NodeId> index_;
  std::unordered_map<std::string, uint32_t> accumulate_;
};

NodeOp OpOfName(std::string_view name);

}  // namespace visprobe
