#include "compare/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "base/pyfmt.h"
#include "base/str_writer.h"
#include "base/thread_init.h"
#include "graph/items.h"
#include "graph/value_format.h"

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

Cell Str(std::string s) {
  Cell c;
  c.kind = CmpValue::kString;
  c.s = std::move(s);
  return c;
}
Cell Flt(double d) {
  Cell c;
  c.kind = CmpValue::kFloat;
  c.d = d;
  return c;
}
Cell Int(int64_t i) {
  Cell c;
  c.kind = CmpValue::kInt;
  c.i = i;
  return c;
}

bool IsNumber(const Cell& c) { return c.kind == CmpValue::kInt || c.kind == CmpValue::kFloat; }
double AsDouble(const Cell& c) { return c.kind == CmpValue::kInt ? static_cast<double>(c.i) : c.d; }

// Python str() of a cell.
void AppendPyStr(std::string& out, const Cell& c) {
  switch (c.kind) {
    case CmpValue::kNull: out += "None"; return;
    case CmpValue::kBool: out += c.b ? "True" : "False"; return;
    case CmpValue::kInt: out += std::to_string(c.i); return;
    case CmpValue::kFloat: AppendPyFloat(out, c.d); return;
    case CmpValue::kString:
    case CmpValue::kJson: out += c.s; return;
  }
}

std::string PyStr(const Cell& c) {
  std::string s;
  AppendPyStr(s, c);
  return s;
}

// "inf" / "-inf" / "nan" when str() of the cell is one of them, else nullptr (without formatting it).
const char* NonFiniteText(const Cell& c) {
  switch (c.kind) {
    case CmpValue::kFloat:
      if (std::isnan(c.d)) return "nan";
      if (std::isinf(c.d)) return c.d > 0 ? "inf" : "-inf";
      return nullptr;
    case CmpValue::kString:
    case CmpValue::kJson:
      if (std::string_view(c.s) == "inf") return "inf";
      if (std::string_view(c.s) == "-inf") return "-inf";
      if (std::string_view(c.s) == "nan") return "nan";
      return nullptr;
    default: return nullptr;  // None, True / False and integers never read as these
  }
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
  // lower(strip(s)) in {inf, -inf, nan}, without making either string.
  std::string_view v(c.s);
  auto space = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v'; };
  while (!v.empty() && space(v.front())) v.remove_prefix(1);
  while (!v.empty() && space(v.back())) v.remove_suffix(1);
  if (v.size() != 3 && v.size() != 4) return false;
  char low[4];
  for (size_t i = 0; i < v.size(); ++i) low[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(v[i])));
  const std::string_view l(low, v.size());
  return l == "inf" || l == "-inf" || l == "nan";
}

// Python float() of a string: blanks, nan, inf, infinity in any case.
bool PyParseFloat(const std::string& text, double* out) {
  // Most texts are plain decimals (repr's own output): strtod takes them as they are.
  if (!text.empty() && text.size() < 64 && std::all_of(text.begin(), text.end(), [](char ch) {
        return (ch >= '0' && ch <= '9') || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-';
      })) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() + text.size()) {
      *out = v;
      return true;
    }
  }
  std::string s = Lower(Strip(text));
  if (s.empty()) return false;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  std::string body = s.substr(i);
  double sign = (s[0] == '-') ? -1.0 : 1.0;
  if (body == "nan") {
    *out = std::nan("");
    return true;
  }
  if (body == "inf" || body == "infinity") {
    *out = sign * INFINITY;
    return true;
  }
  for (char ch : body)
    if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.' || ch == 'e' || ch == '+' || ch == '-' || ch == '_'))
      return false;
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
  const CmpItem* b = nullptr;  // nullptr: an extra target item
  bool is_output = false;
  Cell nstat[4], bstat[4];  // NPU / Bench max, min, mean, l2norm as the row holds them
  Cell ind[8];  // summary indicators
  double rel[4] = {0, 0, 0, 0};  // ind[4 + k] is repr(rel[k]) + "%" when rel_repr[k]
  bool rel_repr[4] = {false, false, false, false};
  Cell metric[6];  // tensor metrics
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
        // The cell is repr(rel) + "%": written from rel itself (AppendPercentField), and read back
        // as rel / 100 by the checkers (NormRelPct), since repr round-trips; never made as text.
        rel.kind = CmpValue::kString;
        r.rel[k] = std::fabs((dd / bd) * 100);
        r.rel_repr[k] = true;
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
    if (const char* t = NonFiniteText(c)) c = Str(std::string(t) + "\t");
  };
  for (auto& c : r.ind) tab(c);
  for (auto& c : r.nstat) tab(c);
  for (auto& c : r.bstat) tab(c);
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
    static const char* kAll[] = {
        "empty",     "empty_like",   "numpy", "to", "__setitem__", "empty_with_format", "new_empty_strided",
        "new_empty", "empty_strided"};
    static const char* kIn[] = {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single", "batch_isend_irecv"};
    for (const char* a : kAll)
      if (api == a) ig = Ignore::kAll;
    for (const char* a : kIn)
      if (api == a) ig = Ignore::kInput;
  }
  std::vector<Row*> checked = ig == Ignore::kAll ? std::vector<Row*>() : ig == Ignore::kInput ? output : all;

  if (s.mode == CompareMode::kMd5) {
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
    return;
  }
  const bool tensor = s.mode == CompareMode::kRealData;
  // 1 InfNan
  for (Row* r : checked) {
    if (IsBad(r->bstat[0]) || IsBad(r->bstat[1])) continue;
    if (IsBad(r->nstat[0]) || IsBad(r->nstat[1]))
      Set(*r, kError, "error: There is nan/inf/-inf in the maximum or minimum value of NPU.");
  }
  // 2 RelativeErr (summary) / 2' OneThousandth (tensor)
  if (!tensor) {
    if (ig == Ignore::kNone) {
      double m = std::fabs(MaxNormRel(input));
      if (m < 0.1)
        for (Row* r : output)
          if (std::fabs(NormRelPct(*r)) > 0.5) Set(*r, kError, "error: The NormRelativeErr of output is greater than 0.5.");
    }
  } else if (ig == Ignore::kNone && !output.empty()) {
    double a = MinMax(
        input, [](const Row& r) -> const Cell& { return r.metric[4]; }, true);
    double z = MinMax(
        output, [](const Row& r) -> const Cell& { return r.metric[4]; }, true);
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
    if (BenchNameMissing(*r) || std::string_view(r->n->name) == "N/A") continue;
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
    double in = std::fabs(MaxNormRel(input));
    double out = std::fabs(MaxNormRel(output));
    if ((in == 0 && out > 0.1) || (in != 0 && out / in > 10))
      Set(*output[0], kWarning, "warning: The norm relative error of output is 10 times that of input.");
  } else {
    double a = MinMax(
        input, [](const Row& r) -> const Cell& { return r.metric[0]; }, true);
    double z = MinMax(
        output, [](const Row& r) -> const Cell& { return r.metric[0]; }, true);
    if (a > 0.9 && a - z > 0.1)
      Set(*output[0], kWarning, "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1");
  }
}

// ", \"<name>\": " (the names here are constants of plain ASCII: nothing to escape).
void AppendName(StrWriter& w, std::string_view name) {
  char* d = w.Room(name.size() + 6);
  std::memcpy(d, ", \"", 3);
  std::memcpy(d + 3, name.data(), name.size());
  std::memcpy(d + 3 + name.size(), "\": ", 3);
  w.Advance(name.size() + 6);
}

// The value's §12-formatted text as a JSON string (a text that formats as itself is escaped
// straight from the value).
void AppendStringField(StrWriter& w, std::string_view name, std::string_view v) {
  AppendName(w, name);
  if (FormatsAsItself(v)) {
    AppendJsonString(w, v);
    return;
  }
  VP_THREAD_LOCAL std::string text;
  text.clear();
  AppendFormattedString(text, v);
  AppendJsonString(w, text);
}

// The text repr(v) + "%" (a relative error), without reading v back from it.
void AppendPercentField(StrWriter& w, std::string_view name, double v) {
  AppendName(w, name);
  char* d = w.Room(kPyFloatRoom + 3);
  d[0] = '"';
  const size_t n = WriteFormattedRepr(d + 1, v, true);
  d[n + 1] = '%';
  d[n + 2] = '"';
  w.Advance(n + 3);
}

void AppendField(StrWriter& w, std::string_view name, const Cell& v) {
  switch (v.kind) {
    case CmpValue::kString: return AppendStringField(w, name, v.s);
    case CmpValue::kJson: AppendName(w, name); return AppendJsonString(w, v.s);
    case CmpValue::kNull: AppendName(w, name); return w.Put("\"null\"");
    case CmpValue::kBool: AppendName(w, name); return w.Put(v.b ? std::string_view("\"True\"") : std::string_view("\"False\""));
    case CmpValue::kInt:
      AppendName(w, name);
      w.Put('"');
      w.PutInt(v.i);
      w.Put('"');
      return;
    case CmpValue::kFloat:
      AppendName(w, name);
      w.Put('"');
      AppendPyFloat(w, v.d);
      w.Put('"');
      return;
  }
}

Cell Bool(bool b) {
  Cell c;
  c.kind = CmpValue::kBool;
  c.b = b;
  return c;
}

void AppendRowFields(std::string& out, CompareMode mode, const Row& r) {
  VP_THREAD_LOCAL std::string msgs;
  msgs = "[";
  for (size_t i = 0; i < r.msgs.size(); ++i) {
    if (i) msgs += ", ";
    AppendJsonString(msgs, r.msgs[i]);
  }
  msgs += "]";
  StrWriter w(out);
  if (mode == CompareMode::kSummary) {
    static constexpr std::string_view kNames[] = {"Max diff",       "Min diff",       "Mean diff",       "L2norm diff",
                                                  "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"};
    for (int k = 0; k < 8; ++k) {
      if (k >= 4 && r.rel_repr[k - 4])
        AppendPercentField(w, kNames[k], r.rel[k - 4]);
      else
        AppendField(w, kNames[k], r.ind[k]);
    }
    AppendField(w, "Requires_grad Consistent", Bool(r.req_consistent));
    AppendStringField(w, "Result", LevelName(r.result));
    AppendStringField(w, "Err_message", msgs);
  } else if (mode == CompareMode::kMd5) {
    AppendStringField(w, "Result", LevelName(r.result));
    AppendField(w, "Requires_grad Consistent", Bool(r.req_consistent));
    AppendStringField(w, "Err_message", msgs);
  } else if (mode == CompareMode::kRealData) {
    static constexpr std::string_view kNames[] = {
        "Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio"};
    for (int k = 0; k < 6; ++k) AppendField(w, kNames[k], r.metric[k]);
    AppendField(w, "Requires_grad Consistent", Bool(r.req_consistent));
    AppendStringField(w, "Result", LevelName(r.result));
    AppendStringField(w, "Err_message", msgs);
  }
}

}  // namespace

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

  // §9.2: inputs then outputs, grouped by state, paired by position within a group. The lists are
  // kept on this thread from node to node (eleven vectors a node were allocated and freed).
  static VP_THREAD_LOCAL std::vector<const CmpItem*> nitems, bgroups[5], ngroups[5];
  nitems.clear();
  for (auto& g : bgroups) g.clear();
  for (auto& g : ngroups) g.clear();
  for (const ItemRef& r : npu.inputs)
    if (r.cmp < npu.cmp.size()) nitems.push_back(&npu.cmp[r.cmp]);
  for (const ItemRef& r : npu.outputs)
    if (r.cmp < npu.cmp.size()) nitems.push_back(&npu.cmp[r.cmp]);
  for (const CmpItem* c : nitems) ngroups[static_cast<int>(c->state)].push_back(c);
  for (const CmpItem& c : bench) bgroups[static_cast<int>(c.state)].push_back(&c);
  // Group order: inputs, parameters, outputs, parameter gradients (debug items last).
  static const ItemState kOrder[] = {ItemState::kInput, ItemState::kParameters, ItemState::kOutput, ItemState::kParametersGrad,
                                     ItemState::kDebug};
  static VP_THREAD_LOCAL std::vector<Row> rows;  // the buffer kept too; the rows are made afresh
  rows.clear();
  rows.reserve(nitems.size());
  for (ItemState st : kOrder) {
    auto& ng = ngroups[static_cast<int>(st)];
    auto& bg = bgroups[static_cast<int>(st)];
    for (size_t i = 0; i < ng.size(); ++i) {
      Row& r = rows.emplace_back();  // made in place: a Row is 30 cells, and moving one cost as much as filling it
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
    }
  }
  if (rows.empty()) return out;
  RunCheckers(s, rows);

  int worst = kPass;
  for (const Row& r : rows) worst = std::max(worst, r.result);
  // The row of a target item by name (the last one of that name); a map only for big nodes.
  std::unordered_map<std::string_view, const Row*> by_name;
  constexpr size_t kLinearRows = 32;
  if (rows.size() > kLinearRows)
    for (const Row& r : rows) by_name[r.n->name] = &r;
  auto find_row = [&](std::string_view key) -> const Row* {
    if (rows.size() > kLinearRows) {
      auto it = by_name.find(key);
      return it == by_name.end() ? nullptr : it->second;
    }
    for (size_t k = rows.size(); k-- > 0;)
      if (rows[k].n->name == key) return &rows[k];
    return nullptr;
  };
  auto attach = [&](const std::vector<ItemRef>& refs, std::vector<std::string>& extra) {
    for (size_t i = 0; i < refs.size(); ++i)
      if (const Row* r = find_row(npu.Key(refs[i]))) AppendRowFields(extra[i], s.mode, *r);
  };
  attach(npu.inputs, out.input_extra);
  attach(npu.outputs, out.output_extra);
  double index = worst == kError ? 1.0 : worst == kWarning ? 0.5 : 0.0;
  out.precision_index = OverridePrecision(s.mode, name, index);
  return out;
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
