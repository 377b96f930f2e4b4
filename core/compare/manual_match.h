// Manual matching in the viewer (web-ui MAT-03/MAT-04): re-compares two nodes from the item texts a
// .vis.db stores (§12 formatting), so the page gets the same rows the engine writes.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "compare/compare.h"

namespace visprobe {

struct ManualCompareResult {
  double precision_index = -1;  // -1: no rows (NULL)
  std::string input_data, output_data;  // the target's items with fresh comparison fields
};

// The two nodes' dump_tensor_data folders as readable here (tensor mode).
struct TensorDataDirs {
  std::string npu, bench;
};

// `mode` is tb_config.task (summary / md5 / all / structure). Tensor mode ("all") reads the pair's
// tensor files (.pt or .npy) from `dirs`, item by item in order as msProbe's plugin pairs them
// (MatchedNodeCalculator), and gives the metrics, Result and precision the engine writes for a
// compared pair; without the folders it is refused ("Tensor files required for real-data matching").
Result<ManualCompareResult> CompareStoredItems(const std::string& mode, std::string_view target_name,
                                               std::string_view target_input, std::string_view target_output,
                                               std::string_view bench_input, std::string_view bench_output,
                                               const TensorDataDirs& dirs = {});

// Where a node's tensor files are on this machine: `stored` is tb_nodes.dump_data_dir (a path on the
// machine that built the database), `root` the folder given for that side. The longest tail of
// `stored` that is a folder under `root` holding `probe` (one of the node's data names) is it, else
// `root` itself when it holds `probe`. An error names what was looked for.
Result<std::string> LocateTensorDir(const std::string& stored, const std::string& root, const std::string& probe);

// The item texts with every comparison field removed (unmatch, MAT-04).
Result<std::string> StripComparisonFields(std::string_view items_json);

}  // namespace visprobe
