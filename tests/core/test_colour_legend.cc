// The colour legend's defaults (db/colour_legend.h) are core/db/colour_legend.json, compiled in; the
// page imports the same file (tests/web/colour_legend.test.mjs checks that side). This fails when the
// engine drifts from it: a stale compiled-in copy, a rule not taken from it, or a literal copy in core/.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compare/compare.h"
#include "compare/compare_config.h"
#include "db/badges.h"
#include "db/colour_legend.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"

using namespace visprobe;

namespace {

std::string ReadText(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::filesystem::path kDeclaration = std::filesystem::path(VP_SOURCE_DIR) / "core/db/colour_legend.json";

}  // namespace

TEST_CASE("legend: the compiled-in declaration is the file's", "[colour_legend]") {
  JTree t;
  JIdx root;
  REQUIRE(ParseJsonText(ReadText(kDeclaration), t, &root).ok());
  const ColourLegend& legend = DefaultColourLegend();
  JIdx buckets = t.Find(root, "buckets");
  REQUIRE(legend.buckets.size() == t.at(buckets).count);
  size_t i = 0;
  for (JIdx b = t.at(buckets).first; b != kJNone; b = t.at(b).next, ++i) {
    CHECK(legend.buckets[i].level == t.Str(t.Find(b, "level")));
    CHECK(legend.buckets[i].colour == t.Str(t.Find(b, "colour")));
    CHECK(legend.buckets[i].lo == t.AsDouble(t.Find(b, "lo")));
    CHECK(legend.buckets[i].hi == t.AsDouble(t.Find(b, "hi")));
  }
  CHECK(legend.unmatched == t.Str(t.Find(root, "unmatched")));
  CHECK(legend.uncoloured_node_types == std::vector<int64_t>{8, 9});
  // msProbe's table, as its node_colors writes the ranges.
  CHECK(legend.buckets[0].range_json == "[0, 0.3]");
  CHECK(legend.buckets[1].range_json == "[0.3, 0.6]");
  CHECK(legend.buckets[2].range_json == "[0.6, 1]");
}

TEST_CASE("legend: the engine's rules take it: badge bounds, node_colors, the white node types", "[colour_legend]") {
  const ColourLegend& legend = DefaultColourLegend();
  BadgeThresholds t;
  CHECK(t.warning == 0.3);
  CHECK(t.error == 0.6);
  CHECK(t.warning == DefaultLegendBound("warning"));
  CHECK(t.error == DefaultLegendBound("error"));
  // A file's node_colors: the declaration's buckets with the mode's descriptions, then unmatched.
  const std::string summary = NodeColorsJson(CompareMode::kSummary);
  CHECK(summary.rfind("{\"" + legend.buckets[0].colour + "\": {\"value\": [0, 0.3], \"description\": ", 0) == 0);
  for (const LegendBucket& b : legend.buckets)
    CHECK(summary.find("\"" + b.colour + "\": {\"value\": " + b.range_json) != std::string::npos);
  CHECK(summary.find("\"" + legend.unmatched + "\": {\"value\": [], ") != std::string::npos);
  CHECK(NodeColorsJson(CompareMode::kStructure).find(legend.buckets[0].colour) == std::string::npos);
  // Read back, a file's table gives the declaration's bounds.
  BadgeThresholds back = BadgeThresholdsFromLegend(summary);
  CHECK(back.warning == legend.buckets[1].lo);
  CHECK(back.error == legend.buckets[2].lo);
  CHECK_FALSE(IsColouredNodeType(8));
  CHECK_FALSE(IsColouredNodeType(9));
  CHECK(IsColouredNodeType(0));
  CHECK(IsColouredNodeType(1));
}

TEST_CASE("legend: core/ keeps no literal copy of the legend's colours", "[colour_legend]") {
  std::vector<std::string> colours;
  for (const LegendBucket& b : DefaultColourLegend().buckets) colours.push_back(b.colour);
  colours.push_back(DefaultColourLegend().unmatched);
  std::string found;  // "file: colour" lines
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(VP_SOURCE_DIR) / "core")) {
    const std::string ext = e.path().extension().string();
    if (ext != ".cc" && ext != ".h" && ext != ".def") continue;
    // matplotlib's tab20 (the parallel layout's palette) holds the same grey as another colour.
    if (e.path().filename() == "parallel_layout.cc") continue;
    std::string text = ReadText(e.path());
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& c : colours)
      if (text.find(c) != std::string::npos) found += e.path().string() + ": " + c + "\n";
  }
  CHECK(found == "");
}
