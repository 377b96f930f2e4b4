#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "base/pyfmt.h"
#include "base/str_writer.h"
#include "base/thread_init.h"
#include "compare/checkers.h"
#include "compare/compare_cells.h"
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

using compare_detail::ApiSegment;
using compare_detail::AsDouble;
using compare_detail::Flt;
using compare_detail::Int;
using compare_detail::IsNumber;
using compare_detail::kError;
using compare_detail::kPass;
using compare_detail::kWarning;
using compare_detail::LevelName;
using compare_detail::NonFiniteText;
using compare_detail::PyEqual;
using compare_detail::Row;
using compare_detail::RunCheckers;
using compare_detail::Str;

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

namespace {

// A row of target item n and golden item b (null: an extra target item): the two sides' values
// as the row holds them, the summary indicators and the tensor metrics.
void FillRow(const CompareSettings& s, const CmpItem* n, const CmpItem* b, Row& r) {
  r.n = n;
  r.b = b;
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

// §9.2: inputs then outputs, grouped by state, paired by position within a group, into `rows`.
// The lists are kept on this thread from node to node (eleven vectors a node were allocated and
// freed).
void PairRows(const CompareSettings& s, const NodeItems& npu, const std::vector<CmpItem>& bench, std::vector<Row>& rows) {
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
  rows.clear();
  rows.reserve(nitems.size());
  for (ItemState st : kOrder) {
    auto& ng = ngroups[static_cast<int>(st)];
    auto& bg = bgroups[static_cast<int>(st)];
    for (size_t i = 0; i < ng.size(); ++i) {
      // Made in place: a Row is 30 cells, and moving one cost as much as filling it.
      FillRow(s, ng[i], i < bg.size() ? bg[i] : nullptr, rows.emplace_back());
    }
  }
}

// Each target item's comparison fields, from the row of its name (the last one of that name; a
// map only for big nodes).
void AttachRowFields(CompareMode mode, const NodeItems& npu, const std::vector<Row>& rows, NodeComparison& out) {
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
      if (const Row* r = find_row(npu.Key(refs[i]))) AppendRowFields(extra[i], mode, *r);
  };
  attach(npu.inputs, out.input_extra);
  attach(npu.outputs, out.output_extra);
}

}  // namespace

NodeComparison CompareNode(const CompareSettings& s, std::string_view name, const NodeItems& npu,
                           const std::vector<CmpItem>& bench) {
  NodeComparison out;
  out.input_extra.assign(npu.inputs.size(), std::string());
  out.output_extra.assign(npu.outputs.size(), std::string());
  if (s.mode == CompareMode::kStructure) return out;
  static VP_THREAD_LOCAL std::vector<Row> rows;  // the buffer kept on this thread; the rows are made afresh
  PairRows(s, npu, bench, rows);
  if (rows.empty()) return out;
  RunCheckers(s, rows);

  int worst = kPass;
  for (const Row& r : rows) worst = std::max(worst, r.result);
  AttachRowFields(s.mode, npu, rows, out);
  double index = worst == kError ? 1.0 : worst == kWarning ? 0.5 : 0.0;
  out.precision_index = OverridePrecision(s.mode, name, index);
  return out;
}

// §9.1: the compare mode of a pair of dumps.
Result<CompareMode> DetectCompareMode(const Graph& n, const Graph& b) {
  if (n.task.empty()) return InvalidInput(Msg<msg::kTaskEmptyPleaseCheck>("npu"));
  if (b.task.empty()) return InvalidInput(Msg<msg::kTaskEmptyPleaseCheck>("bench"));
  if (!n.has_data_key) return InvalidInput(Msg<msg::kMissingDataDumpJson>("npu"));
  if (!n.data_is_dict) return InvalidInput(Msg<msg::kInvalidTypeDataExpected>("npu"));
  if (!b.has_data_key) return InvalidInput(Msg<msg::kMissingDataDumpJson>("bench"));
  if (!b.data_is_dict) return InvalidInput(Msg<msg::kInvalidTypeDataExpected>("bench"));
  if (n.task != b.task) return InvalidInput(Msg<msg::kPleaseCheckDumpTask>());
  if (n.task == "tensor") return CompareMode::kRealData;
  if (n.task == "structure") return CompareMode::kStructure;
  if (n.task == "statistics") {
    if (n.has_md5 && b.has_md5) return CompareMode::kMd5;
    if (!n.has_md5 && !b.has_md5) return CompareMode::kSummary;
    return InvalidInput(Msg<msg::kPleaseCheckDumpTaskConsistent>());
  }
  return InvalidInput(Msg<msg::kCompareAppliesOnlyTask>());
}

}  // namespace visprobe
