// The .trend.db writer (trend-analyzer.md §8): the reference schema plus the §8.5 extensions,
// built in a temporary file next to the target and renamed over it only when complete.
// Target ids are dense, in first-appearance order; rows go in as they are produced
// (INSERT OR IGNORE: the first row of a key wins); tags are derived at the end.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "trend/tags.h"

struct sqlite3;
struct sqlite3_stmt;

namespace visprobe {

struct TrendTarget {
  std::string name;
  int64_t vpp_stage = 0;
  int64_t micro_step = 0;
};

struct TrendSummary {
  std::vector<std::pair<std::string, int64_t>> int_columns;  // global_stats integers, in order
  std::vector<std::pair<std::string, std::string>> text_columns;  // metric -> "norm,max,..."
  std::vector<std::pair<int64_t, std::pair<int64_t, int64_t>>> step_map;  // slot -> (step, micro)
  std::vector<std::pair<std::string, std::string>> meta;  // trend_meta rows
  std::vector<TrendTag> (*tags)(std::string_view name) = nullptr;  // §7.1 or §7.2
};

class TrendDbWriter {
 public:
  // `metrics` get ids 1..n in this order; `stats` are the REAL columns of trend_data.
  static Result<std::unique_ptr<TrendDbWriter>> Create(const std::string& final_path, std::vector<std::string> metrics,
                                                       std::vector<std::string> stats);
  ~TrendDbWriter();

  // The id of (name, vpp, micro), assigned on first sight.
  int64_t Target(std::string_view name, int64_t vpp_stage, int64_t micro_step);
  // One row; `stats` has one entry per stat column (nullopt = NULL).
  Status AddRow(int64_t rank, int64_t step, int64_t target_id, int metric_id, const std::optional<double>* stats);
  uint64_t rows_offered() const { return rows_; }
  size_t target_count() const { return targets_.size(); }

  // Writes targets, tags, global_stats, extensions and indexes; renames into place.
  Result<std::string> Commit(const TrendSummary& summary);

  // Shard parts (db/shard_part.h): the targets each unit touches, in the order it first touches them,
  // go to vp_shard_targets, and the unit's rank and step range to vp_shard_trend, so that a gather
  // can assign the one-process run's target ids.
  void BeginUnit();
  Status EndUnit(int64_t unit, int64_t rank, int64_t step_lo, int64_t step_hi);
  sqlite3* handle() { return db_; }

 private:
  TrendDbWriter() = default;
  Status Exec(const std::string& sql);
  Status SqlError(const char* what);
  void Abort();
  Status Prepare(const char* sql, sqlite3_stmt** st);
  // Steps an INSERT and resets it for the next row.
  Status StepInsert(sqlite3_stmt* st);
  // Commit's steps: every table written at the end, then the indexes and the commit itself.
  using TagsFn = std::vector<TrendTag> (*)(std::string_view name);
  Status WriteAll(const TrendSummary& summary);
  Status WriteTargets();
  Status WriteTags(TagsFn tags);
  Status WriteSummaryTables(const TrendSummary& summary);

  sqlite3* db_ = nullptr;
  sqlite3_stmt* ins_row_ = nullptr;
  std::string final_, temp_;
  bool done_ = false;
  std::vector<std::string> metrics_, stats_;
  std::vector<TrendTarget> targets_;
  std::unordered_map<std::string, int64_t> target_ids_;
  std::string key_;
  std::vector<std::vector<char>> metric_has_target_;  // [metric-1][target-1]
  uint64_t rows_ = 0;
  bool tracking_ = false;
  std::vector<char> unit_seen_;
  std::vector<int64_t> unit_seq_;
};

}  // namespace visprobe
