#include "db/badges.h"

#include <algorithm>
#include <cmath>

#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace visprobe {

BadgeThresholds BadgeThresholdsFromLegend(std::string_view json) {
  BadgeThresholds t;
  JTree tree;
  JIdx root = kJNone;
  if (json.empty() || !ParseJsonText(json, tree, &root).ok() || tree.Kind(root) != JKind::kObject) return t;
  struct Bucket {
    double lo, hi;
    bool error;
  };
  std::vector<Bucket> buckets;
  for (JIdx m = tree.at(root).first; m != kJNone; m = tree.at(m).next) {
    if (tree.Kind(m) != JKind::kObject) continue;
    JIdx v = tree.Find(m, "value");
    if (v == kJNone || tree.Kind(v) != JKind::kArray || tree.at(v).count != 2) continue;
    JIdx a = tree.at(v).first, b = tree.at(a).next;
    if (!tree.IsNumber(a) || !tree.IsNumber(b)) continue;
    double lo = tree.AsDouble(a), hi = tree.AsDouble(b);
    if (!std::isfinite(lo) || !std::isfinite(hi)) continue;
    JIdx level = tree.Find(m, "accuracy_level");
    bool error = level != kJNone && tree.Kind(level) == JKind::kString && tree.Str(level) == "error";
    buckets.push_back({lo, hi, error});
  }
  if (buckets.size() < 2) return t;
  std::stable_sort(buckets.begin(), buckets.end(), [](const Bucket& x, const Bucket& y) { return x.lo < y.lo; });
  double error = buckets.back().lo;
  for (const Bucket& b : buckets)
    if (b.error) {
      error = b.lo;
      break;
    }
  double warning = error;
  for (const Bucket& b : buckets)
    if (b.lo > buckets.front().lo && b.lo <= error) {
      warning = b.lo;
      break;
    }
  t.warning = warning;
  t.error = error;
  return t;
}

std::vector<FlatBadge> ComputeBadgesFlat(size_t n, const int32_t* parent, const double* precision, const uint8_t* flags,
                                         const uint8_t* overflow, bool compare, const BadgeThresholds& t) {
  std::vector<FlatBadge> acc(n);
  std::vector<char> has(n, 0);
  auto in = [&](int64_t i) { return i >= 0 && static_cast<size_t>(i) < n && !(flags[i] & kBadgeSkip); };
  for (size_t id = 0; id < n; ++id) {
    if (!in(static_cast<int64_t>(id))) continue;
    const bool is_leaf = flags[id] & kBadgeLeaf;
    double p = precision[id];
    bool has_p = p >= 0;  // false for NaN too
    if (p > 1) p = 1;
    bool error = has_p && p >= t.error;
    bool warning = has_p && !error && p >= t.warning;
    bool unmatched = is_leaf && compare && (flags[id] & kBadgeUnmatched);
    uint8_t ov = is_leaf ? std::min<uint8_t>(overflow[id], 3) : 0;
    bool counted = error || warning || unmatched || ov != 0;
    if (!counted && !(is_leaf && has_p)) continue;
    // A leaf counts for its ancestors, a module's own precision for itself and its ancestors
    // (only an error or a warning: a passing module's precision is already its leaves' business).
    // The guard stops a malformed chain that loops.
    size_t guard = 0;
    for (int64_t a = is_leaf ? parent[id] : static_cast<int64_t>(id); in(a) && guard < n; a = parent[a], ++guard) {
      FlatBadge& r = acc[a];
      if (has_p) r.worst = std::max(r.worst, p);
      if (!counted) continue;
      has[a] = 1;
      r.n_error += error;
      r.n_warning += warning;
      r.n_unmatched += unmatched;
      r.n_overflow += ov != 0;
      r.worst_overflow = std::max(r.worst_overflow, ov);
    }
  }
  std::vector<FlatBadge> out;
  for (size_t id = 0; id < n; ++id) {
    if (!has[id]) continue;
    acc[id].index = static_cast<uint32_t>(id);
    out.push_back(acc[id]);
  }
  return out;
}

std::vector<BadgeRow> ComputeBadges(const Graph& g, const std::vector<char>& written, bool compare, const BadgeThresholds& t) {
  const size_t n = g.size();
  std::vector<int32_t> parent(n, -1);
  std::vector<double> precision(n, -1);
  std::vector<uint8_t> flags(n, 0), overflow(n, 0);
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = g.node(id);
    if (!(id < written.size() && written[id])) {
      flags[id] = kBadgeSkip;
      continue;
    }
    parent[id] = node.up == kNoNode ? -1 : static_cast<int32_t>(node.up);
    precision[id] = node.precision_index;
    flags[id] = (node.subnodes.empty() ? kBadgeLeaf : 0) | (node.matched == kNoNode ? kBadgeUnmatched : 0);
    overflow[id] = static_cast<uint8_t>(node.overflow);
  }
  std::vector<BadgeRow> out;
  for (const FlatBadge& f : ComputeBadgesFlat(n, parent.data(), precision.data(), flags.data(), overflow.data(), compare, t)) {
    BadgeRow r;
    r.node = f.index;
    r.worst = f.worst;
    r.n_error = f.n_error;
    r.n_warning = f.n_warning;
    r.n_unmatched = f.n_unmatched;
    r.n_overflow = f.n_overflow;
    r.worst_overflow = f.worst_overflow;
    out.push_back(r);
  }
  return out;
}

}  // namespace visprobe
