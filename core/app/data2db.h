// `visprobe data2db` (trend-analyzer.md §12): argument parsing with argparse's rules and
// messages, validation in the reference's order, and the run of both importers.
#pragma once

#include <string>
#include <vector>

#include "app/log.h"
#include "base/status.h"
#include "trend/trend_import.h"

namespace visprobe {

struct Data2DbArgs {
  std::string db, data, format = "auto", mapping;
  bool micro_step = true;
  std::string process_num = "1";  // validated by RunData2Db (§12.2 step 5)
  ShardSpec shard;  // --shard I/N (db/shard_part.h)
};

// Data2DbArgs is the typed request of a run (the CLI parses argv into it; the browser worker fills it
// field by field). What argparse checks of the values (--format's choices, --process_num an int):
Status CheckData2DbArgs(const Data2DbArgs& a);

// Usage errors (exit status 2) carry argparse's text.
Result<Data2DbArgs> ParseData2DbArgs(const std::vector<std::string>& argv);
std::string Data2DbUsage();
std::string Data2DbHelp();

struct Data2DbOutcome {
  std::vector<TrendImportResult> written;  // the databases produced
  bool failed = false;  // an importer failed (auto mode ran the other one)
  Status error;  // the first failure (its message, with id and arguments: base/status.h)
};

// Validation errors come back as a Status (exit 1). `threads_cap` bounds process_num (1 in wasm).
Result<Data2DbOutcome> RunData2Db(const Data2DbArgs& args, Reporter& rep, int threads_cap, const std::string& created_utc);

}  // namespace visprobe
