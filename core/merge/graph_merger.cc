// Graph merge (spec §15.2-§15.6): strategies, loose-API collections, group discovery and the TP
// merge; the PP / VPP merges are in pp_merger.cc.
#include "merge/graph_merger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "base/pyfmt.h"
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

namespace {

constexpr const char* kTpMergedInfo =
    "This data is the merged data after tensor parallelism(TP), and the data is merged from rank ";

// ---- numbers of the statistics -------------------------------------------------------------

bool IsNum(const CmpValue& v) { return v.kind == CmpValue::kInt || v.kind == CmpValue::kFloat || v.kind == CmpValue::kBool; }
double Num(const CmpValue& v) {
  return v.kind == CmpValue::kFloat ? v.d : v.kind == CmpValue::kInt ? static_cast<double>(v.i) : (v.b ? 1.0 : 0.0);
}
bool IsIntLike(const CmpValue& v) { return v.kind == CmpValue::kInt || v.kind == CmpValue::kBool; }
int64_t IntOf(const CmpValue& v) { return v.kind == CmpValue::kInt ? v.i : (v.b ? 1 : 0); }

std::string PyStrNum(const CmpValue& v) {
  if (v.kind == CmpValue::kInt) return std::to_string(v.i);
  if (v.kind == CmpValue::kBool) return v.b ? "True" : "False";
  return PyFloat(v.d);
}

CmpValue Float(double d) {
  CmpValue v;
  v.kind = CmpValue::kFloat;
  v.d = d;
  return v;
}

// Python ==, for numbers (int / float / bool) only.
bool NumEqual(const CmpValue& a, const CmpValue& b) {
  if (IsIntLike(a) && IsIntLike(b)) return IntOf(a) == IntOf(b);
  return Num(a) == Num(b);
}

// _compare_value_same: non-numbers are "same".
bool ValueSame(const CmpValue& a, const CmpValue& b, bool uncertain) {
  if (!IsNum(a) || !IsNum(b)) return true;
  if (!uncertain) return NumEqual(a, b);
  double x = Num(a), y = Num(b);
  double diff = std::fabs(x - y);
  if (std::isnan(diff)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(diff)) return std::isinf(x) && std::isinf(y);
  return x == 0 ? diff < 1e-6 : std::fabs(diff / x) < 1e-6;
}

bool ItemsSame(const CmpItem& a, const CmpItem& b, bool uncertain) {
  return ValueSame(a.stats[0], b.stats[0], false) && ValueSame(a.stats[1], b.stats[1], false) &&
         ValueSame(a.stats[2], b.stats[2], uncertain) && ValueSame(a.stats[3], b.stats[3], uncertain);
}

bool MergeDtype(const CmpItem* c) {
  static const char* kDtypes[] = {"torch.int8", "torch.int32", "torch.int64", "torch.bfloat16", "torch.float16",
                                  "torch.float32", "torch.float64", "Float16", "Float32", "BFloat16"};
  if (!c || c->dtype.kind != CmpValue::kString) return false;
  for (const char* d : kDtypes)
    if (c->dtype.s == d) return true;
  return false;
}

}  // namespace

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
    Log(LogLevel::kInfo,
        "Unable to get tp groups based on Distributed Api (reduce_scatter or all_reduce), generate tp groups using "
        "parallel param \"rank_size\", \"tp\" and \"pp\".");
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "tp"));
  } else if (static_cast<int>(groups[0].size()) != p_.tp) {
    Log(LogLevel::kWarning, "Based on Distributed Api (reduce_scatter or all_reduce), the resulting tp groups=" +
                                GroupsText(groups) + ", its length is not equal to the parallel param \"tp\"(" +
                                std::to_string(p_.tp) +
                                ") you defined, generate tp groups using parallel param \"rank_size\", \"tp\" and \"pp\".");
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "tp"));
  }
  Log(LogLevel::kInfo, prefix_ + " All tp groups is " + GroupsText(groups) + ".");
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
    Log(LogLevel::kInfo,
        "Unable to get pp groups based on Distributed Api (batch_isend_irecv, send, or isend), generate pp groups "
        "using parallel param \"rank_size\", \"tp\" and \"pp\".");
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "pp"));
  } else if (static_cast<int>(groups[0].size()) != p_.pp) {
    Log(LogLevel::kWarning, "Based on Distributed Api (atch_isend_irecv, send, or isend), the resulting pp groups=" +
                                GroupsText(groups) + ", its length is not equal to the parallel param \"pp\"(" +
                                std::to_string(p_.pp) +
                                ") you defined, generate pp groups using parallel param \"rank_size\", \"tp\" and \"pp\".");
    ASSIGN_OR_RETURN(groups, DefaultGroups(p_, "pp"));
  }
  Log(LogLevel::kInfo, prefix_ + " All pp groups is " + GroupsText(groups) + ".");
  return groups;
}

Result<std::vector<std::vector<MergeGraph*>>> Merger::ByGroups(const RankGroups& groups) {
  std::vector<std::vector<MergeGraph*>> out;
  for (const auto& g : groups) {
    std::vector<MergeGraph*> list;
    for (int r : g) {
      auto it = by_rank_.find(r);
      if (it == by_rank_.end())
        return InvalidInput(prefix_ + " Graph merge failed: rank" + std::to_string(r) + " of the group " +
                            GroupsText({g}).substr(1, GroupsText({g}).size() - 2) + " has no rank folder.");
      list.push_back(it->second);
    }
    out.push_back(std::move(list));
  }
  return out;
}

// ---- §15.6 TP ---------------------------------------------------------------------------------

// First "_rank<digits>." in `s`: the digits, or -1.
int RankTag(std::string_view s, size_t* start = nullptr, size_t* end = nullptr) {
  for (size_t k = s.find("_rank"); k != std::string_view::npos; k = s.find("_rank", k + 1)) {
    size_t e = k + 5;
    while (e < s.size() && s[e] >= '0' && s[e] <= '9') ++e;
    if (e == k + 5 || e >= s.size() || s[e] != '.') continue;
    if (start) *start = k;
    if (end) *end = e + 1;
    return std::atoi(std::string(s.substr(k + 5, e - k - 5)).c_str());
  }
  return -1;
}

// RANK_PATTERN.sub("_rank<r>.", s): every "_rank<digits>." replaced.
std::string ReplaceRankTags(std::string_view s, int r) {
  std::string out;
  size_t at = 0, b = 0, e = 0;
  while (at <= s.size() && RankTag(s.substr(at), &b, &e) >= 0) {
    out.append(s.substr(at, b));
    out += "_rank" + std::to_string(r) + ".";
    at += e;
  }
  out.append(s.substr(at));
  return out;
}

std::vector<std::pair<MergeGraph*, NodeId>> Merger::OthersFor(MergeGraph& main, NodeId m,
                                                              const std::vector<MergeGraph*>& others,
                                                              const TpMapping& mapping) {
  std::vector<std::pair<MergeGraph*, NodeId>> out;
  std::string name(main.node(m).name);
  int r = RankTag(name);
  std::vector<std::string> anc = main.AncestorNames(m);
  if (r >= 0 && !mapping.empty()) {
    auto it = mapping.find(r);
    if (it == mapping.end() || it->second.empty() || it->second.size() != others.size()) return {};
    for (size_t i = 0; i < others.size(); ++i) {
      NodeId o = others[i]->Find(ReplaceRankTags(name, it->second[i]));
      if (o == kNoNode || others[i]->AncestorNames(o) != anc) return {};
      out.emplace_back(others[i], o);
    }
    return out;
  }
  for (MergeGraph* g : others) {
    NodeId o = g->Find(name);
    if (o == kNoNode || g->AncestorNames(o) != anc) return {};
    out.emplace_back(g, o);
  }
  return out;
}

void Merger::ParamsToMerge(MergeGraph& main, NodeId m, const std::vector<std::pair<MergeGraph*, NodeId>>& others,
                           bool compare, GatheredList* in, GatheredList* out) {
  in->clear();
  out->clear();
  if (others.empty()) return;
  const std::string mid(main.node(m).name);
  for (ItemSide side : {ItemSide::kInput, ItemSide::kOutput}) {
    GatheredList* dst = side == ItemSide::kInput ? in : out;
    const NodeItems& mi = main.node(m).items;
    for (size_t i = 0; i < Refs(mi, side).size(); ++i) {
      const CmpItem* mv = ItemValues(mi, side, i);
      if (!MergeDtype(mv)) continue;
      std::string key(mi.Key(Refs(mi, side)[i]));
      bool same = compare;
      Gathered gath;
      gath.items.push_back(ItemLoc{&main, m, side, i});
      for (const auto& [og, on] : others) {
        std::string_view oid = og->node(on).name;
        std::string okey = oid == mid ? key : ReplaceAll(key, mid, oid);
        int at = FindItem(og->node(on).items, side, okey);
        const CmpItem* ov = at >= 0 ? ItemValues(og->node(on).items, side, static_cast<size_t>(at)) : nullptr;
        if (!MergeDtype(ov)) break;
        gath.items.push_back(ItemLoc{og, on, side, static_cast<size_t>(at)});
        if (compare && !ItemsSame(*mv, *ov, true)) same = false;
      }
      if (same) continue;
      gath.key = ReplaceAll(key, mid + ".", "");
      // A repeated key replaces the earlier entry in place (Python dict assignment).
      auto it = std::find_if(dst->begin(), dst->end(), [&](const Gathered& g) { return g.key == gath.key; });
      if (it != dst->end()) *it = std::move(gath);
      else dst->push_back(std::move(gath));
    }
  }
}

std::vector<std::string> Merger::MergeParams(GatheredList& list) {
  static const char* kStat[] = {"Max", "Min", "Mean", "Norm"};
  std::vector<std::string> info;
  for (Gathered& g : list) {
    if (g.items.size() < 2) continue;
    for (int k = 0; k < 4; ++k) {
      std::vector<CmpValue> vals;
      bool ok = true;
      for (const ItemLoc& l : g.items) {
        const CmpItem* v = l.values();
        if (!v || !IsNum(v->stats[k])) { ok = false; break; }
        vals.push_back(v->stats[k]);
      }
      if (!ok) continue;
      CmpValue result;
      std::string text = std::string("The ") + kStat[k] + " value merging method for " + g.key + " is: ";
      std::string joined;
      if (k < 2) {
        result = vals[0];
        for (size_t i = 1; i < vals.size(); ++i) {
          bool greater = Num(vals[i]) > Num(result), less = Num(vals[i]) < Num(result);
          if ((k == 0 && greater) || (k == 1 && less)) result = vals[i];
        }
        for (size_t i = 0; i < vals.size(); ++i) joined += (i ? ", " : "") + PyStrNum(vals[i]);
        text += std::string(k == 0 ? "max(" : "min(") + joined + ")";
      } else if (k == 2) {
        bool ints = true;
        int64_t isum = 0;
        double dsum = 0;
        for (size_t i = 0; i < vals.size(); ++i) {
          if (ints && IsIntLike(vals[i])) { isum += IntOf(vals[i]); continue; }
          if (ints) { dsum = static_cast<double>(isum); ints = false; }
          dsum += Num(vals[i]);
        }
        double sum = ints ? static_cast<double>(isum) : dsum;
        result = Float(sum / static_cast<double>(vals.size()));
        for (size_t i = 0; i < vals.size(); ++i) joined += (i ? " + " : "") + PyStrNum(vals[i]);
        text += "(" + joined + ") / " + std::to_string(vals.size());
      } else {
        double sum = 0;
        for (size_t i = 0; i < vals.size(); ++i) sum += std::pow(Num(vals[i]), 2.0);
        result = Float(std::pow(sum, 0.5));
        for (size_t i = 0; i < vals.size(); ++i) joined += (i ? " + " : "") + PyStrNum(vals[i]) + " ** 2";
        text += "(" + joined + ") ** 0.5";
      }
      text += " = " + PyStrNum(result);
      const ItemLoc& main = g.items[0];
      SetItemStat(main.g->node(main.node).items, main.side, main.index, k, result);
      info.push_back(std::move(text));
    }
  }
  return info;
}

std::string Merger::RanksHeader(MergeGraph& main, NodeId m, const std::vector<std::pair<MergeGraph*, NodeId>>& others) {
  std::string s = std::string(kTpMergedInfo) + "[" + std::to_string(main.info(m).rank);
  for (const auto& [g, n] : others) s += ", " + std::to_string(g->info(n).rank);
  return s + "].";
}

void AppendInfo(Node& n, std::vector<std::string> lines) {
  for (auto& l : lines) n.merge_info.push_back(std::move(l));
}

void Merger::MatmulReduce(MergeGraph& main, NodeId m, const std::vector<MergeGraph*>& others, const TpMapping& mapping) {
  const Node& n = main.node(m);
  if (n.op != NodeOp::kModule) return;
  auto segs = Split(n.name, '.');
  if (segs.size() < 4) return;
  std::string_view dir = segs[segs.size() - 2], cls = segs[segs.size() - 3];
  bool fwd_row = dir == "forward" && Contains(cls, "RowParallelLinear");
  bool bwd_col = dir == "backward" && Contains(cls, "ColumnParallelLinear");
  if (!fwd_row && !bwd_col) return;
  std::vector<NodeId> matmuls, reduces;
  for (NodeId c : n.subnodes) {
    std::string_view cn = main.node(c).name;
    if (Contains(cn, "matmul")) matmuls.push_back(c);
    if (Contains(cn, "_reduce_scatter_base") || Contains(cn, "reduce_scatter_tensor") || Contains(cn, "all_reduce"))
      reduces.push_back(c);
  }
  if (matmuls.empty() || reduces.empty()) return;
  for (NodeId mm : matmuls) {
    if (main.node(mm).items.outputs.empty()) continue;
    for (size_t ri = 0; ri < reduces.size(); ++ri) {
      NodeId rd = reduces[ri];
      const NodeItems& ritems = main.node(rd).items;
      if (ritems.outputs.empty()) continue;
      size_t input_at = Contains(main.node(rd).name, "all_reduce") ? 0 : 1;
      if (ritems.inputs.size() <= input_at) continue;
      const CmpItem* mo = ItemValues(main.node(mm).items, ItemSide::kOutput, 0);
      const CmpItem* rin = ItemValues(ritems, ItemSide::kInput, input_at);
      if (!mo || !rin || !ItemsSame(*mo, *rin, false)) continue;
      auto counterparts = OthersFor(main, mm, others, mapping);
      GatheredList in, out;
      ParamsToMerge(main, mm, counterparts, true, &in, &out);
      if (!in.empty()) {
        main.node(mm).merge_info.push_back(RanksHeader(main, mm, counterparts));
        AppendInfo(main.node(mm), MergeParams(in));
      }
      const CmpItem* rout = ItemValues(ritems, ItemSide::kOutput, 0);
      std::string from = rout && !rout->name.empty() ? rout->name : std::string(main.node(rd).name);
      CopyItemStats(main.node(mm).items, ItemSide::kOutput, 0, main.node(rd).items, ItemSide::kOutput, 0);
      main.node(mm).merge_info.push_back("The output of this data is merged from " + from);
      reduces.erase(reduces.begin() + static_cast<long>(ri));
      break;
    }
  }
}

void Merger::ColumnRow(MergeGraph& main, NodeId m, const std::vector<MergeGraph*>& others, const TpMapping& mapping) {
  const Node& n = main.node(m);
  if (n.op != NodeOp::kModule || !n.merge_info.empty()) return;
  auto segs = Split(n.name, '.');
  if (segs.size() < 4) return;
  if (!(segs[segs.size() - 2] == "forward" && Contains(segs[segs.size() - 3], "ColumnParallelLinear"))) return;
  if (n.up == kNoNode) return;
  const std::vector<NodeId>& sibs = main.node(n.up).subnodes;
  long start = -1, end = -1;
  for (size_t i = 0; i < sibs.size(); ++i) {
    std::string_view sn = main.node(sibs[i]).name;
    if (Contains(sn, n.name)) start = static_cast<long>(i);
    else if (Contains(sn, "RowParallelLinear")) end = static_cast<long>(i);
  }
  if (start < 0 || end < 0 || end < start) return;
  std::vector<NodeId> slice(sibs.begin() + start, sibs.begin() + end + 1);
  if (slice.size() < 2) return;
  NodeId first = slice.front(), last = slice.back();
  std::vector<NodeId> stack = slice;
  while (!stack.empty()) {
    NodeId cur = stack.back();
    stack.pop_back();
    const auto& subs = main.node(cur).subnodes;
    for (auto it = subs.rbegin(); it != subs.rend(); ++it) stack.push_back(*it);
    Node& cn = main.node(cur);
    if (!cn.merge_info.empty() || StartsWith(cn.name, "Distributed")) continue;
    auto counterparts = OthersFor(main, cur, others, mapping);
    GatheredList in, out;
    ParamsToMerge(main, cur, counterparts, false, &in, &out);
    if (in.empty() && out.empty()) continue;
    main.node(cur).merge_info.push_back(RanksHeader(main, cur, counterparts));
    bool matmul = Contains(main.node(cur).name, "matmul");
    auto drop = [](GatheredList& l, const char* key) {
      l.erase(std::remove_if(l.begin(), l.end(), [&](const Gathered& g) { return g.key == key; }), l.end());
    };
    if (cur == first || (matmul && main.node(cur).up == first)) {
      drop(in, "input.0");
    } else if (cur == last || (matmul && main.node(cur).up == last)) {
      out.clear();
      drop(in, "parameters.bias");
    }
    auto li = MergeParams(in);
    auto lo = MergeParams(out);
    AppendInfo(main.node(cur), std::move(li));
    AppendInfo(main.node(cur), std::move(lo));
  }
}

void Merger::MergeTp(const std::vector<MergeGraph*>& results, const TpMapping& mapping) {
  if (results.size() < 2) return;
  MergeGraph& main = *results[0];
  std::vector<MergeGraph*> others(results.begin() + 1, results.end());
  for (NodeId m : main.Values()) {
    const Node& n = main.node(m);
    if (n.up == kNoNode) continue;
    const Node& up = main.node(n.up);
    if (up.op != NodeOp::kModule || Unmerged(up.name) || StartsWith(n.name, "Distributed") || !n.merge_info.empty())
      continue;
    MatmulReduce(main, m, others, mapping);
    auto counterparts = OthersFor(main, m, others, mapping);
    GatheredList in, out;
    ParamsToMerge(main, m, counterparts, true, &in, &out);
    if (in.empty() && out.empty()) continue;
    main.node(m).merge_info.push_back(RanksHeader(main, m, counterparts));
    auto li = MergeParams(in);
    auto lo = MergeParams(out);
    AppendInfo(main.node(m), std::move(li));
    AppendInfo(main.node(m), std::move(lo));
  }
  for (NodeId m : main.Values()) ColumnRow(main, m, others, mapping);
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
    uses_[done] = 1;   // (released once)
    for (auto& g : graphs_)
      if (g && g.get() != done) g->ForgetImportsFrom(*done);
    auto it = by_rank_.find(done->rank());
    if (it != by_rank_.end() && it->second == done) by_rank_.erase(it);
    for (auto& g : graphs_)
      if (g.get() == done) g.reset();
  }
}

Result<std::vector<RankGraph>> Merger::Run(std::vector<RankGraph> ranks) {
  for (RankGraph& r : ranks) {
    graphs_.push_back(std::make_unique<MergeGraph>(std::move(r)));
    by_rank_[graphs_.back()->rank()] = graphs_.back().get();
  }
  std::vector<MergeGraph*> all;
  for (auto& g : graphs_) all.push_back(g.get());
  std::vector<MergeGraph*> outputs;
  MergeStrategy strategy = SelectStrategy(p_);
  auto tp_mapping = [](const RankGroups& tp) {
    TpMapping m;
    for (size_t i = 1; i < tp.size(); ++i)
      if (!tp[i].empty()) m[tp[i][0]] = std::vector<int>(tp[i].begin() + 1, tp[i].end());
    return m;
  };
  auto merge_pp_group = [&](const std::vector<MergeGraph*>& group) {
    MergePp(group);
    if (strategy == MergeStrategy::kVpp || p_.vpp > 1) {
      if (group.size() >= 2) {
        VppData(*group[0]);
        VppChunks(*group[0]);
      }
    }
  };
  switch (strategy) {
    case MergeStrategy::kNoParallel:
      MergeCollections(all);
      outputs = all;
      StageDone();
      break;
    case MergeStrategy::kTp: {
      ASSIGN_OR_RETURN(RankGroups tp, TpGroups());
      ASSIGN_OR_RETURN(auto groups, ByGroups(tp));
      CountUses(groups);
      for (auto& g : groups) {
        MergeCollections(g);
        MergeTp(g, {});
        outputs.push_back(g[0]);
        kept_.insert(g[0]);
        ReleaseMerged(g);
        StageDone();
      }
      break;
    }
    case MergeStrategy::kPp:
    case MergeStrategy::kVpp: {
      ASSIGN_OR_RETURN(RankGroups pp, PpGroups());
      ASSIGN_OR_RETURN(auto groups, ByGroups(pp));
      CountUses(groups);
      for (auto& g : groups) {
        MergeCollections(g);
        merge_pp_group(g);
        outputs.push_back(g[0]);
        kept_.insert(g[0]);
        ReleaseMerged(g);
        StageDone();
      }
      break;
    }
    case MergeStrategy::kTpPp: {
      ASSIGN_OR_RETURN(RankGroups pp, PpGroups());
      ASSIGN_OR_RETURN(RankGroups tp, TpGroups());
      TpMapping mapping = tp_mapping(tp);
      ASSIGN_OR_RETURN(auto pp_lists, ByGroups(pp));
      CountUses(pp_lists);
      MergeCollections(all);
      std::vector<MergeGraph*> pp_results;
      for (auto& g : pp_lists) {
        merge_pp_group(g);
        pp_results.push_back(g[0]);
        ReleaseMerged(g);
        StageDone();
      }
      MergeTp(pp_results, mapping);
      SortCollections(*pp_results[0]);
      outputs.push_back(pp_results[0]);
      kept_.insert(pp_results[0]);
      CountUses({pp_results});
      ReleaseMerged(pp_results);
      StageDone();
      break;
    }
    case MergeStrategy::kFull: {
      ASSIGN_OR_RETURN(RankGroups pp, PpGroups());
      ASSIGN_OR_RETURN(RankGroups tp, TpGroups());
      if (tp.empty()) return InvalidInput("Graph merged error, and tp_groups is " + GroupsText(tp) + ".");
      TpMapping mapping = tp_mapping(tp);
      ASSIGN_OR_RETURN(auto pp_lists, ByGroups(pp));
      CountUses(pp_lists);
      std::vector<std::pair<int, MergeGraph*>> pp_results;
      for (auto& g : pp_lists) {
        MergeCollections(g);
        merge_pp_group(g);
        pp_results.emplace_back(g[0]->rank(), g[0]);
        ReleaseMerged(g);
        StageDone();
      }
      for (const auto& group : tp) {
        std::vector<MergeGraph*> list;
        for (int r : group)
          for (const auto& [rank, g] : pp_results)
            if (rank == r) { list.push_back(g); break; }
        if (list.empty()) continue;
        MergeCollections(list);
        MergeTp(list, mapping);
        SortCollections(*list[0]);
        outputs.push_back(list[0]);
        kept_.insert(list[0]);
        CountUses({list});
        ReleaseMerged(list);
        StageDone();
      }
      break;
    }
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
