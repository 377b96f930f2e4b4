// Monitor importer: §2.3 folder selection, §5 CSV files, §3.4 steps, §7.2 tags, §8 writing.
// Files are parsed twice (dimensions, then rows) by up to process_num threads; one writer inserts
// in a fixed order, so the database is the same for every thread count (D-18).
#include "trend/monitor_import.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "base/fs.h"
#include "base/parallel.h"
#include "base/strings.h"
#include "db/run_executor.h"
#include "trend/dump_import.h"
#include "trend/monitor_csv.h"
#include "trend/tags.h"
#include "trend/trend_db.h"
#include "trend/trend_import.h"
#include "trend/values.h"

namespace visprobe {
namespace {

// data2db --format monitor as a planner (db/run_executor.h): the rank folders (one unit each, the
// latest folder of a rank), their CSV files, a first pass over every file for the run's dimensions
// (metrics, columns, micro-step slots and target ids: the same in every shard); its items are the
// CSV files, taken when their rank folder's unit is, parsed process_num files ahead of the inserts,
// which go in file order.
class MonitorRun : public RunPlanner {
 public:
  MonitorRun(const TrendOptions& o, Reporter& r) : opts_(o), rep_(r) {}
  const TrendImportResult& result() const { return res_; }

  Result<bool> Plan(RunExecutor& ex) override;
  size_t Items() const override { return files_.size(); }
  bool Takes(const RunPlan& plan, size_t i) const override { return plan.Takes(unit_of_.at(files_[i].rank)); }
  Status Open(RunExecutor& ex) override;
  Status Prepare(size_t nth) override {
    ScanCsv(files_[ex_->taken()[nth]], opts_, true, parsed_[nth]);
    return Status::Ok();
  }
  Status Consume(size_t nth) override {
    Status st = ImportFile(ex_->taken()[nth], parsed_[nth]);
    parsed_[nth] = FileScan();  // its rows are in: free them
    return st;
  }
  Status Finish(RunExecutor& ex) override;
  void Abandon() override { w_.reset(); }
  int Threads() const override { return std::max(1, opts_.process_num); }
  size_t Ahead() const override { return static_cast<size_t>(Threads()); }

 private:
  // The rank folders (`false`: none, said why).
  Result<bool> FindRanks();
  Result<bool> ListFiles();
  Result<bool> ScanDimensions();
  Status ImportFile(size_t i, FileScan& fs);
  Status EndUnit(int64_t rank);

  const TrendOptions& opts_;
  Reporter& rep_;
  RunExecutor* ex_ = nullptr;
  StageProgress* progress_ = nullptr;  // the executor's: the first pass (30 %), the rows (69 %)
  std::map<int64_t, RankDir> ranks_;
  std::vector<CsvFile> files_;
  int64_t max_rank_ = 0;
  size_t batches_ = 0;
  uint64_t total_bytes_ = 0;
  std::vector<FileScan> scans_;
  // The dimensions: metrics present, their stats, the columns written, micro-step slots.
  std::array<uint32_t, kMetricCount> metric_stats_{};
  std::array<int, kMetricCount> metric_id_{};
  std::vector<std::string> metric_names_, columns_;
  std::vector<size_t> column_of_stat_;
  std::map<int64_t, int64_t> offset_;
  int64_t min_step_ = 0, max_step_ = 0;
  TrendSummary sum_;
  std::unique_ptr<TrendDbWriter> w_;
  std::map<int64_t, size_t> unit_of_;  // rank -> its folder's unit
  std::map<int64_t, int64_t> unit_of_rank_;  // a shard's rank folders not yet marked -> their unit
  std::vector<FileScan> parsed_;  // [nth taken file]
  TrendImportResult res_;
  int64_t current_rank_ = 0;
  uint64_t rank_rows_ = 0, done_bytes_ = 0;
  std::vector<std::optional<double>> values_;  // one row's stats, reused (one per column)
};

Result<bool> MonitorRun::FindRanks() {
  ASSIGN_OR_RETURN(std::vector<DirEntry> top, ListDir(opts_.data_dir));
  for (const auto& e : top) {
    std::string tag;
    int64_t rank;
    if (!MatchRankFolder(e.name, &tag, &rank)) continue;
    std::array<int, 5> when;
    if (!ParseTimeTag(tag, &when)) {
      rep_.Log(LogLevel::kWarning, Msg<msg::kIllegalTimestampTimestampShould>(tag, JoinPath(opts_.data_dir, e.name)));
      continue;
    }
    if (!e.is_dir) continue;
    RankDir d{rank, e.name, JoinPath(opts_.data_dir, e.name), when};
    auto it = ranks_.find(rank);
    if (it == ranks_.end()) {
      ranks_.emplace(rank, d);
      continue;
    }
    bool newer = std::tie(d.when, d.name) > std::tie(it->second.when, it->second.name);
    const RankDir& dropped = newer ? it->second : d;
    rep_.Log(LogLevel::kWarning, Msg<msg::kTwoMonitorFoldersRank>(rank, dropped.path));
    if (newer) it->second = d;
  }
  if (ranks_.empty()) {
    rep_.Log(LogLevel::kWarning, Msg<msg::kNoValidMonitorDirectories>(opts_.data_dir));
    return false;
  }
  return true;
}

Result<bool> MonitorRun::ListFiles() {
  rep_.Log(LogLevel::kInfo, Msg<msg::kScanningDimensions>());
  for (const auto& [rank, dir] : ranks_) {
    ASSIGN_OR_RETURN(std::vector<DirEntry> entries, ListDir(dir.path));
    bool any = false;
    for (const auto& e : entries) {
      int metric = MetricOfFile(e.name);
      if (metric < 0 || !e.is_file) continue;
      CsvFile cf{rank, metric, JoinPath(dir.path, e.name), 0};
      RETURN_IF_ERROR(CheckPath(cf.path, PathKind::kFile, PathAccess::kRead));
      cf.size = FileSize(cf.path);
      if (cf.size >= kCsvLimit) return InvalidInput(Msg<msg::kSizeExceedsBytesTools>(cf.size, cf.path, kCsvLimit));
      files_.push_back(cf);
      any = true;
    }
    if (any) max_rank_ = std::max(max_rank_, rank);
  }
  if (files_.empty()) {
    rep_.Log(LogLevel::kWarning, Msg<msg::kNoValidCsvFiles>());
    rep_.Log(LogLevel::kError, Msg<msg::kNoValidDataFiles>());
    return false;
  }
  std::map<int64_t, size_t> per_rank;
  for (const auto& f : files_) ++per_rank[f.rank];
  for (const auto& kv : per_rank) batches_ += (kv.second + kBatchFiles - 1) / kBatchFiles;
  rep_.Log(LogLevel::kInfo, Msg<msg::kSplitRanksIntoBatches>(per_rank.size(), batches_, kBatchFiles, files_.size()));
  for (const auto& f : files_) total_bytes_ += f.size;
  return true;
}

// Pass 1 over every file: the metrics with rows, the stats they carry, the steps' micro-step counts.
Result<bool> MonitorRun::ScanDimensions() {
  scans_.assign(files_.size(), FileScan());
  ParallelFor(files_.size(), opts_.process_num, [&](size_t i) {
    ScanCsv(files_[i], opts_, false, scans_[i]);
    return Status::Ok();
  });
  for (size_t i = 0; i < files_.size(); ++i) {
    for (const auto& w : scans_[i].warnings) rep_.Log(LogLevel::kWarning, w);
    RETURN_IF_ERROR(scans_[i].status);
  }
  progress_->Stage(0, 1.0);
  std::array<bool, kMetricCount> metric_has_rows{};
  std::map<int64_t, int64_t> step_counts;
  for (size_t i = 0; i < files_.size(); ++i) {
    size_t m = static_cast<size_t>(files_[i].metric);
    metric_stats_[m] |= scans_[i].stat_mask;
    if (scans_[i].valid_rows) metric_has_rows[m] = true;
    for (const auto& [st, c] : scans_[i].step_counts) step_counts[st] = std::max(step_counts[st], c);
  }
  uint32_t columns_mask = 0;
  for (size_t m = 0; m < kMetricCount; ++m) {
    if (!metric_has_rows[m]) continue;
    metric_names_.push_back(kMetrics[m]);
    metric_id_[m] = static_cast<int>(metric_names_.size());
    columns_mask |= metric_stats_[m];
  }
  if (metric_names_.empty()) {
    rep_.Log(LogLevel::kWarning, Msg<msg::kNoValidCsvFiles>());
    rep_.Log(LogLevel::kError, Msg<msg::kNoValidDataFiles>());
    return false;
  }
  column_of_stat_.assign(kStatCount, SIZE_MAX);
  for (size_t st = 0; st < kStatCount; ++st)
    if (columns_mask & (1u << st)) {
      column_of_stat_[st] = columns_.size();
      columns_.emplace_back(kStats[st]);
    }
  // §3.4 slots.
  int64_t total_slots = 0;
  for (const auto& [st, c] : step_counts) {
    offset_[st] = total_slots;
    for (int64_t j = 0; opts_.micro_step && j < c && sum_.step_map.size() < 10000000; ++j)
      sum_.step_map.push_back({total_slots + j, {st, j}});
    total_slots += c;
  }
  if (opts_.micro_step)
    max_step_ = total_slots > 0 ? total_slots - 1 : 0;
  else if (!step_counts.empty()) {
    min_step_ = step_counts.begin()->first;
    max_step_ = step_counts.rbegin()->first;
  }
  return true;
}

Result<bool> MonitorRun::Plan(RunExecutor& ex) {
  ex_ = &ex;
  rep_.Log(LogLevel::kInfo, Msg<msg::kStartingMonitorDataImport>());
  ASSIGN_OR_RETURN(bool found, FindRanks());
  if (found) { ASSIGN_OR_RETURN(found, ListFiles()); }
  progress_ = &ex.StartProgress({30.0, 69.0});
  if (found) { ASSIGN_OR_RETURN(found, ScanDimensions()); }
  if (!found) return false;
  // Unit u is the u-th rank folder.
  std::string units;
  for (const auto& [rank, dir] : ranks_) {
    if (opts_.shard.active()) units += "|" + std::to_string(rank) + ":" + dir.path;
    unit_of_.emplace(rank, unit_of_.size());
  }
  ex.SetPlan(TrendRunPlan("monitor", opts_, units, ranks_.size(), 0));
  return true;
}

// The output, with the target ids of the first pass; a shard has done that pass over every file
// (dimensions, slots and these target ids are the whole run's), and its part names how many.
Status MonitorRun::Open(RunExecutor& ex) {
  ASSIGN_OR_RETURN(std::string db_path, ex.ClaimOutput(opts_.db_dir, PartStem("monitor_data", opts_.shard), ".trend.db"));
  ASSIGN_OR_RETURN(w_, TrendDbWriter::Create(db_path, metric_names_, columns_));
  // Target ids: canonical metric order, then ranks, files, rows (§8.4).
  for (size_t m = 0; m < kMetricCount; ++m)
    for (size_t i = 0; i < files_.size(); ++i)
      if (static_cast<size_t>(files_[i].metric) == m)
        for (const auto& t : scans_[i].targets) w_->Target(t.name, t.vpp_stage, t.micro_step);
  scans_.clear();
  const std::vector<size_t>& taken = ex.taken();
  if (ex.sharded()) {
    RunPlan part = ex.plan();
    part.extra = TrendRunPlan("monitor", opts_, "", 0, w_->target_count()).extra;
    RETURN_IF_ERROR(WritePartMeta(w_->handle(), part.Part()));
    for (const auto& [rank, u] : unit_of_)
      if (ex.plan().Takes(u)) unit_of_rank_[rank] = static_cast<int64_t>(u);
    if (!taken.empty()) w_->BeginUnit();
  }
  rep_.Log(LogLevel::kInfo, Msg<msg::kStartingDataImportBatches>(batches_, taken.size()));
  current_rank_ = taken.empty() ? 0 : files_[taken.front()].rank;
  values_.assign(columns_.size(), std::nullopt);
  parsed_.assign(taken.size(), FileScan());
  return Status::Ok();
}

// A shard records where rank `rank`'s rows are (once: the first call for the rank).
Status MonitorRun::EndUnit(int64_t rank) {
  auto it = unit_of_rank_.find(rank);
  if (it == unit_of_rank_.end()) return Status::Ok();
  Status st = w_->EndUnit(it->second, rank, INT64_MIN, INT64_MAX);
  unit_of_rank_.erase(it);
  return st;
}

Status MonitorRun::ImportFile(size_t i, FileScan& fs) {
  RETURN_IF_ERROR(fs.status);
  if (files_[i].rank != current_rank_) {
    rep_.Log(LogLevel::kInfo, Msg<msg::kRankInsertedRows>(current_rank_, rank_rows_));
    if (opts_.shard.active()) {
      RETURN_IF_ERROR(EndUnit(current_rank_));
      w_->BeginUnit();
    }
    current_rank_ = files_[i].rank;
    rank_rows_ = 0;
  }
  int metric = metric_id_[static_cast<size_t>(files_[i].metric)];
  for (const CsvRow& r : fs.rows) {
    int64_t target = w_->Target(r.name, r.vpp, opts_.micro_step ? 0 : r.micro);
    int64_t step = opts_.micro_step ? offset_[r.step] + r.micro : r.step;
    std::fill(values_.begin(), values_.end(), std::nullopt);
    for (size_t st = 0; st < kStatCount; ++st)
      if (column_of_stat_[st] != SIZE_MAX) values_[column_of_stat_[st]] = r.stats[st];
    RETURN_IF_ERROR(w_->AddRow(files_[i].rank, step, target, metric, values_.data()));
    ++rank_rows_;
  }
  done_bytes_ += files_[i].size;
  progress_->Stage(1, static_cast<double>(done_bytes_) / static_cast<double>(std::max<uint64_t>(1, total_bytes_)));
  return Status::Ok();
}

// The last rank's line (and a shard's marks), then the summary tables and the commit.
Status MonitorRun::Finish(RunExecutor& ex) {
  const size_t files = ex.taken().size();
  if (files) rep_.Log(LogLevel::kInfo, Msg<msg::kRankInsertedRows>(current_rank_, rank_rows_));
  if (ex.sharded()) {
    if (files) RETURN_IF_ERROR(EndUnit(current_rank_));
    while (!unit_of_rank_.empty()) {  // the shard's rank folders without files
      w_->BeginUnit();
      RETURN_IF_ERROR(EndUnit(unit_of_rank_.begin()->first));
    }
  }
  sum_.int_columns = {{"min_step", min_step_}, {"max_step", max_step_}, {"max_rank", max_rank_}};
  for (size_t m = 0; m < kMetricCount; ++m)
    if (metric_id_[m]) sum_.text_columns.push_back({kMetrics[m], JoinStats(metric_stats_[m])});
  sum_.tags = &MonitorTargetTags;
  sum_.meta = {{"source_format", "monitor"},
               {"micro_step", opts_.micro_step ? "true" : "false"},
               {"mapping_file", opts_.mapping_file},
               {"tool_version", "visprobe 0.1"}};
  if (!opts_.created_utc.empty()) sum_.meta.push_back({"created_utc", opts_.created_utc});
  res_.rows = w_->rows_offered();
  res_.targets = w_->target_count();
  res_.input_bytes = total_bytes_;
  res_.files = files;
  ASSIGN_OR_RETURN(res_.db_path, w_->Commit(sum_));
  res_.written = true;
  rep_.Log(LogLevel::kInfo, Msg<msg::kMonitorDataImportCompleted>(res_.db_path));
  return Status::Ok();
}

}  // namespace

Result<TrendImportResult> ImportMonitorTrend(const TrendOptions& opts, Reporter& rep) {
  MonitorRun run(opts, rep);
  RunExecutor ex(rep);
  RETURN_IF_ERROR(ex.Run(run));
  return run.result();
}

}  // namespace visprobe
