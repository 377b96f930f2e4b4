#include "compare/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "base/pyfmt.h"
#include "graph/items.h"

namespace visprobe {

const char* CompareTask(CompareMode m) {
  switch (m) {
    case CompareMode::kSummary: return "summary";
    case CompareMode::kMd5: return "md5";
    case CompareMode::kRealData: return "all";
    case CompareMode::kStructure: return "structure";
  }
  return "summary";
}

namespace {

enum Level { kPass = 0, kWarning = 1, kError = 2 };
const char* LevelName(int l) { return l == kError ? "error" : l == kWarning ? "warning" : "pass"; }

Cell Str(std::string s) { Cell c; c.kind = CmpValue::kString; c.s = std::move(s); return c; }
Cell Flt(double d) { Cell c; c.kind = CmpValue::kFloat; c.d = d; return c; }
Cell Int(int64_t i) { Cell c; c.kind = CmpValue::kInt; c.i = i; return c; }

bool IsNumber(const Cell& c) { return c.kind == CmpValue::kInt || c.kind == CmpValue::kFloat; }
double AsDouble(const Cell& c) { return c.kind == CmpValue::kInt ? static_cast<double>(c.i) : c.d; }

// Python str() of a cell.
std::string PyStr(const Cell& c) {
  switch (c.kind) {
    case CmpValue::kNull: return "None";
    case CmpValue::kBool: return c.b ? "True" : "False";
    case CmpValue::kInt: return std::to_string(c.i);
    case CmpValue::kFloat: return PyFloat(c.d);
    case CmpValue::kString: return c.s;
    case CmpValue::kJson: return c.s;
  }
  return "";
}

// Python ==, as the checkers use it: numbers by value (booleans as 0/1), strings by content.
bool PyEqual(const Cell& a, const Cell& b) {
  auto numeric = [](const Cell& c) { return IsNumber(c) || c.kind == CmpValue::kBool; };
  auto value = [](const Cell& c) { return c.kind == CmpValue::kBool ? (c.b ? 1.0 : 0.0) : AsDouble(c); };
  if (numeric(a) && numeric(b)) {
    if (a.kind == CmpValue::kInt && b.kind == CmpValue::kInt) return a.i == b.i;
    return value(a) == value(b);
  }
  if (a.kind != b.kind) return false;
  if (a.kind == CmpValue::kNull) return true;
  return a.s == b.s;
}

bool Empty(const Cell& c) { return c.kind == CmpValue::kNull || (c.kind == CmpValue::kString && c.s.empty()); }

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string Strip(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return std::string();
  size_t e = s.find_last_not_of(" \t\n\r\f\v");
  return s.substr(b, e - b + 1);
}

bool IsBad(const Cell& c) {
  if (c.kind == CmpValue::kFloat) return !std::isfinite(c.d);
  if (c.kind != CmpValue::kString) return false;
  std::string s = Lower(Strip(c.s));
  return s == "inf" || s == "-inf" || s == "nan";
}

// Python float() of a string: blanks, nan, inf, infinity in any case.
bool PyParseFloat(const std::string& text, double* out) {
  std::string s = Lower(Strip(text));
  if (s.empty()) return false;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  std::string body = s.substr(i);
  double sign = (s[0] == '-') ? -1.0 : 1.0;
  if (body == "nan") { *out = std::nan(""); return true; }
  if (body == "inf" || body == "infinity") { *out = sign * INFINITY; return true; }
  for (char ch : body) if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'e' || ch == '+' || ch == '-' || ch == '_')) return false;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (!end || *end != '\0') return false;
  *out = v;
  return true;
}

// pct(v): strip '%' at both ends, float(), / 100; anything else 0.
double Pct(const Cell& c) {
  if (c.kind != CmpValue::kString) return 0;
  std::string s = c.s;
  size_t b = s.find_first_not_of('%');
  if (b == std::string::npos) return 0;
  size_t e = s.find_last_not_of('%');
  s = s.substr(b, e - b + 1);
  double v;
  if (!PyParseFloat(s, &v)) return 0;
  return v / 100;
}

struct Row {
  const CmpItem* n = nullptr;
  const CmpItem* b = nullptr;   // nullptr: an extra target item
  bool is_output = false;
  Cell nstat[4], bstat[4];      // NPU / Bench max, min, mean, l2norm as the row holds them
  Cell ind[8];                  // summary indicators
  Cell metric[6];               // tensor metrics
  Cell nmd5, bmd5;
  Cell nreq, breq, ndtype, bdtype, nshape, bshape;
  std::string bench_name;
  bool req_consistent = false;
  int result = kPass;
  std::vector<std::string> msgs;
};

void Set(Row& r, int level, const char* msg) {
  r.result = std::max(r.result, level);
  r.msgs.emplace_back(msg);
}

// The stat value as the row holds it: null -> "None", NaN -> "Nan".
Cell RowStat(const CmpValue& v) {
  if (v.kind == CmpValue::kNull) return Str("None");
  if (v.kind == CmpValue::kFloat && std::isnan(v.d)) return Str("Nan");
  return v;
}

void SummaryIndicators(Row& r) {
  for (int k = 0; k < 4; ++k) {
    const CmpValue& n = r.n->stats[k];
    const CmpValue& b = r.b->stats[k];
    Cell diff, rel;
    if (IsNumber(n) && IsNumber(b)) {
      double bd = AsDouble(b);
      double dd;
      if (n.kind == CmpValue::kInt && b.kind == CmpValue::kInt) {
        diff = Int(n.i - b.i);
        dd = static_cast<double>(diff.i);
      } else {
        dd = AsDouble(n) - bd;
        diff = Flt(dd);
      }
      if (std::isnan(dd)) {
        diff = Str("Nan");
        rel = Str("Nan");
      } else if (bd != 0) {
        rel = Str(PyFloat(std::fabs((dd / bd) * 100)) + "%");
      } else {
        rel = Str("N/A");
      }
    } else {
      diff = Str("N/A");
      rel = Str("N/A");
    }
    r.ind[k] = diff;
    r.ind[4 + k] = rel;
  }
  // Cells from the first indicator on whose text is inf / -inf / nan get a TAB appended.
  auto tab = [](Cell& c) {
    std::string t = PyStr(c);
    if (c.kind != CmpValue::kString && (t == "inf" || t == "-inf" || t == "nan")) c = Str(t + "\t");
    else if (c.kind == CmpValue::kString && (t == "inf" || t == "-inf" || t == "nan")) c = Str(t + "\t");
  };
  for (auto& c : r.ind) tab(c);
  for (auto& c : r.nstat) tab(c);
  for (auto& c : r.bstat) tab(c);
}

// minmax(field) over rows: start 1.0 (min) / 0.0 (max); skip null, "Nan", "N/A"; "x%" -> pct.
template <typename Get>
double MinMax(const std::vector<Row*>& rows, Get get, bool is_min) {
  double acc = is_min ? 1.0 : 0.0;
  for (Row* r : rows) {
    const Cell& c = get(*r);
    double v;
    if (c.kind == CmpValue::kNull) continue;
    if (c.kind == CmpValue::kString) {
      if (c.s == "Nan" || c.s == "N/A") continue;
      if (c.s.empty() || c.s.back() != '%') continue;
      v = Pct(c);
    } else if (c.kind == CmpValue::kBool) {
      v = c.b ? 1 : 0;
    } else if (IsNumber(c)) {
      v = AsDouble(c);
    } else {
      continue;
    }
    // Python's min() / max(): a value replaces the running one only if it compares smaller /
    // larger, so a NaN never does.
    if (is_min ? v < acc : v > acc) acc = v;
  }
  return acc;
}

bool BenchNameMissing(const Row& r) { return r.bench_name.empty() || r.bench_name == "N/A"; }

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

enum class Ignore { kNone, kInput, kAll };

void RunCheckers(const CompareSettings& s, std::vector<Row>& rows) {
  std::vector<Row*> input, output, all;
  for (Row& r : rows) {
    all.push_back(&r);
    (r.is_output ? output : input).push_back(&r);
  }
  Ignore ig = Ignore::kNone;
  if (!input.empty()) {
    std::string api = ApiSegment(input[0]->n->name, s.parallel_merge);
    static const char* kAll[] = {"empty", "empty_like", "numpy", "to", "__setitem__", "empty_with_format",
                                 "new_empty_strided", "new_empty", "empty_strided"};
    static const char* kIn[] = {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single", "batch_isend_irecv"};
    for (const char* a : kAll) if (api == a) ig = Ignore::kAll;
    for (const char* a : kIn) if (api == a) ig = Ignore::kInput;
  }
  std::vector<Row*> checked = ig == Ignore::kAll ? std::vector<Row*>() : ig == Ignore::kInput ? output : all;

  if (s.mode == CompareMode::kMd5) {
    for (Row* r : checked) {
      if (PyEqual(r->nmd5, r->bmd5)) continue;
      auto weak = [](const Cell& c) { return c.kind == CmpValue::kString && (c.s == "N/A" || c.s == "Nan" || c.s.empty()); };
      if (weak(r->nmd5) || weak(r->bmd5)) Set(*r, kWarning, "warning: The parameter of NPU does not match the bench.");
      else Set(*r, kError, "error: The CRC-32 value of NPU differs from that of the bench.");
    }
    return;
  }
  const bool tensor = s.mode == CompareMode::kRealData;
  // 1 InfNan
  for (Row* r : checked) {
    if (IsBad(r->bstat[0]) || IsBad(r->bstat[1])) continue;
    if (IsBad(r->nstat[0]) || IsBad(r->nstat[1])) Set(*r, kError, "error: There is nan/inf/-inf in the maximum or minimum value of NPU.");
  }
  // 2 RelativeErr (summary) / 2' OneThousandth (tensor)
  if (!tensor) {
    if (ig == Ignore::kNone) {
      double m = std::fabs(MinMax(input, [](const Row& r) -> const Cell& { return r.ind[7]; }, false));
      if (m < 0.1)
        for (Row* r : output)
          if (std::fabs(Pct(r->ind[7])) > 0.5) Set(*r, kError, "error: The NormRelativeErr of output is greater than 0.5.");
    }
  } else if (ig == Ignore::kNone && !output.empty()) {
    double a = MinMax(input, [](const Row& r) -> const Cell& { return r.metric[4]; }, true);
    double z = MinMax(output, [](const Row& r) -> const Cell& { return r.metric[4]; }, true);
    if (a > 0.9 && z < 0.1)
      Set(*output[0], kError, "error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.");
  }
  // 3 RequiresGrad
  for (Row* r : checked) {
    if (BenchNameMissing(*r) || Empty(r->nreq) || Empty(r->breq)) continue;
    if (!PyEqual(r->nreq, r->breq)) Set(*r, kError, "error: The Required_Grad of NPU and Bench are inconsistent");
  }
  // 4 Parameters
  if (ig == Ignore::kNone) {
    for (Row* r : input) {
      if (BenchNameMissing(*r)) continue;
      auto has_class = [](const Cell& c) { return !Empty(c) && PyStr(c).find("class") != std::string::npos; };
      if (!has_class(r->ndtype) || !has_class(r->bdtype)) continue;
      if (PyStr(r->nshape) != "[]") continue;
      if (!PyEqual(r->nstat[0], r->bstat[0])) Set(*r, kError, "error: The scalar parameters of NPU and Bench are inconsistent.");
    }
  }
  // 5 DType
  for (Row* r : checked) {
    if (BenchNameMissing(*r) || r->n->name == "N/A") continue;
    if (r->bench_name.find("qkv") != std::string::npos || r->bench_name.find("gate_up") != std::string::npos) continue;
    if (Empty(r->ndtype) || Empty(r->bdtype)) continue;
    if (!PyEqual(r->ndtype, r->bdtype)) Set(*r, kError, "error: The dtype of NPU and Bench are inconsistent.");
  }
  // 6 Shape (not in parallel-merge summary mode)
  if (tensor || !s.parallel_merge) {
    for (Row* r : checked) {
      if (BenchNameMissing(*r)) continue;
      if (r->nshape.kind == CmpValue::kNull || r->bshape.kind == CmpValue::kNull) continue;
      if (!PyEqual(r->nshape, r->bshape)) Set(*r, kError, "error: The shape of NPU and Bench are inconsistent.");
    }
  }
  // 7 RelativeWarn (summary) / 7' CosineWarn (tensor)
  if (ig != Ignore::kNone || output.empty()) return;
  if (!tensor) {
    double in = std::fabs(MinMax(input, [](const Row& r) -> const Cell& { return r.ind[7]; }, false));
    double out = std::fabs(MinMax(output, [](const Row& r) -> const Cell& { return r.ind[7]; }, false));
    if ((in == 0 && out > 0.1) || (in != 0 && out / in > 10))
      Set(*output[0], kWarning, "warning: The norm relative error of output is 10 times that of input.");
  } else {
    double a = MinMax(input, [](const Row& r) -> const Cell& { return r.metric[0]; }, true);
    double z = MinMax(output, [](const Row& r) -> const Cell& { return r.metric[0]; }, true);
    if (a > 0.9 && a - z > 0.1)
      Set(*output[0], kWarning, "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1");
  }
}

// ", \"<name>\": \"<§12-formatted value>\"".
void AppendField(std::string& out, const char* name, const Cell& v) {
  out += ", ";
  AppendJsonString(out, name);
  out += ": ";
  thread_local std::string text;   // reused: this runs for every field of every compared row
  text.clear();
  switch (v.kind) {
    case CmpValue::kNull: text = "null"; break;
    case CmpValue::kString: AppendFormattedString(text, v.s); break;
    default: text = PyStr(v); break;
  }
  AppendJsonString(out, text);
}

Cell Bool(bool b) { Cell c; c.kind = CmpValue::kBool; c.b = b; return c; }

std::string RowFields(CompareMode mode, const Row& r) {
  std::string out;
  std::string msgs = "[";
  for (size_t i = 0; i < r.msgs.size(); ++i) {
    if (i) msgs += ", ";
    AppendJsonString(msgs, r.msgs[i]);
  }
  msgs += "]";
  if (mode == CompareMode::kSummary) {
    static const char* kNames[] = {"Max diff", "Min diff", "Mean diff", "L2norm diff",
                                   "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"};
    for (int k = 0; k < 8; ++k) AppendField(out, kNames[k], r.ind[k]);
    AppendField(out, "Requires_grad Consistent", Bool(r.req_consistent));
    AppendField(out, "Result", Str(LevelName(r.result)));
    AppendField(out, "Err_message", Str(msgs));
  } else if (mode == CompareMode::kMd5) {
    AppendField(out, "Result", Str(LevelName(r.result)));
    AppendField(out, "Requires_grad Consistent", Bool(r.req_consistent));
    AppendField(out, "Err_message", Str(msgs));
  } else if (mode == CompareMode::kRealData) {
    static const char* kNames[] = {"Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr",
                                   "One Thousandth Err Ratio", "Five Thousandths Err Ratio"};
    for (int k = 0; k < 6; ++k) AppendField(out, kNames[k], r.metric[k]);
    AppendField(out, "Requires_grad Consistent", Bool(r.req_consistent));
    AppendField(out, "Result", Str(LevelName(r.result)));
    AppendField(out, "Err_message", Str(msgs));
  }
  return out;
}

}  // namespace

namespace {

void PutLen(std::string& out, size_t n) {
  while (n >= 0x80) { out += static_cast<char>((n & 0x7F) | 0x80); n >>= 7; }
  out += static_cast<char>(n);
}

size_t GetLen(std::string_view in, size_t* pos) {
  size_t n = 0;
  int shift = 0;
  while (*pos < in.size()) {
    unsigned char c = static_cast<unsigned char>(in[(*pos)++]);
    n |= static_cast<size_t>(c & 0x7F) << shift;
    if (!(c & 0x80)) break;
    shift += 7;
  }
  return n;
}

void PutStr(std::string& out, const std::string& s) { PutLen(out, s.size()); out += s; }

std::string GetStr(std::string_view in, size_t* pos) {
  size_t n = GetLen(in, pos);
  n = std::min(n, in.size() - *pos);
  std::string s(in.substr(*pos, n));
  *pos += n;
  return s;
}

void PutValue(std::string& out, const CmpValue& v) {
  out += static_cast<char>(v.kind);
  switch (v.kind) {
    case CmpValue::kNull: break;
    case CmpValue::kBool: out += v.b ? '\1' : '\0'; break;
    case CmpValue::kInt: out.append(reinterpret_cast<const char*>(&v.i), sizeof v.i); break;
    case CmpValue::kFloat: out.append(reinterpret_cast<const char*>(&v.d), sizeof v.d); break;
    default: PutStr(out, v.s);
  }
}

CmpValue GetValue(std::string_view in, size_t* pos) {
  CmpValue v;
  if (*pos >= in.size()) return v;
  v.kind = static_cast<CmpValue::Kind>(in[(*pos)++]);
  switch (v.kind) {
    case CmpValue::kNull: break;
    case CmpValue::kBool: v.b = *pos < in.size() && in[(*pos)++] != 0; break;
    case CmpValue::kInt:
      if (*pos + sizeof v.i <= in.size()) std::memcpy(&v.i, in.data() + *pos, sizeof v.i);
      *pos += sizeof v.i;
      break;
    case CmpValue::kFloat:
      if (*pos + sizeof v.d <= in.size()) std::memcpy(&v.d, in.data() + *pos, sizeof v.d);
      *pos += sizeof v.d;
      break;
    default: v.s = GetStr(in, pos);
  }
  return v;
}

}  // namespace

std::string PackCmpItems(const std::vector<CmpItem>& items) {
  std::string out;
  PutLen(out, items.size());
  for (const CmpItem& c : items) {
    PutStr(out, c.name);
    out += static_cast<char>(c.state);
    for (const CmpValue* v : {&c.dtype, &c.shape, &c.requires_grad, &c.stats[0], &c.stats[1], &c.stats[2], &c.stats[3], &c.md5})
      PutValue(out, *v);
    PutStr(out, c.data_name);
  }
  out.shrink_to_fit();
  return out;
}

std::vector<CmpItem> UnpackCmpItems(std::string_view in) {
  size_t pos = 0;
  size_t n = GetLen(in, &pos);
  std::vector<CmpItem> items;
  items.reserve(std::min(n, in.size()));
  for (size_t k = 0; k < n && pos < in.size(); ++k) {
    CmpItem c;
    c.name = GetStr(in, &pos);
    c.state = pos < in.size() ? static_cast<ItemState>(in[pos++]) : ItemState::kInput;
    for (CmpValue* v : {&c.dtype, &c.shape, &c.requires_grad, &c.stats[0], &c.stats[1], &c.stats[2], &c.stats[3], &c.md5})
      *v = GetValue(in, &pos);
    c.data_name = GetStr(in, &pos);
    items.push_back(std::move(c));
  }
  return items;
}

double OverridePrecision(CompareMode m, std::string_view name, double index) {
  std::string api = ApiSegment(name, false);
  static const char* kForced[] = {"empty", "empty_like", "empty_with_format", "new_empty_strided", "new_empty", "empty_strided"};
  for (const char* a : kForced)
    if (api == a) return m == CompareMode::kMd5 ? 1.0 : 0.0;
  return index;
}

NodeComparison CompareNode(const CompareSettings& s, std::string_view name, const NodeItems& npu,
                           const std::vector<CmpItem>& bench) {
  NodeComparison out;
  out.input_extra.assign(npu.inputs.size(), std::string());
  out.output_extra.assign(npu.outputs.size(), std::string());
  if (s.mode == CompareMode::kStructure) return out;

  // §9.2: inputs then outputs, grouped by state, paired by position within a group.
  std::vector<const CmpItem*> nitems;
  for (const ItemRef& r : npu.inputs) if (r.cmp < npu.cmp.size()) nitems.push_back(&npu.cmp[r.cmp]);
  for (const ItemRef& r : npu.outputs) if (r.cmp < npu.cmp.size()) nitems.push_back(&npu.cmp[r.cmp]);
  std::vector<const CmpItem*> bgroups[5], ngroups[5];
  for (const CmpItem* c : nitems) ngroups[static_cast<int>(c->state)].push_back(c);
  for (const CmpItem& c : bench) bgroups[static_cast<int>(c.state)].push_back(&c);
  // Group order: inputs, parameters, outputs, parameter gradients (debug items last).
  static const ItemState kOrder[] = {ItemState::kInput, ItemState::kParameters, ItemState::kOutput,
                                     ItemState::kParametersGrad, ItemState::kDebug};
  std::vector<Row> rows;
  for (ItemState st : kOrder) {
    auto& ng = ngroups[static_cast<int>(st)];
    auto& bg = bgroups[static_cast<int>(st)];
    for (size_t i = 0; i < ng.size(); ++i) {
      Row r;
      r.n = ng[i];
      r.b = i < bg.size() ? bg[i] : nullptr;
      r.is_output = r.n->name.find(".output.") != std::string::npos;
      for (int k = 0; k < 4; ++k) r.nstat[k] = RowStat(r.n->stats[k]);
      r.nreq = r.n->requires_grad;
      r.ndtype = r.n->dtype;
      r.nshape = r.n->shape;
      r.nmd5 = r.n->md5;
      if (r.b) {
        r.bench_name = r.b->name;
        for (int k = 0; k < 4; ++k) r.bstat[k] = RowStat(r.b->stats[k]);
        r.breq = r.b->requires_grad;
        r.bdtype = r.b->dtype;
        r.bshape = r.b->shape;
        r.bmd5 = r.b->md5;
        r.req_consistent = PyEqual(r.nreq, r.breq);
        if (s.mode == CompareMode::kSummary) SummaryIndicators(r);
      } else {
        r.bench_name = "Nan";
        for (int k = 0; k < 4; ++k) r.bstat[k] = Str("Nan");
        r.breq = r.bdtype = r.bshape = r.bmd5 = Str("Nan");
        r.req_consistent = false;
        for (auto& c : r.ind) c = Str(" ");
      }
      if (s.mode == CompareMode::kRealData && s.tensor_metrics) {
        auto m = s.tensor_metrics(*r.n, r.b);
        for (int k = 0; k < 6; ++k) r.metric[k] = m[static_cast<size_t>(k)];
      }
      rows.push_back(std::move(r));
    }
  }
  if (rows.empty()) return out;
  RunCheckers(s, rows);

  int worst = kPass;
  std::unordered_map<std::string_view, const Row*> by_name;   // keys: the target items' names
  for (const Row& r : rows) {
    worst = std::max(worst, r.result);
    by_name[r.n->name] = &r;
  }
  auto attach = [&](const std::vector<ItemRef>& refs, std::vector<std::string>& extra) {
    for (size_t i = 0; i < refs.size(); ++i) {
      auto it = by_name.find(npu.Key(refs[i]));
      if (it != by_name.end()) extra[i] = RowFields(s.mode, *it->second);
    }
  };
  attach(npu.inputs, out.input_extra);
  attach(npu.outputs, out.output_extra);
  double index = worst == kError ? 1.0 : worst == kWarning ? 0.5 : 0.0;
  out.precision_index = OverridePrecision(s.mode, name, index);
  return out;
}

std::string ToolTipJson(CompareMode m) {
  // Meanings of §13.5 (the reference's texts are Chinese; byte equality is not required).
  switch (m) {
    case CompareMode::kSummary:
      return "{\"Max diff\": \"The difference between the maximum of the NPU and the bench statistics\", "
             "\"Min diff\": \"The difference between the minimum of the NPU and the bench statistics\", "
             "\"Mean diff\": \"The difference between the mean of the NPU and the bench statistics\", "
             "\"L2norm diff\": \"The difference between the L2 norm of the NPU and the bench statistics\"}";
    case CompareMode::kMd5:
      return "{\"md5\": \"CRC-32 value of the data, used to check whether two data are identical\"}";
    default:
      return "{\"One Thousandth Err Ratio\": \"Share of elements whose relative error is below one thousandth; "
             "the closer to 1 the better\", "
             "\"Five Thousandths Err Ratio\": \"Share of elements whose relative error is below five thousandths; "
             "the closer to 1 the better\", "
             "\"Cosine\": \"Cosine similarity; the closer to 1 the better, above 0.99 is acceptable; NaN when a "
             "tensor is all zero\", "
             "\"MaxAbsErr\": \"Maximum absolute error; the closer to 0 the better, below 0.001 is acceptable\", "
             "\"MaxRelativeErr\": \"Maximum relative error; the closer to 0 the better; inf or NaN is normal when "
             "the data contains 0 or NaN\"}";
  }
}

std::string NodeColorsJson(CompareMode m) {
  std::string unmatched;
  {
    std::string d;
    AppendJsonString(d, "\u6bd4\u5bf9\u8fc7\u7a0b\u4e2d\u8282\u70b9\u672a\u5339\u914d\u4e0a");
    unmatched = "\"#C7C7C7\": {\"value\": [], \"description\": " + d + ", \"accuracy_level\": \"unmatched node\"}";
  }
  if (m == CompareMode::kStructure) return "{" + unmatched + "}";
  std::string pass_desc, bad_desc;
  if (m == CompareMode::kMd5) {
    pass_desc = "\u4e0e\u6807\u6746\u76f8\u6bd4, \u6b64\u8282\u70b9\u6240\u6709\u8f93\u5165\u8f93\u51fa\u7684md5\u503c\u76f8\u540c";
    bad_desc = "\u4e0e\u6807\u6746\u76f8\u6bd4, \u6b64\u8282\u70b9\u4efb\u610f\u8f93\u5165\u8f93\u51fa\u7684md5\u503c\u4e0d\u540c";
  } else if (m == CompareMode::kSummary) {
    pass_desc = bad_desc =
        "\u6b64\u8282\u70b9\u6240\u6709\u8f93\u5165\u8f93\u51fa\u7684\u7edf\u8ba1\u91cf\u8bef\u5dee, "
        "\u989c\u8272\u8d8a\u6df1\u4ee3\u8868\u8c03\u8bd5\u4fa7\u4e0e\u6807\u6746\u4fa7\u7684\u504f\u5dee\u8d8a\u5927";
  } else {
    pass_desc = bad_desc =
        "\u6b64\u8282\u70b9\u6240\u6709\u8f93\u5165\u8f93\u51fa\u7684 tensor \u8bef\u5dee, "
        "\u989c\u8272\u8d8a\u6df1\u4ee3\u8868\u8c03\u8bd5\u4fa7\u4e0e\u6807\u6746\u4fa7\u7684\u504f\u5dee\u8d8a\u5927";
  }
  auto entry = [](const char* colour, const char* range, const std::string& desc, const char* level) {
    std::string d;
    AppendJsonString(d, desc);
    return std::string("\"") + colour + "\": {\"value\": " + range + ", \"description\": " + d +
           ", \"accuracy_level\": \"" + level + "\"}";
  };
  return "{" + entry("#FFFCF3", "[0, 0.3]", pass_desc, "pass") + ", " + entry("#FFDC7F", "[0.3, 0.6]", bad_desc, "warning") +
         ", " + entry("#FF704D", "[0.6, 1]", bad_desc, "error") + ", " + unmatched + "}";
}

// §9.1: the compare mode of a pair of dumps.
Result<CompareMode> DetectCompareMode(const Graph& n, const Graph& b) {
  if (n.task.empty()) return InvalidInput("Task for npu is empty, please check.");
  if (b.task.empty()) return InvalidInput("Task for bench is empty, please check.");
  if (!n.has_data_key) return InvalidInput("Missing 'data' in dump.json, please check dump.json of npu.");
  if (!n.data_is_dict) return InvalidInput("Invalid type for 'data': expected a dict. Please check dump.json of npu.");
  if (!b.has_data_key) return InvalidInput("Missing 'data' in dump.json, please check dump.json of bench.");
  if (!b.data_is_dict) return InvalidInput("Invalid type for 'data': expected a dict. Please check dump.json of bench.");
  if (n.task != b.task) return InvalidInput("Please check the dump task is consistent.");
  if (n.task == "tensor") return CompareMode::kRealData;
  if (n.task == "structure") return CompareMode::kStructure;
  if (n.task == "statistics") {
    if (n.has_md5 && b.has_md5) return CompareMode::kMd5;
    if (!n.has_md5 && !b.has_md5) return CompareMode::kSummary;
    return InvalidInput("Please check the dump task is consistent, dump mode of npu and bench should both be statistics or md5.");
  }
  return InvalidInput("Compare applies only to task is tensor or statistics");
}

}  // namespace visprobe
