// Manual matching in the viewer (web-ui MAT-03/MAT-04): re-compares two nodes from the item texts a
// .vis.db stores (§12 formatting), so the page gets the same rows the engine writes.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "compare/compare.h"

namespace visprobe {

struct ManualCompareResult {
  double precision_index = -1;   // -1: no rows (NULL)
  std::string input_data, output_data;   // the target's items with fresh comparison fields
};

// `mode` is tb_config.task (summary / md5 / all / structure). Tensor mode needs the .npy files and
// is refused ("Tensor files required for real-data matching").
Result<ManualCompareResult> CompareStoredItems(const std::string& mode, std::string_view target_name,
                                               std::string_view target_input, std::string_view target_output,
                                               std::string_view bench_input, std::string_view bench_output);

// The item texts with every comparison field removed (unmatch, MAT-04).
Result<std::string> StripComparisonFields(std::string_view items_json);

}  // namespace visprobe
