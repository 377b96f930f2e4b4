#include "db/badges.h"

#include <algorithm>

namespace visprobe {

std::vector<BadgeRow> ComputeBadges(const Graph& g, const std::vector<char>& written, bool compare,
                                    const BadgeThresholds& t) {
  const size_t n = g.size();
  std::vector<BadgeRow> acc(n);
  std::vector<char> has(n, 0);
  auto in = [&](NodeId id) { return id < n && id < written.size() && written[id]; };
  for (NodeId id = 0; id < n; ++id) {
    if (!in(id)) continue;
    const Node& node = g.node(id);
    const bool is_leaf = node.subnodes.empty();
    double p = node.precision_index;
    bool has_p = p >= 0;
    if (p > 1) p = 1;
    bool error = has_p && p >= t.error;
    bool warning = has_p && !error && p >= t.warning;
    bool unmatched = is_leaf && compare && node.matched_link.empty();
    uint8_t ov = is_leaf ? static_cast<uint8_t>(node.overflow) : 0;
    bool counted = error || warning || unmatched || ov != 0;
    if (!counted && !(is_leaf && has_p)) continue;
    // A leaf counts for its ancestors, a module's own precision for itself and its ancestors
    // (only an error or a warning: a passing module's precision is already its leaves' business).
    // The guard stops a malformed chain that loops.
    size_t guard = 0;
    for (NodeId a = is_leaf ? node.up : id; a != kNoNode && in(a) && guard < n; a = g.node(a).up, ++guard) {
      BadgeRow& r = acc[a];
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
  std::vector<BadgeRow> out;
  for (NodeId id = 0; id < n; ++id) {
    if (!has[id]) continue;
    acc[id].node = id;
    out.push_back(acc[id]);
  }
  return out;
}

}  // namespace visprobe
