// Comparison of two matched nodes (spec §9): item pairing, rows, statistics / md5 / tensor
// indicators, the checkers that decide Result and Err_message, the precision index; plus the
// tb_config texts of a compare run (tool tips §13.5, colours §9.9).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "graph/graph.h"

namespace visprobe {

enum class CompareMode { kSummary, kMd5, kRealData, kStructure };
// tb_config.task: summary / md5 / all / structure.
const char* CompareTask(CompareMode m);

// §9.1: the compare mode of a pair of dumps (from their task, data and md5 markers).
Result<CompareMode> DetectCompareMode(const Graph& npu, const Graph& bench);

// One printed value of a row (§9.3): a number or a string, printed with §12's rules.
using Cell = CmpValue;

// The six tensor metrics of a row (§9.6), for the given data names of the two sides.
using TensorMetricsFn = std::function<std::array<Cell, 6>(const CmpItem& npu, const CmpItem* bench)>;

struct CompareSettings {
  CompareMode mode = CompareMode::kSummary;
  bool parallel_merge = false;
  TensorMetricsFn tensor_metrics;  // required in kRealData
};

// Comparison fields to append to the target's items, parallel to NodeItems::inputs / outputs
// (empty string: nothing to append). Each text starts with ", ".
struct NodeComparison {
  std::vector<std::string> input_extra, output_extra;
  double precision_index = -1;  // -1: no rows, NULL in the database
};

// Compares the target node `name` (items with captured values) with the golden node's captured
// items. Thread-safe (pure).
NodeComparison CompareNode(const CompareSettings& s, std::string_view name, const NodeItems& npu,
                           const std::vector<CmpItem>& bench);

// §9.7: the ignored-API override of the precision index, by node name.
double OverridePrecision(CompareMode m, std::string_view name, double index);

}  // namespace visprobe
