#include "compare/manual_match.h"

#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "base/fs.h"
#include "base/pyfmt.h"
#include "compare/tensor_metrics.h"
#include "db/vis_db.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace visprobe {
namespace {

const std::unordered_set<std::string_view>& ComparisonFields() {
  static const std::unordered_set<std::string_view> k{"Max diff",
                                                      "Min diff",
                                                      "Mean diff",
                                                      "L2norm diff",
                                                      "MaxRelativeErr",
                                                      "MinRelativeErr",
                                                      "MeanRelativeErr",
                                                      "NormRelativeErr",
                                                      "Requires_grad Consistent",
                                                      "Result",
                                                      "Err_message",
                                                      "Cosine",
                                                      "EucDist",
                                                      "MaxAbsErr",
                                                      "One Thousandth Err Ratio",
                                                      "Five Thousandths Err Ratio",
                                                      "MinAbsErr",
                                                      "MeanAbsErr",
                                                      "NormAbsErr"};
  return k;
}

// A stored field text back to the value the comparison uses: numbers as numbers (pystr of a
// number round-trips), "null" as null, anything else as the string.
CmpValue ValueOf(std::string_view text) {
  CmpValue v;
  if (text == "null") return v;
  std::string s(text);
  if (s == "inf" || s == "-inf" || s == "nan") {
    v.kind = CmpValue::kFloat;
    v.d = s == "nan" ? std::nan("") : (s[0] == '-' ? -INFINITY : INFINITY);
    return v;
  }
  char* end = nullptr;
  bool is_float = s.find_first_of(".eE") != std::string::npos;
  if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-')) {
    if (is_float) {
      double d = std::strtod(s.c_str(), &end);
      if (end && *end == '\0') {
        v.kind = CmpValue::kFloat;
        v.d = d;
        return v;
      }
    } else {
      long long i = std::strtoll(s.c_str(), &end, 10);
      if (end && *end == '\0') {
        v.kind = CmpValue::kInt;
        v.i = i;
        return v;
      }
    }
  }
  v.kind = CmpValue::kString;
  v.s = s;
  return v;
}

ItemState StateOf(std::string_view key) {
  if (key.find(".output.") != std::string_view::npos) return ItemState::kOutput;
  if (key.find(".parameters_grad") != std::string_view::npos) return ItemState::kParametersGrad;
  if (key.find(".parameters.") != std::string_view::npos) return ItemState::kParameters;
  return ItemState::kInput;
}

// Rebuilds NodeItems (texts without comparison fields, captured values) from a stored object.
Status LoadItems(std::string_view json, bool outputs, NodeItems* out) {
  JTree t;
  JIdx root;
  RETURN_IF_ERROR(ParseJsonText(json.empty() ? std::string_view("{}") : json, t, &root));
  for (JIdx item = t.at(root).first; item != kJNone; item = t.at(item).next) {
    std::string_view key = t.Key(item);
    CmpItem c;
    c.name.assign(key);
    c.state = StateOf(key);
    c.data_name = "-1";
    std::string text;
    bool collapsed = false, process_group = false;
    if (t.Kind(item) == JKind::kObject) {
      JIdx value = t.Find(item, "value");
      JIdx type = t.Find(item, "type");
      process_group = type != kJNone && t.Kind(type) == JKind::kString && t.Str(type) == "torch.ProcessGroup";
      collapsed = t.at(item).count == 1 && value != kJNone && t.Kind(value) == JKind::kString && t.Str(value) == "null";
      for (JIdx f = t.at(item).first; f != kJNone; f = t.at(f).next) {
        std::string_view name = t.Key(f);
        if (ComparisonFields().count(name)) continue;
        std::string_view v = t.Kind(f) == JKind::kString ? t.Str(f) : std::string_view("null");
        if (!text.empty()) text += ", ";
        AppendJsonString(text, name);
        text += ": ";
        if (t.Kind(f) == JKind::kString)
          AppendJsonString(text, v);
        else
          t.AppendJson(text, f);
        if (name == "dtype")
          c.dtype = ValueOf(v);
        else if (name == "shape") {
          c.shape = ValueOf(v);
          if (c.shape.kind == CmpValue::kString && !v.empty() && v.front() == '[') c.shape.kind = CmpValue::kJson;
        } else if (name == "requires_grad")
          c.requires_grad = ValueOf(v);
        else if (name == "Max")
          c.stats[0] = ValueOf(v);
        else if (name == "Min")
          c.stats[1] = ValueOf(v);
        else if (name == "Mean")
          c.stats[2] = ValueOf(v);
        else if (name == "Norm")
          c.stats[3] = ValueOf(v);
        else if (name == "md5")
          c.md5 = ValueOf(v);
        else if (name == "data_name")
          c.data_name.assign(v);
      }
    }
    if (collapsed) {
      c.dtype = c.shape = c.requires_grad = CmpValue();
      for (auto& s : c.stats) s = CmpValue();
    }
    ItemRef ref;
    ref.key_off = static_cast<uint32_t>(out->blob.size());
    ref.key_len = static_cast<uint32_t>(key.size());
    out->blob.append(key.data(), key.size());
    ref.text_off = static_cast<uint32_t>(out->blob.size());
    ref.text_len = static_cast<uint32_t>(text.size());
    out->blob += text;
    ref.collapsed = collapsed;
    ref.process_group = process_group;
    ref.cmp = static_cast<uint32_t>(out->cmp.size());
    out->cmp.push_back(std::move(c));
    (outputs ? out->outputs : out->inputs).push_back(ref);
  }
  return Status::Ok();
}

}  // namespace

Result<ManualCompareResult> CompareStoredItems(const std::string& task, std::string_view name, std::string_view tin,
                                               std::string_view tout, std::string_view bin, std::string_view bout,
                                               const TensorDataDirs& dirs) {
  CompareSettings s;
  if (task == "summary")
    s.mode = CompareMode::kSummary;
  else if (task == "md5")
    s.mode = CompareMode::kMd5;
  else if (task == "structure")
    s.mode = CompareMode::kStructure;
  else if (task == "all") {
    if (dirs.npu.empty() || dirs.bench.empty()) return InvalidInput(Msg<msg::kTensorFilesRequiredReal>());
    s.mode = CompareMode::kRealData;
    s.tensor_metrics = TensorMetricsInDirs(dirs.npu, dirs.bench, nullptr);
  } else {
    return InvalidInput(Msg<msg::kManualMatchingNotAvailable>(task));
  }
  NodeItems npu, bench;
  RETURN_IF_ERROR(LoadItems(tin, false, &npu));
  RETURN_IF_ERROR(LoadItems(tout, true, &npu));
  RETURN_IF_ERROR(LoadItems(bin, false, &bench));
  RETURN_IF_ERROR(LoadItems(bout, true, &bench));
  NodeComparison c = CompareNode(s, name, npu, bench.cmp);
  ManualCompareResult r;
  r.precision_index = c.precision_index;
  VisDbWriter::RenderItems(npu, c.input_extra, c.output_extra, &r.input_data, &r.output_data);
  return r;
}

Result<std::string> LocateTensorDir(const std::string& stored, const std::string& root, const std::string& probe) {
  std::vector<std::string> parts;
  for (size_t i = 0; i <= stored.size();) {
    size_t j = stored.find('/', i);
    if (j == std::string::npos) j = stored.size();
    if (j > i) parts.push_back(stored.substr(i, j - i));
    i = j + 1;
  }
  for (size_t k = 0; k <= parts.size(); ++k) {
    std::string dir = root;
    for (size_t m = k; m < parts.size(); ++m) dir = JoinPath(dir, parts[m]);
    if (IsDir(dir) && (probe.empty() || IsRegularFile(JoinPath(dir, probe)))) return dir;
  }
  if (probe.empty()) return NotFound(Msg<msg::kNoTensorFolderUnder>(root, stored));
  return NotFound(Msg<msg::kNoTensorFilesUnder>(root, probe, stored));
}

Result<std::string> StripComparisonFields(std::string_view json) {
  NodeItems items;
  RETURN_IF_ERROR(LoadItems(json, false, &items));
  std::string in, out;
  VisDbWriter::RenderItems(items, &in, &out);
  return in;
}

}  // namespace visprobe
