// The .trend.db of a data2db run sharded with --shard I/N, gathered from its parts: target ids
// assigned in the one-process run's order (the targets each unit first touches, unit by unit),
// the rows renumbered to them, tags derived again; global_stats, trend_step_map and trend_meta are
// the whole run's in every part (each shard plans the whole run) and are taken from part 0.
#pragma once

#include <string>
#include <vector>

#include "base/reporter.h"
#include "base/status.h"
#include "db/shard_part.h"

namespace visprobe {

Result<std::string> GatherTrend(const std::vector<PartInfo>& parts, const std::string& out_dir, Reporter& rep);

}  // namespace visprobe
