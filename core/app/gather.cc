// visprobe gather: the parts of a sharded run joined into the database the one-process run writes.
#include "app/gather.h"

#include <sqlite3.h>

#include <map>
#include <memory>

#include "app/graph_visualize.h"
#include "base/fs.h"
#include "db/distributed.h"
#include "db/run_executor.h"
#include "db/shard_part.h"
#include "db/vis_db.h"
#include "trend/trend_gather.h"

namespace visprobe {

std::vector<std::string> PartTables() { return {"tb_nodes", "tb_stack", "vp_badges"}; }

namespace {

std::string Quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    q += c;
    if (c == '\'') q += '\'';
  }
  return q + "'";
}

// The .vis.db parts joined, as a planner (db/run_executor.h): its items are the run's units, each
// copied (one transaction) from the part that has it, in unit order; then the indexes, the
// cross-rank links of a batch run and the commit.
class GatherVis : public RunPlanner {
 public:
  GatherVis(const std::vector<PartInfo>& parts, const std::string& out_dir) : parts_(parts), out_dir_(out_dir) {}
  const std::string& path() const { return done_; }

  Result<bool> Plan(RunExecutor& ex) override;
  size_t Items() const override { return where_.size(); }
  Status Open(RunExecutor& ex) override;
  Status Consume(size_t u) override;
  Status Finish(RunExecutor& ex) override;
  void Abandon() override { w_.reset(); }

 private:
  const std::vector<PartInfo>& parts_;
  const std::string& out_dir_;
  bool compare_ = false, batch_ = false, overflow_check_ = false;
  // Where every unit's rows are: part (unit % shards), its ranges per table.
  std::vector<std::map<std::string, std::pair<int64_t, int64_t>>> where_;
  std::unique_ptr<VisDbWriter> w_;
  StageProgress* progress_ = nullptr;  // the executor's: one stage per unit, 10 % kept for the indexes
  std::string done_;
};

Result<bool> GatherVis::Plan(RunExecutor& ex) {
  const PartInfo& p0 = parts_[0];
  compare_ = p0.Value("compare") == "1";
  batch_ = p0.Value("batch") == "1";
  overflow_check_ = p0.Value("overflow_check") == "1";
  const size_t n = static_cast<size_t>(p0.meta.shards);
  where_.resize(static_cast<size_t>(p0.meta.units));
  for (const PartInfo& p : parts_)
    for (const UnitRange& r : p.ranges) where_[static_cast<size_t>(r.unit)][r.table] = {r.lo, r.hi};
  for (size_t u = 0; u < where_.size(); ++u)
    if (where_[u].empty()) return InvalidInput(Msg<msg::kLacksUnitShardDid>(parts_[u % n].path, u, u % n));
  RunPlan plan;  // every unit, in one process
  plan.kind = "vis";
  plan.units = where_.size();
  ex.SetPlan(plan);
  return true;
}

Status GatherVis::Open(RunExecutor& ex) {
  RETURN_IF_ERROR(CheckNewPath(out_dir_));
  RETURN_IF_ERROR(MakeDirs(out_dir_));
  ASSIGN_OR_RETURN(std::string path, ex.ClaimOutput(out_dir_, VisStem(compare_, NowTimestamp()), ".vis.db"));
  DbOptions dbo;
  // Rows are copied, then indexed (7 index builds over the copied table measured 9.4-10.1 s against
  // 11.1 s with the indexes kept during the copy, on a 16-rank compare of 1.8 GB).
  // The page cache is left at 16 MiB: 64 MiB and 256 MiB measured the same time (8.7-10.7 s) with a
  // peak of 160 MB and 589 MB instead of 107 MB.
  ASSIGN_OR_RETURN(w_, VisDbWriter::Open(path, dbo));
  ex.reporter().Log(LogLevel::kInfo, Msg<msg::kGatheringGraphsFromParts>(parts_[0].meta.units, parts_.size(), BaseName(path)));
  progress_ = &ex.StartProgress(where_.size(), 10.0);
  return Status::Ok();
}

Status GatherVis::Consume(size_t u) {
  sqlite3* db = w_->handle();
  const PartInfo& p = parts_[u % static_cast<size_t>(parts_[0].meta.shards)];
  RETURN_IF_ERROR(ExecSql(db, "ATTACH DATABASE " + Quoted(p.path) + " AS part"));
  Status s = ExecSql(db, "BEGIN");
  for (const std::string& t : PartTables()) {
    auto it = where_[u].find(t);
    if (!s.ok() || it == where_[u].end() || it->second.first > it->second.second) continue;
    s = ExecSql(db, "INSERT INTO main." + t + " SELECT * FROM part." + t + " WHERE rowid BETWEEN " +
                        std::to_string(it->second.first) + " AND " + std::to_string(it->second.second) + " ORDER BY rowid");
  }
  if (s.ok() && u == 0) s = ExecSql(db, "INSERT OR IGNORE INTO main.tb_config SELECT * FROM part.tb_config");
  s = s.ok() ? ExecSql(db, "COMMIT") : (ExecSql(db, "ROLLBACK"), s);
  Status d = ExecSql(db, "DETACH DATABASE part");
  if (!s.ok()) return Status(s.code(), Msg<msg::kPathPrefixed>(p.path, s));
  RETURN_IF_ERROR(d);
  progress_->Stage(u, 1.0);
  return Status::Ok();
}

Status GatherVis::Finish(RunExecutor& ex) {
  Reporter& rep = ex.reporter();
  rep.Log(LogLevel::kInfo, Msg<msg::kStartAddingIndexDb>());
  RETURN_IF_ERROR(w_->CreateIndexes());
  if (batch_) {
    auto d = AnalyzeDistributed(w_->handle(), overflow_check_, [&rep](const auto& m) { rep.Log(LogLevel::kInfo, m); });
    if (!d.ok()) return d.status();
  }
  ASSIGN_OR_RETURN(done_, w_->Commit());
  rep.Log(LogLevel::kInfo, Msg<msg::kAddingIndexDbFile>());
  const std::string saved = RealPath(out_dir_) + "/" + BaseName(done_);
  rep.Log(LogLevel::kInfo,
          compare_ ? Msg<msg::kExportingCompareGraphResult>(saved) : Msg<msg::kModelGraphExportedSuccessfully>(saved));
  return Status::Ok();
}

}  // namespace

Result<std::string> GatherParts(const std::vector<std::string>& paths, const std::string& out_dir, Reporter& rep) {
  std::vector<PartInfo> parts;
  for (const std::string& p : paths) {
    RETURN_IF_ERROR(CheckPath(p, PathKind::kFile, PathAccess::kRead));
    ASSIGN_OR_RETURN(PartInfo info, ReadPart(p));
    parts.push_back(std::move(info));
  }
  ASSIGN_OR_RETURN(parts, CheckParts(std::move(parts)));
  if (parts[0].meta.kind == "vis") {
    GatherVis gather(parts, out_dir);
    RunExecutor ex(rep);
    RETURN_IF_ERROR(ex.Run(gather));
    return gather.path();
  }
  if (parts[0].meta.kind == "trend") return GatherTrend(parts, out_dir, rep);
  return InvalidInput(Msg<msg::kPartUnknownKind>(parts[0].path, parts[0].meta.kind));
}

}  // namespace visprobe
