#include "graph/recompute.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "graph/direction_suffix.h"

namespace visprobe {
namespace {

using graph_detail::MatchDirSuffix;
using graph_detail::SwapDir;

// §6.6: is_recompute_name.
bool IsRecomputeName(const std::vector<std::string_view>& seg) {
  if (seg.size() > 7) return true;
  if (seg.size() == 7) return !(AllDigits(seg[1]) && AllDigits(seg[3]));
  if (seg.size() == 6) return !AllDigits(seg[1]);
  return false;
}

// The root's recompute modules with the prefix they recompute under (in the order first found;
// a later find replaces the prefix), and each one's position among the root's children.
struct RecomputeNodes {
  std::vector<std::pair<NodeId, std::string>> prefix_of;
  std::unordered_map<NodeId, size_t> root_index;
  void Set(NodeId id, std::string prefix, size_t i) {
    root_index[id] = i;
    for (auto& kv : prefix_of)
      if (kv.first == id) {
        kv.second = std::move(prefix);
        return;
      }
    prefix_of.emplace_back(id, std::move(prefix));
  }
};

// A root module is recomputed when its name has the recompute shape and the same name in the other
// direction is a root module too, which then counts as well; under PyTorch only a module whose
// forward's stack shows torch's checkpoint is considered.
RecomputeNodes FindRecomputeNodes(const Graph& g, const Stacks& stacks) {
  RecomputeNodes found;
  const Node& root = g.node(g.root());
  std::unordered_set<std::string> cache, ids;
  for (NodeId c : root.subnodes) ids.emplace(g.node(c).name);
  for (size_t i = 0; i < root.subnodes.size(); ++i) {
    NodeId nid = root.subnodes[i];
    std::string id(g.node(nid).name);
    if (OpOfName(id) != NodeOp::kModule) continue;
    if (g.framework == "pytorch") {
      std::string sid = SwapDir(id, "backward", "forward");
      auto st = stacks.by_name.find(sid);
      if (st == stacks.by_name.end() || st->second < 0) continue;
      if (!IsRecomputeByStack(g.stacks[st->second].frames)) continue;
    }
    auto seg = Split(id, '.');
    std::string prefix = Join(seg, 0, seg.size() >= 2 ? seg.size() - 2 : 0);
    if (cache.count(id)) {
      found.Set(nid, prefix, i);
      continue;
    }
    if (!IsRecomputeName(seg)) continue;
    std::vector<std::string> s2(seg.begin(), seg.end());
    s2[s2.size() - 2] = s2[s2.size() - 2] == "forward" ? "backward" : "forward";
    std::string other;
    for (size_t k = 0; k < s2.size(); ++k) {
      if (k) other += '.';
      other += s2[k];
    }
    if (ids.count(other)) {
      found.Set(nid, prefix, i);
      cache.insert(other);
    }
  }
  return found;
}

// The forward modules below the root's children, in node order, by the prefix before their
// ".forward.<n>", for the prefixes asked for.
std::unordered_map<std::string, std::vector<NodeId>> ForwardModules(const Graph& g, const RecomputeNodes& found) {
  std::unordered_set<std::string> prefixes;
  for (auto& kv : found.prefix_of) prefixes.insert(kv.second);
  std::unordered_map<std::string, std::vector<NodeId>> fwd_lists;
  for (NodeId id = 0; id < g.size(); ++id) {
    const Node& n = g.node(id);
    std::string_view stem, num;
    if (OpOfName(n.name) != NodeOp::kModule || !MatchDirSuffix(n.name, "forward", &stem, &num)) continue;
    if (n.up == kNoNode || n.up == g.root()) continue;
    std::string p(stem);
    if (prefixes.count(p)) fwd_lists[p].push_back(id);
  }
  return fwd_lists;
}

}  // namespace

bool IsRecomputeByStack(const std::vector<std::string>& frames) {
  struct Frame {
    std::string file, func;
  };
  std::vector<Frame> parsed;
  for (const auto& raw : frames) {
    std::string s = raw;
    size_t b = s.find_first_not_of(" \t\n\r\f\v");
    size_t e = s.find_last_not_of(" \t\n\r\f\v");
    s = b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    s = ReplaceAll(s, "File ", "");
    size_t line = s.find(", line ");
    size_t in = s.find(", in ");
    if (line == std::string::npos || in == std::string::npos) continue;
    Frame f;
    f.file = s.substr(0, line);
    size_t fs = in + 5;
    size_t fe = s.find(',', fs);
    f.func = s.substr(fs, fe == std::string::npos ? std::string::npos : fe - fs);
    parsed.push_back(std::move(f));
  }
  if (parsed.empty()) return false;
  for (const auto& f : parsed)
    if (f.func == "recompute_fn" && EndsWith(f.file, "torch/utils/checkpoint.py")) return true;
  for (size_t i = 0; i < parsed.size(); ++i) {
    const auto& f = parsed[i];
    bool hit = f.func == "backward" || (f.func == "checkpoint_function_backward" && f.file.find("megatron") != std::string::npos);
    if (!hit) continue;
    for (size_t d = 1; d <= 2; ++d)
      if (i + d < parsed.size() && EndsWith(parsed[i + d].file, "torch/autograd/function.py")) return true;
  }
  return false;
}

void MoveRecomputeNodes(Graph& g, const Stacks& stacks) {
  const RecomputeNodes found = FindRecomputeNodes(g, stacks);
  if (found.prefix_of.empty()) return;
  auto fwd_lists = ForwardModules(g, found);
  if (fwd_lists.empty()) return;
  // The n-th recompute module of a prefix (forward or backward) goes to the backward parent of
  // the n-th forward module of that prefix, unless that would put it below itself.
  auto bwd_lists = fwd_lists;
  std::unordered_map<std::string, size_t> fpos, bpos;
  std::vector<size_t> del;
  for (auto& kv : found.prefix_of) {
    NodeId rc = kv.first;
    const std::string& p = kv.second;
    std::string_view stem, num;
    bool fwd = MatchDirSuffix(g.node(rc).name, "forward", &stem, &num);
    auto& lists = fwd ? fwd_lists : bwd_lists;
    auto& pos = fwd ? fpos : bpos;
    auto it = lists.find(p);
    if (it == lists.end() || pos[p] >= it->second.size()) continue;
    NodeId nr = it->second[pos[p]++];
    NodeId up = g.node(nr).up;
    NodeId new_parent = g.Find(SwapDir(g.node(up).name, "forward", "backward"));
    if (new_parent == kNoNode) continue;
    auto anc = g.Ancestors(new_parent);
    if (std::find(anc.begin(), anc.end(), rc) != anc.end()) continue;
    g.node(rc).up = new_parent;
    g.node(new_parent).subnodes.push_back(rc);
    del.push_back(found.root_index.at(rc));
  }
  std::sort(del.begin(), del.end());
  del.erase(std::unique(del.begin(), del.end()), del.end());
  auto& subs = g.node(g.root()).subnodes;
  for (auto it = del.rbegin(); it != del.rend(); ++it) subs.erase(subs.begin() + static_cast<long>(*it));
}

}  // namespace visprobe
