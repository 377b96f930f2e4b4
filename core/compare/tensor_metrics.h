// Tensor-mode metrics (spec §9.6): locating the two .npy files of a row, the validation chain,
// and the six metrics Cosine, EucDist, MaxAbsErr, MaxRelativeErr, One Thousandth Err Ratio and
// Five Thousandths Err Ratio, reproducing msProbe's numpy arithmetic (precision rules included).
#pragma once

#include <array>
#include <string>

#include "compare/compare.h"
#include "compare/npy.h"

namespace visprobe {

// One metric: a float or one of the texts below.
struct MetricValue {
  bool is_text = false;
  std::string text;
  double value = 0;

  static MetricValue Number(double v) { return MetricValue{false, std::string(), v}; }
  static MetricValue Text(std::string t) { return MetricValue{true, std::move(t), 0}; }
  bool operator==(const MetricValue& o) const;  // NaN equals NaN (for tests and caching)
};

// Texts a metric can take instead of a number.
inline constexpr const char* kMetricUnsupported = "unsupported";
inline constexpr const char* kMetricShapeUnmatched = "shape unmatched";
inline constexpr const char* kMetricNA = "N/A";
inline constexpr const char* kMetricNan = "Nan";

// Python str() of the value as msProbe outputs it: pyrepr of the float, or the text.
void AppendMetric(std::string& out, const MetricValue& v);
std::string MetricString(const MetricValue& v);

enum TensorMetric : int {
  kCosine = 0,
  kEucDist,
  kMaxAbsErr,
  kMaxRelativeErr,
  kOneThousandthErrRatio,
  kFiveThousandthsErrRatio,
  kTensorMetricCount
};
// Column / item field names, in TensorMetric order: "Cosine", "EucDist", "MaxAbsErr",
// "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio".
extern const char* const kTensorMetricNames[kTensorMetricCount];

struct TensorMetrics {
  std::array<MetricValue, kTensorMetricCount> values;
  // msProbe's message for the row (informational, only logged with -tensor_log, §9.6.7).
  std::string message;
  // True for the §9.6.1 rows "NPU/Bench does not have data file" and "Bench api/module
  // unmatched", which msProbe logs in the short form (TensorCompareLogLine).
  bool no_data = false;
  // Why a file could not be used (path check or parse error) for the "read failed" row; not part
  // of msProbe's output, for diagnostics only.
  std::string read_error;

  const MetricValue& operator[](TensorMetric m) const { return values[m]; }
};

// §9.6.2-§9.6.5 on two loaded (squeezed) arrays.
TensorMetrics CompareTensors(const NpyArray& npu, const NpyArray& bench);

// Reads one tensor file, .pt (torch.save) or .npy by its suffix, after msProbe's path checks.
Result<NpyArray> LoadTensorFile(const std::string& path);

// §9.6.1: the row's two data names (item `data_name`, "-1" when absent, "N/A" for an unmatched
// side) and the `dump_tensor_data` folders; reads both files (path checks of §16.3 with the
// suffix .pt or .npy; an unreadable file gives the "read failed" row) and compares them.
TensorMetrics CompareTensorFiles(const std::string& npu_dir, const std::string& npu_data_name, const std::string& bench_dir,
                                 const std::string& bench_data_name);

// The -tensor_log line logged after "start compare: <npu_name>" (§9.6.7), without the log prefix:
//   [<name>] Compare result: <message>                               (no_data rows; note the trailing blank)
//   [<name>] Compare result: cosine <c>, euc_dist <e>, max_abs_err <a>, max_relative_err <r>,
//            one_thousand_err_ratio <o>, five_thousand_err_ratio <f>, <message>   (one line)
Message TensorCompareLogLine(const std::string& npu_name, const TensorMetrics& m);

// §9.6: the six metrics of a row from the two sides' .npy files in <rank folder>/dump_tensor_data,
// as compare cells. With `log_info`, each comparison logs "start compare: <name>" and its line.
using TensorLogFn = std::function<void(const Message&)>;
TensorMetricsFn TensorMetricsFor(const std::string& target_rank_dir, const std::string& golden_rank_dir, TensorLogFn log_info);
// The same over the two dump_tensor_data folders themselves (manual matching: tb_nodes.dump_data_dir).
TensorMetricsFn TensorMetricsInDirs(const std::string& npu_data_dir, const std::string& bench_data_dir, TensorLogFn log_info);

}  // namespace visprobe
