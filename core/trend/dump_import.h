// data2db's dump importer (trend-analyzer.md §2.2-§8): msProbe dump folders (step*/rank*/dump.json)
// into dump_data.trend.db; with the name mapping (§4.2) and the run plan both importers use.
#pragma once

#include <cstddef>
#include <string>

#include "base/reporter.h"
#include "base/status.h"
#include "db/run_plan.h"
#include "trend/trend_import.h"

namespace visprobe {

// §4.2: a JSON object of strings, in file order; "Load json file <path> failed. ..." otherwise.
Result<NameMapping> LoadNameMapping(const std::string& path);
std::string ApplyNameMapping(const NameMapping& m, std::string name);

Result<TrendImportResult> ImportDumpTrend(const TrendOptions& opts, Reporter& rep);

// The plan of a data2db run (db/run_plan.h): its units are rank folders (dump: step*/rank*, in scan
// order; monitor: rank folders), described by `units`; the first `targets_pre` target ids are the
// same in every part of a sharded run.
RunPlan TrendRunPlan(const std::string& format, const TrendOptions& opts, const std::string& units, size_t unit_count,
                     size_t targets_pre);

}  // namespace visprobe
