// plot_model_parallelism (trend spec §11): which Megatron layers live on which ranks for a
// TP / PP / VPP / DP configuration. One pure function computes the whole chart as data
// (ComputeParallelLayout); the CLI writes it as SVG or JSON, the browser gets the JSON through
// wasm/bindings.cc and draws it with D3.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "trend/parallel_layout_svg.h"  // ParallelLayoutToSvg, the chart's other writer

namespace visprobe {

// The reference's ParallelConfig (§11.1). Values are 64-bit so that out-of-range input reaches
// the range checks of §11.2 with its value instead of wrapping; the derived values fit `int`.
struct ParallelConfig {
  int64_t world_size = 0;  // 1 … 1024
  int64_t num_layers = 0;  // 1 … 256
  int64_t tensor_parallel_size = 1;
  int64_t pipeline_parallel_size = 1;
  std::optional<int64_t> num_layers_per_virtual_pipeline_stage;  // none = VPP off
  std::string order = "tp-cp-ep-dp-pp";  // case-insensitive (§11.3)
  bool standalone_embedding_stage = false;
};

// One entry of a chunk's component list (§11.4): "Embedding", a transformer layer (1-based) or
// "OutputLayer".
struct LayerComponent {
  enum class Kind : uint8_t { kEmbedding, kLayer, kOutputLayer };
  Kind kind = Kind::kLayer;
  int layer = 0;  // only for kLayer
};
using ChunkComponents = std::vector<LayerComponent>;

// `Embed`, `L<min>-<max>`, `Out` joined by '+', each only when it applies; "" for no component.
std::string ChunkCellText(const ChunkComponents& chunk);

// One chart row = one TP group; row 0 is drawn at the bottom.
struct ParallelRow {
  int index = 0;  // TP group index
  std::vector<int> ranks;  // the TP group
  std::string label;  // "Group<r>: Ranks<min>-<max>" or "Rank<n>"
  int model_copy = 0;  // 0-based
  int representative_rank = 0;  // the rank the row is drawn from
  std::vector<std::string> cells;  // vpp texts, Stage 0 first
  std::vector<ChunkComponents> components;  // vpp component lists
};

struct ParallelLayout {
  ParallelConfig config;  // as given, except pipeline_parallel_size after step 5 of §11.2
  // Validated and derived values (§11.2).
  int world_size = 0, num_layers = 0, tp = 1, pp = 1, vpp = 1, dp = 1;
  int tpp = 1;  // transformer pipeline size: pp, or pp - 1 with a standalone embedding
  int lps = 0;  // layers per pipeline stage: num_layers / tpp
  std::vector<std::string> order_tokens;  // effective order, ep dropped (§11.3)
  std::vector<std::vector<int>> tp_groups, pp_groups, dp_groups;
  std::vector<std::vector<int>> model_copies;  // copy c = c-th member of every dp group
  std::vector<std::vector<int>> stage_ranks;  // s-th member of every pp group
  std::vector<ParallelRow> rows;  // one per TP group, in group order
  std::vector<std::string> copy_colors;  // "#rrggbb" per model copy (§11.5)
  std::string title;
  std::string file_stem;  // ws<ws>_ln<L>_tp<tp>_pp<pp>_vpp<vpp>
  int64_t cell_count = 0;  // drawn cells: rows × vpp
};

// Validation (§11.2, first failure wins, messages as specified) and the layout (§11.3-11.5).
Result<ParallelLayout> ComputeParallelLayout(const ParallelConfig& config);

// The §11.7 JSON object, plus the derived values, groups, colours and component lists.
std::string ParallelLayoutToJson(const ParallelLayout& layout);

// The browser's config read from JSON: ParallelConfigFromJson, in trend/parallel_layout_parse.h.

// Visible for testing: colour of model copy `copy` out of `copies` (§11.5).
std::string ModelCopyColor(int copy, int copies);

}  // namespace visprobe
