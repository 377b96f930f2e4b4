// Part of merge/merger.h: the Merger's TP merge (graph_merger.cc, pp_merger.cc: the rest).
// TP merge (spec §15.6): the nodes of a TP group's other ranks are paired with the main rank's and
// the statistics that differ are merged into the main node (max, min, mean, norm) with a note of
// how, including the matmul + reduce and ColumnParallelLinear -> RowParallelLinear cases.
#include <algorithm>
#include <cmath>

#include "base/pyfmt.h"
#include "base/pypow.h"
#include "base/strings.h"
#include "merge/merger.h"

namespace visprobe {
namespace merge_detail {
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
  static const char* kDtypes[] = {"torch.int8",    "torch.int32",   "torch.int64", "torch.bfloat16", "torch.float16",
                                  "torch.float32", "torch.float64", "Float16",     "Float32",        "BFloat16"};
  if (!c || c->dtype.kind != CmpValue::kString) return false;
  for (const char* d : kDtypes)
    if (c->dtype.s == d) return true;
  return false;
}

}  // namespace

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

std::vector<std::pair<MergeGraph*, NodeId>> Merger::OthersFor(MergeGraph& main, NodeId m, const std::vector<MergeGraph*>& others,
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

void Merger::ParamsToMerge(MergeGraph& main, NodeId m, const std::vector<std::pair<MergeGraph*, NodeId>>& others, bool compare,
                           GatheredList* in, GatheredList* out) {
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
      if (it != dst->end())
        *it = std::move(gath);
      else
        dst->push_back(std::move(gath));
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
        if (!v || !IsNum(v->stats[k])) {
          ok = false;
          break;
        }
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
          if (ints && IsIntLike(vals[i])) {
            isum += IntOf(vals[i]);
            continue;
          }
          if (ints) {
            dsum = static_cast<double>(isum);
            ints = false;
          }
          dsum += Num(vals[i]);
        }
        double sum = ints ? static_cast<double>(isum) : dsum;
        result = Float(sum / static_cast<double>(vals.size()));
        for (size_t i = 0; i < vals.size(); ++i) joined += (i ? " + " : "") + PyStrNum(vals[i]);
        text += "(" + joined + ") / " + std::to_string(vals.size());
      } else {
        double sum = 0;
        for (size_t i = 0; i < vals.size(); ++i) sum += PyPow(Num(vals[i]), 2.0);  // Python's a ** 2, not a * a
        result = Float(PyPow(sum, 0.5));
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
    if (Contains(sn, n.name))
      start = static_cast<long>(i);
    else if (Contains(sn, "RowParallelLinear"))
      end = static_cast<long>(i);
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
    if (up.op != NodeOp::kModule || Unmerged(up.name) || StartsWith(n.name, "Distributed") || !n.merge_info.empty()) continue;
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

}  // namespace merge_detail
}  // namespace visprobe
