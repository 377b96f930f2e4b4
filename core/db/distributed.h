// Multi-rank distributed analysis (spec §14): links communication nodes (send/recv, broadcast,
// all_reduce, ...) across the ranks of a batch run, reading the rows already written and
// filling tb_nodes.matched_distributed.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"

struct sqlite3;

namespace visprobe {

// `log(message)` receives the INFO lines of §14.1. Returns the number of rows updated.
Result<size_t> AnalyzeDistributed(sqlite3* db, bool overflow_check, const std::function<void(const Message&)>& log);

}  // namespace visprobe
