// data2db's monitor importer (trend-analyzer.md §2.3-§8): monitor CSV folders
// (<time>-rank<r>-<id>/*.csv) into monitor_data.trend.db.
#pragma once

#include "base/reporter.h"
#include "base/status.h"
#include "trend/trend_import.h"

namespace visprobe {

Result<TrendImportResult> ImportMonitorTrend(const TrendOptions& opts, Reporter& rep);

}  // namespace visprobe
