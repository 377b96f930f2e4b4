// Shards and their parts (issue: runs sharded over Slurm). A run is planned into units the engine
// does independently ((step, rank) graphs, merged steps, trend rank folders); shard I of N does
// units I, I+N, ... and writes a part: an ordinary database of its units' rows plus two tables,
// vp_shard (what run, which shard) and vp_shard_units (the rowid range of every unit in every
// table). `visprobe gather` reads the parts and writes the database the one-process run writes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

struct sqlite3;

namespace visprobe {

struct ShardSpec {
  int index = 0;
  int count = 0;  // 0: not sharded
  bool active() const { return count > 0; }
  bool Takes(size_t unit) const { return !active() || static_cast<int>(unit % static_cast<size_t>(count)) == index; }
};

// "I/N" with 0 <= I < N, N >= 1; argparse-style message otherwise.
Result<ShardSpec> ParseShardSpec(const std::string& flag, const std::string& text);

// sqlite3_exec with the error as a Status ("An sqlite3 error occurred: ...", §13.9's wording).
Status ExecSql(sqlite3* db, const std::string& sql);

// FNV-1a 64 of a run's description, in hex: parts of one run agree on it without talking.
std::string RunKey(const std::string& description);

struct PartMeta {
  std::string kind;  // "vis" | "trend"
  std::string run_key;  // RunKey of the run's description
  std::string describe;  // the description, for the refusal message
  int shard = 0, shards = 1;
  int64_t units = 0;  // units of the whole run
  std::vector<std::pair<std::string, std::string>> extra;  // kind-specific settings
};

// Creates vp_shard (key, value) and vp_shard_units (unit, tbl, lo, hi) and writes `meta`.
Status WritePartMeta(sqlite3* db, const PartMeta& meta);

// Records, after a unit's rows are written, the rowid range each table gained since the last mark.
class UnitMarks {
 public:
  explicit UnitMarks(std::vector<std::string> tables) : tables_(std::move(tables)), last_(tables_.size(), 0) {}
  Status Mark(sqlite3* db, int64_t unit);

 private:
  std::vector<std::string> tables_;
  std::vector<int64_t> last_;
};

struct UnitRange {
  int64_t unit;
  std::string table;
  int64_t lo, hi;  // rowids, inclusive; lo > hi: none
};

struct PartInfo {
  std::string path;
  PartMeta meta;
  std::vector<UnitRange> ranges;
  std::string Value(const std::string& key) const;
};

// Reads a part's vp_shard and vp_shard_units (read-only). "<path>: ..." on any problem.
Result<PartInfo> ReadPart(const std::string& path);

// Orders parts by shard and refuses a set that is not one whole run: another run's part, a part of
// another kind, a shard given twice or missing.
Result<std::vector<PartInfo>> CheckParts(std::vector<PartInfo> parts);

}  // namespace visprobe
