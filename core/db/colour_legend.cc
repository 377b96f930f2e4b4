#include "db/colour_legend.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace visprobe {
namespace {

// core/db/colour_legend.json as CMakeLists.txt writes it into the build folder: a raw string literal.
constexpr std::string_view kLegendJson =
#include "db/colour_legend_json.inc"
    ;

[[noreturn]] void Malformed(const char* what) {
  std::fprintf(stderr, "core/db/colour_legend.json: %s\n", what);
  std::abort();
}

LegendBucket BucketOf(const JTree& t, JIdx b) {
  LegendBucket out;
  JIdx level = t.Find(b, "level"), colour = t.Find(b, "colour"), lo = t.Find(b, "lo"), hi = t.Find(b, "hi");
  if (level == kJNone || colour == kJNone || lo == kJNone || hi == kJNone || !t.IsNumber(lo) || !t.IsNumber(hi))
    Malformed("a bucket needs level, colour, lo and hi");
  out.level.assign(t.Str(level));
  out.colour.assign(t.Str(colour));
  out.lo = t.AsDouble(lo);
  out.hi = t.AsDouble(hi);
  out.range_json = "[";
  t.AppendJson(out.range_json, lo);
  out.range_json += ", ";
  t.AppendJson(out.range_json, hi);
  out.range_json += "]";
  return out;
}

ColourLegend Parse() {
  JTree t;
  JIdx root;
  if (!ParseJsonText(kLegendJson, t, &root).ok()) Malformed("not a JSON object");
  ColourLegend legend;
  JIdx buckets = t.Find(root, "buckets"), unmatched = t.Find(root, "unmatched"), types = t.Find(root, "uncolouredNodeTypes");
  if (buckets == kJNone || unmatched == kJNone || types == kJNone) Malformed("buckets, unmatched and uncolouredNodeTypes");
  for (JIdx b = t.at(buckets).first; b != kJNone; b = t.at(b).next) legend.buckets.push_back(BucketOf(t, b));
  legend.unmatched.assign(t.Str(unmatched));
  for (JIdx n = t.at(types).first; n != kJNone; n = t.at(n).next) legend.uncoloured_node_types.push_back(t.at(n).i);
  return legend;
}

}  // namespace

const ColourLegend& DefaultColourLegend() {
  static const ColourLegend legend = Parse();
  return legend;
}

double DefaultLegendBound(const char* level) {
  for (const LegendBucket& b : DefaultColourLegend().buckets)
    if (b.level == level) return b.lo;
  Malformed("a bucket's level is missing");
}

bool IsColouredNodeType(int64_t node_type) {
  for (int64_t t : DefaultColourLegend().uncoloured_node_types)
    if (t == node_type) return false;
  return true;
}

}  // namespace visprobe
