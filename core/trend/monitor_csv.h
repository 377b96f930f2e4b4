// The files of a data2db monitor run (trend-analyzer.md §2.3, §5): the rank folders
// (<time>-rank<r>-<id>), their CSV files (<metric>_<a>-<b>.csv) and one file's parse, pass 1 (the
// run's dimensions: stats, targets, micro steps per step) or pass 2 (its rows). Read by
// trend/monitor_import.cc.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "trend/trend_db.h"
#include "trend/trend_import.h"

namespace visprobe {

extern const char* const kMetrics[9];
constexpr size_t kMetricCount = 9;
extern const char* const kStats[14];
constexpr size_t kStatCount = 14;
constexpr uint64_t kCsvLimit = 1073741824ull;
constexpr size_t kBatchFiles = 100;

// §2.3: "<time>-rank<r>-<id>" (the time tag and the rank), and the time tag's (month, day, hour,
// minute, second).
bool MatchRankFolder(const std::string& name, std::string* tag, int64_t* rank);
bool ParseTimeTag(const std::string& s, std::array<int, 5>* when);

struct RankDir {
  int64_t rank;
  std::string name, path;
  std::array<int, 5> when;
};

// §5.1: the metric (an index of kMetrics) of a CSV file's name, or -1.
int MetricOfFile(const std::string& name);

struct CsvFile {
  int64_t rank;
  int metric;
  std::string path;
  uint64_t size = 0;
};

// §5.2 rows.
struct CsvRow {
  std::string name;
  int64_t vpp = 0, step = 0, micro = 0;
  std::array<std::optional<double>, kStatCount> stats;
};

struct FileScan {
  Status status;
  uint32_t stat_mask = 0;
  std::vector<Message> warnings;
  // Pass 1: distinct targets (mapped name, vpp, micro) in first-appearance order, step -> micro count.
  std::vector<TrendTarget> targets;
  std::map<int64_t, int64_t> step_counts;
  uint64_t valid_rows = 0;
  // Pass 2: the rows.
  std::vector<CsvRow> rows;
};

// Parses one file; `keep_rows` selects pass 2 (rows) over pass 1 (dimensions).
void ScanCsv(const CsvFile& file, const TrendOptions& opts, bool keep_rows, FileScan& out);

// The names of the stats in `mask` (bits of kStats), comma-separated.
std::string JoinStats(uint32_t mask);

}  // namespace visprobe
