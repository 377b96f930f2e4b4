#include "compare/checkers.h"

#include <algorithm>
#include <cmath>

namespace visprobe {
namespace compare_detail {
namespace {

void Set(Row& r, int level, const char* msg) {
  r.result = std::max(r.result, level);
  r.msgs.emplace_back(msg);
}

// A cell as minmax() counts it: null, "Nan", "N/A" and other texts are skipped; "x%" -> pct.
bool MinMaxValue(const Cell& c, double* v) {
  if (c.kind == CmpValue::kString) {
    if (std::string_view(c.s) == "Nan" || std::string_view(c.s) == "N/A" || c.s.empty() || c.s.back() != '%') return false;
    *v = Pct(c);
    return true;
  }
  if (c.kind == CmpValue::kBool) {
    *v = c.b ? 1 : 0;
    return true;
  }
  if (IsNumber(c)) {
    *v = AsDouble(c);
    return true;
  }
  return false;
}

// minmax(field) over rows: start 1.0 (min) / 0.0 (max). Python's min() / max(): a value replaces
// the running one only if it compares smaller / larger, so a NaN never does.
template <typename Get>
double MinMax(const std::vector<Row*>& rows, Get get, bool is_min) {
  double acc = is_min ? 1.0 : 0.0;
  for (Row* r : rows) {
    double v;
    if (!MinMaxValue(get(*r), &v)) continue;
    if (is_min ? v < acc : v > acc) acc = v;
  }
  return acc;
}

// pct() of a row's NormRelativeErr cell (ind[7]).
double NormRelPct(const Row& r) { return r.rel_repr[3] ? r.rel[3] / 100 : Pct(r.ind[7]); }

// max() over the rows' NormRelativeErr cells (MinMax on ind[7]), whose text repr(rel) + "%" is
// not made: it reads back as rel / 100.
double MaxNormRel(const std::vector<Row*>& rows) {
  double acc = 0.0;
  for (Row* r : rows) {
    double v;
    if (r->rel_repr[3])
      v = r->rel[3] / 100;
    else if (!MinMaxValue(r->ind[7], &v))
      continue;
    if (v > acc) acc = v;
  }
  return acc;
}

bool BenchNameMissing(const Row& r) { return r.bench_name.empty() || std::string_view(r.bench_name) == "N/A"; }

enum class Ignore { kNone, kInput, kAll };

// The APIs whose rows are not checked at all (creation of uninitialised tensors, copies), or
// only on their outputs (collectives whose inputs are partial by design).
Ignore IgnoredRows(const CompareSettings& s, const std::vector<Row*>& input) {
  Ignore ig = Ignore::kNone;
  if (input.empty()) return ig;
  std::string api = ApiSegment(input[0]->n->name, s.parallel_merge);
  static const char* kAll[] = {
      "empty",     "empty_like",   "numpy", "to", "__setitem__", "empty_with_format", "new_empty_strided",
      "new_empty", "empty_strided"};
  static const char* kIn[] = {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single", "batch_isend_irecv"};
  for (const char* a : kAll)
    if (api == a) ig = Ignore::kAll;
  for (const char* a : kIn)
    if (api == a) ig = Ignore::kInput;
  return ig;
}

// md5 mode: the CRC-32 values differ (a warning when one side has none).
void CheckMd5(const std::vector<Row*>& checked) {
  for (Row* r : checked) {
    if (PyEqual(r->nmd5, r->bmd5)) continue;
    auto weak = [](const Cell& c) {
      return c.kind == CmpValue::kString && (std::string_view(c.s) == "N/A" || std::string_view(c.s) == "Nan" || c.s.empty());
    };
    if (weak(r->nmd5) || weak(r->bmd5))
      Set(*r, kWarning, "warning: The parameter of NPU does not match the bench.");
    else
      Set(*r, kError, "error: The CRC-32 value of NPU differs from that of the bench.");
  }
}

// 1 InfNan: the target's max or min is not finite while the golden's are.
void CheckInfNan(const std::vector<Row*>& checked) {
  for (Row* r : checked) {
    if (IsBad(r->bstat[0]) || IsBad(r->bstat[1])) continue;
    if (IsBad(r->nstat[0]) || IsBad(r->nstat[1]))
      Set(*r, kError, "error: There is nan/inf/-inf in the maximum or minimum value of NPU.");
  }
}

// 2 RelativeErr (summary): small input errors but an output NormRelativeErr above 0.5;
// 2' OneThousandth (tensor): inputs within one thousandth, the output not.
void CheckOutputError(bool tensor, const std::vector<Row*>& input, const std::vector<Row*>& output) {
  if (!tensor) {
    double m = std::fabs(MaxNormRel(input));
    if (m < 0.1)
      for (Row* r : output)
        if (std::fabs(NormRelPct(*r)) > 0.5) Set(*r, kError, "error: The NormRelativeErr of output is greater than 0.5.");
    return;
  }
  if (output.empty()) return;
  double a = MinMax(
      input, [](const Row& r) -> const Cell& { return r.metric[4]; }, true);
  double z = MinMax(
      output, [](const Row& r) -> const Cell& { return r.metric[4]; }, true);
  if (a > 0.9 && z < 0.1)
    Set(*output[0], kError, "error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.");
}

// 3 RequiresGrad: the two sides' requires_grad differ.
void CheckRequiresGrad(const std::vector<Row*>& checked) {
  for (Row* r : checked) {
    if (BenchNameMissing(*r) || Empty(r->nreq) || Empty(r->breq)) continue;
    if (!PyEqual(r->nreq, r->breq)) Set(*r, kError, "error: The Required_Grad of NPU and Bench are inconsistent");
  }
}

// 5 DType and 6 Shape (not in parallel-merge summary mode): the two sides' dtype or shape differ.
void CheckDtypeAndShape(const CompareSettings& s, const std::vector<Row*>& checked) {
  for (Row* r : checked) {
    if (BenchNameMissing(*r) || std::string_view(r->n->name) == "N/A") continue;
    if (r->bench_name.find("qkv") != std::string::npos || r->bench_name.find("gate_up") != std::string::npos) continue;
    if (Empty(r->ndtype) || Empty(r->bdtype)) continue;
    if (!PyEqual(r->ndtype, r->bdtype)) Set(*r, kError, "error: The dtype of NPU and Bench are inconsistent.");
  }
  if (s.mode == CompareMode::kRealData || !s.parallel_merge) {
    for (Row* r : checked) {
      if (BenchNameMissing(*r)) continue;
      if (r->nshape.kind == CmpValue::kNull || r->bshape.kind == CmpValue::kNull) continue;
      if (!PyEqual(r->nshape, r->bshape)) Set(*r, kError, "error: The shape of NPU and Bench are inconsistent.");
    }
  }
}

// 4 Parameters: a scalar argument (a Python class, shape []) of different values.
void CheckScalarParameters(const std::vector<Row*>& input) {
  for (Row* r : input) {
    if (BenchNameMissing(*r)) continue;
    auto has_class = [](const Cell& c) { return !Empty(c) && PyStr(c).find("class") != std::string::npos; };
    if (!has_class(r->ndtype) || !has_class(r->bdtype)) continue;
    if (PyStr(r->nshape) != "[]") continue;
    if (!PyEqual(r->nstat[0], r->bstat[0])) Set(*r, kError, "error: The scalar parameters of NPU and Bench are inconsistent.");
  }
}

// 7 RelativeWarn (summary): the output's norm relative error ten times the input's;
// 7' CosineWarn (tensor): the cosine drops by more than 0.1 from the inputs to the output.
void WarnOutputDrift(bool tensor, const std::vector<Row*>& input, const std::vector<Row*>& output) {
  if (!tensor) {
    double in = std::fabs(MaxNormRel(input));
    double out = std::fabs(MaxNormRel(output));
    if ((in == 0 && out > 0.1) || (in != 0 && out / in > 10))
      Set(*output[0], kWarning, "warning: The norm relative error of output is 10 times that of input.");
    return;
  }
  double a = MinMax(
      input, [](const Row& r) -> const Cell& { return r.metric[0]; }, true);
  double z = MinMax(
      output, [](const Row& r) -> const Cell& { return r.metric[0]; }, true);
  if (a > 0.9 && a - z > 0.1)
    Set(*output[0], kWarning, "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1");
}

}  // namespace

std::string ApiSegment(std::string_view name, bool strip_rank) {
  size_t a = name.find('.');
  if (a == std::string_view::npos) return std::string();
  size_t b = name.find('.', a + 1);
  std::string seg(name.substr(a + 1, b == std::string_view::npos ? std::string_view::npos : b - a - 1));
  if (strip_rank) {
    size_t k = seg.rfind("_rank");
    if (k != std::string::npos && k + 5 < seg.size() &&
        std::all_of(seg.begin() + static_cast<long>(k + 5), seg.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      seg.resize(k);
  }
  return seg;
}

void RunCheckers(const CompareSettings& s, std::vector<Row>& rows) {
  std::vector<Row*> input, output, all;
  for (Row& r : rows) {
    all.push_back(&r);
    (r.is_output ? output : input).push_back(&r);
  }
  const Ignore ig = IgnoredRows(s, input);
  std::vector<Row*> checked = ig == Ignore::kAll ? std::vector<Row*>() : ig == Ignore::kInput ? output : all;
  if (s.mode == CompareMode::kMd5) {
    CheckMd5(checked);
    return;
  }
  const bool tensor = s.mode == CompareMode::kRealData;
  // The checkers in the reference's order, which is the order of a row's messages.
  CheckInfNan(checked);
  if (ig == Ignore::kNone) CheckOutputError(tensor, input, output);
  CheckRequiresGrad(checked);
  if (ig == Ignore::kNone) CheckScalarParameters(input);
  CheckDtypeAndShape(s, checked);
  if (ig != Ignore::kNone || output.empty()) return;
  WarnOutputDrift(tensor, input, output);
}

}  // namespace compare_detail
}  // namespace visprobe
