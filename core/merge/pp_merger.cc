// Part of merge/merger.h: the Merger's PP and VPP merges (graph_merger.cc, tp_merger.cc: the rest).
// PP and VPP merges (spec §15.7, §15.8): layers split over pipeline stages are gathered under the
// main rank's modules and renumbered; the model chunks of VPP are folded into chunk 0.
#include <algorithm>
#include <set>

#include "base/strings.h"
#include "merge/merger.h"

namespace visprobe {
namespace merge_detail {
namespace {

// ---- the patterns of §15.7 / §15.8, written out ------------------------------------------------

// (layers\.|layer\.)\d+(\.): first match at or after `from`; [start, end) of the whole match and
// [num_start, num_end) of the digits.
struct LayersMatch {
  size_t start = std::string::npos, num_start = 0, num_end = 0, end = 0;
  bool found() const { return start != std::string::npos; }
};

LayersMatch SearchLayers(std::string_view s, size_t from = 0) {
  LayersMatch m;
  for (size_t i = s.find("layer", from); i != std::string_view::npos; i = s.find("layer", i + 1)) {
    size_t k = i + 5;
    if (k < s.size() && s[k] == 's') ++k;
    if (k >= s.size() || s[k] != '.') continue;
    size_t d = k + 1, e = d;
    while (e < s.size() && s[e] >= '0' && s[e] <= '9') ++e;
    if (e == d || e >= s.size() || s[e] != '.') continue;
    m.start = i;
    m.num_start = d;
    m.num_end = e;
    m.end = e + 1;
    return m;
  }
  return m;
}

bool HasLayers(std::string_view s) { return SearchLayers(s).found(); }

// LAYERS.sub(r"\g<1>" + pp + r"\g<2>", s): every occurrence's number replaced by `pp`.
std::string ReplaceLayers(std::string_view s, const std::string& pp) {
  std::string out;
  size_t at = 0;
  for (LayersMatch m = SearchLayers(s); m.found(); m = SearchLayers(s, m.end)) {
    out.append(s.substr(at, m.num_start - at));
    out += pp;
    out += '.';
    at = m.end;
  }
  out.append(s.substr(at));
  return out;
}

// %(\d+)%(\d+)$
bool ParseMark(std::string_view s, int* position, int* rank) {
  size_t p2 = s.rfind('%');
  if (p2 == std::string_view::npos || p2 + 1 >= s.size() || !AllDigits(s.substr(p2 + 1))) return false;
  size_t p1 = p2 == 0 ? std::string_view::npos : s.rfind('%', p2 - 1);
  if (p1 == std::string_view::npos || p1 + 1 >= p2 || !AllDigits(s.substr(p1 + 1, p2 - p1 - 1))) return false;
  if (position) *position = std::atoi(std::string(s.substr(p1 + 1, p2 - p1 - 1)).c_str());
  if (rank) *rank = std::atoi(std::string(s.substr(p2 + 1)).c_str());
  return true;
}
bool Marked(std::string_view s) { return ParseMark(s, nullptr, nullptr); }
std::string StripMark(std::string_view s) {
  if (!Marked(s)) return std::string(s);
  size_t p2 = s.rfind('%');
  return std::string(s.substr(0, s.rfind('%', p2 - 1)));
}

bool ForwardCall(std::string_view id) {  // \.forward\.\d+$
  size_t dot = id.rfind('.');
  if (dot == std::string_view::npos || !AllDigits(id.substr(dot + 1))) return false;
  return EndsWith(id.substr(0, dot), ".forward");
}

}  // namespace

// ---- §15.7 PP ---------------------------------------------------------------------------------

// Copies node `n` of `from` (with its subtree) into G, marking every copied node with its position
// among its parent's children and its rank (`mark`), and registers the copies.
NodeId Merger::AdoptMarked(MergeGraph& G, MergeGraph& from, NodeId n) {
  int top_pos = 0;
  NodeId up = from.node(n).up;
  if (up != kNoNode) {
    const auto& subs = from.node(up).subnodes;
    for (size_t i = 0; i < subs.size(); ++i)
      if (from.node(subs[i]).name == from.node(n).name) {
        top_pos = static_cast<int>(i);
        break;
      }
  }
  NodeId copy = G.Import(from, n);
  std::vector<std::pair<NodeId, int>> stack{{copy, top_pos}};
  while (!stack.empty()) {
    auto [id, pos] = stack.back();
    stack.pop_back();
    G.SetName(id, std::string(G.node(id).name) + "%" + std::to_string(pos) + "%" + std::to_string(G.info(id).rank));
    const auto& subs = G.node(id).subnodes;
    for (size_t i = 0; i < subs.size(); ++i) {
      // position = the first sibling with the same (unmarked) id: the child itself
      int p = static_cast<int>(i);
      for (size_t k = 0; k < i; ++k)
        if (G.node(subs[k]).name == G.node(subs[i]).name) {
          p = static_cast<int>(k);
          break;
        }
      stack.emplace_back(subs[i], p);
    }
  }
  G.RegisterTree(copy, log_);
  return copy;
}

void Merger::MergeUniqueChildren(MergeGraph& G, NodeId m, const std::vector<std::pair<MergeGraph*, NodeId>>& others) {
  std::vector<std::set<std::string_view>> ids(others.size() + 1);
  for (NodeId c : G.node(m).subnodes) ids[0].insert(G.node(c).name);
  for (size_t i = 0; i < others.size(); ++i)
    for (NodeId c : others[i].first->node(others[i].second).subnodes) ids[i + 1].insert(others[i].first->node(c).name);
  std::vector<std::pair<MergeGraph*, NodeId>> unique;
  for (size_t i = 0; i < others.size(); ++i) {
    MergeGraph& og = *others[i].first;
    std::set<std::string_view> seen;
    for (NodeId c : og.node(others[i].second).subnodes) {
      std::string_view cn = og.node(c).name;
      bool elsewhere = false;
      for (size_t j = 0; j < ids.size() && !elsewhere; ++j)
        if (j != i + 1 && ids[j].count(cn)) elsewhere = true;
      if (elsewhere || !seen.insert(cn).second) continue;
      unique.emplace_back(&og, c);
    }
  }
  for (const auto& [og, c] : unique) {
    NodeId copy = AdoptMarked(G, *og, c);
    G.node(m).subnodes.push_back(copy);
    G.node(copy).up = m;
  }
}

// Everything merge_node does before looping over the children; false when it returned early.
bool Merger::MergeNode(MergeGraph& G, NodeId m, const std::vector<MergeGraph*>& other_graphs) {
  std::vector<std::pair<MergeGraph*, NodeId>> others;
  std::string name(G.node(m).name);
  for (MergeGraph* og : other_graphs) {
    NodeId o = og->Find(name);
    if (o == kNoNode) return false;  // the node exists in the main graph only
    others.emplace_back(og, o);
  }
  if (others.empty()) return true;
  GatheredList in, out;
  ParamsToMerge(G, m, others, true, &in, &out);
  bool split = !in.empty() && !out.empty() && HasLayers(name);
  if (Contains(name, ".backward.")) {
    NodeId f = G.Find(ReplaceAll(name, ".backward.", ".forward."));
    if (f != kNoNode && G.info(f).pp_merged) split = true;
  }
  if (split) {
    G.info(m).pp_merged = true;
    NodeId up = G.node(m).up;
    for (const auto& [og, o] : others) {
      NodeId copy = AdoptMarked(G, *og, o);
      G.node(copy).up = up;
      if (up != kNoNode) G.node(up).subnodes.push_back(copy);
    }
    return false;
  }
  if (in.empty() && !out.empty() && Contains(name, ".forward."))
    G.node(m).items = WithItemsOf(G.node(m).items, ItemSide::kOutput, others.back().first->node(others.back().second).items);
  else if (!in.empty() && out.empty() && Contains(name, ".backward."))
    G.node(m).items = WithItemsOf(G.node(m).items, ItemSide::kInput, others.back().first->node(others.back().second).items);
  MergeUniqueChildren(G, m, others);
  return true;
}

void Merger::MergeNodeTree(MergeGraph& G, NodeId top, const std::vector<MergeGraph*>& others) {
  // merge_node recursion with an explicit stack; children appended while a node's children are
  // being visited are visited too.
  if (!MergeNode(G, top, others)) return;
  std::vector<std::pair<NodeId, size_t>> stack{{top, 0}};
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    if (next >= G.node(id).subnodes.size()) {
      stack.pop_back();
      continue;
    }
    NodeId c = G.node(id).subnodes[next++];
    if (G.node(c).op != NodeOp::kModule) continue;
    if (MergeNode(G, c, others)) stack.emplace_back(c, 0);
  }
}

void Merger::RenameMarked(MergeGraph& G, NodeId n) {
  std::vector<std::pair<NodeId, std::string>> stack{{n, std::string()}};
  while (!stack.empty()) {
    auto [id, pp] = stack.back();
    stack.pop_back();
    std::string cur(G.node(id).name);
    if (!G.Has(cur)) {
      Log(LogLevel::kWarning, Msg<msg::kUpdateNodeIdFail>(cur));
    } else {
      G.Erase(cur);
      std::string old = StripMark(cur);
      std::string nid = cur;
      if (G.node(id).op == NodeOp::kModule) {
        if (HasLayers(cur) && Marked(cur)) {
          if (G.info(id).has_pp_index) pp = std::to_string(G.info(id).pp_index);
          nid = ReplaceLayers(cur, pp);
        }
      } else {
        nid = AppendToSecondSegment(cur, "_rank" + cur.substr(cur.rfind('%') + 1));
      }
      nid = StripMark(nid);
      G.SetName(id, nid);
      RenameItemKeys(G.node(id).items, old, nid);
      G.Set(nid, id);
    }
    for (NodeId c : G.node(id).subnodes) stack.emplace_back(c, pp);
  }
}

void Merger::SortMarked(MergeGraph& G, NodeId start) {
  std::vector<NodeId> stack{start};
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    std::string_view name = G.node(id).name;
    NodeId up = G.node(id).up;
    if (Marked(name) && up != kNoNode) {
      bool fwd = Contains(name, ".forward.") || Contains(name, ".forward%");
      std::vector<NodeId> unmarked, marked;
      for (NodeId c : G.node(up).subnodes) (Marked(G.node(c).name) ? marked : unmarked).push_back(c);
      auto key = [&](NodeId c) {
        int pos = 0, rank = 0;
        ParseMark(G.node(c).name, &pos, &rank);
        return std::make_pair(fwd ? rank : -rank, pos);
      };
      std::stable_sort(marked.begin(), marked.end(), [&](NodeId a, NodeId b) { return key(a) < key(b); });
      std::vector<NodeId> fresh = fwd ? unmarked : marked;
      const auto& tail = fwd ? marked : unmarked;
      fresh.insert(fresh.end(), tail.begin(), tail.end());
      int index = -1;
      auto assign = [&](NodeId c) {
        if (HasLayers(G.node(c).name)) ++index;
        if (Marked(G.node(c).name)) {
          G.info(c).has_pp_index = true;
          G.info(c).pp_index = index;
        }
      };
      if (fwd)
        for (NodeId c : fresh) assign(c);
      else
        for (auto it = fresh.rbegin(); it != fresh.rend(); ++it) assign(*it);
      for (NodeId c : marked) RenameMarked(G, c);
      G.node(up).subnodes = std::move(fresh);
      if (up == G.root()) ++G.root_list_version;
    }
    for (NodeId c : G.node(id).subnodes) stack.push_back(c);
  }
}

void Merger::MergeRootUnique(MergeGraph& G, const std::vector<MergeGraph*>& graphs) {
  if (graphs.size() < 2) return;
  const auto& roots = G.node(G.root()).subnodes;
  if (std::none_of(roots.begin(), roots.end(), [&](NodeId c) { return HasLayers(G.node(c).name); })) return;
  std::set<std::string_view> main_ids;
  for (NodeId c : roots) main_ids.insert(G.node(c).name);
  std::vector<std::pair<MergeGraph*, NodeId>> adopt;
  for (size_t i = 1; i < graphs.size(); ++i)
    for (NodeId c : graphs[i]->node(graphs[i]->root()).subnodes) {
      std::string_view cn = graphs[i]->node(c).name;
      if (!main_ids.count(cn) && !StartsWith(cn, kCollection)) adopt.emplace_back(graphs[i], c);
    }
  if (adopt.empty()) return;
  for (const auto& [og, c] : adopt) {
    NodeId copy = AdoptMarked(G, *og, c);
    G.node(copy).up = G.root();
    G.node(G.root()).subnodes.push_back(copy);
  }
  std::vector<NodeId> unmarked, marked;
  for (NodeId c : G.node(G.root()).subnodes) (Marked(G.node(c).name) ? marked : unmarked).push_back(c);
  auto key = [&](NodeId c) {
    int pos = 0, rank = 0;
    ParseMark(G.node(c).name, &pos, &rank);
    return std::make_pair(rank, pos);
  };
  std::stable_sort(marked.begin(), marked.end(), [&](NodeId a, NodeId b) { return key(a) < key(b); });
  std::vector<NodeId> fresh = unmarked;
  fresh.insert(fresh.end(), marked.begin(), marked.end());
  G.node(G.root()).subnodes = fresh;
  ++G.root_list_version;
  int index = -1;
  for (NodeId c : unmarked)
    if (HasLayers(G.node(c).name)) ++index;
  for (NodeId c : marked) {
    if (HasLayers(G.node(c).name)) {
      ++index;
      G.info(c).has_pp_index = true;
      G.info(c).pp_index = index;
    }
    RenameMarked(G, c);
  }
}

void Merger::MergePp(const std::vector<MergeGraph*>& results) {
  if (results.size() < 2) return;
  MergeGraph& G = *results[0];
  std::vector<MergeGraph*> others(results.begin() + 1, results.end());
  // Python iterates the root's child list object: children appended to it are visited, a list
  // that replaces it is not.
  std::vector<NodeId> iter = G.node(G.root()).subnodes;
  int version = G.root_list_version;
  for (size_t i = 0;; ++i) {
    if (version == G.root_list_version) iter = G.node(G.root()).subnodes;
    if (i >= iter.size()) break;
    NodeId c = iter[i];
    if (G.node(c).op != NodeOp::kModule || Unmerged(G.node(c).name)) continue;
    MergeNodeTree(G, c, others);
    SortMarked(G, c);
  }
  MergeRootUnique(G, results);
}

// ---- §15.8 VPP ----------------------------------------------------------------------------------

void Merger::VppData(MergeGraph& G) {
  std::string last = std::to_string(p_.vpp - 1);
  std::vector<NodeId> stack;
  const auto& roots = G.node(G.root()).subnodes;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) {
    auto parts = Split(G.node(*it).name, '.');
    if (parts.size() >= 2 && (parts[1] == "0" || parts[1] == last)) stack.push_back(*it);
  }
  // stack = module_list[:] with module_list in reversed root order: pop() takes the first root child.
  while (!stack.empty()) {
    NodeId cur = stack.back();
    stack.pop_back();
    const MergeNodeInfo& inf = G.info(cur);
    if (inf.pp_merged || inf.has_pp_index || G.node(cur).op != NodeOp::kModule) continue;
    std::string name(G.node(cur).name);
    bool fwd = ForwardCall(name);
    const auto& subs = G.node(cur).subnodes;
    for (auto it = subs.rbegin(); it != subs.rend(); ++it) stack.push_back(*it);
    NodeId target = G.Find(ReplaceChunk(name, p_.vpp - 1));
    if (target == kNoNode) continue;
    NodeItems from = G.node(target).items;
    RenameItemKeys(from, G.node(target).name, name);
    G.node(cur).items = WithItemsOf(G.node(cur).items, fwd ? ItemSide::kOutput : ItemSide::kInput, from);
  }
}

void Merger::VppChunks(MergeGraph& G) {
  std::vector<NodeId> stack;
  const auto& roots = G.node(G.root()).subnodes;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) {
    auto parts = Split(G.node(*it).name, '.');
    if (parts.size() >= 2 && parts[1] == "0") stack.push_back(*it);
  }
  if (stack.empty()) return;
  std::vector<NodeId> containers;
  std::set<std::string> recorded;
  auto record = [&](NodeId up) {
    std::string key(G.node(up).name);
    if (recorded.insert(key).second) containers.push_back(up);
  };
  while (!stack.empty()) {
    NodeId cur = stack.back();
    stack.pop_back();
    NodeId up = G.node(cur).up;
    // `is_pp_merged or (pp_index and parent not recorded)`: later pp_index siblings are descended.
    if (up != kNoNode && (G.info(cur).pp_merged || (G.info(cur).has_pp_index && !recorded.count(std::string(G.node(up).name))))) {
      record(up);
      continue;
    }
    const auto& subs = G.node(cur).subnodes;
    for (auto it = subs.rbegin(); it != subs.rend(); ++it) stack.push_back(*it);
  }
  for (NodeId node : containers) {
    std::string name(G.node(node).name);
    bool fwd = ForwardCall(name);
    for (int k = 1; k < p_.vpp; ++k) {
      NodeId target = G.Find(ReplaceChunk(name, k));
      if (target == kNoNode || target == node) continue;
      std::vector<NodeId> moved = G.node(target).subnodes;
      auto& subs = G.node(node).subnodes;
      if (fwd)
        subs.insert(subs.end(), moved.begin(), moved.end());
      else
        subs.insert(subs.begin(), moved.begin(), moved.end());
      for (NodeId s : moved) G.node(s).up = node;
      // The other chunk's ancestors (below the root) leave the map; its top module leaves the root.
      std::vector<NodeId> anc = G.g().Ancestors(target);
      if (anc.size() < 2) continue;
      for (size_t a = 1; a < anc.size(); ++a) G.Erase(G.node(anc[a]).name);
      std::string top(G.node(anc[1]).name);
      auto& rs = G.node(G.root()).subnodes;
      std::vector<NodeId> kept;
      for (NodeId r : rs)
        if (G.node(r).name != top) kept.push_back(r);
      rs = std::move(kept);
      ++G.root_list_version;
    }
    LayersRenumber(G, G.node(node).subnodes, fwd);
  }
}

void Merger::LayersRenumber(MergeGraph& G, const std::vector<NodeId>& list_in, bool forward) {
  std::vector<NodeId> list = list_in;
  if (!forward) std::reverse(list.begin(), list.end());
  int index = -1;
  for (NodeId node : list) {
    std::string id(G.node(node).name);
    LayersMatch m = SearchLayers(id);
    if (m.found()) ++index;
    auto parts = Split(id, '.');
    if (parts.size() < 2 || parts[1] == "0") continue;
    std::string prefix, nid;
    if (m.found()) {
      prefix = ReplaceChunk(id.substr(0, m.num_start) + std::to_string(index) + ".", 0);
      nid = prefix + id.substr(m.end);
    } else {
      nid = ReplaceChunk(id, 0);
    }
    // The spec leaves open where a renamed node sits in the node map. It keeps its place here: moved
    // to the end, a chunk's modules would follow their API children, and the TP pass (§15.6.4, in
    // node-map order) would merge a RowParallelLinear's matmul as shards before matmul_reduce gives
    // it the all-reduce output.
    G.Rekey(id, nid);
    G.Rename(node, nid);
    std::vector<NodeId> stack(G.node(node).subnodes.begin(), G.node(node).subnodes.end());
    while (!stack.empty()) {
      NodeId cur = stack.back();
      stack.pop_back();
      if (G.node(cur).op != NodeOp::kModule) continue;
      const auto& subs = G.node(cur).subnodes;
      for (auto it = subs.rbegin(); it != subs.rend(); ++it) stack.push_back(*it);
      std::string cid(G.node(cur).name);
      LayersMatch cm = SearchLayers(cid);
      std::string cnew = cm.found() ? prefix + cid.substr(cm.end) : ReplaceChunk(cid, 0);
      G.Rename(cur, cnew);
      G.Rekey(cid, cnew);
    }
  }
}

}  // namespace merge_detail
}  // namespace visprobe
