#include "graph/overflow.h"

#include <cctype>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "loader/json_reader.h"

namespace visprobe {
namespace {

// Python str(v).lower() in {"inf", "-inf", "nan"}.
bool NonFiniteText(const JTree& t, JIdx v) {
  if (v == kJNone) return false;
  if (t.Kind(v) == JKind::kFloat) return !std::isfinite(t.at(v).d);
  if (t.Kind(v) != JKind::kString) return false;
  std::string s(t.Str(v));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "inf" || s == "-inf" || s == "nan";
}

bool Bad(const JTree& t, JIdx v) {
  if (v == kJNone || t.Kind(v) != JKind::kObject) return false;
  for (const char* k : {"Max", "Min", "Mean"})
    if (NonFiniteText(t, t.Find(v, k))) return true;
  return false;
}

bool Anomalous(const JTree& t, JIdx v, int depth = 0) {
  if (v == kJNone || depth > 400) return false;
  if (t.Kind(v) == JKind::kObject) return Bad(t, v);
  if (t.Kind(v) == JKind::kArray)
    for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next)
      if (Anomalous(t, c, depth + 1)) return true;
  return false;
}

// Elements of a list, or values of an object (what Python iterates for args / kwargs.values()).
std::vector<JIdx> Children(const JTree& t, JIdx v, bool want_list) {
  std::vector<JIdx> out;
  if (v == kJNone) return out;
  if (want_list ? t.Kind(v) != JKind::kArray : t.Kind(v) != JKind::kObject) return out;
  for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next) out.push_back(c);
  return out;
}

bool TensorNorm(const JTree& t, JIdx v, double* norm) {
  if (t.Kind(v) != JKind::kObject) return false;
  JIdx type = t.Find(v, "type");
  if (type == kJNone || t.Kind(type) != JKind::kString || t.Str(type) != "torch.Tensor") return false;
  JIdx n = t.Find(v, "Norm");
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
      key == "distributed.all_gather_into_tensor" || key == "distributed.reduce_scatter_tensor" ||
      key == "tensor.masked_fill_")
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
  JIdx kwargs_v = t.Find(e, "input_kwargs");
  JIdx outs_v = t.Find(e, "output");
  std::vector<JIdx> args = Children(t, args_v, true);
  std::vector<JIdx> kwargs = Children(t, kwargs_v, false);
  std::vector<JIdx> outs = Children(t, outs_v, true);

  bool in_bad = false, out_bad = false;
  for (JIdx a : args) in_bad = in_bad || Anomalous(t, a);
  for (JIdx k : kwargs) in_bad = in_bad || Anomalous(t, k);
  for (JIdx o : outs) out_bad = out_bad || Anomalous(t, o);

  Overflow level = Overflow::kNone;
  if (!in_bad && out_bad) level = Overflow::kCritical;
  else if (in_bad && out_bad) level = Overflow::kHigh;
  else if (in_bad && !out_bad) level = Overflow::kMedium;
  else {
    std::vector<double> in_n, out_n;
    double d;
    for (JIdx a : args) if (TensorNorm(t, a, &d)) in_n.push_back(d);
    for (JIdx k : kwargs) if (TensorNorm(t, k, &d)) in_n.push_back(d);
    for (JIdx o : outs) if (TensorNorm(t, o, &d)) out_n.push_back(d);
    if (!in_n.empty() && !out_n.empty()) {
      double mi = in_n[0], mo = out_n[0];
      for (double x : in_n) mi = std::max(mi, x);
      for (double x : out_n) mo = std::max(mo, x);
      if ((mi == 0 && mo > 100) || (mi != 0 && mo / mi > 100)) level = Overflow::kHigh;
    }
  }
  if (level == Overflow::kNone) return level;

  const IgnoreRule* rule = RuleFor(ApiKey(name));
  if (!rule) return level;
  if (!rule->in_index.empty() && !args.empty())
    for (size_t i = 0; i < args.size(); ++i)
      if (Bad(t, args[i]) && !rule->in_index.count(static_cast<int>(i))) return level;
  if (!rule->in_name.empty() && !kwargs.empty())
    for (JIdx k : kwargs)
      if (Bad(t, k) && !rule->in_name.count(std::string(t.Key(k)))) return level;
  if (!rule->out_index.empty() && !outs.empty())
    for (size_t i = 0; i < outs.size(); ++i)
      if (Bad(t, outs[i]) && !rule->out_index.count(static_cast<int>(i))) return level;
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
