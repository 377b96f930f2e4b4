#include "graph/overflow.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "loader/json_reader.h"

namespace visprobe {
namespace {

// Python str(v).lower() in {"inf", "-inf", "nan"}.
bool NonFiniteText(const JTree& t, JIdx v) {
  if (v == kJNone) return false;
  if (t.Kind(v) == JKind::kFloat) return !std::isfinite(t.at(v).d);
  if (t.Kind(v) != JKind::kString) return false;
  const std::string_view s = t.Str(v);
  if (s.size() != 3 && s.size() != 4) return false;
  char low[4];
  for (size_t i = 0; i < s.size(); ++i) low[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
  const std::string_view l(low, s.size());
  return l == "inf" || l == "-inf" || l == "nan";
}

// Max, Min and Mean of an object found in one pass (the last of a repeated key, as JTree::Find).
bool Bad(const JTree& t, JIdx v) {
  if (v == kJNone || t.Kind(v) != JKind::kObject) return false;
  JIdx max = kJNone, min = kJNone, mean = kJNone;
  for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next) {
    const std::string_view k = t.Key(c);
    if (k == "Max")
      max = c;
    else if (k == "Min")
      min = c;
    else if (k == "Mean")
      mean = c;
  }
  return NonFiniteText(t, max) || NonFiniteText(t, min) || NonFiniteText(t, mean);
}

bool Anomalous(const JTree& t, JIdx v, int depth = 0) {
  if (v == kJNone || depth > 400) return false;
  if (t.Kind(v) == JKind::kObject) return Bad(t, v);
  if (t.Kind(v) == JKind::kArray)
    for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next)
      if (Anomalous(t, c, depth + 1)) return true;
  return false;
}

// The first child of a list, or of an object (what Python iterates for args / kwargs.values()).
JIdx FirstChild(const JTree& t, JIdx v, bool want_list) {
  if (v == kJNone) return kJNone;
  if (want_list ? t.Kind(v) != JKind::kArray : t.Kind(v) != JKind::kObject) return kJNone;
  return t.at(v).first;
}

bool TensorNorm(const JTree& t, JIdx v, double* norm) {
  if (t.Kind(v) != JKind::kObject) return false;
  JIdx type = kJNone, n = kJNone;
  for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next) {
    const std::string_view k = t.Key(c);
    if (k == "type")
      type = c;
    else if (k == "Norm")
      n = c;
  }
  if (type == kJNone || t.Kind(type) != JKind::kString || t.Str(type) != "torch.Tensor") return false;
  if (n == kJNone || !t.IsNumber(n)) return false;
  double d = t.AsDouble(n);
  if (std::isnan(d)) return false;
  *norm = d;
  return true;
}

struct IgnoreRule {
  std::set<int> in_index;
  std::set<std::string> in_name;
  std::set<int> out_index;
};

const IgnoreRule* RuleFor(const std::string& key) {
  static const IgnoreRule kEmpty{{}, {}, {0}};
  static const IgnoreRule kRecv{{0}, {"tensor"}, {}};
  static const IgnoreRule kGather{{0}, {}, {}};
  static const IgnoreRule kReduceScatter{{0}, {"output"}, {}};
  if (key == "torch.empty" || key == "torch.empty_like" || key == "torch.empty_strided") return &kEmpty;
  if (key == "distributed.recv") return &kRecv;
  if (key == "distributed.all_gather" || key == "distributed._reduce_scatter_base" ||
      key == "distributed.all_gather_into_tensor" || key == "distributed.reduce_scatter_tensor" || key == "tensor.masked_fill_")
    return &kGather;
  if (key == "distributed.reduce_scatter") return &kReduceScatter;
  return nullptr;
}

std::string ApiKey(std::string_view name) {
  auto a = name.find('.');
  std::string_view k = name;
  if (a != std::string_view::npos) {
    auto b = name.find('.', a + 1);
    k = name.substr(0, b);
  }
  std::string s(k);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Overflow CheckOverflow(const JTree& t, JIdx e, std::string_view name) {
  if (e == kJNone || t.Kind(e) != JKind::kObject) return Overflow::kNone;
  JIdx args_v = t.Find(e, "input_args");
  if (args_v == kJNone) args_v = t.Find(e, "input");
  const JIdx args = FirstChild(t, args_v, true);
  const JIdx kwargs = FirstChild(t, t.Find(e, "input_kwargs"), false);
  const JIdx outs = FirstChild(t, t.Find(e, "output"), true);
  auto next = [&t](JIdx c) { return t.at(c).next; };

  bool in_bad = false, out_bad = false;
  for (JIdx a = args; a != kJNone && !in_bad; a = next(a)) in_bad = Anomalous(t, a);
  for (JIdx k = kwargs; k != kJNone && !in_bad; k = next(k)) in_bad = Anomalous(t, k);
  for (JIdx o = outs; o != kJNone && !out_bad; o = next(o)) out_bad = Anomalous(t, o);

  Overflow level = Overflow::kNone;
  if (!in_bad && out_bad)
    level = Overflow::kCritical;
  else if (in_bad && out_bad)
    level = Overflow::kHigh;
  else if (in_bad && !out_bad)
    level = Overflow::kMedium;
  else {
    // The largest Norm of the input tensors and of the output tensors.
    bool any_in = false, any_out = false;
    double mi = 0, mo = 0, d;
    for (JIdx a = args; a != kJNone; a = next(a))
      if (TensorNorm(t, a, &d)) {
        mi = any_in ? std::max(mi, d) : d;
        any_in = true;
      }
    for (JIdx k = kwargs; k != kJNone; k = next(k))
      if (TensorNorm(t, k, &d)) {
        mi = any_in ? std::max(mi, d) : d;
        any_in = true;
      }
    for (JIdx o = outs; o != kJNone; o = next(o))
      if (TensorNorm(t, o, &d)) {
        mo = any_out ? std::max(mo, d) : d;
        any_out = true;
      }
    if (any_in && any_out && ((mi == 0 && mo > 100) || (mi != 0 && mo / mi > 100))) level = Overflow::kHigh;
  }
  if (level == Overflow::kNone) return level;

  const IgnoreRule* rule = RuleFor(ApiKey(name));
  if (!rule) return level;
  if (!rule->in_index.empty()) {
    int i = 0;
    for (JIdx a = args; a != kJNone; a = next(a), ++i)
      if (Bad(t, a) && !rule->in_index.count(i)) return level;
  }
  if (!rule->in_name.empty())
    for (JIdx k = kwargs; k != kJNone; k = next(k))
      if (Bad(t, k) && !rule->in_name.count(std::string(t.Key(k)))) return level;
  if (!rule->out_index.empty()) {
    int i = 0;
    for (JIdx o = outs; o != kJNone; o = next(o), ++i)
      if (Bad(t, o) && !rule->out_index.count(i)) return level;
  }
  return Overflow::kNone;
}

Status ApplyOverflowCheck(Graph& g, const std::string& dump_path, size_t window_bytes) {
  std::vector<Overflow> level(g.size(), Overflow::kNone);
  JsonReadOptions o;
  o.container_key = "data";
  o.window_bytes = window_bytes;
  auto r = ReadJsonRecords(dump_path, o, [&](std::string_view key, const JTree& t, JIdx v) {
    NodeId id = g.Find(key);
    if (id != kNoNode && id < level.size()) level[id] = CheckOverflow(t, v, key);
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  for (NodeId id = 0; id < level.size(); ++id)
    if (level[id] != Overflow::kNone) g.node(id).overflow = level[id];
  return Status::Ok();
}

}  // namespace visprobe
