// visprobe gather: the parts of a sharded run joined into the database the one-process run writes.
#pragma once

#include <string>
#include <vector>

#include "base/reporter.h"
#include "base/status.h"

namespace visprobe {

// The tables whose rowid ranges a part records per unit (vp_shard_units), in the order they are copied.
std::vector<std::string> PartTables();

// visprobe gather: the database the one-process run writes, from the parts of a sharded run
// (.vis.db parts: rows in the run's unit order, tb_config of unit 0, indexes, cross-rank links;
// .trend.db parts: see trend/trend_gather.h). Written under a temporary name, renamed when complete.
Result<std::string> GatherParts(const std::vector<std::string>& parts, const std::string& out_dir, Reporter& rep);

}  // namespace visprobe
