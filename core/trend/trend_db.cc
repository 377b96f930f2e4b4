#include "trend/trend_db.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include <sqlite3.h>

#include "base/fs.h"
#include "db/schema.h"

namespace visprobe {
namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// A prepared statement, finalized when it goes out of scope.
struct Stmt {
  sqlite3_stmt* st = nullptr;
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() {
    if (st) sqlite3_finalize(st);
  }
};

}  // namespace

Status TrendDbWriter::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    MessageArg why = err ? MessageArg(err) : MessageArg(Msg<msg::kUnknownError>());
    sqlite3_free(err);
    return IoError(Msg<msg::kCannotWriteWhy>(final_, why));
  }
  return Status::Ok();
}

Status TrendDbWriter::SqlError(const char* what) {
  return IoError(
      Msg<msg::kCannotWriteWhat>(final_, what, db_ ? MessageArg(sqlite3_errmsg(db_)) : MessageArg(Msg<msg::kOutOfMemory>())));
}

void TrendDbWriter::Abort() {
  if (ins_row_) sqlite3_finalize(ins_row_);
  ins_row_ = nullptr;
  if (db_) sqlite3_close(db_);
  db_ = nullptr;
  if (!done_ && !temp_.empty()) std::remove(temp_.c_str());
}

TrendDbWriter::~TrendDbWriter() { Abort(); }

Result<std::unique_ptr<TrendDbWriter>> TrendDbWriter::Create(const std::string& final_path, std::vector<std::string> metrics,
                                                             std::vector<std::string> stats) {
  std::unique_ptr<TrendDbWriter> w(new TrendDbWriter());
  w->final_ = final_path;
  w->temp_ = final_path + ".tmp";
  w->metrics_ = std::move(metrics);
  w->stats_ = std::move(stats);
  w->metric_has_target_.resize(w->metrics_.size());
  RETURN_IF_ERROR(TruncateOrCreate(w->temp_));  // the file ClaimNewFile made
  ConfigureSqliteOnce();
  if (sqlite3_open_v2(w->temp_.c_str(), &w->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
    return w->SqlError("open");
  ::chmod(w->temp_.c_str(), 0640);
  // Private until renamed: no journal needed (a failed run deletes the file).
  RETURN_IF_ERROR(w->Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;"));
  std::string ddl =
      "CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL, "
      "vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0, UNIQUE (target_name, vpp_stage, micro_step));"
      "CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL);"
      "CREATE TABLE monitoring_tags (tag_id INTEGER PRIMARY KEY AUTOINCREMENT, tag_name TEXT NOT NULL, category TEXT NOT NULL, "
      "metric_id INTEGER NOT NULL, UNIQUE (tag_name, category, metric_id), "
      "FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id));"
      "CREATE TABLE tag_target_mapping (tag_id INTEGER NOT NULL, target_id INTEGER NOT NULL, PRIMARY KEY (tag_id, target_id), "
      "FOREIGN KEY (tag_id) REFERENCES monitoring_tags(tag_id), "
      "FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id));";
  ddl +=
      "CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL, "
      "metric_id INTEGER NOT NULL, ";
  for (const auto& s : w->stats_) ddl += s + " REAL DEFAULT NULL, ";
  ddl +=
      "PRIMARY KEY (rank, step, target_id, metric_id), "
      "FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id), "
      "FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)) WITHOUT ROWID;";
  RETURN_IF_ERROR(w->Exec(ddl));
  RETURN_IF_ERROR(w->Exec("BEGIN"));
  for (size_t i = 0; i < w->metrics_.size(); ++i)
    RETURN_IF_ERROR(
        w->Exec("INSERT INTO monitoring_metrics VALUES (" + std::to_string(i + 1) + ", " + Quote(w->metrics_[i]) + ")"));
  std::string ins = "INSERT OR IGNORE INTO trend_data VALUES (?, ?, ?, ?";
  for (size_t i = 0; i < w->stats_.size(); ++i) ins += ", ?";
  ins += ")";
  if (sqlite3_prepare_v2(w->db_, ins.c_str(), -1, &w->ins_row_, nullptr) != SQLITE_OK) return w->SqlError("prepare");
  return w;
}

int64_t TrendDbWriter::Target(std::string_view name, int64_t vpp_stage, int64_t micro_step) {
  key_.assign(name.data(), name.size());
  key_ += '\0';
  key_ += std::to_string(vpp_stage);
  key_ += '\0';
  key_ += std::to_string(micro_step);
  auto it = target_ids_.find(key_);
  int64_t id;
  if (it != target_ids_.end()) {
    id = it->second;
  } else {
    targets_.push_back(TrendTarget{std::string(name), vpp_stage, micro_step});
    id = static_cast<int64_t>(targets_.size());
    target_ids_.emplace(key_, id);
  }
  if (tracking_) {
    if (unit_seen_.size() < static_cast<size_t>(id)) unit_seen_.resize(targets_.size(), 0);
    if (!unit_seen_[static_cast<size_t>(id - 1)]) {
      unit_seen_[static_cast<size_t>(id - 1)] = 1;
      unit_seq_.push_back(id);
    }
  }
  return id;
}

void TrendDbWriter::BeginUnit() {
  tracking_ = true;
  unit_seen_.assign(targets_.size(), 0);
  unit_seq_.clear();
}

Status TrendDbWriter::EndUnit(int64_t unit, int64_t rank, int64_t step_lo, int64_t step_hi) {
  tracking_ = false;
  RETURN_IF_ERROR(
      Exec("CREATE TABLE IF NOT EXISTS vp_shard_targets (unit INTEGER NOT NULL, seq INTEGER NOT NULL, target_id INTEGER NOT "
           "NULL, PRIMARY KEY (unit, seq)) WITHOUT ROWID;"
           "CREATE TABLE IF NOT EXISTS vp_shard_trend (unit INTEGER PRIMARY KEY, rank INTEGER NOT NULL, "
           "step_lo INTEGER NOT NULL, step_hi INTEGER NOT NULL);"));
  RETURN_IF_ERROR(Exec("INSERT INTO vp_shard_trend VALUES (" + std::to_string(unit) + ", " + std::to_string(rank) + ", " +
                       std::to_string(step_lo) + ", " + std::to_string(step_hi) +
                       ");"
                       "INSERT INTO vp_shard_units (unit, tbl, lo, hi) VALUES (" +
                       std::to_string(unit) + ", 'trend_data', " + std::to_string(step_lo) + ", " + std::to_string(step_hi) +
                       ")"));
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db_, "INSERT INTO vp_shard_targets VALUES (?, ?, ?)", -1, &st, nullptr) != SQLITE_OK)
    return SqlError("prepare");
  for (size_t k = 0; k < unit_seq_.size(); ++k) {
    sqlite3_bind_int64(st, 1, unit);
    sqlite3_bind_int64(st, 2, static_cast<int64_t>(k));
    sqlite3_bind_int64(st, 3, unit_seq_[k]);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
      sqlite3_finalize(st);
      return SqlError("insert");
    }
  }
  sqlite3_finalize(st);
  unit_seq_.clear();
  return Status::Ok();
}

Status TrendDbWriter::AddRow(int64_t rank, int64_t step, int64_t target_id, int metric_id, const std::optional<double>* stats) {
  sqlite3_bind_int64(ins_row_, 1, rank);
  sqlite3_bind_int64(ins_row_, 2, step);
  sqlite3_bind_int64(ins_row_, 3, target_id);
  sqlite3_bind_int64(ins_row_, 4, metric_id);
  for (size_t i = 0; i < stats_.size(); ++i) {
    int col = static_cast<int>(i) + 5;
    if (stats[i])
      sqlite3_bind_double(ins_row_, col, *stats[i]);
    else
      sqlite3_bind_null(ins_row_, col);
  }
  int rc = sqlite3_step(ins_row_);
  sqlite3_reset(ins_row_);
  if (rc != SQLITE_DONE) return SqlError("insert");
  auto& has = metric_has_target_[static_cast<size_t>(metric_id - 1)];
  if (has.size() < static_cast<size_t>(target_id)) has.resize(targets_.size(), 0);
  has[static_cast<size_t>(target_id - 1)] = 1;
  ++rows_;
  return Status::Ok();
}

Status TrendDbWriter::Prepare(const char* sql, sqlite3_stmt** st) {
  if (sqlite3_prepare_v2(db_, sql, -1, st, nullptr) != SQLITE_OK) return SqlError("prepare");
  return Status::Ok();
}

Status TrendDbWriter::StepInsert(sqlite3_stmt* st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE ? Status::Ok() : SqlError("insert");
}

Status TrendDbWriter::WriteTargets() {
  Stmt ins;
  RETURN_IF_ERROR(Prepare("INSERT INTO monitoring_targets VALUES (?, ?, ?, ?)", &ins.st));
  for (size_t i = 0; i < targets_.size(); ++i) {
    sqlite3_bind_int64(ins.st, 1, static_cast<int64_t>(i + 1));
    sqlite3_bind_text(ins.st, 2, targets_[i].name.data(), static_cast<int>(targets_[i].name.size()), SQLITE_STATIC);
    sqlite3_bind_int64(ins.st, 3, targets_[i].vpp_stage);
    sqlite3_bind_int64(ins.st, 4, targets_[i].micro_step);
    RETURN_IF_ERROR(StepInsert(ins.st));
  }
  return Status::Ok();
}

// §7.3: per metric, its distinct tags sorted by (category, name), then the links by (target, tag).
Status TrendDbWriter::WriteTags(TagsFn tags) {
  std::vector<std::vector<TrendTag>> tags_of(targets_.size());
  std::vector<char> computed(targets_.size(), 0);
  int64_t next_tag = 1;
  Stmt link, ins;
  RETURN_IF_ERROR(Prepare("INSERT OR IGNORE INTO tag_target_mapping VALUES (?, ?)", &link.st));
  RETURN_IF_ERROR(Prepare("INSERT INTO monitoring_tags VALUES (?, ?, ?, ?)", &ins.st));
  for (size_t m = 0; m < metrics_.size(); ++m) {
    std::map<std::pair<std::string, std::string>, int64_t> ids;  // (category, name) -> id
    std::vector<size_t> members;
    const auto& has = metric_has_target_[m];
    for (size_t t = 0; t < has.size(); ++t) {
      if (!has[t]) continue;
      if (!computed[t]) {
        tags_of[t] = tags(targets_[t].name);
        computed[t] = 1;
      }
      members.push_back(t);
      for (const auto& tag : tags_of[t]) ids.emplace(std::make_pair(tag.category, tag.name), 0);
    }
    for (auto& kv : ids) {
      kv.second = next_tag++;
      sqlite3_bind_int64(ins.st, 1, kv.second);
      sqlite3_bind_text(ins.st, 2, kv.first.second.data(), static_cast<int>(kv.first.second.size()), SQLITE_STATIC);
      sqlite3_bind_text(ins.st, 3, kv.first.first.data(), static_cast<int>(kv.first.first.size()), SQLITE_STATIC);
      sqlite3_bind_int64(ins.st, 4, static_cast<int64_t>(m + 1));
      RETURN_IF_ERROR(StepInsert(ins.st));
    }
    for (size_t t : members) {
      std::vector<int64_t> tag_ids;
      for (const auto& tag : tags_of[t]) tag_ids.push_back(ids[std::make_pair(tag.category, tag.name)]);
      std::sort(tag_ids.begin(), tag_ids.end());
      for (int64_t id : tag_ids) {
        sqlite3_bind_int64(link.st, 1, id);
        sqlite3_bind_int64(link.st, 2, static_cast<int64_t>(t + 1));
        RETURN_IF_ERROR(StepInsert(link.st));
      }
    }
  }
  return Status::Ok();
}

// The §8.5 extensions (trend_step_map, trend_meta) and global_stats.
Status TrendDbWriter::WriteSummaryTables(const TrendSummary& summary) {
  if (!summary.step_map.empty()) {
    RETURN_IF_ERROR(
        Exec("CREATE TABLE trend_step_map (step INTEGER PRIMARY KEY, original_step INTEGER NOT NULL, "
             "micro_step INTEGER NOT NULL)"));
    Stmt ins;
    RETURN_IF_ERROR(Prepare("INSERT OR IGNORE INTO trend_step_map VALUES (?, ?, ?)", &ins.st));
    for (const auto& e : summary.step_map) {
      sqlite3_bind_int64(ins.st, 1, e.first);
      sqlite3_bind_int64(ins.st, 2, e.second.first);
      sqlite3_bind_int64(ins.st, 3, e.second.second);
      RETURN_IF_ERROR(StepInsert(ins.st));
    }
  }
  RETURN_IF_ERROR(Exec("CREATE TABLE trend_meta (key TEXT PRIMARY KEY, value TEXT)"));
  for (const auto& kv : summary.meta)
    RETURN_IF_ERROR(Exec("INSERT INTO trend_meta VALUES (" + Quote(kv.first) + ", " + Quote(kv.second) + ")"));
  std::string cols, vals;
  for (const auto& c : summary.int_columns) {
    cols += (cols.empty() ? "" : ", ") + c.first + " INTEGER DEFAULT 0";
    vals += (vals.empty() ? "" : ", ") + std::to_string(c.second);
  }
  for (const auto& c : summary.text_columns) {
    cols += ", " + c.first + " TEXT DEFAULT NULL";
    vals += ", " + Quote(c.second);
  }
  RETURN_IF_ERROR(Exec("CREATE TABLE global_stats (" + cols + ")"));
  return Exec("INSERT INTO global_stats VALUES (" + vals + ")");
}

Status TrendDbWriter::WriteAll(const TrendSummary& summary) {
  RETURN_IF_ERROR(WriteTargets());
  if (summary.tags) RETURN_IF_ERROR(WriteTags(summary.tags));
  RETURN_IF_ERROR(WriteSummaryTables(summary));
  RETURN_IF_ERROR(
      Exec("CREATE INDEX idx_trend_metric_step ON trend_data(metric_id, step);"
           "CREATE INDEX idx_trend_metric_rank ON trend_data(metric_id, rank);"
           "CREATE INDEX idx_trend_metric_target ON trend_data(metric_id, target_id);"
           "CREATE INDEX idx_tags_name ON monitoring_tags(tag_name);"
           "CREATE INDEX idx_ttm_target ON tag_target_mapping(target_id);"));
  RETURN_IF_ERROR(Exec("COMMIT"));
  // Leave a self-contained rollback-journal file for sql.js.
  return Exec("PRAGMA journal_mode=DELETE");
}

Result<std::string> TrendDbWriter::Commit(const TrendSummary& summary) {
  sqlite3_finalize(ins_row_);
  ins_row_ = nullptr;
  Status s = WriteAll(summary);
  if (!s.ok()) {
    Abort();
    return s;
  }
  Status p = PublishDb(&db_, temp_, final_, [this] { return SqlError("close"); });
  if (!p.ok()) {
    Abort();
    return p;
  }
  done_ = true;
  return final_;
}

}  // namespace visprobe
