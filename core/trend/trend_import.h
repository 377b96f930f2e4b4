// data2db's importers (trend-analyzer.md §2-§8): msProbe dump folders (step*/rank*/dump.json)
// and monitor CSV folders (<time>-rank<r>-<id>/*.csv) into dump_data.trend.db /
// monitor_data.trend.db.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/reporter.h"
#include "base/status.h"
#include "db/run_plan.h"
#include "db/shard_part.h"

namespace visprobe {

using NameMapping = std::vector<std::pair<std::string, std::string>>;  // applied in order (§4.2)

struct TrendOptions {
  std::string data_dir;
  std::string db_dir;
  std::string format = "auto";  // auto | dump | monitor
  bool micro_step = true;
  std::string mapping_file;  // provenance only
  NameMapping mapping;
  int process_num = 1;  // monitor parse threads (§5.6)
  std::string created_utc;  // trend_meta; empty = none written
  ShardSpec shard;  // --shard I/N: units are rank folders (dump: step*/rank*, in scan order)
};

struct TrendImportResult {
  bool written = false;  // a database was produced
  std::string db_path;
  uint64_t rows = 0;  // rows offered (duplicates included)
  uint64_t targets = 0;
  uint64_t input_bytes = 0;
  uint64_t files = 0;
};

// §4.2: a JSON object of strings, in file order; "Load json file <path> failed. ..." otherwise.
Result<NameMapping> LoadNameMapping(const std::string& path);
std::string ApplyNameMapping(const NameMapping& m, std::string name);

Result<TrendImportResult> ImportDumpTrend(const TrendOptions& opts, Reporter& rep);
Result<TrendImportResult> ImportMonitorTrend(const TrendOptions& opts, Reporter& rep);

// The plan of a data2db run (db/run_plan.h): its units are rank folders (dump: step*/rank*, in scan
// order; monitor: rank folders), described by `units`; the first `targets_pre` target ids are the
// same in every part of a sharded run.
RunPlan TrendRunPlan(const std::string& format, const TrendOptions& opts, const std::string& units, size_t unit_count,
                     size_t targets_pre);

}  // namespace visprobe
