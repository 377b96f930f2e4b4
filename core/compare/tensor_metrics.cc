#include "compare/tensor_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/fs.h"
#include "base/pyfmt.h"
#include "compare/torch_pt.h"

namespace visprobe {

const char* const kTensorMetricNames[kTensorMetricCount] = {
    "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio"};

bool MetricValue::operator==(const MetricValue& o) const {
  if (is_text != o.is_text) return false;
  if (is_text) return text == o.text;
  return value == o.value || (std::isnan(value) && std::isnan(o.value));
}

void AppendMetric(std::string& out, const MetricValue& v) {
  if (v.is_text)
    out += v.text;
  else
    AppendPyFloat(out, v.value);
}

std::string MetricString(const MetricValue& v) {
  std::string s;
  AppendMetric(s, v);
  return s;
}

namespace {

constexpr double kFloat64Eps = 2.220446049250313e-16;  // np.finfo(float64).eps, also the cosine zero test
constexpr double kCosineThreshold = 0.9999;
constexpr double kThousandthThreshold = 0.001;
constexpr double kFiveThousandthsThreshold = 0.005;

const char* const kMsgEmpty = "This is empty data, can not compare.";
const char* const kMsgShape = "Shape of NPU and bench tensor do not match. Skipped.";
const char* const kMsgScalar =
    "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and "
    "'Five Thousandths Err Ratio'. ";
const char* const kMsgNanInf = "The position of inf or nan in NPU and bench Tensor do not match.";
const char* const kMsgDtype = "Dtype of NPU and bench tensor do not match.";

// msProbe's format_value: float('%.12f' % x).
double FormatValue(double x) { return RoundDecimals(x, 12); }

TensorMetrics AllText(const char* text, std::string message) {
  TensorMetrics m;
  m.values.fill(MetricValue::Text(text));
  m.message = std::move(message);
  return m;
}

// The four sums of Cosine and EucDist: x.y, x.x, y.y and (x-y).(x-y).
struct Sums4 {
  double xy = 0, xx = 0, yy = 0, dd = 0;
};

// ---- relative error (§9.6.3) -----------------------------------------------------------------

struct RelStats {
  double max = 0;  // max(|rel|) in precision T, widened; NaN when any element is NaN
  uint64_t below_thousandth = 0;
  uint64_t below_five_thousandths = 0;
  uint64_t size = 0;
};

// rel = |(n'' - b'') / b''| elementwise in precision T (float or double), where n'' and b'' get
// eps(T) added at the positions where the golden value is 0. The array is never materialised:
// only its max and the two threshold counts are needed, accumulated a range at a time. The
// thresholds are Python floats compared with a T array, so numpy casts them to T (float32(0.001)
// for float32 data).
template <class T>
struct RelAcc {
  // r = |...| is never negative, so the order of its bits as unsigned integers is the order of the
  // values, and a NaN (sign cleared by fabs) is above +inf. The maximum is kept as bits: an integer
  // maximum, which the compiler vectorizes (a float one it may not, for NaN's sake), and a NaN shows
  // as bits above +inf. NaN fails the threshold comparisons, so it is never counted.
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  Bits max_bits = 0;
  uint64_t below1 = 0, below5 = 0, size = 0;

  void Add(const double* n, const double* b, size_t count) {
    const T eps = std::numeric_limits<T>::epsilon();
    const T t1 = static_cast<T>(kThousandthThreshold), t5 = static_cast<T>(kFiveThousandthsThreshold);
    size += count;
    Bits mb = max_bits;
    while (count > 0) {
      const size_t len = std::min<size_t>(count, 1u << 16);  // the counts fit in Bits
      Bits c1 = 0, c5 = 0;
      for (size_t i = 0; i < len; ++i) {
        const T adj = b[i] == 0 ? eps : T(0);  // adding 0 leaves a value unchanged
        const T nv = static_cast<T>(n[i]) + adj, bv = static_cast<T>(b[i]) + adj;
        const T r = std::fabs((nv - bv) / bv);
        Bits bits;
        std::memcpy(&bits, &r, sizeof(T));
        mb = bits > mb ? bits : mb;
        c1 += r < t1;
        c5 += r < t5;
      }
      below1 += c1;
      below5 += c5;
      n += len;
      b += len;
      count -= len;
    }
    max_bits = mb;
  }
  RelStats Stats() const {
    RelStats s;
    s.size = size;
    s.below_thousandth = below1;
    s.below_five_thousandths = below5;
    const T inf = std::numeric_limits<T>::infinity();
    Bits inf_bits;
    std::memcpy(&inf_bits, &inf, sizeof(T));
    T m;
    std::memcpy(&m, &max_bits, sizeof(T));
    s.max = max_bits > inf_bits ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(m);
    return s;
  }
};

template <class T>
RelStats RelativeError(const double* n, const double* b, size_t size) {
  RelAcc<T> acc;
  acc.Add(n, b, size);
  return acc.Stats();
}

// Whether relative errors are computed in float: non-float inputs are converted to float64 first,
// so T = result_type(n', b', float32) is float32 exactly when both arrays are float16/float32.
bool RelInFloat(const NpyArray& npu, const NpyArray& bench) {
  return npu.dtype.is_float() && npu.dtype.size <= 4 && bench.dtype.is_float() && bench.dtype.size <= 4;
}

RelStats RelativeError(const NpyArray& npu, const double* n, const NpyArray& bench, const double* b, size_t size) {
  return RelInFloat(npu, bench) ? RelativeError<float>(n, b, size) : RelativeError<double>(n, b, size);
}

MetricValue MaxRelativeErr(const RelStats& rel, std::string& msg) {
  if (std::isnan(rel.max)) {
    msg += "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.";
    return MetricValue::Text(kMetricNan);
  }
  return MetricValue::Number(FormatValue(rel.max));
}

MetricValue ErrRatio(const RelStats& rel, uint64_t below) {
  if (rel.size == 0) return MetricValue::Text(kMetricNan);
  return MetricValue::Number(FormatValue(static_cast<double>(below) / static_cast<double>(rel.size)));
}

MetricValue MaxAbsErrValue(double max_abs, std::string& msg) {
  if (std::isnan(max_abs)) {
    msg += "Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data.";
    return MetricValue::Text(kMetricNan);
  }
  return MetricValue::Number(FormatValue(max_abs));
}

// ---- 0-d MaxAbsErr: numpy arithmetic in the promoted dtype ------------------------------------

// numpy's type promotion for two array dtypes (np.result_type), byte order ignored.
NpyDtype Promote(const NpyDtype& a, const NpyDtype& b) {
  auto make = [](char kind, int size) {
    NpyDtype d;
    d.kind = kind;
    d.size = size;
    d.order = size == 1 ? '|' : '<';
    return d;
  };
  if (a.kind == b.kind && a.size == b.size) return make(a.kind, a.size);
  if (a.kind == 'b') return make(b.kind, b.size);
  if (b.kind == 'b') return make(a.kind, a.size);
  if (a.kind == 'f' && b.kind == 'f') return make('f', std::max(a.size, b.size));
  if (a.kind == 'f' || b.kind == 'f') {
    const NpyDtype& f = a.kind == 'f' ? a : b;
    const NpyDtype& i = a.kind == 'f' ? b : a;
    int need = i.size == 1 ? 2 : i.size == 2 ? 4 : 8;  // smallest float holding every value
    return make('f', std::max(f.size, need));
  }
  if (a.kind == b.kind) return make(a.kind, std::max(a.size, b.size));
  const NpyDtype& s = a.kind == 'i' ? a : b;
  const NpyDtype& u = a.kind == 'i' ? b : a;
  if (s.size > u.size) return make('i', s.size);
  if (u.size == 8) return make('f', 8);  // int64 with uint64 -> float64
  return make('i', std::max(s.size, 2 * u.size));
}

// Truncates to `size` bytes and sign-extends for signed kinds (C integer wrap-around).
int64_t Wrap(uint64_t v, int size, bool is_signed) {
  if (size < 8) {
    uint64_t mask = (uint64_t{1} << (size * 8)) - 1;
    v &= mask;
    if (is_signed && (v >> (size * 8 - 1)) != 0) v |= ~mask;
  }
  return static_cast<int64_t>(v);
}

// max(abs(n - b)) of two 0-d arrays, computed like numpy: a bool NPU array is converted (with the
// golden one) to float64 first (§9.6.4); otherwise the subtraction happens in the promoted dtype,
// integers wrapping around and float16 going through float32 as numpy's half loops do.
double ScalarMaxAbsErr(const NpyArray& npu, const NpyArray& bench) {
  const double n = npu.data[0], b = bench.data[0];
  if (npu.dtype.kind == 'b') return std::fabs(n - b);
  NpyDtype t = Promote(npu.dtype, bench.dtype);
  if (t.kind == 'f') {
    if (t.size == 8) return std::fabs(n - b);
    float d = static_cast<float>(n) - static_cast<float>(b);
    if (t.size == 4) return std::fabs(static_cast<double>(d));
    return std::fabs(RoundToHalf(static_cast<double>(d)));
  }
  bool is_signed = t.kind == 'i';
  int64_t d = Wrap(npu.scalar_bits - bench.scalar_bits, t.size, is_signed);
  if (!is_signed) return static_cast<double>(static_cast<uint64_t>(d));
  if (d < 0) d = Wrap(uint64_t{0} - static_cast<uint64_t>(d), t.size, true);  // abs(INT_MIN) stays INT_MIN
  return static_cast<double>(d);
}

TensorMetrics CompareScalars(const NpyArray& npu, const NpyArray& bench) {
  TensorMetrics m;
  m.message = kMsgScalar;
  std::string msgs;
  m.values[kCosine] = MetricValue::Text(kMetricUnsupported);
  m.values[kEucDist] = MetricValue::Text(kMetricUnsupported);
  m.values[kMaxAbsErr] = MaxAbsErrValue(ScalarMaxAbsErr(npu, bench), msgs);
  RelStats rel = RelativeError(npu, npu.data.data(), bench, bench.data.data(), 1);
  m.values[kMaxRelativeErr] = MaxRelativeErr(rel, msgs);
  m.values[kOneThousandthErrRatio] = MetricValue::Text(kMetricUnsupported);
  m.values[kFiveThousandthsErrRatio] = MetricValue::Text(kMetricUnsupported);
  m.message += msgs;
  return m;
}

MetricValue Cosine(const Sums4& sums, size_t size, std::string& msg) {
  if (size == 1) {
    msg += "This is a 1-d tensor of length 1.";
    return MetricValue::Text(kMetricUnsupported);
  }
  double num = sums.xy;
  double na = std::sqrt(sums.xx);
  double nb = std::sqrt(sums.yy);
  if (na <= kFloat64Eps && nb <= kFloat64Eps) return MetricValue::Number(1.0);
  if (na <= kFloat64Eps) {
    msg += "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.";
    return MetricValue::Text(kMetricNan);
  }
  if (nb <= kFloat64Eps) {
    msg += "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.";
    return MetricValue::Text(kMetricNan);
  }
  double c = num / (na * nb);
  if (std::isnan(c)) {
    msg += "Cannot compare by Cosine Similarity, the dump data has NaN.";
    return MetricValue::Text(kMetricNan);
  }
  c = FormatValue(c);
  if (c > kCosineThreshold) c = RoundDecimals(c, 6);  // msProbe's correct_data: round(c, 6)
  return MetricValue::Number(c);
}

// One pass over two finite arrays for all six metrics. The four sums are added in the order of
// the reference BLAS ddot, which numpy's dot and linalg.norm call for float64 vectors (msProbe:
// Cosine = x.dot(y) / (norm(x) norm(y)), EucDist = norm(x - y, ord=2) = sqrt(d.dot(d)); Debian's
// numpy links libblas.so.3, netlib's reference BLAS): the first n % 5 products one by one, then
// each group of five products added left to right to the running sum. The maximum of |x - y|
// and the relative errors are taken over each block while it is in cache.
template <class T>
struct OnePass {
  Sums4 sums;
  uint64_t max_abs_bits = 0;  // of a non-negative double
  RelAcc<T> rel;

  void Head(const double* x, const double* y, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      const double a = x[i], b = y[i], d = a - b;
      sums.xy += a * b;
      sums.xx += a * a;
      sums.yy += b * b;
      sums.dd += d * d;
    }
    Maxima(x, y, n);
  }
  // n is a multiple of 5.
  void Fives(const double* x, const double* y, size_t n) {
    Sums4 s = sums;
    for (size_t i = 0; i < n; i += 5) {
      const double* a = x + i;
      const double* b = y + i;
      const double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2], d3 = a[3] - b[3], d4 = a[4] - b[4];
      s.xy = s.xy + a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4];
      s.xx = s.xx + a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + a[3] * a[3] + a[4] * a[4];
      s.yy = s.yy + b[0] * b[0] + b[1] * b[1] + b[2] * b[2] + b[3] * b[3] + b[4] * b[4];
      s.dd = s.dd + d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4;
    }
    sums = s;
    Maxima(x, y, n);
  }
  void Maxima(const double* x, const double* y, size_t n) {
    // x and y are finite here (non-finite values were zeroed or refused), so |x - y| is never NaN;
    // as in RelAcc, its maximum is kept as bits.
    uint64_t mb = max_abs_bits;
    for (size_t k = 0; k < n; ++k) {
      const double d = std::fabs(x[k] - y[k]);
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      mb = bits > mb ? bits : mb;
    }
    max_abs_bits = mb;
    rel.Add(x, y, n);
  }
};

struct PassResult {
  Sums4 sums;
  double max_abs = 0;
  RelStats rel;
};

template <class T>
PassResult RunOnePass(const double* x, const double* y, size_t size) {
  constexpr size_t kBlock = 5 * 800;  // a multiple of five, 64 KiB of the two arrays
  OnePass<T> pass;
  const size_t head = size % 5;
  pass.Head(x, y, head);
  for (size_t b = head; b < size; b += kBlock) {
    const size_t n = std::min(kBlock, size - b);
    pass.Fives(x + b, y + b, n);
  }
  PassResult r;
  r.sums = pass.sums;
  std::memcpy(&r.max_abs, &pass.max_abs_bits, 8);
  r.rel = pass.rel.Stats();
  return r;
}

// Whether any element of either array is NaN or +-inf (an exponent of all ones), without a branch
// per element.
bool AnyNonFinite(const double* x, const double* y, size_t size) {
  constexpr uint64_t kExp = 0x7ff0000000000000ULL;
  uint64_t bad = 0;
  for (size_t i = 0; i < size; ++i) {
    uint64_t a, b;
    std::memcpy(&a, x + i, 8);
    std::memcpy(&b, y + i, 8);
    bad |= static_cast<uint64_t>((a & kExp) == kExp) | static_cast<uint64_t>((b & kExp) == kExp);
  }
  return bad != 0;
}

}  // namespace

TensorMetrics CompareTensors(const NpyArray& npu, const NpyArray& bench) {
  // §9.6.2 validation chain: the first step that sets a message decides.
  if (npu.size() == 0) return AllText(kMetricUnsupported, kMsgEmpty);
  if (npu.shape != bench.shape) return AllText(kMetricShapeUnmatched, kMsgShape);
  if (npu.is_scalar()) return CompareScalars(npu, bench);  // no NaN/inf handling for 0-d

  const size_t size = npu.data.size();
  const double* x = npu.data.data();
  const double* y = bench.data.data();
  // NaN/inf at identical positions (same NaN mask and same inf mask) are set to 0 on both sides;
  // anything else makes all six metrics N/A. Copies are made only when there is something to zero.
  // ReadNpy has seen whether its elements are finite; arrays made otherwise are scanned here.
  std::vector<double> xz, yz;
  if (!(npu.all_finite && bench.all_finite) && AnyNonFinite(x, y, size)) {
    for (size_t i = 0; i < size; ++i)
      if (std::isnan(x[i]) != std::isnan(y[i]) || std::isinf(x[i]) != std::isinf(y[i])) return AllText(kMetricNA, kMsgNanInf);
    xz.assign(x, x + size);
    yz.assign(y, y + size);
    for (size_t i = 0; i < size; ++i)
      if (!std::isfinite(xz[i])) xz[i] = yz[i] = 0;
    x = xz.data();
    y = yz.data();
  }

  TensorMetrics m;
  if (npu.dtype != bench.dtype) m.message = kMsgDtype;  // informational; computed anyway
  std::string msgs;
  // After flattening both are float64 (§9.6.4); the relative error keeps precision T (§9.6.3).
  PassResult pass = RelInFloat(npu, bench) ? RunOnePass<float>(x, y, size) : RunOnePass<double>(x, y, size);
  m.values[kCosine] = Cosine(pass.sums, size, msgs);
  m.values[kEucDist] = MetricValue::Number(std::sqrt(pass.sums.dd));
  m.values[kMaxAbsErr] = MaxAbsErrValue(pass.max_abs, msgs);
  const RelStats& rel = pass.rel;
  m.values[kMaxRelativeErr] = MaxRelativeErr(rel, msgs);
  m.values[kOneThousandthErrRatio] = ErrRatio(rel, rel.below_thousandth);
  m.values[kFiveThousandthsErrRatio] = ErrRatio(rel, rel.below_five_thousandths);
  m.message += msgs;
  return m;
}

Result<NpyArray> LoadTensorFile(const std::string& path) {
  // msProbe picks the reader by framework: PyTorch dumps hold .pt files, MindSpore dumps .npy.
  const bool pt = path.size() >= 3 && path.compare(path.size() - 3, 3, ".pt") == 0;
  RETURN_IF_ERROR(CheckPath(path, PathKind::kFile, PathAccess::kRead, pt ? ".pt" : ".npy"));
  return pt ? ReadPt(path) : ReadNpy(path);
}

TensorMetrics CompareTensorFiles(const std::string& npu_dir, const std::string& npu_data_name, const std::string& bench_dir,
                                 const std::string& bench_data_name) {
  // §9.6.1, in msProbe's order.
  TensorMetrics m;
  if (npu_data_name == "-1")
    m = AllText(kMetricUnsupported, "NPU does not have data file.");
  else if (bench_data_name == "-1")
    m = AllText(kMetricUnsupported, "Bench does not have data file.");
  else if ((npu_data_name == "N/A") != (bench_data_name == "N/A"))
    m = AllText(kMetricUnsupported, "Bench api/module unmatched.");
  if (!m.message.empty()) {
    m.no_data = true;
    return m;
  }

  Result<NpyArray> npu = LoadTensorFile(JoinPath(npu_dir, npu_data_name));
  std::string error;
  if (npu.ok()) {
    Result<NpyArray> bench = LoadTensorFile(JoinPath(bench_dir, bench_data_name));
    if (bench.ok()) return CompareTensors(*npu, *bench);
    error = bench.status().message();
  } else {
    error = npu.status().message();
  }
  // The reference aborts on a corrupt file; the engine reports the row as unreadable (§19.3).
  m = AllText(kMetricUnsupported, "Dump file: " + npu_data_name + " or " + bench_data_name + " not found or read failed.");
  m.read_error = std::move(error);
  return m;
}

Message TensorCompareLogLine(const std::string& npu_name, const TensorMetrics& m) {
  if (m.no_data) return Msg<msg::kTensorCompareResult>(npu_name, m.message + " ");
  std::string s;
  static const char* const kLogNames[kTensorMetricCount] = {
      "cosine", "euc_dist", "max_abs_err", "max_relative_err", "one_thousand_err_ratio", "five_thousand_err_ratio"};
  for (int i = 0; i < kTensorMetricCount; ++i) {
    s += kLogNames[i];
    s += ' ';
    AppendMetric(s, m.values[i]);
    s += ", ";
  }
  return Msg<msg::kTensorCompareResult>(npu_name, s + m.message);
}

TensorMetricsFn TensorMetricsFor(const std::string& target_rank_dir, const std::string& golden_rank_dir, TensorLogFn log_info) {
  return TensorMetricsInDirs(JoinPath(target_rank_dir, "dump_tensor_data"), JoinPath(golden_rank_dir, "dump_tensor_data"),
                             std::move(log_info));
}

TensorMetricsFn TensorMetricsInDirs(const std::string& nd, const std::string& bd, TensorLogFn log_info) {
  return [nd, bd, log_info](const CmpItem& n, const CmpItem* b) {
    TensorMetrics m = CompareTensorFiles(nd, n.data_name, bd, b ? b->data_name : std::string("-1"));
    if (log_info) {
      log_info(Msg<msg::kTensorStartCompare>(n.name));
      log_info(TensorCompareLogLine(n.name, m));
    }
    std::array<Cell, 6> out;
    for (size_t k = 0; k < 6; ++k) {
      const MetricValue& v = m.values[k];
      if (v.is_text) {
        out[k].kind = CmpValue::kString;
        out[k].s = v.text;
      } else {
        out[k].kind = CmpValue::kFloat;
        out[k].d = v.value;
      }
    }
    return out;
  };
}

}  // namespace visprobe
