// The folders of a data2db dump run and the micro-step plan of each rank (trend-analyzer.md §2,
// §3.3): step<N>/rank<M> folders in scan order, and from a rank's construct.json the slot and
// renumbered name of every module call, so the calls of one step's micro batches land in their own
// slots. Read by trend/dump_import.cc.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/reporter.h"
#include "base/status.h"

namespace visprobe {

struct RankFolder {
  int64_t rank;
  std::string path;
};

struct StepFolder {
  int64_t step;
  std::vector<RankFolder> ranks;
};

struct DumpScan {
  bool step_seen = false;
  std::vector<StepFolder> steps;
};

// step<N>/rank<M> folders of `data` (or rank folders directly, as one step), ordered; warns (through
// `rep`) for what it skips.
Result<DumpScan> ScanDumpFolders(const std::string& data, Reporter& rep);

// §3.3: slots and renumbered names of one rank's construct.json.
struct MicroPlan {
  bool any_placed = false;
  int64_t count = 1;
  std::unordered_map<std::string, std::pair<int64_t, std::string>> placed;  // key -> (slot, renumbered key)
};

// The micro-step plan of one construct.json (`path`).
Result<MicroPlan> PlanMicroSteps(const std::string& path, Reporter& rep);

// Python's ", ".join(items).
std::string PyList(const std::vector<std::string>& items);

}  // namespace visprobe
