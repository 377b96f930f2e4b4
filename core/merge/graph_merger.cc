// Graph merge (spec §15.2-§15.5): strategies, loose-API collections and group discovery; the TP
// merge is in tp_merger.cc, the PP / VPP merges are in pp_merger.cc.
#include "merge/graph_merger.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "base/strings.h"
#include "merge/merger.h"

namespace visprobe {
namespace merge_detail {

// Python's "parts[1] += suffix" on a '.'-separated name.
std::string AppendToSecondSegment(std::string_view id, const std::string& suffix) {
  size_t d1 = id.find('.');
  if (d1 == std::string_view::npos) return std::string(id);
  size_t d2 = id.find('.', d1 + 1);
  std::string out(id.substr(0, d2 == std::string_view::npos ? id.size() : d2));
  out += suffix;
  if (d2 != std::string_view::npos) out.append(id.substr(d2));
  return out;
}

// ---- §15.3 collections ----------------------------------------------------------------------

void Merger::MergeCollections(const std::vector<MergeGraph*>& results) {
  MergeGraph& G = *results[0];
  std::vector<NodeId> old = G.node(G.root()).subnodes;
  std::vector<NodeId> fresh;
  for (NodeId c : old) {
    std::string name(G.node(c).name);
    if (StartsWith(name, kAllRanks)) {
      fresh.push_back(c);
      for (size_t i = 1; i < results.size(); ++i) {
        MergeGraph& o = *results[i];
        NodeId on = o.Find(name);
        if (on == kNoNode) continue;
        for (NodeId sc : o.node(on).subnodes) {
          NodeId copy = G.Import(o, sc);
          G.node(copy).up = c;
          G.node(c).subnodes.push_back(copy);
          // The reference registers the moved children and their children.
          G.Set(G.node(copy).name, copy);
          for (NodeId k : G.node(copy).subnodes) G.Set(G.node(k).name, k);
        }
      }
    } else if (StartsWith(name, kCollection)) {
      NodeId all = G.AddAccumulated(NodeOp::kApiCollection, kAllRanks);
      G.node(all).up = G.root();
      fresh.push_back(all);
      std::string k = name.substr(name.rfind('.') + 1);
      std::string renamed = std::string(kCollection) + "_Rank" + std::to_string(G.rank()) + "." + k;
      G.SetName(c, renamed);
      G.node(all).subnodes = {c};
      G.node(c).up = all;
      G.Set(renamed, c);
      G.Erase(name);
      for (size_t i = 1; i < results.size(); ++i) {
        MergeGraph& o = *results[i];
        NodeId on = o.Find(name);
        if (on == kNoNode) continue;
        NodeId copy = G.Import(o, on);
        std::string oname = std::string(kCollection) + "_Rank" + std::to_string(o.rank()) + "." + k;
        G.SetName(copy, oname);
        G.Set(oname, copy);
        for (NodeId api : G.node(copy).subnodes) {
          std::string nn = AppendToSecondSegment(G.node(api).name, "_rank" + std::to_string(o.rank()));
          G.Rename(api, nn);
          G.Set(nn, api);
        }
        G.node(all).subnodes.push_back(copy);
        G.node(copy).up = all;
      }
    } else {
      fresh.push_back(c);
    }
  }
  G.node(G.root()).subnodes = std::move(fresh);
  ++G.root_list_version;
}

void Merger::SortCollections(MergeGraph& g) {
  auto rank_of = [&](NodeId id) {
    std::string_view n = g.node(id).name;
    size_t k = n.find("_Rank");
    if (k == std::string_view::npos) return -1L;
    size_t e = k + 5;
    while (e < n.size() && n[e] >= '0' && n[e] <= '9') ++e;
    return e == k + 5 ? -1L : std::atol(std::string(n.substr(k + 5, e - k - 5)).c_str());
  };
  for (NodeId c : g.node(g.root()).subnodes) {
    Node& n = g.node(c);
    if (n.op != NodeOp::kApiCollection || !StartsWith(n.name, kAllRanks)) continue;
    std::stable_sort(n.subnodes.begin(), n.subnodes.end(), [&](NodeId a, NodeId b) { return rank_of(a) < rank_of(b); });
  }
}

// ---- §15.5 group discovery -------------------------------------------------------------------

// "[0, 1]" -> {0, 1}; false when it is not a list of integers.
bool ParseIntList(const std::string& s, std::vector<int>* out) {
  out->clear();
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return false;
  std::string body = s.substr(1, s.size() - 2);
  if (body.find_first_not_of(' ') == std::string::npos) return true;
  size_t start = 0;
  for (;;) {
    size_t k = body.find(',', start);
    std::string part = body.substr(start, k == std::string::npos ? std::string::npos : k - start);
    size_t b = part.find_first_not_of(' '), e = part.find_last_not_of(' ');
    if (b == std::string::npos) return false;
    part = part.substr(b, e - b + 1);
    bool neg = !part.empty() && part[0] == '-';
    if (!AllDigits(neg ? std::string_view(part).substr(1) : std::string_view(part)) || part.size() > 9) return false;
    out->push_back(std::atoi(part.c_str()));
    if (k == std::string::npos) return true;
    start = k + 1;
  }
}

bool ParseInt(const std::string& s, int* out) {
  bool neg = !s.empty() && s[0] == '-';
  std::string_view d = neg ? std::string_view(s).substr(1) : std::string_view(s);
  if (!AllDigits(d) || d.size() > 9) return false;
  *out = std::atoi(s.c_str());
  return true;
}

Result<RankGroups> Merger::TpGroups() {
  RankGroups groups;
  for (auto& mg : graphs_) {
    if (!mg) continue;
    for (NodeId id : mg->Values()) {
      const Node& n = mg->node(id);
      if (!Contains(n.name, "reduce_scatter") && !Contains(n.name, "all_reduce")) continue;
      int at = FindItem(n.items, ItemSide::kInput, std::string(n.name) + ".input.group");
      const CmpItem* v = at >= 0 ? ItemValues(n.items, ItemSide::kInput, static_cast<size_t>(at)) : nullptr;
      std::vector<int> ranks;
      // A process group's statistics are str(group_ranks) (§7.3).
      if (v && v->stats[0].kind == CmpValue::kString && ParseIntList(v->stats[0].s, &ranks) && !ranks.empty() &&
          std::find(groups.begin(), groups.end(), ranks) == groups.end())
        groups.push_back(ranks);
      break;
    }
  }

  if (groups.empty()) {
    Log(LogLevel::kInfo, Msg<msg::kUnableGetTpGroups>());
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "tp"));
  } else if (static_cast<int>(groups[0].size()) != p_.tp) {
    Log(LogLevel::kWarning, Msg<msg::kTpGroupsLengthMismatch>(GroupsText(groups), p_.tp));
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "tp"));
  }
  Log(LogLevel::kInfo, Msg<msg::kSidePrefixed>(side_, Msg<msg::kAllGroups>("tp", GroupsText(groups))));
  return groups;
}

Result<RankGroups> Merger::PpGroups() {
  std::vector<std::pair<int, int>> next;
  for (auto& mg : graphs_) {
    if (!mg) continue;
    int rank = mg->rank();
    bool found = false;
    int peer = 0;
    for (NodeId id : mg->Values()) {
      const Node& n = mg->node(id);
      if (!StartsWith(n.name, "Distributed.")) continue;
      if (Contains(n.name, ".batch_isend_irecv.")) {
        for (const BatchP2PInfo& b : n.batch_p2p) {
          int target = 0;
          if (b.op == "\"isend\"" && ParseInt(b.peer, &target) && target != rank) {
            peer = target;
            found = true;
            break;
          }
        }
      } else if (Contains(n.name, ".send.") || Contains(n.name, ".isend.")) {
        int at = FindItem(n.items, ItemSide::kInput, std::string(n.name) + ".input.dst");
        const CmpItem* v = at >= 0 ? ItemValues(n.items, ItemSide::kInput, static_cast<size_t>(at)) : nullptr;
        // A dst argument's statistics are str(value) (§7.3); "None" when the value is missing.
        if (v && v->stats[0].kind == CmpValue::kString && ParseInt(v->stats[0].s, &peer)) found = true;
      }
      if (found) break;
    }
    if (found) next.emplace_back(rank, peer);
  }
  RankGroups groups = TraceP2PChains(next);

  if (groups.empty()) {
    Log(LogLevel::kInfo, Msg<msg::kUnableGetPpGroups>());
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "pp"));
  } else if (static_cast<int>(groups[0].size()) != p_.pp) {
    Log(LogLevel::kWarning, Msg<msg::kPpGroupsLengthMismatch>(GroupsText(groups), p_.pp));
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "pp"));
  }
  Log(LogLevel::kInfo, Msg<msg::kSidePrefixed>(side_, Msg<msg::kAllGroups>("pp", GroupsText(groups))));
  return groups;
}

Result<std::vector<std::vector<MergeGraph*>>> Merger::ByGroups(const RankGroups& groups) {
  std::vector<std::vector<MergeGraph*>> out;
  for (const auto& g : groups) {
    std::vector<MergeGraph*> list;
    for (int r : g) {
      auto it = by_rank_.find(r);
      if (it == by_rank_.end())
        return InvalidInput(Msg<msg::kSidePrefixed>(
            side_, Msg<msg::kGraphMergeFailedRank>(r, GroupsText({g}).substr(1, GroupsText({g}).size() - 2))));
      list.push_back(it->second);
    }
    out.push_back(std::move(list));
  }
  return out;
}

// ---- strategies ----------------------------------------------------------------------------

void Merger::CountUses(const std::vector<std::vector<MergeGraph*>>& groups) {
  for (const auto& g : groups)
    for (MergeGraph* m : g) ++uses_[m];
}

void Merger::ReleaseMerged(const std::vector<MergeGraph*>& group) {
  for (MergeGraph* m : group) --uses_[m];
  for (size_t i = 1; i < group.size(); ++i) {
    MergeGraph* done = group[i];
    if (uses_[done] > 0 || kept_.count(done) || done == group[0]) continue;
    uses_[done] = 1;  // (released once)
    for (auto& g : graphs_)
      if (g && g.get() != done) g->ForgetImportsFrom(*done);
    auto it = by_rank_.find(done->rank());
    if (it != by_rank_.end() && it->second == done) by_rank_.erase(it);
    for (auto& g : graphs_)
      if (g.get() == done) g.reset();
  }
}

namespace {

// §15.6: each TP group's first rank -> the other ranks of its group (the first group left out).
Merger::TpMapping TpMappingOf(const RankGroups& tp) {
  Merger::TpMapping m;
  for (size_t i = 1; i < tp.size(); ++i)
    if (!tp[i].empty()) m[tp[i][0]] = std::vector<int>(tp[i].begin() + 1, tp[i].end());
  return m;
}

}  // namespace

void Merger::MergePpGroup(const std::vector<MergeGraph*>& group, MergeStrategy strategy) {
  MergePp(group);
  if (strategy == MergeStrategy::kVpp || p_.vpp > 1) {
    if (group.size() >= 2) {
      VppData(*group[0]);
      VppChunks(*group[0]);
    }
  }
}

void Merger::Output(MergeGraph* g, std::vector<MergeGraph*>* outputs) {
  outputs->push_back(g);
  kept_.insert(g);
}

// TP only, or PP / VPP only: each group merged into its first graph, which is an output.
Status Merger::RunGroups(MergeStrategy strategy, std::vector<MergeGraph*>* outputs) {
  const bool tp = strategy == MergeStrategy::kTp;
  ASSIGN_OR_RETURN(RankGroups rank_groups, tp ? TpGroups() : PpGroups());
  ASSIGN_OR_RETURN(auto groups, ByGroups(rank_groups));
  CountUses(groups);
  for (auto& g : groups) {
    MergeCollections(g);
    if (tp)
      MergeTp(g, {});
    else
      MergePpGroup(g, strategy);
    Output(g[0], outputs);
    ReleaseMerged(g);
    StageDone();
  }
  return Status::Ok();
}

// TP and PP over all the ranks (tp x pp == ranks): the collections of all ranks first, each PP
// group merged, then the PP results merged across TP into one output.
Status Merger::RunTpPp(MergeStrategy strategy, const std::vector<MergeGraph*>& all, std::vector<MergeGraph*>* outputs) {
  ASSIGN_OR_RETURN(RankGroups pp, PpGroups());
  ASSIGN_OR_RETURN(RankGroups tp, TpGroups());
  TpMapping mapping = TpMappingOf(tp);
  ASSIGN_OR_RETURN(auto pp_lists, ByGroups(pp));
  CountUses(pp_lists);
  MergeCollections(all);
  std::vector<MergeGraph*> pp_results;
  for (auto& g : pp_lists) {
    MergePpGroup(g, strategy);
    pp_results.push_back(g[0]);
    ReleaseMerged(g);
    StageDone();
  }
  MergeTp(pp_results, mapping);
  SortCollections(*pp_results[0]);
  Output(pp_results[0], outputs);
  CountUses({pp_results});
  ReleaseMerged(pp_results);
  StageDone();
  return Status::Ok();
}

// TP and PP with data parallelism (tp x pp < ranks): each PP group merged, then the PP results
// within each TP group: one output per data-parallel replica.
Status Merger::RunFull(MergeStrategy strategy, std::vector<MergeGraph*>* outputs) {
  ASSIGN_OR_RETURN(RankGroups pp, PpGroups());
  ASSIGN_OR_RETURN(RankGroups tp, TpGroups());
  if (tp.empty()) return InvalidInput(Msg<msg::kGraphMergedErrorTp>(GroupsText(tp)));
  TpMapping mapping = TpMappingOf(tp);
  ASSIGN_OR_RETURN(auto pp_lists, ByGroups(pp));
  CountUses(pp_lists);
  std::vector<std::pair<int, MergeGraph*>> pp_results;
  for (auto& g : pp_lists) {
    MergeCollections(g);
    MergePpGroup(g, strategy);
    pp_results.emplace_back(g[0]->rank(), g[0]);
    ReleaseMerged(g);
    StageDone();
  }
  for (const auto& group : tp) {
    std::vector<MergeGraph*> list;
    for (int r : group)
      for (const auto& [rank, g] : pp_results)
        if (rank == r) {
          list.push_back(g);
          break;
        }
    if (list.empty()) continue;
    MergeCollections(list);
    MergeTp(list, mapping);
    SortCollections(*list[0]);
    Output(list[0], outputs);
    CountUses({list});
    ReleaseMerged(list);
    StageDone();
  }
  return Status::Ok();
}

Result<std::vector<RankGraph>> Merger::Run(std::vector<RankGraph> ranks) {
  for (RankGraph& r : ranks) {
    graphs_.push_back(std::make_unique<MergeGraph>(std::move(r)));
    by_rank_[graphs_.back()->rank()] = graphs_.back().get();
  }
  std::vector<MergeGraph*> all;
  for (auto& g : graphs_) all.push_back(g.get());
  std::vector<MergeGraph*> outputs;
  const MergeStrategy strategy = SelectStrategy(p_);
  switch (strategy) {
    case MergeStrategy::kNoParallel:
      MergeCollections(all);
      outputs = all;
      StageDone();
      break;
    case MergeStrategy::kTp:
    case MergeStrategy::kPp:
    case MergeStrategy::kVpp: RETURN_IF_ERROR(RunGroups(strategy, &outputs)); break;
    case MergeStrategy::kTpPp: RETURN_IF_ERROR(RunTpPp(strategy, all, &outputs)); break;
    case MergeStrategy::kFull: RETURN_IF_ERROR(RunFull(strategy, &outputs)); break;
  }
  std::vector<RankGraph> out;
  for (MergeGraph* g : outputs) out.push_back(g->Finish());
  return out;
}

}  // namespace merge_detail

RankGroups TraceP2PChains(const std::vector<std::pair<int, int>>& next) {
  std::map<int, int> map;
  std::vector<int> keys;
  for (const auto& [k, v] : next) {
    if (!map.count(k)) keys.push_back(k);
    map[k] = v;
  }
  std::set<int> visited;
  RankGroups out;
  for (int k : keys) {
    if (visited.count(k)) continue;
    std::vector<int> chain;
    for (int cur = k; map.count(cur) && !visited.count(cur); cur = map[cur]) {
      chain.push_back(cur);
      visited.insert(cur);
    }
    if (!chain.empty()) out.push_back(chain);
  }
  return out;
}

std::string ReplaceChunk(std::string_view id, int k) {
  auto parts = Split(id, '.');
  if (parts.size() < 2 || !AllDigits(parts[1])) return std::string(id);
  std::string out(parts[0]);
  out += '.';
  out += std::to_string(k);
  for (size_t i = 2; i < parts.size(); ++i) {
    out += '.';
    out.append(parts[i]);
  }
  return out;
}

size_t MergeStageCount(const ParallelParam& p) {
  size_t rs = static_cast<size_t>(std::max(1, p.rank_size));
  size_t tp = static_cast<size_t>(std::max(1, p.tp)), pp = static_cast<size_t>(std::max(1, p.pp));
  switch (SelectStrategy(p)) {
    case MergeStrategy::kNoParallel: return 1;
    case MergeStrategy::kTp: return std::max<size_t>(1, rs / tp);
    case MergeStrategy::kPp:
    case MergeStrategy::kVpp: return std::max<size_t>(1, rs / pp);
    case MergeStrategy::kTpPp:
    case MergeStrategy::kFull: return std::max<size_t>(1, rs / pp) + std::max<size_t>(1, rs / pp / tp);
  }
  return 1;
}

Result<std::vector<RankGraph>> MergeRankGraphs(std::vector<RankGraph> ranks, const ParallelParam& p, bool is_bench,
                                               const MergeLogFn& log, const MergeProgressFn& progress) {
  std::sort(ranks.begin(), ranks.end(), [](const RankGraph& a, const RankGraph& b) { return a.rank < b.rank; });
  merge_detail::Merger m(p, is_bench, log, progress);
  return m.Run(std::move(ranks));
}

}  // namespace visprobe
