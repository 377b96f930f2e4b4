// Trend spec §11 (plot_model_parallelism): validation §11.2, rank groups §11.3, layers of a rank
// §11.4, the chart §11.5, every worked example of §11.6 and the output contract §11.7.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "app/plot_cli.h"
#include "base/strings.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"
#include "test_util.h"
#include "trend/parallel_layout.h"
#include "trend/parallel_layout_parse.h"

using namespace visprobe;
using Ints = std::vector<int>;
using Groups = std::vector<std::vector<int>>;
using Texts = std::vector<std::string>;

namespace {

ParallelConfig Config(int64_t ws, int64_t layers, int64_t tp = 1, int64_t pp = 1, std::optional<int64_t> v = std::nullopt,
                      const std::string& order = "tp-cp-ep-dp-pp", bool standalone = false) {
  ParallelConfig c;
  c.world_size = ws;
  c.num_layers = layers;
  c.tensor_parallel_size = tp;
  c.pipeline_parallel_size = pp;
  c.num_layers_per_virtual_pipeline_stage = v;
  c.order = order;
  c.standalone_embedding_stage = standalone;
  return c;
}

ParallelLayout Layout(const ParallelConfig& c) {
  auto r = ComputeParallelLayout(c);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return r.value();
}

std::string Error(const ParallelConfig& c) {
  auto r = ComputeParallelLayout(c);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidInput);
  return r.status().message();
}

// One expected chart row: label, 1-based model copy (as §11.6 writes it), chunk texts.
struct Row {
  std::string label;
  int copy;
  Texts cells;
};

void CheckRows(const ParallelLayout& l, const std::vector<Row>& expected) {
  REQUIRE(l.rows.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("row " << i);
    CHECK(l.rows[i].index == static_cast<int>(i));
    CHECK(l.rows[i].label == expected[i].label);
    CHECK(l.rows[i].model_copy == expected[i].copy - 1);
    CHECK(l.rows[i].cells == expected[i].cells);
    CHECK(l.rows[i].components.size() == l.rows[i].cells.size());
  }
}

std::string Title(int layers, int dp, int tp, int pp, int vpp) {
  return "Model Parallelism Configuration | Total Layers: " + std::to_string(layers) + " | DP=" + std::to_string(dp) +
         " | TP=" + std::to_string(tp) + " | PP=" + std::to_string(pp) + " | VPP=" + std::to_string(vpp);
}

LayerComponent Embedding() { return {LayerComponent::Kind::kEmbedding, 0}; }
LayerComponent Output() { return {LayerComponent::Kind::kOutputLayer, 0}; }
LayerComponent L(int n) { return {LayerComponent::Kind::kLayer, n}; }

// The examples B-D share this configuration.
const std::vector<Row> kExampleB = {{"Group0: Ranks0-1", 1, {"Embed+L1-12"}},
                                    {"Group1: Ranks2-3", 2, {"Embed+L1-12"}},
                                    {"Group2: Ranks4-5", 1, {"L13-24+Out"}},
                                    {"Group3: Ranks6-7", 2, {"L13-24+Out"}}};

}  // namespace

// ---- §11.4 cell texts ---------------------------------------------------------------------

TEST_CASE("trend §11.4 cell text of a component list (reference vectors)", "[parallel]") {
  CHECK(ChunkCellText({Embedding(), L(1), L(2), L(3)}) == "Embed+L1-3");
  CHECK(ChunkCellText({L(7), L(8), L(9), Output()}) == "L7-9+Out");
  CHECK(ChunkCellText({L(4), L(5), L(6)}) == "L4-6");
  CHECK(ChunkCellText({Embedding(), L(1), L(2), L(3), Output()}) == "Embed+L1-3+Out");
  CHECK(ChunkCellText({}) == "");
  CHECK(ChunkCellText({Embedding()}) == "Embed");
  CHECK(ChunkCellText({Output()}) == "Out");
  CHECK(ChunkCellText({L(5)}) == "L5-5");
  CHECK(ChunkCellText({L(9), L(3), L(6)}) == "L3-9");  // minimum and maximum, not first and last
}

// ---- §11.6 worked examples ----------------------------------------------------------------

TEST_CASE("trend §11.6 A: ws32 L48 tp4 pp4 v3 (VPP 4, two copies)", "[parallel]") {
  auto l = Layout(Config(32, 48, 4, 4, 3));
  CHECK(l.dp == 2);
  CHECK(l.lps == 12);
  CHECK(l.tpp == 4);
  CHECK(l.vpp == 4);
  CHECK(l.pp == 4);
  CHECK(l.file_stem == "ws32_ln48_tp4_pp4_vpp4");
  CHECK(l.title == Title(48, 2, 4, 4, 4));
  CHECK(l.order_tokens == Texts{"tp", "cp", "dp", "pp"});
  Groups tp;
  for (int g = 0; g < 8; ++g) tp.push_back({4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3});
  CHECK(l.tp_groups == tp);
  CHECK(l.dp_groups == Groups{{0, 4},
                              {1, 5},
                              {2, 6},
                              {3, 7},
                              {8, 12},
                              {9, 13},
                              {10, 14},
                              {11, 15},
                              {16, 20},
                              {17, 21},
                              {18, 22},
                              {19, 23},
                              {24, 28},
                              {25, 29},
                              {26, 30},
                              {27, 31}});
  Groups pp;
  for (int r = 0; r < 8; ++r) pp.push_back({r, r + 8, r + 16, r + 24});
  CHECK(l.pp_groups == pp);
  CHECK(l.model_copies == Groups{{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27},
                                 {4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31}});
  CHECK(l.stage_ranks[0] == Ints{0, 1, 2, 3, 4, 5, 6, 7});
  CheckRows(l, {{"Group0: Ranks0-3", 1, {"Embed+L1-3", "L13-15", "L25-27", "L37-39"}},
                {"Group1: Ranks4-7", 2, {"Embed+L1-3", "L13-15", "L25-27", "L37-39"}},
                {"Group2: Ranks8-11", 1, {"L4-6", "L16-18", "L28-30", "L40-42"}},
                {"Group3: Ranks12-15", 2, {"L4-6", "L16-18", "L28-30", "L40-42"}},
                {"Group4: Ranks16-19", 1, {"L7-9", "L19-21", "L31-33", "L43-45"}},
                {"Group5: Ranks20-23", 2, {"L7-9", "L19-21", "L31-33", "L43-45"}},
                {"Group6: Ranks24-27", 1, {"L10-12", "L22-24", "L34-36", "L46-48+Out"}},
                {"Group7: Ranks28-31", 2, {"L10-12", "L22-24", "L34-36", "L46-48+Out"}}});
  CHECK(l.rows[1].representative_rank == 4);
  CHECK(l.cell_count == 32);
  // Raw components of row 0, Stage 0 and of the last row, last stage.
  const auto& c0 = l.rows[0].components[0];
  REQUIRE(c0.size() == 4);
  CHECK(c0[0].kind == LayerComponent::Kind::kEmbedding);
  CHECK(c0[3].layer == 3);
  const auto& c7 = l.rows[7].components[3];
  REQUIRE(c7.size() == 4);
  CHECK(c7[0].layer == 46);
  CHECK(c7[3].kind == LayerComponent::Kind::kOutputLayer);
}

TEST_CASE("trend §11.6 B: ws8 L24 tp2 pp2, default order and tp-dp-pp", "[parallel]") {
  for (const char* order : {"tp-cp-ep-dp-pp", "tp-dp-pp"}) {
    INFO(order);
    auto l = Layout(Config(8, 24, 2, 2, std::nullopt, order));
    CHECK(l.dp == 2);
    CHECK(l.vpp == 1);
    CHECK(l.tpp == 2);
    CHECK(l.lps == 12);
    CHECK(l.file_stem == "ws8_ln24_tp2_pp2_vpp1");
    CHECK(l.title == Title(24, 2, 2, 2, 1));
    CheckRows(l, kExampleB);
  }
}

TEST_CASE("trend §11.6 C: order tp-pp-dp", "[parallel]") {
  auto l = Layout(Config(8, 24, 2, 2, std::nullopt, "tp-pp-dp"));
  CHECK(l.dp_groups == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(l.pp_groups == Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CheckRows(l, {{"Group0: Ranks0-1", 1, {"Embed+L1-12"}},
                {"Group1: Ranks2-3", 1, {"L13-24+Out"}},
                {"Group2: Ranks4-5", 2, {"Embed+L1-12"}},
                {"Group3: Ranks6-7", 2, {"L13-24+Out"}}});
}

TEST_CASE("trend §11.6 D: order pp-dp-tp (non-contiguous TP groups)", "[parallel]") {
  auto l = Layout(Config(8, 24, 2, 2, std::nullopt, "pp-dp-tp"));
  CHECK(l.tp_groups == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(l.rows[0].ranks == Ints{0, 4});
  CheckRows(l, {{"Group0: Ranks0-4", 1, {"Embed+L1-12"}},
                {"Group1: Ranks1-5", 1, {"L13-24+Out"}},
                {"Group2: Ranks2-6", 2, {"Embed+L1-12"}},
                {"Group3: Ranks3-7", 2, {"L13-24+Out"}}});
}

TEST_CASE("trend §11.6 E: tp1 rows are labelled Rank<n>", "[parallel]") {
  auto l = Layout(Config(4, 8, 1, 2));
  CHECK(l.dp == 2);
  CHECK(l.file_stem == "ws4_ln8_tp1_pp2_vpp1");
  CheckRows(l,
            {{"Rank0", 1, {"Embed+L1-4"}}, {"Rank1", 2, {"Embed+L1-4"}}, {"Rank2", 1, {"L5-8+Out"}}, {"Rank3", 2, {"L5-8+Out"}}});
}

TEST_CASE("trend §11.6 F: standalone embedding stage", "[parallel]") {
  auto l = Layout(Config(16, 24, 2, 4, std::nullopt, "tp-cp-ep-dp-pp", true));
  CHECK(l.tpp == 3);
  CHECK(l.lps == 8);
  CHECK(l.dp == 2);
  CHECK(l.vpp == 1);
  CHECK(l.file_stem == "ws16_ln24_tp2_pp4_vpp1");
  CheckRows(l, {{"Group0: Ranks0-1", 1, {"Embed"}},
                {"Group1: Ranks2-3", 2, {"Embed"}},
                {"Group2: Ranks4-5", 1, {"L1-8"}},
                {"Group3: Ranks6-7", 2, {"L1-8"}},
                {"Group4: Ranks8-9", 1, {"L9-16"}},
                {"Group5: Ranks10-11", 2, {"L9-16"}},
                {"Group6: Ranks12-13", 1, {"L17-24+Out"}},
                {"Group7: Ranks14-15", 2, {"L17-24+Out"}}});
}

TEST_CASE("trend §11.6 G: standalone embedding with VPP (empty chunks)", "[parallel]") {
  auto l = Layout(Config(8, 24, 1, 4, 2, "tp-cp-ep-dp-pp", true));
  CHECK(l.tpp == 3);
  CHECK(l.lps == 8);
  CHECK(l.vpp == 4);
  CHECK(l.dp == 2);
  CHECK(l.file_stem == "ws8_ln24_tp1_pp4_vpp4");
  CheckRows(l, {{"Rank0", 1, {"Embed", "", "", ""}},
                {"Rank1", 2, {"Embed", "", "", ""}},
                {"Rank2", 1, {"L1-2", "L7-8", "L13-14", "L19-20"}},
                {"Rank3", 2, {"L1-2", "L7-8", "L13-14", "L19-20"}},
                {"Rank4", 1, {"L3-4", "L9-10", "L15-16", "L21-22"}},
                {"Rank5", 2, {"L3-4", "L9-10", "L15-16", "L21-22"}},
                {"Rank6", 1, {"L5-6", "L11-12", "L17-18", "L23-24+Out"}},
                {"Rank7", 2, {"L5-6", "L11-12", "L17-18", "L23-24+Out"}}});
  CHECK(l.rows[0].components[1].empty());
  CHECK(l.cell_count == 32);  // empty cells are still drawn
}

TEST_CASE("trend §11.6 H: a single device", "[parallel]") {
  auto l = Layout(Config(1, 1));
  CHECK(l.file_stem == "ws1_ln1_tp1_pp1_vpp1");
  CHECK(l.title == Title(1, 1, 1, 1, 1));
  CheckRows(l, {{"Rank0", 1, {"Embed+L1-1+Out"}}});
}

TEST_CASE("trend §11.6 I: ws2 L6 tp2", "[parallel]") {
  auto l = Layout(Config(2, 6, 2));
  CHECK(l.dp == 1);
  CHECK(l.file_stem == "ws2_ln6_tp2_pp1_vpp1");
  CheckRows(l, {{"Group0: Ranks0-1", 1, {"Embed+L1-6+Out"}}});
}

TEST_CASE("trend §11.6 J: v equal to the layers per stage gives vpp 1, legal with pp 1", "[parallel]") {
  auto l = Layout(Config(4, 24, 2, 1, 24));
  CHECK(l.vpp == 1);
  CHECK(l.dp == 2);
  CHECK(l.file_stem == "ws4_ln24_tp2_pp1_vpp1");
  CheckRows(l, {{"Group0: Ranks0-1", 1, {"Embed+L1-24+Out"}}, {"Group1: Ranks2-3", 2, {"Embed+L1-24+Out"}}});
}

// ---- §11.2 / §11.3 errors ------------------------------------------------------------------

TEST_CASE("trend §11.6 error cases", "[parallel]") {
  CHECK(Error(Config(4, 24, 2, 1, 6)) == "pipeline-model-parallel size should be greater than 1 with virtual-pipeline");
  CHECK(Error(Config(8, 24, 2, 4, 5)) ==
        "number of layers per pipeline stage (6) must be divisible by number of layers per virtual pipeline stage (5).");
  CHECK(Error(Config(10, 24, 3, 3)) ==
        "world_size (10) is not divisible by tensor_parallel_size(3) x pipeline_parallel_size (3)");
  CHECK(Error(Config(8, 24, 8, 1, std::nullopt, "tp-cp-ep-dp-pp", true)) ==
        "number of layers (24) must be divisible by transformer_pipeline_parallel_size (0), which is "
        "pipeline_parallel_size-1 when standalone_embedding_stage is enabled.");
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tp-ep-pp-dp")) == "The ep and dp must be adjacent in order (tp-ep-pp-dp).");
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tp-dp")) ==
        "The parallel size (pp) is (2), but it's not specified in order (tp-dp).");
}

TEST_CASE("trend §11.2 validation messages, in order", "[parallel]") {
  CHECK(Error(Config(0, 24)) == "world_size must be a positive integer");
  CHECK(Error(Config(-3, 0)) == "world_size must be a positive integer");  // first failure wins
  CHECK(Error(Config(8, 0)) == "num_layers must be a positive integer");
  CHECK(Error(Config(8, 24, 0)) == "tensor_parallel_size must be a positive integer");
  CHECK(Error(Config(8, 24, 1, -1)) == "pipeline_parallel_size must be a positive integer");
  CHECK(Error(Config(8, 24, 1, 2, 0)) == "num_layers_per_virtual_pipeline_stage must be a positive integer");
  CHECK(Error(Config(2048, 24)) == "world_size (2048) exceeds the maximum supported value of 1024.");
  CHECK(Error(Config(8, 300)) == "num_layers (300) exceeds the maximum supported value of 256.");
  CHECK(Error(Config(2048, 300)) == "world_size (2048) exceeds the maximum supported value of 1024.");
  CHECK(Error(Config(1025, 24, 0)) == "tensor_parallel_size must be a positive integer");
  CHECK(Error(Config(8, 25, 2, 2)) == "number of layers (25) must be divisible by pipeline_parallel_size (2).");
  CHECK(Error(Config(8, 25, 1, 4, std::nullopt, "tp-cp-ep-dp-pp", true)) ==
        "number of layers (25) must be divisible by transformer_pipeline_parallel_size (3), which is "
        "pipeline_parallel_size-1 when standalone_embedding_stage is enabled.");
  CHECK(Error(Config(1, 1, 1, 1, std::nullopt, "tp-cp-ep-dp-pp", true)) ==
        "number of layers (1) must be divisible by transformer_pipeline_parallel_size (0), which is "
        "pipeline_parallel_size-1 when standalone_embedding_stage is enabled.");
  // tp or pp far above the world size: no overflow, the divisibility message.
  CHECK(Error(Config(8, 24, 4000000000LL, 4000000000LL)) ==
        "world_size (8) is not divisible by tensor_parallel_size(4000000000) x pipeline_parallel_size (4000000000)");
  CHECK(Error(Config(8, 24, 2, 4, 1000)) ==
        "number of layers per pipeline stage (6) must be divisible by number of layers per virtual pipeline stage (1000).");
  // A bad order is reported only after all numeric checks (§11.2 item 11).
  CHECK(Error(Config(8, 25, 2, 2, std::nullopt, "tp-xx")) ==
        "number of layers (25) must be divisible by pipeline_parallel_size (2).");
}

TEST_CASE("trend §11.3 order: case-insensitive, unknown and duplicate tokens rejected", "[parallel]") {
  auto upper = Layout(Config(8, 24, 2, 2, std::nullopt, "TP-CP-EP-DP-PP"));
  CheckRows(upper, kExampleB);
  CHECK(upper.order_tokens == Texts{"tp", "cp", "dp", "pp"});
  auto mixed = Layout(Config(8, 24, 2, 2, std::nullopt, "Pp-Dp-tP"));
  CHECK(mixed.tp_groups == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  // Missing size-1 dimensions are appended; ep-dp adjacency either way round.
  CHECK(Layout(Config(8, 24, 2, 2, std::nullopt, "tp-dp-ep-pp")).order_tokens == Texts{"tp", "dp", "pp", "cp"});
  CHECK(Layout(Config(8, 24, 1, 1, std::nullopt, "dp")).order_tokens == Texts{"dp", "tp", "pp", "cp"});

  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tp-xx-dp-pp")) == "invalid token 'xx' in order (tp-xx-dp-pp)");
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "TP-DP-PP-Q")) == "invalid token 'Q' in order (TP-DP-PP-Q)");
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tp-dp-pp-")) == "invalid token '' in order (tp-dp-pp-)");
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tp-dp-pp-tp")) == "duplicate token 'tp' in order (tp-dp-pp-tp)");
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tp-DP-pp-dp")) == "duplicate token 'dp' in order (tp-DP-pp-dp)");
  CHECK(Error(Config(8, 24, 1, 1, std::nullopt, "tp-cp-cp-dp-pp")) == "duplicate token 'cp' in order (tp-cp-cp-dp-pp)");
  // A token that is not a dimension but contains one: the reference's substring test passes it,
  // the token check rejects it.
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tpp-dp")) == "invalid token 'tpp' in order (tpp-dp)");
  CHECK(Error(Config(8, 24, 2, 4, std::nullopt, "TP-DP")) ==
        "The parallel size (pp) is (4), but it's not specified in order (TP-DP).");
  CHECK(Error(Config(8, 24, 2, 2, std::nullopt, "tp-pp")) ==
        "The parallel size (dp) is (2), but it's not specified in order (tp-pp).");
  CHECK(Error(Config(8, 24, 1, 1, std::nullopt, "ep-tp-dp-pp")) == "The ep and dp must be adjacent in order (ep-tp-dp-pp).");
}

TEST_CASE("trend §11.6 derived values", "[parallel]") {
  CHECK(Layout(Config(8, 24, 2, 2)).dp == 2);
  auto b = Layout(Config(64, 96, 4, 4));
  CHECK(b.dp == 4);
  CHECK(b.tpp == 4);
  CHECK(Layout(Config(16, 48, 2, 4, std::nullopt, "tp-cp-ep-dp-pp", true)).tpp == 3);
  CHECK(Layout(Config(32, 96, 4, 4, 8)).vpp == 3);
  auto big = Layout(Config(1024, 256, 16, 16));
  CHECK(big.dp == 4);
  CHECK(big.rows.size() == 64);
  auto one = Layout(Config(1, 1));
  CHECK(one.dp == 1);
  CHECK(one.vpp == 1);
  // v without VPP (v == lps) and v with pp 1 keep vpp 1.
  CHECK(Layout(Config(8, 24, 2, 2, 12)).vpp == 1);
}

TEST_CASE("trend §11.3 every rank once: groups partition the world for many shapes", "[parallel]") {
  for (const char* order : {"tp-cp-ep-dp-pp", "pp-dp-tp", "dp-tp-pp", "tp-pp-dp"}) {
    auto l = Layout(Config(48, 24, 2, 4, std::nullopt, order));
    INFO(order);
    CHECK(l.dp == 6);
    for (const Groups* gs : {&l.tp_groups, &l.pp_groups, &l.dp_groups, &l.model_copies}) {
      std::vector<int> seen(48, 0);
      for (const auto& g : *gs)
        for (int r : g) ++seen[static_cast<size_t>(r)];
      CHECK(seen == std::vector<int>(48, 1));
    }
    // Each TP group lies in one copy, and its representative is the first of that copy in it.
    for (const auto& row : l.rows) {
      const auto& copy = l.model_copies[static_cast<size_t>(row.model_copy)];
      for (int r : row.ranks) CHECK(std::find(copy.begin(), copy.end(), r) != copy.end());
      CHECK(std::find(row.ranks.begin(), row.ranks.end(), row.representative_rank) != row.ranks.end());
    }
  }
}

TEST_CASE("trend §11.5 colours per model copy", "[parallel]") {
  CHECK(ModelCopyColor(0, 2) == "#1f77b4");
  CHECK(ModelCopyColor(1, 2) == "#aec7e8");
  CHECK(ModelCopyColor(19, 20) == "#9edae5");
  CHECK(ModelCopyColor(0, 21) == "#393b79");
  CHECK(ModelCopyColor(20, 21) == "#3182bd");
  CHECK(ModelCopyColor(39, 40) == "#d9d9d9");
  CHECK(ModelCopyColor(0, 41) == "#440154");
  CHECK(ModelCopyColor(40, 41) == "#fde725");
  CHECK(ModelCopyColor(20, 41) == "#21918c");  // viridis(0.5)
  auto l = Layout(Config(64, 8));  // dp 64 > 40
  REQUIRE(l.copy_colors.size() == 64);
  CHECK(l.copy_colors.front() == "#440154");
  CHECK(l.copy_colors.back() == "#fde725");
  for (const auto& c : l.copy_colors) CHECK(c.size() == 7);
}

TEST_CASE("trend §11.5 cell count of a large layout", "[parallel]") {
  auto l = Layout(Config(1024, 256, 1, 2, 1));
  CHECK(l.vpp == 128);
  CHECK(l.rows.size() == 1024);
  CHECK(l.cell_count == 1024 * 128);
  CHECK(l.rows[0].cells[0] == "Embed+L1-1");
  CHECK(l.rows[1023].cells[127] == "L256-256+Out");
}

// ---- §11.7 output ---------------------------------------------------------------------------

namespace {

std::vector<JIdx> Elements(const JTree& t, JIdx arr) {
  std::vector<JIdx> out;
  for (JIdx c = t.at(arr).first; c != kJNone; c = t.at(c).next) out.push_back(c);
  return out;
}

Ints IntArray(const JTree& t, JIdx arr) {
  Ints out;
  for (JIdx c : Elements(t, arr)) out.push_back(static_cast<int>(t.at(c).i));
  return out;
}

Texts StrArray(const JTree& t, JIdx arr) {
  Texts out;
  for (JIdx c : Elements(t, arr)) out.emplace_back(t.Str(c));
  return out;
}

}  // namespace

TEST_CASE("trend §11.7 JSON of example A", "[parallel]") {
  auto l = Layout(Config(32, 48, 4, 4, 3));
  std::string json = ParallelLayoutToJson(l);
  CHECK(json.rfind("{\"world_size\":32,\"num_layers\":48,\"tp\":4,\"pp\":4,\"vpp\":4,\"dp\":2,"
                   "\"order\":\"tp-cp-ep-dp-pp\",\"standalone_embedding_stage\":false,"
                   "\"title\":\"Model Parallelism Configuration | Total Layers: 48 | DP=2 | TP=4 | PP=4 | VPP=4\"",
                   0) == 0);
  JTree t;
  JIdx root = kJNone;
  REQUIRE(ParseJsonText(json, t, &root).ok());
  auto get = [&](const char* k) {
    JIdx v = t.Find(root, k);
    REQUIRE(v != kJNone);
    return v;
  };
  CHECK(t.at(get("world_size")).i == 32);
  CHECK(t.at(get("num_layers")).i == 48);
  CHECK(t.at(get("tp")).i == 4);
  CHECK(t.at(get("pp")).i == 4);
  CHECK(t.at(get("vpp")).i == 4);
  CHECK(t.at(get("dp")).i == 2);
  CHECK(t.at(get("tpp")).i == 4);
  CHECK(t.at(get("lps")).i == 12);
  CHECK(t.at(get("num_layers_per_virtual_pipeline_stage")).i == 3);
  CHECK(t.Str(get("order")) == "tp-cp-ep-dp-pp");
  CHECK(t.Kind(get("standalone_embedding_stage")) == JKind::kBool);
  CHECK_FALSE(t.at(get("standalone_embedding_stage")).b);
  CHECK(t.Str(get("title")) == Title(48, 2, 4, 4, 4));
  CHECK(t.Str(get("file_stem")) == "ws32_ln48_tp4_pp4_vpp4");
  CHECK(StrArray(t, get("colors")) == Texts{"#1f77b4", "#aec7e8"});
  auto rows = Elements(t, get("rows"));
  REQUIRE(rows.size() == 8);
  JIdx r0 = rows[0];
  CHECK(t.at(t.Find(r0, "index")).i == 0);
  CHECK(t.Str(t.Find(r0, "label")) == "Group0: Ranks0-3");
  CHECK(IntArray(t, t.Find(r0, "ranks")) == Ints{0, 1, 2, 3});
  CHECK(t.at(t.Find(r0, "model_copy")).i == 0);
  CHECK(StrArray(t, t.Find(r0, "cells")) == Texts{"Embed+L1-3", "L13-15", "L25-27", "L37-39"});
  CHECK(t.Str(t.Find(r0, "color")) == "#1f77b4");
  auto comps = Elements(t, t.Find(r0, "components"));
  REQUIRE(comps.size() == 4);
  auto first = Elements(t, comps[0]);
  REQUIRE(first.size() == 4);
  CHECK(t.Str(first[0]) == "Embedding");
  CHECK(t.at(first[1]).i == 1);
  JIdx r7 = rows[7];
  CHECK(t.Str(t.Find(r7, "label")) == "Group7: Ranks28-31");
  CHECK(t.at(t.Find(r7, "model_copy")).i == 1);
  CHECK(StrArray(t, t.Find(r7, "cells")).back() == "L46-48+Out");
  auto last = Elements(t, Elements(t, t.Find(r7, "components")).back());
  CHECK(t.Str(last.back()) == "OutputLayer");

  auto no_v = ParallelLayoutToJson(Layout(Config(1, 1)));
  JTree t2;
  JIdx root2 = kJNone;
  REQUIRE(ParseJsonText(no_v, t2, &root2).ok());
  CHECK(t2.Kind(t2.Find(root2, "num_layers_per_virtual_pipeline_stage")) == JKind::kNull);
}

TEST_CASE("trend §11.5 SVG drawing", "[parallel]") {
  auto l = Layout(Config(8, 24, 1, 4, 2, "tp-cp-ep-dp-pp", true));  // example G, with empty cells
  std::string svg = ParallelLayoutToSvg(l);
  CHECK(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(vptest::EndsWith(svg, "</svg>\n"));
  CHECK(svg.find(">" + l.title + "</text>") != std::string::npos);
  for (const auto& row : l.rows) {
    CHECK(svg.find(">" + row.label + "</text>") != std::string::npos);
    for (const auto& cell : row.cells)
      if (!cell.empty()) CHECK(svg.find(">" + cell + "</text>") != std::string::npos);
  }
  for (const char* text : {">Virtual Pipeline Stage<", ">TP Group<", ">Model Copies<", ">Model Copy 1<", ">Model Copy 2<",
                           ">Stage 0<", ">Stage 3<", "stroke-dasharray"})
    CHECK(svg.find(text) != std::string::npos);
  // One square per (row, chunk), empty chunks included.
  size_t b = svg.find("<g class=\"cells\"");
  size_t e = svg.find("</g>", b);
  REQUIRE(b != std::string::npos);
  size_t squares = 0;
  for (size_t p = svg.find("<rect", b); p < e; p = svg.find("<rect", p + 1)) ++squares;
  CHECK(squares == 32);
  // Balanced groups and no stray markup characters in texts.
  size_t open = 0, close = 0;
  for (size_t p = svg.find("<g "); p != std::string::npos; p = svg.find("<g ", p + 1)) ++open;
  for (size_t p = svg.find("</g>"); p != std::string::npos; p = svg.find("</g>", p + 1)) ++close;
  CHECK(open == close);
  CHECK(svg.find("&") == std::string::npos);
}

// ---- browser config ------------------------------------------------------------------------

TEST_CASE("trend §11.1 ParallelConfigFromJson", "[parallel]") {
  auto full = ParallelConfigFromJson(
      R"({"world_size":32,"num_layers":48,"tensor_parallel_size":4,"pipeline_parallel_size":4,)"
      R"("num_layers_per_virtual_pipeline_stage":3,"order":"TP-CP-EP-DP-PP","standalone_embedding_stage":false,"extra":1})");
  REQUIRE(full.ok());
  CHECK(full->world_size == 32);
  CHECK(full->num_layers == 48);
  CHECK(full->tensor_parallel_size == 4);
  CHECK(full->pipeline_parallel_size == 4);
  REQUIRE(full->num_layers_per_virtual_pipeline_stage.has_value());
  CHECK(*full->num_layers_per_virtual_pipeline_stage == 3);
  CHECK(full->order == "TP-CP-EP-DP-PP");
  CHECK(Layout(full.value()).rows[7].cells[3] == "L46-48+Out");

  auto minimal = ParallelConfigFromJson(R"({"world_size":8,"num_layers":24,"tensor_parallel_size":null,
                                            "num_layers_per_virtual_pipeline_stage":null,"standalone_embedding_stage":true})");
  REQUIRE(minimal.ok());
  CHECK(minimal->tensor_parallel_size == 1);
  CHECK(minimal->pipeline_parallel_size == 1);
  CHECK_FALSE(minimal->num_layers_per_virtual_pipeline_stage.has_value());
  CHECK(minimal->order == "tp-cp-ep-dp-pp");
  CHECK(minimal->standalone_embedding_stage);

  auto err = [](const char* json) {
    auto r = ParallelConfigFromJson(json);
    if (r.ok()) {
      auto l = ComputeParallelLayout(r.value());
      return l.ok() ? std::string("ok") : l.status().message();
    }
    return r.status().message();
  };
  CHECK(err(R"({"world_size":true,"num_layers":24})") == "world_size must be a positive integer");
  CHECK(err(R"({"world_size":8.5,"num_layers":24})") == "world_size must be a positive integer");
  CHECK(err(R"({"world_size":8.0,"num_layers":24})") == "world_size must be a positive integer");
  CHECK(err(R"({"world_size":"8","num_layers":24})") == "world_size must be a positive integer");
  CHECK(err(R"({"num_layers":24})") == "world_size must be a positive integer");
  CHECK(err(R"({"world_size":0,"num_layers":2.5})") == "world_size must be a positive integer");
  CHECK(err(R"({"world_size":8,"num_layers":false})") == "num_layers must be a positive integer");
  CHECK(err(R"({"world_size":8,"num_layers":24,"tensor_parallel_size":2.0})") ==
        "tensor_parallel_size must be a positive integer");
  CHECK(err(R"({"world_size":8,"num_layers":24,"pipeline_parallel_size":[2]})") ==
        "pipeline_parallel_size must be a positive integer");
  CHECK(err(R"({"world_size":8,"num_layers":24,"num_layers_per_virtual_pipeline_stage":true})") ==
        "num_layers_per_virtual_pipeline_stage must be a positive integer");
  CHECK(err(R"({"world_size":99999999999999999999,"num_layers":24})") ==
        "world_size (9223372036854775807) exceeds the maximum supported value of 1024.");
  CHECK(err(R"({"world_size":-99999999999999999999,"num_layers":24})") == "world_size must be a positive integer");
  CHECK(err(R"({"world_size":8,"num_layers":24,"standalone_embedding_stage":"true"})") ==
        "standalone_embedding_stage must be a boolean");
  CHECK(err(R"({"world_size":8,"num_layers":24,"standalone_embedding_stage":1})") ==
        "standalone_embedding_stage must be a boolean");
  CHECK(err(R"({"world_size":8,"num_layers":24,"standalone_embedding_stage":null})") ==
        "standalone_embedding_stage must be a boolean");
  // Checks 1-3 of §11.2 come before the boolean check, the order's type after everything else.
  CHECK(err(R"({"world_size":2048,"num_layers":24,"standalone_embedding_stage":"x"})") ==
        "world_size (2048) exceeds the maximum supported value of 1024.");
  CHECK(
      err(R"({"world_size":10,"num_layers":24,"tensor_parallel_size":3,"pipeline_parallel_size":3,"standalone_embedding_stage":0})") ==
      "world_size (10) is not divisible by tensor_parallel_size(3) x pipeline_parallel_size (3)");
  CHECK(err(R"({"world_size":8,"num_layers":24,"order":5})") == "order must be a string");
  CHECK(err(R"({"world_size":8,"num_layers":25,"pipeline_parallel_size":2,"order":5})") ==
        "number of layers (25) must be divisible by pipeline_parallel_size (2).");
  CHECK(err(R"({"world_size":8,"num_layers":24,"order":"tp-dp-xx"})") == "invalid token 'xx' in order (tp-dp-xx)");
  CHECK(err("[1,2]").find("invalid parallel config JSON") == 0);
  CHECK(err("{\"world_size\":").find("invalid parallel config JSON") == 0);
}

// ---- CLI -----------------------------------------------------------------------------------

namespace {

struct CliRun {
  int code;
  std::string out, err;
};

std::string Slurp(std::FILE* f) {
  std::string s;
  std::rewind(f);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

CliRun RunCli(const std::vector<std::string>& argv) {
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  REQUIRE(out);
  REQUIRE(err);
  int code = PlotModelParallelismMain(argv, out, err);
  return {code, Slurp(out), Slurp(err)};
}

}  // namespace

TEST_CASE("trend §11.7 plot_model_parallelism command line", "[parallel]") {
  vptest::TempDir tmp;
  std::string dir = tmp / "charts/deep";
  auto ok = RunCli({"--world_size", "8", "--num_layers=24", "--tensor_parallel_size", "2", "--pipeline_parallel_size", "2",
                    "--output_path", dir, "--format", "json"});
  CHECK(ok.code == 0);
  CHECK(ok.err.empty());
  std::string path = dir + "/ws8_ln24_tp2_pp2_vpp1.json";
  CHECK(vptest::EndsWith(ok.out, path + "\n"));
  CHECK(vptest::ReadFile(path).rfind("{\"world_size\":8,", 0) == 0);
  auto again = RunCli({"--world_size", "8", "--num_layers", "24", "--tensor", "2", "--pipeline_parallel_size", "2",
                       "--output_path", dir, "--format", "json"});
  CHECK(again.code == 0);
  CHECK(again.out.find("[WARNING] Existing path will be recovered: " + path) != std::string::npos);
  CHECK(vptest::ListNames(dir) == Texts{"ws8_ln24_tp2_pp2_vpp1.json"});

  auto svg = RunCli({"--world_size", "1", "--num_layers", "1", "--output_path", dir});
  CHECK(svg.code == 0);
  CHECK(vptest::ReadFile(dir + "/ws1_ln1_tp1_pp1_vpp1.svg").find("Embed+L1-1+Out") != std::string::npos);

  auto invalid = RunCli({"--world_size", "10", "--num_layers", "24", "--tensor_parallel_size", "3", "--pipeline_parallel_size",
                         "3", "--output_path", dir});
  CHECK(invalid.code == 1);
  CHECK(invalid.err == "error: world_size (10) is not divisible by tensor_parallel_size(3) x pipeline_parallel_size (3)\n");

  auto negative = RunCli({"--world_size", "-4", "--num_layers", "24", "--output_path", dir});
  CHECK(negative.code == 1);
  CHECK(negative.err == "error: world_size must be a positive integer\n");

  const char* usage_errors[][2] = {
      {"--world_size 8.5 --num_layers 24", "argument --world_size: invalid int value: '8.5'"},
      {"--world_size x --num_layers 24", "argument --world_size: invalid int value: 'x'"},
      {"--num_layers 24", "the following arguments are required: --world_size"},
      {"--order tp", "the following arguments are required: --world_size, --num_layers"},
      {"--world_size 8 --num_layers 24 --format png", "argument --format: invalid choice: 'png' (choose from 'svg', 'json')"},
      {"--world_size 8 --num_layers 24 --standalone_embedding_stage yes",
       "argument --standalone_embedding_stage: invalid choice: 'yes' (choose from 'true', 'false', 'True', 'False')"},
      {"--world_size 8 --num_layers 24 --bogus 1", "unrecognized arguments: --bogus 1"},
      {"--world_size 8 --num_layers", "argument --num_layers: expected one argument"},
      {"--world_size 8 --num 24", "ambiguous option: --num could match --num_layers, --num_layers_per_virtual_pipeline_stage"},
  };
  for (const auto& u : usage_errors) {
    std::vector<std::string> argv;
    for (auto part : Split(u[0], ' ')) argv.emplace_back(part);
    auto r = RunCli(argv);
    INFO(u[0]);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("usage: visprobe plot_model_parallelism", 0) == 0);
    CHECK(vptest::EndsWith(r.err, std::string("visprobe plot_model_parallelism: error: ") + u[1] + "\n"));
  }
  auto help = RunCli({"--world_size", "8", "-h"});
  CHECK(help.code == 0);
  CHECK(help.out.find("--num_layers_per_virtual_pipeline_stage") != std::string::npos);
}
