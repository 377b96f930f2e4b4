// visprobe gather: the parts of a sharded run joined into the database the one-process run writes.
#include "app/gather.h"

#include <sqlite3.h>

#include <map>

#include "app/graph_visualize.h"
#include "base/fs.h"
#include "db/distributed.h"
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

Result<std::string> GatherVis(const std::vector<PartInfo>& parts, const std::string& out_dir, Reporter& rep) {
  const PartInfo& p0 = parts[0];
  const bool compare = p0.Value("compare") == "1", batch = p0.Value("batch") == "1";
  const bool overflow_check = p0.Value("overflow_check") == "1";
  const int n = p0.meta.shards;
  // Where every unit's rows are: part (unit % n), its ranges per table.
  std::vector<std::map<std::string, std::pair<int64_t, int64_t>>> where(static_cast<size_t>(p0.meta.units));
  for (const PartInfo& p : parts)
    for (const UnitRange& r : p.ranges) where[static_cast<size_t>(r.unit)][r.table] = {r.lo, r.hi};
  for (size_t u = 0; u < where.size(); ++u)
    if (where[u].empty())
      return InvalidInput(Msg<msg::kLacksUnitShardDid>(parts[u % static_cast<size_t>(n)].path, u, u % static_cast<size_t>(n)));

  RETURN_IF_ERROR(CheckNewPath(out_dir));
  RETURN_IF_ERROR(MakeDirs(out_dir));
  ASSIGN_OR_RETURN(std::string path, ClaimOutput(out_dir, VisStem(compare, NowTimestamp()), ".vis.db", rep));
  DbOptions dbo;
  // Rows are copied, then indexed (7 index builds over the copied table measured 9.4-10.1 s against
  // 11.1 s with the indexes kept during the copy, on a 16-rank compare of 1.8 GB).
  // The page cache is left at 16 MiB: 64 MiB and 256 MiB measured the same time (8.7-10.7 s) with a
  // peak of 160 MB and 589 MB instead of 107 MB.
  ASSIGN_OR_RETURN(std::unique_ptr<VisDbWriter> w, VisDbWriter::Open(path, dbo));
  sqlite3* db = w->handle();
  rep.Log(LogLevel::kInfo, Msg<msg::kGatheringGraphsFromParts>(p0.meta.units, parts.size(), BaseName(path)));
  const std::vector<std::string> tables = PartTables();
  for (size_t u = 0; u < where.size(); ++u) {
    const PartInfo& p = parts[u % static_cast<size_t>(n)];
    RETURN_IF_ERROR(ExecSql(db, "ATTACH DATABASE " + Quoted(p.path) + " AS part"));
    Status s = ExecSql(db, "BEGIN");
    for (const std::string& t : tables) {
      auto it = where[u].find(t);
      if (!s.ok() || it == where[u].end() || it->second.first > it->second.second) continue;
      s = ExecSql(db, "INSERT INTO main." + t + " SELECT * FROM part." + t + " WHERE rowid BETWEEN " +
                          std::to_string(it->second.first) + " AND " + std::to_string(it->second.second) + " ORDER BY rowid");
    }
    if (s.ok() && u == 0) s = ExecSql(db, "INSERT OR IGNORE INTO main.tb_config SELECT * FROM part.tb_config");
    s = s.ok() ? ExecSql(db, "COMMIT") : (ExecSql(db, "ROLLBACK"), s);
    Status d = ExecSql(db, "DETACH DATABASE part");
    if (!s.ok()) return Status(s.code(), Msg<msg::kPathPrefixed>(p.path, s));
    RETURN_IF_ERROR(d);
    rep.Progress(90.0 * static_cast<double>(u + 1) / static_cast<double>(where.size()), true);
  }
  rep.Log(LogLevel::kInfo, Msg<msg::kStartAddingIndexDb>());
  RETURN_IF_ERROR(w->CreateIndexes());
  if (batch) {
    auto d = AnalyzeDistributed(db, overflow_check, [&rep](const auto& m) { rep.Log(LogLevel::kInfo, m); });
    if (!d.ok()) return d.status();
  }
  ASSIGN_OR_RETURN(std::string done, w->Commit());
  rep.Log(LogLevel::kInfo, Msg<msg::kAddingIndexDbFile>());
  const std::string saved = RealPath(out_dir) + "/" + BaseName(done);
  rep.Log(LogLevel::kInfo,
          compare ? Msg<msg::kExportingCompareGraphResult>(saved) : Msg<msg::kModelGraphExportedSuccessfully>(saved));
  return done;
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
  if (parts[0].meta.kind == "vis") return GatherVis(parts, out_dir, rep);
  if (parts[0].meta.kind == "trend") return GatherTrend(parts, out_dir, rep);
  return InvalidInput(Msg<msg::kPartUnknownKind>(parts[0].path, parts[0].meta.kind));
}

}  // namespace visprobe
