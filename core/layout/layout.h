// Input layout detection (spec §3): one rank of files, rankN folders, or stepN/rankN folders,
// and the list of (step, rank) graphs a run builds or compares.
#pragma once

#include <string>
#include <vector>

#include "base/limits.h"
#include "base/status.h"

namespace visprobe {

enum class LayoutKind { kFiles, kRanks, kSteps };
const char* LayoutName(LayoutKind k);

Result<LayoutKind> Classify(const std::string& dir);

// Entries named <prefix>, <prefix>0, <prefix>17 (not <prefix>01), sorted by number.
// strict: any other entry is an error.
Result<std::vector<std::string>> ListNamed(const std::string& dir, const std::string& prefix, bool strict);
Result<std::string> FindProcDir(const std::string& dir);
Result<int> IdOf(const std::string& name, bool is_rank);

struct GraphJob {
  int step = 0;
  int rank = 0;
  std::string target_dir;
  std::string golden_dir;  // empty in build mode
};

struct LayoutPlan {
  LayoutKind kind = LayoutKind::kFiles;
  std::vector<GraphJob> jobs;  // (step, rank) ascending
  std::vector<std::vector<int>> rank_lists;  // per step, parallel to step_list
  std::vector<int> step_list;
};

// base/limits.h; tests lower them.
struct PlanLimits {
  size_t max_ranks = kMaxRanksPerStep;
  size_t max_steps = kMaxStepsPerRun;
};

// Build mode (no golden) or compare mode; validates that every rank folder holds the three files.
Result<LayoutPlan> PlanRun(const std::string& target, const std::string& golden, const PlanLimits& limits = {});

}  // namespace visprobe
