// Problem badges (web-ui BEY-08): for every expandable node of one graph, the worst precision
// index among the leaves below it and how many of those leaves are errors, warnings, unmatched or
// overflowing, so a collapsed module shows its hidden problems without being expanded. Stored in
// the extension table vp_badges (msProbe's viewer reads its tables by name and ignores others).
//
// Semantics (one implementation: the browser's worker runs ComputeBadgesFlat through the wasm
// module for files made by msProbe, which have no vp_badges table; web/src/engine/badges.js only
// gathers the rows):
// a leaf is a node without children; it counts for every ancestor on its up_node chain. Error:
// precision >= error bound; warning: warning bound <= precision < error bound (precision clamped
// to [0, 1]); unmatched: compare graphs only, empty matched link; overflow: any overflow level.
// A module's own precision counts too (issue 19): a module that is itself an error or a warning
// (its outputs diverge while every leaf in it passes) counts in its own badge and in its
// ancestors', and its precision is part of their worst; unmatched and overflow stay leaf counts.
// Only nodes with at least one counted node at or below them get a row.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "db/colour_legend.h"
#include "graph/graph.h"

namespace visprobe {

// Lower bounds of the warning and error buckets of the colour legend (§9.9), by default those of
// the declaration (db/colour_legend.json: 0.3 and 0.6).
struct BadgeThresholds {
  double warning = DefaultLegendBound("warning");
  double error = DefaultLegendBound("error");
};

// The thresholds of a file's colour legend (tb_config.node_colors, msProbe's
// {"#colour": {"value": [lo, hi], "accuracy_level": "..."}}): the bucket named "error" (else the
// one starting highest) starts the errors; the lowest bucket above the pass bucket (the one
// starting lowest) starts the warnings. Fewer than two buckets, or JSON that is not such a table:
// the defaults.
BadgeThresholds BadgeThresholdsFromLegend(std::string_view node_colors_json);

// The badge rules over plain arrays of n nodes (the graph's nodes, or one graph's rows of a
// database): parent[i] the index of i's parent (< 0: none), precision[i] its precision index
// (< 0 or NaN: none), flags[i] kBadgeLeaf | kBadgeUnmatched | kBadgeSkip, overflow[i] 0-3.
// Skipped nodes neither count nor receive counts (the chain stops at them).
enum : uint8_t { kBadgeLeaf = 1, kBadgeUnmatched = 2, kBadgeSkip = 4 };
struct FlatBadge {
  uint32_t index = 0;
  double worst = -1;
  uint32_t n_error = 0, n_warning = 0, n_unmatched = 0, n_overflow = 0;
  uint8_t worst_overflow = 0;
};
std::vector<FlatBadge> ComputeBadgesFlat(size_t n, const int32_t* parent, const double* precision, const uint8_t* flags,
                                         const uint8_t* overflow, bool compare, const BadgeThresholds& t);

struct BadgeRow {
  NodeId node = kNoNode;
  double worst = -1;  // largest precision index of the leaves below; < 0: none (NULL)
  uint32_t n_error = 0, n_warning = 0, n_unmatched = 0, n_overflow = 0;
  uint8_t worst_overflow = 0;  // 0 none, 1 medium, 2 high, 3 critical
};

// Rows for the nodes with written[id] set (the exported nodes), in NodeId order. `compare`:
// the graph is one side of a comparison (otherwise nothing counts as unmatched).
std::vector<BadgeRow> ComputeBadges(const Graph& g, const std::vector<char>& written, bool compare,
                                    const BadgeThresholds& t = BadgeThresholds());

}  // namespace visprobe
