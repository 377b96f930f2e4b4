// Pieces shared by parallel_layout.cc and parallel_layout_parse.cc. Internal to core/trend.
#pragma once

#include "base/status.h"
#include "trend/parallel_layout.h"

namespace visprobe {
namespace trend_detail {

// Steps 1-3 of §11.2 (parallel_layout.cc): the first failing check of the scalars, or Ok.
Status CheckScalars(const ParallelConfig& c);

}  // namespace trend_detail
}  // namespace visprobe
