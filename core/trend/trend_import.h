// What data2db's importers (trend-analyzer.md §2-§8) take and give: msProbe dump folders
// (step*/rank*/dump.json, trend/dump_import.h) and monitor CSV folders (<time>-rank<r>-<id>/*.csv,
// trend/monitor_import.h) into dump_data.trend.db / monitor_data.trend.db.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

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

}  // namespace visprobe
