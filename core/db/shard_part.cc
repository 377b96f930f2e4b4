#include "db/shard_part.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "base/strings.h"

namespace visprobe {
namespace {

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  *out = std::strtoll(s.c_str(), nullptr, 10);
  return true;
}

}  // namespace

Status ExecSql(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(m)));
  }
  return Status::Ok();
}

Result<ShardSpec> ParseShardSpec(const std::string& flag, const std::string& text) {
  auto slash = text.find('/');
  int64_t i = -1, n = -1;
  if (slash == std::string::npos || !ParseInt(text.substr(0, slash), &i) || !ParseInt(text.substr(slash + 1), &n) || n < 1 ||
      n > 100000 || i >= n)
    return InvalidInput(Msg<msg::kArgumentInvalidShardExpected>(flag, text));
  ShardSpec s;
  s.index = static_cast<int>(i);
  s.count = static_cast<int>(n);
  return s;
}

std::string RunKey(const std::string& description) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : description) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

Status WritePartMeta(sqlite3* db, const PartMeta& meta) {
  RETURN_IF_ERROR(ExecSql(db, "CREATE TABLE IF NOT EXISTS vp_shard (key TEXT PRIMARY KEY, value TEXT NOT NULL)"));
  RETURN_IF_ERROR(ExecSql(db,
                          "CREATE TABLE IF NOT EXISTS vp_shard_units (unit INTEGER NOT NULL, tbl TEXT NOT NULL, "
                          "lo INTEGER NOT NULL, hi INTEGER NOT NULL)"));
  std::vector<std::pair<std::string, std::string>> kv = {{"kind", meta.kind},
                                                         {"run_key", meta.run_key},
                                                         {"describe", meta.describe},
                                                         {"shard", std::to_string(meta.shard)},
                                                         {"shards", std::to_string(meta.shards)},
                                                         {"units", std::to_string(meta.units)}};
  kv.insert(kv.end(), meta.extra.begin(), meta.extra.end());
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO vp_shard (key, value) VALUES (?, ?)", -1, &st, nullptr) != SQLITE_OK)
    return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(sqlite3_errmsg(db))));
  for (const auto& [k, v] : kv) {
    sqlite3_bind_text(st, 1, k.data(), static_cast<int>(k.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) {
      std::string m = sqlite3_errmsg(db);
      sqlite3_finalize(st);
      return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(m)));
    }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  return Status::Ok();
}

Status UnitMarks::Mark(sqlite3* db, int64_t unit) {
  for (size_t t = 0; t < tables_.size(); ++t) {
    sqlite3_stmt* st = nullptr;
    std::string q = "SELECT coalesce(max(rowid), 0) FROM " + tables_[t];
    if (sqlite3_prepare_v2(db, q.c_str(), -1, &st, nullptr) != SQLITE_OK)
      return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(sqlite3_errmsg(db))));
    int64_t hi = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    RETURN_IF_ERROR(ExecSql(db, "INSERT INTO vp_shard_units (unit, tbl, lo, hi) VALUES (" + std::to_string(unit) + ", '" +
                                    tables_[t] + "', " + std::to_string(last_[t] + 1) + ", " + std::to_string(hi) + ")"));
    last_[t] = hi;
  }
  return Status::Ok();
}

std::string PartInfo::Value(const std::string& key) const {
  for (const auto& [k, v] : meta.extra)
    if (k == key) return v;
  return "";
}

Result<PartInfo> ReadPart(const std::string& path) {
  PartInfo info;
  info.path = path;
  sqlite3* db = nullptr;
  auto fail = [&](const Message& m) -> Status {
    if (db) sqlite3_close(db);
    return InvalidInput(Msg<msg::kPathPrefixed>(path, m));
  };
  // SQLite's own texts are nested as they are.
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
    return fail(Msg<msg::kPartCannotOpenDatabase>(Message(db ? sqlite3_errmsg(db) : "out of memory")));
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT key, value FROM vp_shard", -1, &st, nullptr) != SQLITE_OK) {
    std::string m = sqlite3_errmsg(db);
    if (m.find("no such table") != std::string::npos) return fail(Msg<msg::kPartNoShardTable>());
    return fail(Msg<msg::kPartDamaged>(Message(m)));
  }
  std::map<std::string, std::string> kv;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    kv[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] = reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return fail(Msg<msg::kPartTableCannotRead>("vp_shard", Message(sqlite3_errmsg(db))));
  int64_t shard = -1, shards = -1, units = -1;
  if (!kv.count("kind") || !kv.count("run_key") || !ParseInt(kv["shard"], &shard) || !ParseInt(kv["shards"], &shards) ||
      !ParseInt(kv["units"], &units) || shards < 1 || shard >= shards)
    return fail(Msg<msg::kPartShardTableIncomplete>());
  info.meta.kind = kv["kind"];
  info.meta.run_key = kv["run_key"];
  info.meta.describe = kv["describe"];
  info.meta.shard = static_cast<int>(shard);
  info.meta.shards = static_cast<int>(shards);
  info.meta.units = units;
  for (const auto& [k, v] : kv)
    if (k != "kind" && k != "run_key" && k != "describe" && k != "shard" && k != "shards" && k != "units")
      info.meta.extra.push_back({k, v});
  if (sqlite3_prepare_v2(db, "SELECT unit, tbl, lo, hi FROM vp_shard_units ORDER BY rowid", -1, &st, nullptr) != SQLITE_OK)
    return fail(Msg<msg::kPartNoUnitsTable>());
  while ((rc = sqlite3_step(st)) == SQLITE_ROW)
    info.ranges.push_back({sqlite3_column_int64(st, 0), reinterpret_cast<const char*>(sqlite3_column_text(st, 1)),
                           sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)});
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return fail(Msg<msg::kPartTableCannotRead>("vp_shard_units", Message(sqlite3_errmsg(db))));
  sqlite3_close(db);
  for (const UnitRange& r : info.ranges)
    if (r.unit < 0 || r.unit >= units || r.unit % shards != shard)
      return InvalidInput(Msg<msg::kPathPrefixed>(path, Msg<msg::kPartUnitNotInShard>(r.unit, shard, shards)));
  return info;
}

Result<std::vector<PartInfo>> CheckParts(std::vector<PartInfo> parts) {
  if (parts.empty()) return InvalidInput(Msg<msg::kNoPartsGiven>());
  const PartInfo& first = parts[0];
  for (const PartInfo& p : parts) {
    if (p.meta.kind != first.meta.kind)
      return InvalidInput(Msg<msg::kPartsOfDifferentKinds>(p.path, p.meta.kind, first.path, first.meta.kind));
    if (p.meta.run_key != first.meta.run_key || p.meta.shards != first.meta.shards || p.meta.units != first.meta.units)
      return InvalidInput(Msg<msg::kPartOfAnotherRun>(p.path, first.path, p.meta.describe, p.meta.shards, first.meta.describe,
                                                      first.meta.shards));
  }
  const int n = first.meta.shards;
  std::vector<int> seen(static_cast<size_t>(n), -1);
  for (size_t k = 0; k < parts.size(); ++k) {
    int s = parts[k].meta.shard;
    if (seen[static_cast<size_t>(s)] >= 0)
      return InvalidInput(
          Msg<msg::kShardGivenTwice>(s, n, parts[static_cast<size_t>(seen[static_cast<size_t>(s)])].path, parts[k].path));
    seen[static_cast<size_t>(s)] = static_cast<int>(k);
  }
  std::string missing;
  for (int s = 0; s < n; ++s)
    if (seen[static_cast<size_t>(s)] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(s);
  if (!missing.empty()) return InvalidInput(Msg<msg::kShardsMissing>(n, missing, first.meta.describe));
  std::sort(parts.begin(), parts.end(), [](const PartInfo& a, const PartInfo& b) { return a.meta.shard < b.meta.shard; });
  return parts;
}

}  // namespace visprobe
