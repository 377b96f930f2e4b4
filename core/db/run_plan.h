// A run's plan and its output, the same for every mode (issue 47): graph_visualize's (step, rank)
// graphs, a merge's (step, DP replica) units, data2db's rank folders and gather's parts. The plan
// names the run (its command line and every unit, which make the run key shards agree on without
// talking), says which units this process does (--shard I/N: units I, I+N, ...) and describes the
// part a shard writes; ClaimOutput names the output file every mode writes under a temporary name
// and renames when complete.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "base/reporter.h"
#include "base/status.h"
#include "db/shard_part.h"

namespace visprobe {

struct RunPlan {
  std::string kind;  // the part's kind: "vis" | "trend"
  std::string describe;  // the run's command line (real paths, flags, settings), shown when a part is refused
  std::string units_text;  // every unit of the run, in order ("|step:rank:folders" each): part of the run key
  std::string key_extra;  // more the run key covers and no message shows (a name mapping's pairs)
  size_t units = 0;  // how many units the run has
  std::vector<std::pair<std::string, std::string>> extra;  // the part's kind-specific settings
  ShardSpec shard;

  bool sharded() const { return shard.active(); }
  // Whether this process does unit `unit` of the run (every unit when not sharded).
  bool Takes(size_t unit) const { return shard.Takes(unit); }
  // The vp_shard rows of this process's part.
  PartMeta Part() const;
};

// <stem>.part-I-of-N for a shard's part, `stem` otherwise.
std::string PartStem(const std::string& stem, const ShardSpec& shard);

// DIR/<stem><ext>, or, when a finished file (or a run in flight) holds that name, the first free
// <stem>_1<ext>, <stem>_2<ext>, ... with a WARNING naming it: a finished file is never replaced.
// The name is claimed (its temporary file exists) when this returns.
Result<std::string> ClaimOutput(const std::string& dir, const std::string& stem, const std::string& ext, Reporter& rep);

}  // namespace visprobe
