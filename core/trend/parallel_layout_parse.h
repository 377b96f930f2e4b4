// The browser's parallel config (trend spec §11): a JSON object read into a ParallelConfig, with
// its type errors reported where §11.2 puts them.
#pragma once

#include <string_view>

#include "base/status.h"
#include "trend/parallel_layout.h"

namespace visprobe {

// The browser's config: a JSON object with the ParallelConfig member names. Integers must be
// JSON integers (true or 8.5 give "<name> must be a positive integer"), null means the default
// for the optional members, standalone_embedding_stage must be a JSON boolean. Errors keep the
// order of §11.2.
Result<ParallelConfig> ParallelConfigFromJson(std::string_view json);

}  // namespace visprobe
