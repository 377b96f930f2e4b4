// Parallel parameters of a graph merge (spec §15.1, §16.2), their validation against a rank
// folder, the merge strategy they select (§15.2) and the default TP / PP groups (§15.4).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct ParallelParam {
  int rank_size = 1, tp = 1, pp = 1, vpp = 1;
  std::string order = "tp-cp-ep-dp-pp";
};

// §15.1 validation of one side; `prefix` is "[NPU]" or "[Bench]". `ranks_found` is the number of
// entries a strict rank enumeration of the side's folder gave.
Status ValidateParallelParam(const ParallelParam& p, size_t ranks_found, const std::string& prefix);
// The same, enumerating `rank_dir` strictly first (any stray entry fails, §3.5).
Status ValidateParallelParam(const ParallelParam& p, const std::string& rank_dir, const std::string& prefix);

enum class MergeStrategy { kNoParallel, kTp, kPp, kVpp, kTpPp, kFull };
MergeStrategy SelectStrategy(const ParallelParam& p);
const char* StrategyName(MergeStrategy s);

using RankGroups = std::vector<std::vector<int>>;

// §15.4: groups of `token` ("tp", "pp", "dp", ...) for the given sizes and order.
Result<RankGroups> DefaultGroups(const ParallelParam& p, const std::string& token);

// Python's str() of a list of rank lists: "[[0, 1], [2, 3]]".
std::string GroupsText(const RankGroups& g);

}  // namespace visprobe
