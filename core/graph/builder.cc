#include "graph/builder.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/fs.h"
#include "base/strings.h"
#include "base/thread_init.h"
#include "graph/direction_suffix.h"
#include "graph/node_records.h"
#include "graph/overflow.h"
#include "graph/rank_inputs.h"
#include "graph/recompute.h"
#include "loader/json_reader.h"

namespace visprobe {
namespace {

constexpr const char* kNoForwardStack = "This backward node cannot find the forward node and cannot retrieve stack information.";

// ---- small string helpers (the reference's regexes, written out) --------------------------

using graph_detail::MatchDirSuffix;
using graph_detail::SwapDir;

// `\.parameters_grad(\.\d+)?$`: returns the match start or npos.
size_t ParamsGradPos(std::string_view key) {
  static constexpr std::string_view kPg = ".parameters_grad";
  if (EndsWith(key, kPg)) return key.size() - kPg.size();
  auto dot = key.rfind('.');
  if (dot == std::string_view::npos || !AllDigits(key.substr(dot + 1))) return std::string_view::npos;
  std::string_view head = key.substr(0, dot);
  if (EndsWith(head, kPg)) return head.size() - kPg.size();
  return std::string_view::npos;
}

// The text before the n-th '.' from the end (n >= 1): Join(Split(s, '.'), 0, parts - n) without
// the copies. False when s has fewer than n dots.
bool BeforeNthLastDot(std::string_view s, size_t n, std::string_view* head) {
  size_t end = s.size();
  for (size_t k = 0; k < n; ++k) {
    if (end == 0) return false;
    const size_t d = s.rfind('.', end - 1);
    if (d == std::string_view::npos) return false;
    end = d;
  }
  *head = s.substr(0, end);
  return true;
}

// ---- the builder ---------------------------------------------------------------------------

class Builder {
 public:
  Builder(const BuildOptions& o, Graph& g) : opts_(o), g_(g) {}
  Status Run(const std::string& dir);

 private:
  // Both return `parent` itself or fixed_parent_ (valid until the next call).
  // The parent to use: `parent` itself, or a view of fixed_parent_ (valid until the next call).
  std::string_view FixBackwardMissing(std::string_view child, std::string_view parent);
  std::string_view FixBackwardInplace(std::string_view child, std::string_view parent);
  // The node named `name` under `up` (first parent wins), made if new. `micro`: its construct.json
  // entry's micro step when the caller has it (else looked up).
  NodeId GetOrCreate(std::string_view name, NodeId up, const int* micro = nullptr);
  // The record keys of dump.json in file order (arena + end offsets) and their file offsets.
  struct ScannedKeys {
    std::string arena;
    std::vector<size_t> ends;
    std::vector<uint64_t> pos;
    Result<JsonReadResult> result = Status();
    double seconds = 0;  // the scanning thread's own time
  };
  JsonReadOptions ScanOptions() {
    JsonReadOptions o;
    o.container_key = "data";
    o.window_bytes = opts_.window_bytes;
    o.find_text = "\"md5\"";  // md5-mode statistics carry "md5" keys (§9.1)
    if (opts_.progress) o.progress = [this](uint64_t d, uint64_t t) { opts_.progress(d / 10, t); };
    return o;
  }
  Status ScanDump(const std::string& path, ScannedKeys* scanned);
  void CollectApisBetweenModules();
  Status AttachParametersGrad();
  void SetDumpDataDir(const JTree& meta, JIdx root, const std::string& dir);

  const BuildOptions& opts_;
  Graph& g_;
  Construct c_;
  Stacks stacks_;
  int32_t no_forward_stack_ = -1;
  std::string fixed_parent_;

  struct PendingGrad {
    std::string key;
    size_t split;
    uint64_t last_record;
    uint32_t records;
  };
  std::vector<PendingGrad> pending_;
  std::unordered_map<std::string, size_t> pending_index_;
};

std::string_view Builder::FixBackwardMissing(std::string_view child, std::string_view parent) {
  std::string_view stem, num;
  if (MatchDirSuffix(child, "backward", &stem, &num)) {
    const std::string_view* fp = c_.Get(SwapDir(child, "backward", "forward"));
    if (fp && !fp->empty()) {
      fixed_parent_ = SwapDir(*fp, "forward", "backward");
      if (c_.Has(fixed_parent_)) return fixed_parent_;
    }
  } else if (EndsWith(child, ".backward")) {
    const std::string_view* fp = c_.Get(ReplaceAll(child, "backward", "forward"));
    if (fp && !fp->empty()) {
      fixed_parent_ = ReplaceAll(*fp, "forward", "backward");
      if (c_.Has(fixed_parent_)) return fixed_parent_;
    }
  }
  return parent;
}

std::string_view Builder::FixBackwardInplace(std::string_view child, std::string_view parent) {
  std::string_view stem, num;
  if (!MatchDirSuffix(child, "backward", &stem, &num)) return parent;
  // Split on '.': the child has 5 parts or more, the parent 4 or more, and the child's parts but
  // its last 4 equal the parent's but its last 3 (no copies: every backward node comes here).
  std::string_view chead, phead;
  if (!BeforeNthLastDot(child, 4, &chead) || !BeforeNthLastDot(parent, 3, &phead)) return parent;
  if (chead == phead) return parent;
  std::string fc = SwapDir(child, "backward", "forward");
  const std::string_view* fp = c_.Get(fc);
  if (fp) {
    fixed_parent_.clear();
    if (fp->empty()) return fixed_parent_;
    fixed_parent_ = SwapDir(*fp, "forward", "backward");
    if (c_.Has(fixed_parent_)) return fixed_parent_;
  }
  return parent;
}

NodeId Builder::GetOrCreate(std::string_view name, NodeId up, const int* micro) {
  // One hash of the name for the lookups in the graph, stack.json's names and construct.json's.
  const size_t hash = std::hash<std::string_view>()(name);
  NodeId existing = g_.Find(name, hash);
  if (existing != kNoNode) {
    g_.AddUpnode(existing, up);
    return existing;
  }
  NodeId id = g_.AddNode(OpOfName(name), name, kNoNode);
  Node& n = g_.node(id);
  auto st = stacks_.by_name.find(name, hash);
  if (st != stacks_.by_name.end() && st->second >= 0) {
    n.stack = st->second;
  } else {
    std::string fwd;
    std::string_view stem, num;
    bool backward = false;
    if (MatchDirSuffix(name, "backward", &stem, &num)) {
      fwd = std::string(stem) + ".forward.0";
      backward = true;
    } else if (EndsWith(name, ".backward")) {
      fwd = ReplaceAll(name, "backward", "forward");
      backward = true;
    }
    if (backward) {
      NodeId f = g_.Find(fwd);
      if (f != kNoNode) {
        n.stack = g_.node(f).stack;
      } else {
        if (no_forward_stack_ < 0) {
          StackEntry e;
          e.json = std::string("[\"") + kNoForwardStack + "\"]";
          e.frames.emplace_back(kNoForwardStack);
          no_forward_stack_ = static_cast<int32_t>(g_.stacks.size());
          g_.stacks.push_back(std::move(e));
        }
        g_.node(id).stack = no_forward_stack_;
      }
    }
  }
  if (c_.megatron) {
    if (micro) {
      g_.node(id).micro_step = *micro;
    } else {
      auto it = c_.index.find(name, hash);
      g_.node(id).micro_step = it == c_.index.end() ? 0 : c_.entries[it->second].micro;
    }
  }
  g_.AddUpnode(id, up);
  return id;
}

void Builder::SetDumpDataDir(const JTree& t, JIdx root, const std::string& dir) {
  JIdx d = root == kJNone ? kJNone : t.Find(root, "dump_data_dir");
  if (d == kJNone) {
    g_.has_dump_data_dir = true;
    g_.dump_data_dir.clear();
    return;
  }
  if (t.Kind(d) == JKind::kNull) {
    g_.has_dump_data_dir = false;
    return;
  }
  g_.has_dump_data_dir = true;
  g_.dump_data_dir = t.Kind(d) == JKind::kString ? std::string(t.Str(d)) : t.PyStr(d);
  if (!g_.dump_data_dir.empty()) {
    std::string real = RealPath(dir);
    std::string parent = g_.dump_data_dir;
    auto k = parent.rfind('/');
    parent = k == std::string::npos ? std::string() : parent.substr(0, k);
    if (parent != real) g_.dump_data_dir = JoinPath(real, "dump_tensor_data");
  }
}

Status Builder::ScanDump(const std::string& path, ScannedKeys* scanned) {
  g_.record_pos.clear();
  auto on_key = [&](std::string_view key, uint64_t at) -> Status {
    if (g_.record_pos.size() >= opts_.max_nodes) return TooManyNodes(path, opts_.max_nodes, Msg<msg::kCountedRecords>());
    g_.record_pos.push_back(at);
    NodeId id = g_.Find(key);
    if (id != kNoNode) {
      Node& n = g_.node(id);
      n.has_data = true;
      ++n.dump_records;
      n.last_record = at;
      return Status::Ok();
    }
    size_t pos = ParamsGradPos(key);
    if (pos != std::string_view::npos) {
      std::string k(key);
      auto ins = pending_index_.emplace(k, pending_.size());
      if (ins.second)
        pending_.push_back(PendingGrad{k, pos, at, 1});
      else {
        pending_[ins.first->second].last_record = at;
        ++pending_[ins.first->second].records;
      }
    }
    return Status::Ok();
  };
  Result<JsonReadResult> r = Status();
  if (scanned) {
    // The keys were read by a thread while construct.json was loaded; resolve them now.
    if (!scanned->result.ok()) return LoadFailed("dump.json", scanned->result.status());
    size_t start = 0;
    for (size_t i = 0; i < scanned->ends.size(); ++i) {
      RETURN_IF_ERROR(on_key(std::string_view(scanned->arena).substr(start, scanned->ends[i] - start), scanned->pos[i]));
      start = scanned->ends[i];
    }
    r = std::move(scanned->result);
  } else {
    r = ScanJsonKeys(path, ScanOptions(), on_key);
    if (!r.ok()) return LoadFailed("dump.json", r.status());
  }
  g_.dump_path = path;
  g_.data_end = r->container_end;
  g_.dump_bytes = r->bytes;
  g_.dump_records = r->records;
  const JTree& meta = r->meta;
  JIdx root = r->meta_root;
  auto str_of = [&](const char* k) -> std::string {
    JIdx x = root == kJNone ? kJNone : meta.Find(root, k);
    if (x == kJNone || meta.Kind(x) == JKind::kNull) return std::string();
    return meta.Kind(x) == JKind::kString ? std::string(meta.Str(x)) : meta.PyStr(x);
  };
  g_.task = str_of("task");
  g_.level = str_of("level");
  JIdx fw = root == kJNone ? kJNone : meta.Find(root, "framework");
  g_.framework_given = fw != kJNone && meta.Truthy(fw);
  g_.framework = g_.framework_given ? str_of("framework") : "pytorch";
  g_.framework_field = FrameworkField(*r);
  JIdx data = root == kJNone ? kJNone : meta.Find(root, "data");
  g_.has_data_key = data != kJNone;
  g_.data_is_dict = data != kJNone && meta.Kind(data) == JKind::kInt;  // the splitter's placeholder for {...}
  g_.has_md5 = r->found_text;
  SetDumpDataDir(meta, root, DirName(path));
  return Status::Ok();
}

void Builder::CollectApisBetweenModules() {
  std::vector<NodeId> old = g_.node(g_.root()).subnodes;
  std::vector<NodeId> out;
  size_t i = 0;
  while (i < old.size()) {
    if (g_.node(old[i]).op != NodeOp::kFunctionApi) {
      out.push_back(old[i++]);
      continue;
    }
    size_t j = i;
    while (j < old.size() && g_.node(old[j]).op == NodeOp::kFunctionApi) ++j;
    if (j - i >= 2) {
      NodeId coll = g_.AddNode(NodeOp::kApiCollection, "Apis_Between_Modules", kNoNode, true);
      Node& cn = g_.node(coll);
      cn.up = g_.root();
      for (size_t k = i; k < j; ++k) {
        g_.node(old[k]).up = coll;
        g_.node(coll).subnodes.push_back(old[k]);
      }
      if (g_.node(old[i]).micro_step != kMicroStepUnset) g_.node(coll).micro_step = g_.node(old[i]).micro_step;
      out.push_back(coll);
    } else {
      out.push_back(old[i]);
    }
    i = j;
  }
  g_.node(g_.root()).subnodes = std::move(out);
}

Status Builder::AttachParametersGrad() {
  if (pending_.empty()) return Status::Ok();
  std::vector<std::string> order;  // prefixes in first-seen order
  std::unordered_map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < pending_.size(); ++i) {
    std::string p = pending_[i].key.substr(0, pending_[i].split);
    auto it = groups.find(p);
    if (it == groups.end()) {
      order.push_back(p);
      groups[p].push_back(i);
    } else
      it->second.push_back(i);
  }
  std::unordered_map<std::string, long long> maxb;
  for (auto& p : order) maxb[p] = 0;
  for (NodeId id = 0; id < g_.size(); ++id) {
    // Split on '.': more than 2 parts, the second last "backward"; p is the parts before it.
    const std::string_view name = g_.node(id).name;
    std::string_view head, p;
    if (!BeforeNthLastDot(name, 1, &head) || !BeforeNthLastDot(name, 2, &p)) continue;
    if (head.substr(p.size() + 1) != "backward") continue;
    const std::string_view last = name.substr(head.size() + 1);
    auto it = maxb.find(std::string(p));
    if (it == maxb.end() || !AllDigits(last) || last.size() > 15) continue;
    long long n = std::stoll(std::string(last));
    if (n > it->second) it->second = n;
  }
  for (auto& p : order) {
    NodeId owner = g_.Find(p + ".backward." + std::to_string(maxb[p]));
    if (owner == kNoNode) continue;
    for (size_t i : groups[p]) {
      NodeId id = g_.AddNode(NodeOp::kModule, pending_[i].key, owner);
      g_.node(id).has_data = true;
      g_.node(id).dump_records = pending_[i].records;
      g_.node(id).last_record = pending_[i].last_record;
    }
  }
  pending_.clear();
  return Status::Ok();
}

Status Builder::Run(const std::string& dir) {
  const std::string dump = JoinPath(dir, "dump.json");
  std::unique_ptr<ScannedKeys> scanned;
  std::thread scanner;
  if (opts_.threads > 1) {
    // dump.json's keys are scanned on a second thread while construct.json and stack.json load.
    scanned = std::make_unique<ScannedKeys>();
    ScannedKeys* sk = scanned.get();
    JsonReadOptions o = ScanOptions();
    const uint64_t max_nodes = opts_.max_nodes;
    scanner = std::thread([sk, o, dump, max_nodes] {
      ThreadInit();
      const auto start = std::chrono::steady_clock::now();
      sk->result = ScanJsonKeys(dump, o, [sk, &dump, max_nodes](std::string_view key, uint64_t at) {
        if (sk->ends.size() >= max_nodes) return TooManyNodes(dump, max_nodes, Msg<msg::kCountedRecords>());
        sk->arena.append(key.data(), key.size());
        sk->ends.push_back(sk->arena.size());
        sk->pos.push_back(at);
        return Status::Ok();
      });
      sk->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    });
  }
  struct Joiner {
    std::thread& t;
    ~Joiner() {
      if (t.joinable()) t.join();
    }
  } joiner{scanner};
  auto now = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  double t0 = now();
  ASSIGN_OR_RETURN(c_, LoadConstruct(JoinPath(dir, "construct.json"), opts_.max_nodes));
  g_.t_construct = now() - t0;
  t0 = now();
  // The node table and map are made room for while stack.json loads: with threads, on a thread of
  // their own, which also has the kernel map the node table's pages (a third of this pass's time
  // on a 1.1 GB dump went to zeroing them as the nodes were added; see base/prefault.h). LoadStacks
  // touches the graph's stack list only.
  const size_t entries = c_.entries.size(), room_for = entries + entries / 4 + 64;
  std::thread room;
  if (opts_.threads > 1)
    room = std::thread([this, entries, room_for] {
      ThreadInit();
      g_.Reserve(room_for, entries);
    });
  Joiner room_joiner{room};
  RETURN_IF_ERROR(LoadStacks(JoinPath(dir, "stack.json"), g_, stacks_));
  g_.t_stack = now() - t0;
  t0 = now();
  if (room.joinable())
    room.join();
  else
    g_.Reserve(room_for);
  if (c_.megatron) g_.micro_step_num = c_.micro_step_num;
  for (size_t i = 0; i < entries; ++i) {
    const ConstructEntry& e = c_.entries[i];
    const std::string_view parent =
        !e.parent.empty() ? FixBackwardInplace(e.child, e.parent) : FixBackwardMissing(e.child, e.parent);
    NodeId up = parent.empty() ? g_.root() : GetOrCreate(parent, kNoNode);
    GetOrCreate(e.child, up, &e.micro);
  }
  // Parents named only as parents add nodes beyond construct.json's entries.
  if (g_.size() > opts_.max_nodes)
    return TooManyNodes(JoinPath(dir, "construct.json"), opts_.max_nodes, Msg<msg::kCountedNodes>());
  g_.t_nodes = now() - t0;
  t0 = now();
  if (scanner.joinable()) scanner.join();
  if (scanned) g_.t_scanner = scanned->seconds;
  RETURN_IF_ERROR(ScanDump(dump, scanned.get()));
  scanned.reset();
  g_.t_scan = now() - t0;
  t0 = now();
  MoveRecomputeNodes(g_, stacks_);
  CollectApisBetweenModules();
  RETURN_IF_ERROR(AttachParametersGrad());
  if (g_.size() > opts_.max_nodes) return TooManyNodes(dump, opts_.max_nodes, Msg<msg::kCountedNodesWithConstruct>());
  g_.t_post = now() - t0;
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Graph>> BuildGraph(const std::string& rank_dir, const BuildOptions& opts) {
  auto g = std::make_unique<Graph>();
  {
    Builder b(opts, *g);
    RETURN_IF_ERROR(b.Run(rank_dir));
  }
  if (opts.keep_items) {
    Graph* gp = g.get();
    RETURN_IF_ERROR(StreamNodeRecords(*g, opts, [gp](NodeId id, const NodeItems& items) {
      gp->node(id).items = items;
      return Status::Ok();
    }));
  }
  return g;
}

}  // namespace visprobe
