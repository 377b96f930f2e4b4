#include "trend/trend_gather.h"

#include <sqlite3.h>

#include <memory>
#include <optional>

#include "base/fs.h"
#include "db/run_executor.h"
#include "trend/tags.h"
#include "trend/trend_db.h"
#include "trend/trend_import.h"

namespace visprobe {
namespace {

// One part, open read-only, with its targets and the map of its ids to the gathered file's.
struct OpenPart {
  const PartInfo* info = nullptr;
  sqlite3* db = nullptr;
  std::vector<TrendTarget> targets;  // [local id - 1]
  std::vector<int64_t> global;  // [local id - 1] -> gathered id (0: not yet)
  ~OpenPart() {
    if (db) sqlite3_close(db);
  }
};

Status PartError(const OpenPart& p, const Message& what) {
  if (!p.db) return InvalidInput(Msg<msg::kPathPrefixed>(p.info->path, what));
  return InvalidInput(Msg<msg::kPathPrefixed>(p.info->path, Msg<msg::kWithSqliteMessage>(what, sqlite3_errmsg(p.db))));
}

// Runs `sql` and calls row(stmt) for each result row.
template <typename F>
Status Query(OpenPart& p, const std::string& sql, const std::vector<int64_t>& binds, F row) {
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(p.db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return PartError(p, Msg<msg::kPartCannotRead>());
  for (size_t i = 0; i < binds.size(); ++i) sqlite3_bind_int64(st, static_cast<int>(i + 1), binds[i]);
  int rc;
  Status s;
  while (s.ok() && (rc = sqlite3_step(st)) == SQLITE_ROW) s = row(st);
  sqlite3_finalize(st);
  if (!s.ok()) return s;
  if (rc != SQLITE_DONE) return PartError(p, Msg<msg::kPartCannotRead>());
  return Status::Ok();
}

std::string Text(sqlite3_stmt* st, int col) {
  const unsigned char* t = sqlite3_column_text(st, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}

using Parts = std::vector<std::unique_ptr<OpenPart>>;

// Every part opened, with its targets; each must hold at least the `pre` targets every shard plans.
Status OpenParts(const std::vector<PartInfo>& infos, int64_t pre, Parts* parts) {
  for (const PartInfo& info : infos) {
    auto p = std::make_unique<OpenPart>();
    p->info = &info;
    if (sqlite3_open_v2(info.path.c_str(), &p->db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      return PartError(*p, Msg<msg::kPartCannotBeOpened>());
    RETURN_IF_ERROR(Query(*p, "SELECT target_id, target_name, vpp_stage, micro_step FROM monitoring_targets ORDER BY target_id",
                          {}, [&](sqlite3_stmt* st) {
                            p->targets.push_back({Text(st, 1), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)});
                            return Status::Ok();
                          }));
    if (static_cast<int64_t>(p->targets.size()) < pre) return PartError(*p, Msg<msg::kPartFewerTargetsThanPlanned>());
    p->global.assign(p->targets.size(), 0);
    parts->push_back(std::move(p));
  }
  return Status::Ok();
}

// The whole run's metrics and statistics columns, from part 0.
Status ReadColumns(OpenPart& first, std::vector<std::string>* metrics, std::vector<std::string>* stats) {
  RETURN_IF_ERROR(Query(first, "SELECT metric_name FROM monitoring_metrics ORDER BY metric_id", {}, [&](sqlite3_stmt* st) {
    metrics->push_back(Text(st, 0));
    return Status::Ok();
  }));
  return Query(first, "SELECT name FROM pragma_table_info('trend_data') ORDER BY cid", {}, [&](sqlite3_stmt* st) {
    std::string n = Text(st, 0);
    if (n != "rank" && n != "step" && n != "target_id" && n != "metric_id") stats->push_back(n);
    return Status::Ok();
  });
}

// The run's summary tables (global_stats, trend_step_map, trend_meta), from part 0.
Status ReadSummary(OpenPart& first, TrendSummary* sum) {
  std::vector<std::pair<std::string, std::string>> gcols;  // global_stats (name, type)
  RETURN_IF_ERROR(
      Query(first, "SELECT name, upper(type) FROM pragma_table_info('global_stats') ORDER BY cid", {}, [&](sqlite3_stmt* st) {
        gcols.push_back({Text(st, 0), Text(st, 1)});
        return Status::Ok();
      }));
  if (gcols.empty()) return PartError(first, Msg<msg::kPartNoGlobalStatsTable>());
  RETURN_IF_ERROR(Query(first, "SELECT * FROM global_stats LIMIT 1", {}, [&](sqlite3_stmt* st) {
    for (size_t c = 0; c < gcols.size(); ++c) {
      if (gcols[c].second.rfind("INT", 0) == 0)
        sum->int_columns.push_back({gcols[c].first, sqlite3_column_int64(st, static_cast<int>(c))});
      else
        sum->text_columns.push_back({gcols[c].first, Text(st, static_cast<int>(c))});
    }
    return Status::Ok();
  }));
  bool has_map = false;
  RETURN_IF_ERROR(Query(first, "SELECT count(*) FROM sqlite_master WHERE name = 'trend_step_map'", {}, [&](sqlite3_stmt* st) {
    has_map = sqlite3_column_int64(st, 0) > 0;
    return Status::Ok();
  }));
  if (has_map)
    RETURN_IF_ERROR(
        Query(first, "SELECT step, original_step, micro_step FROM trend_step_map ORDER BY step", {}, [&](sqlite3_stmt* st) {
          sum->step_map.push_back({sqlite3_column_int64(st, 0), {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)}});
          return Status::Ok();
        }));
  return Query(first, "SELECT key, value FROM trend_meta ORDER BY rowid", {}, [&](sqlite3_stmt* st) {
    sum->meta.push_back({Text(st, 0), Text(st, 1)});
    return Status::Ok();
  });
}

// What copying one unit's rows needs beside its part: the writer, the run's metrics and
// statistics columns (as a SELECT list), and a buffer for a row's values.
struct UnitCopy {
  TrendDbWriter& w;
  const std::vector<std::string>& metrics;
  const std::vector<std::string>& stats;
  std::string stat_cols;
  std::vector<std::optional<double>> values;
};

// Unit u of part p into the gathered file: the targets it first touched (in its order), then its
// rows of trend_data.
Status GatherUnit(OpenPart& p, int64_t u, UnitCopy& c) {
  bool found = false;
  int64_t rank = 0, lo = 0, hi = 0;
  RETURN_IF_ERROR(Query(p, "SELECT rank, step_lo, step_hi FROM vp_shard_trend WHERE unit = ?", {u}, [&](sqlite3_stmt* st) {
    found = true;
    rank = sqlite3_column_int64(st, 0);
    lo = sqlite3_column_int64(st, 1);
    hi = sqlite3_column_int64(st, 2);
    return Status::Ok();
  }));
  if (!found) return InvalidInput(Msg<msg::kLacksUnitShardDid>(p.info->path, u, p.info->meta.shard));
  RETURN_IF_ERROR(Query(p, "SELECT target_id FROM vp_shard_targets WHERE unit = ? ORDER BY seq", {u}, [&](sqlite3_stmt* st) {
    int64_t t = sqlite3_column_int64(st, 0);
    if (t < 1 || t > static_cast<int64_t>(p.targets.size())) return PartError(p, Msg<msg::kPartUnknownTargetId>(t));
    const TrendTarget& tt = p.targets[static_cast<size_t>(t - 1)];
    p.global[static_cast<size_t>(t - 1)] = c.w.Target(tt.name, tt.vpp_stage, tt.micro_step);
    return Status::Ok();
  }));
  return Query(p, "SELECT step, target_id, metric_id" + c.stat_cols + " FROM trend_data WHERE rank = ? AND step BETWEEN ? AND ?",
               {rank, lo, hi}, [&](sqlite3_stmt* st) {
                 int64_t t = sqlite3_column_int64(st, 1);
                 int64_t m = sqlite3_column_int64(st, 2);
                 if (t < 1 || t > static_cast<int64_t>(p.global.size()) || !p.global[static_cast<size_t>(t - 1)] || m < 1 ||
                     m > static_cast<int64_t>(c.metrics.size()))
                   return PartError(p, Msg<msg::kPartRowOfUnlistedTarget>());
                 for (size_t k = 0; k < c.stats.size(); ++k) {
                   int col = static_cast<int>(k) + 3;
                   c.values[k] = sqlite3_column_type(st, col) == SQLITE_NULL
                                     ? std::nullopt
                                     : std::optional<double>(sqlite3_column_double(st, col));
                 }
                 return c.w.AddRow(rank, sqlite3_column_int64(st, 0), p.global[static_cast<size_t>(t - 1)], static_cast<int>(m),
                                   c.values.data());
               });
}

// The .trend.db parts joined, as a planner (db/run_executor.h): its items are the run's units, each
// copied from the part that has it, in unit order, after the targets every part planned alike.
class TrendGather : public RunPlanner {
 public:
  TrendGather(const std::vector<PartInfo>& infos, const std::string& out_dir) : infos_(infos), out_dir_(out_dir) {}
  const std::string& path() const { return done_; }

  Result<bool> Plan(RunExecutor& ex) override;
  size_t Items() const override { return static_cast<size_t>(infos_[0].meta.units); }
  Status Open(RunExecutor& ex) override;
  Status Consume(size_t u) override {
    RETURN_IF_ERROR(GatherUnit(*parts_[u % parts_.size()], static_cast<int64_t>(u), *copy_));
    progress_->Stage(u, 1.0);
    return Status::Ok();
  }
  Status Finish(RunExecutor& ex) override;
  void Abandon() override {
    copy_.reset();
    w_.reset();
  }

 private:
  const std::vector<PartInfo>& infos_;
  const std::string& out_dir_;
  std::string format_;
  int64_t pre_ = 0;
  Parts parts_;
  std::vector<std::string> metrics_, stats_;
  TrendSummary sum_;
  std::unique_ptr<TrendDbWriter> w_;
  std::unique_ptr<UnitCopy> copy_;
  StageProgress* progress_ = nullptr;  // the executor's: one stage per unit, 5 % kept for the commit
  std::string done_;
};

Result<bool> TrendGather::Plan(RunExecutor& ex) {
  const PartInfo& p0 = infos_[0];
  format_ = p0.Value("format");
  if (format_ != "dump" && format_ != "monitor") return InvalidInput(Msg<msg::kUnknownTrendFormat>(p0.path, format_));
  pre_ = std::strtoll(p0.Value("targets_pre").c_str(), nullptr, 10);
  RETURN_IF_ERROR(OpenParts(infos_, pre_, &parts_));
  RETURN_IF_ERROR(ReadColumns(*parts_[0], &metrics_, &stats_));
  RETURN_IF_ERROR(ReadSummary(*parts_[0], &sum_));
  sum_.tags = format_ == "dump" ? &DumpTargetTags : &MonitorTargetTags;
  RunPlan plan;  // every unit, in one process
  plan.kind = "trend";
  plan.units = Items();
  ex.SetPlan(plan);
  return true;
}

Status TrendGather::Open(RunExecutor& ex) {
  RETURN_IF_ERROR(MakeDirs(out_dir_));
  RETURN_IF_ERROR(CheckPath(out_dir_, PathKind::kDir, PathAccess::kWrite));
  ASSIGN_OR_RETURN(std::string path, ex.ClaimOutput(out_dir_, format_ == "dump" ? "dump_data" : "monitor_data", ".trend.db"));
  ASSIGN_OR_RETURN(w_, TrendDbWriter::Create(path, metrics_, stats_));
  ex.reporter().Log(LogLevel::kInfo, Msg<msg::kGatheringRankFoldersFrom>(infos_[0].meta.units, parts_.size(), BaseName(path)));
  // The targets every part has (planned by each shard alike), then unit by unit what it first touched.
  OpenPart& first = *parts_[0];
  for (int64_t t = 0; t < pre_; ++t) {
    const TrendTarget& tt = first.targets[static_cast<size_t>(t)];
    int64_t id = w_->Target(tt.name, tt.vpp_stage, tt.micro_step);
    for (auto& p : parts_) p->global[static_cast<size_t>(t)] = id;
  }
  copy_.reset(new UnitCopy{*w_, metrics_, stats_, std::string(), std::vector<std::optional<double>>(stats_.size())});
  for (const auto& s : stats_) copy_->stat_cols += ", \"" + s + "\"";
  progress_ = &ex.StartProgress(Items(), 5.0);
  return Status::Ok();
}

Status TrendGather::Finish(RunExecutor& ex) {
  ASSIGN_OR_RETURN(done_, w_->Commit(sum_));
  ex.reporter().Log(LogLevel::kInfo,
                    format_ == "dump" ? Msg<msg::kDumpDataImportCompleted>(done_) : Msg<msg::kMonitorDataImportCompleted>(done_));
  return Status::Ok();
}

}  // namespace

Result<std::string> GatherTrend(const std::vector<PartInfo>& infos, const std::string& out_dir, Reporter& rep) {
  TrendGather gather(infos, out_dir);
  RunExecutor ex(rep);
  RETURN_IF_ERROR(ex.Run(gather));
  return gather.path();
}

}  // namespace visprobe
