// The precision colour legend's defaults, declared once in db/colour_legend.json (compiled in; the
// page imports the same file): msProbe's three buckets, the unmatched grey and the node types drawn
// without a precision colour. The engine's users: the compare's tb_config.node_colors
// (compare/compare_config.cc), the badges' default bounds (db/badges.h BadgeThresholds).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace visprobe {

struct LegendBucket {
  std::string level;  // "pass", "warning", "error"
  std::string colour;  // "#RRGGBB"
  double lo = 0, hi = 0;  // [lo, hi), the last closed at 1
  std::string range_json;  // "[0.3, 0.6]": the bounds as the file writes them (0 and 1 stay integers)
};

struct ColourLegend {
  std::vector<LegendBucket> buckets;  // ascending
  std::string unmatched;  // the unmatched grey
  std::vector<int64_t> uncoloured_node_types;  // fused operators, API lists
};

// The declaration, parsed once (a malformed file fails the build's tests, not a run: the engine
// aborts with a message naming the file).
const ColourLegend& DefaultColourLegend();

// The lower bound of the bucket named `level` in the declaration.
double DefaultLegendBound(const char* level);

// Whether nodes of this type take a precision colour (else they are drawn white).
bool IsColouredNodeType(int64_t node_type);

}  // namespace visprobe
