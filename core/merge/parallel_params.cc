#include "merge/parallel_params.h"

#include <algorithm>
#include <map>

#include "layout/layout.h"

namespace visprobe {

Status ValidateParallelParam(const ParallelParam& p, size_t ranks_found, const std::string& prefix) {
  // prefix is "[NPU]" or "[Bench]": the side, bracketed by SidePrefixed.
  const bool bracketed = prefix.size() >= 2 && prefix.front() == '[' && prefix.back() == ']';
  const std::string side = bracketed ? prefix.substr(1, prefix.size() - 2) : prefix;
  auto fail = [&side](const Message& m) { return InvalidInput(Msg<msg::kSidePrefixed>(side, m)); };
  if (static_cast<long long>(ranks_found) != p.rank_size) return fail(Msg<msg::kParallelParamRankSize>(p.rank_size, ranks_found));
  if (p.tp <= 0 || p.pp <= 0 || p.rank_size <= 0 || p.vpp <= 0) return fail(Msg<msg::kParallelParamsTpPp>());
  if (p.tp > p.rank_size) return fail(Msg<msg::kParallelParamMustLess>("tp"));
  if (p.pp > p.rank_size) return fail(Msg<msg::kParallelParamMustLess>("pp"));
  if (p.rank_size % p.tp != 0) return fail(Msg<msg::kParallelParamRankSizeMust>("tp"));
  if (p.rank_size % p.pp != 0) return fail(Msg<msg::kParallelParamRankSizeMust>("pp"));
  if (static_cast<long long>(p.tp) * p.pp > p.rank_size) return fail(Msg<msg::kParallelParamsTpPpMust>());
  if (p.vpp > 1 && p.pp < 2) return fail(Msg<msg::kWhenConfiguringParallelParam>());
  bool order_ok =
      !p.order.empty() && std::all_of(p.order.begin(), p.order.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; });
  if (!order_ok) return fail(Msg<msg::kParallelParamsOrderMust>());
  return Status::Ok();
}

Status ValidateParallelParam(const ParallelParam& p, const std::string& rank_dir, const std::string& prefix) {
  ASSIGN_OR_RETURN(auto ranks, ListNamed(rank_dir, "rank", true));
  return ValidateParallelParam(p, ranks.size(), prefix);
}

MergeStrategy SelectStrategy(const ParallelParam& p) {
  if (p.tp == 1 && p.pp == 1 && p.rank_size == 1) return MergeStrategy::kNoParallel;
  if (p.tp == p.rank_size) return MergeStrategy::kTp;
  if (p.pp == p.rank_size) return p.vpp == 1 ? MergeStrategy::kPp : MergeStrategy::kVpp;
  if (p.pp == 1) return MergeStrategy::kTp;
  if (p.tp == 1) return p.vpp == 1 ? MergeStrategy::kPp : MergeStrategy::kVpp;
  if (p.tp * p.pp == p.rank_size) return MergeStrategy::kTpPp;
  return MergeStrategy::kFull;
}

const char* StrategyName(MergeStrategy s) {
  switch (s) {
    case MergeStrategy::kNoParallel: return "NoParallel";
    case MergeStrategy::kTp: return "TP";
    case MergeStrategy::kPp: return "PP";
    case MergeStrategy::kVpp: return "VPP";
    case MergeStrategy::kTpPp: return "TP+PP";
    case MergeStrategy::kFull: return "Full";
  }
  return "";
}

namespace {

std::vector<std::string> SplitDash(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t k = s.find('-', start);
    out.push_back(s.substr(start, k == std::string::npos ? std::string::npos : k - start));
    if (k == std::string::npos) return out;
    start = k + 1;
  }
}

// Mixed-radix digits of `index` over `dims`, least significant first.
std::vector<long long> Decompose(long long index, const std::vector<long long>& dims) {
  std::vector<long long> out;
  long long stride = 1;
  for (long long d : dims) {
    out.push_back((index / stride) % d);
    stride *= d;
  }
  return out;
}

}  // namespace

Result<RankGroups> DefaultGroups(const ParallelParam& p, const std::string& token) {
  const long long cp = 1, ep = 1;
  long long product = static_cast<long long>(p.tp) * p.pp * cp;
  if (product <= 0 || p.rank_size % product != 0)
    return InvalidInput(Msg<msg::kWorldSizeNotDivisible>(p.rank_size, p.tp, p.pp, cp));
  long long dp = p.rank_size / product;
  std::map<std::string, long long> sizes{{"tp", p.tp}, {"pp", p.pp}, {"dp", dp}, {"ep", ep}, {"cp", cp}};
  std::string order = p.order;
  for (char& c : order)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (order.find("ep") != std::string::npos && order.find("ep-dp") == std::string::npos &&
      order.find("dp-ep") == std::string::npos)
    return InvalidInput(Msg<msg::kEpDpMustAdjacent>(p.order));
  for (const char* name : {"tp", "pp", "dp", "ep", "cp"}) {
    if (order.find(name) != std::string::npos) continue;
    if (sizes[name] != 1) return InvalidInput(Msg<msg::kParallelSizeNotInOrder>(name, sizes[name], p.order));
    order += std::string("-") + name;
  }
  std::vector<std::string> names;
  std::vector<long long> dims;
  for (const std::string& item : SplitDash(order)) {
    if (item == "ep") continue;
    auto it = sizes.find(item);
    if (it == sizes.end()) return InvalidInput(Msg<msg::kUnknownParallelDimensionOrder>(item, p.order));
    names.push_back(item);
    dims.push_back(it->second);
  }
  std::vector<long long> masked_dims, unmasked_dims, masked_strides, unmasked_strides;
  long long stride = 1;
  bool found = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    bool m = names[i] == token;
    found = found || m;
    (m ? masked_dims : unmasked_dims).push_back(dims[i]);
    (m ? masked_strides : unmasked_strides).push_back(stride);
    stride *= dims[i];
  }
  if (!found) return InvalidInput(Msg<msg::kUnknownParallelDimension>(token));
  long long group_dim = 1;
  for (long long d : masked_dims) group_dim *= d;
  RankGroups out;
  for (long long g = 0; g < p.rank_size / group_dim; ++g) {
    auto gd = Decompose(g, unmasked_dims);
    std::vector<int> group;
    for (long long i = 0; i < group_dim; ++i) {
      auto id = Decompose(i, masked_dims);
      long long r = 0;
      for (size_t k = 0; k < id.size(); ++k) r += id[k] * masked_strides[k];
      for (size_t k = 0; k < gd.size(); ++k) r += gd[k] * unmasked_strides[k];
      group.push_back(static_cast<int>(r));
    }
    out.push_back(std::move(group));
  }
  return out;
}

std::string GroupsText(const RankGroups& g) {
  std::string s = "[";
  for (size_t i = 0; i < g.size(); ++i) {
    if (i) s += ", ";
    s += '[';
    for (size_t k = 0; k < g[i].size(); ++k) {
      if (k) s += ", ";
      s += std::to_string(g[i][k]);
    }
    s += ']';
  }
  return s + "]";
}

}  // namespace visprobe
