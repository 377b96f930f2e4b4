#include "trend/parallel_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/pyfmt.h"
#include "trend/parallel_layout_internal.h"

namespace visprobe {
namespace {

constexpr int64_t kMaxWorldSize = 1024;
constexpr int64_t kMaxNumLayers = 256;

// matplotlib's qualitative colour maps (§11.5).
constexpr const char* kTab20[20] = {"#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728",
                                    "#ff9896", "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2",
                                    "#7f7f7f", "#c7c7c7", "#bcbd22", "#dbdb8d", "#17becf", "#9edae5"};
constexpr const char* kTab20bc[40] = {"#393b79", "#5254a3", "#6b6ecf", "#9c9ede", "#637939", "#8ca252", "#b5cf6b", "#cedb9c",
                                      "#8c6d31", "#bd9e39", "#e7ba52", "#e7cb94", "#843c39", "#ad494a", "#d6616b", "#e7969c",
                                      "#7b4173", "#a55194", "#ce6dbd", "#de9ed6", "#3182bd", "#6baed6", "#9ecae1", "#c6dbef",
                                      "#e6550d", "#fd8d3c", "#fdae6b", "#fdd0a2", "#31a354", "#74c476", "#a1d99b", "#c7e9c0",
                                      "#756bb1", "#9e9ac8", "#bcbddc", "#dadaeb", "#636363", "#969696", "#bdbdbd", "#d9d9d9"};
// viridis (d3.interpolateViridis) at 0, 0.05, …, 1; linear interpolation between the stops stays
// within a couple of units per channel of the full 256-entry table.
constexpr unsigned char kViridis[21][3] = {
    {68, 1, 84},    {71, 19, 101},  {72, 36, 117},  {70, 52, 128},  {65, 68, 135},  {59, 82, 139},  {53, 95, 141},
    {47, 108, 142}, {42, 120, 142}, {37, 132, 142}, {33, 145, 140}, {30, 156, 137}, {34, 168, 132}, {47, 180, 124},
    {68, 191, 112}, {94, 201, 98},  {122, 209, 81}, {155, 217, 60}, {189, 223, 38}, {223, 227, 24}, {253, 231, 37}};

std::string Viridis(double t) {
  t = std::min(1.0, std::max(0.0, t));
  double pos = t * 20.0;
  int i = std::min(19, static_cast<int>(pos));
  double f = pos - i;
  char buf[8];
  int rgb[3];
  for (int k = 0; k < 3; ++k) rgb[k] = static_cast<int>(std::lround(kViridis[i][k] + (kViridis[i + 1][k] - kViridis[i][k]) * f));
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::vector<std::string> SplitDash(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t dash = s.find('-', start);
    out.push_back(s.substr(start, dash == std::string::npos ? std::string::npos : dash - start));
    if (dash == std::string::npos) return out;
    start = dash + 1;
  }
}

}  // namespace

namespace trend_detail {

// Steps 1-3 of §11.2: positive integers, upper limits, divisibility of the world size.
Status CheckScalars(const ParallelConfig& c) {
  const struct {
    const char* name;
    int64_t value;
  } ints[] = {{"world_size", c.world_size},
              {"num_layers", c.num_layers},
              {"tensor_parallel_size", c.tensor_parallel_size},
              {"pipeline_parallel_size", c.pipeline_parallel_size},
              {"num_layers_per_virtual_pipeline_stage", c.num_layers_per_virtual_pipeline_stage.value_or(1)}};
  for (const auto& i : ints)
    if (i.value < 1) return InvalidInput(Msg<msg::kMustPositiveInteger>(i.name));
  if (c.world_size > kMaxWorldSize)
    return InvalidInput(Msg<msg::kExceedsMaximumSupportedValue>("world_size", c.world_size, kMaxWorldSize));
  if (c.num_layers > kMaxNumLayers)
    return InvalidInput(Msg<msg::kExceedsMaximumSupportedValue>("num_layers", c.num_layers, kMaxNumLayers));
  // tp or pp above world_size cannot divide it; testing that first keeps tp × pp from overflowing.
  int64_t tp = c.tensor_parallel_size, pp = c.pipeline_parallel_size;
  if (tp > c.world_size || pp > c.world_size || c.world_size % (tp * pp) != 0)
    return InvalidInput(Msg<msg::kWorldSizeNotDivisibleTensor>(c.world_size, tp, pp));
  return Status::Ok();
}

}  // namespace trend_detail

using trend_detail::CheckScalars;

namespace {

struct Dim {
  std::string name;
  int size;
};

// §11.3: the order string checked and completed; ep is dropped (it is not modelled).
Result<std::vector<Dim>> ResolveOrder(const std::string& order, int tp, int pp, int dp) {
  std::string norm = Lower(order);
  if (norm.find("ep") != std::string::npos && norm.find("ep-dp") == std::string::npos && norm.find("dp-ep") == std::string::npos)
    return InvalidInput(Msg<msg::kEpDpMustAdjacent>(order));
  const Dim sizes[] = {{"tp", tp}, {"pp", pp}, {"dp", dp}, {"ep", 1}, {"cp", 1}};
  // A substring test, as the reference does; with valid tokens it is the same as token membership.
  for (const Dim& d : sizes) {
    if (norm.find(d.name) != std::string::npos) continue;
    if (d.size != 1) return InvalidInput(Msg<msg::kParallelSizeNotInOrder>(d.name, d.size, order));
    norm += "-" + d.name;
  }
  // The reference fails on unknown tokens with a KeyError and accepts duplicates (§14 D-15).
  std::vector<std::string> original = SplitDash(order);
  std::vector<std::string> tokens = SplitDash(norm);
  std::vector<Dim> dims;
  std::vector<std::string> seen;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& shown = i < original.size() ? original[i] : tokens[i];
    const Dim* d = nullptr;
    for (const Dim& s : sizes)
      if (s.name == tokens[i]) d = &s;
    if (!d) return InvalidInput(Msg<msg::kInvalidTokenOrder>(shown, order));
    if (std::find(seen.begin(), seen.end(), tokens[i]) != seen.end())
      return InvalidInput(Msg<msg::kDuplicateTokenOrder>(shown, order));
    seen.push_back(tokens[i]);
    if (d->name != "ep") dims.push_back(*d);
  }
  return dims;
}

// groups(X) of §11.3: ranks are mixed-radix numbers over `dims`, the first dimension fastest.
std::vector<std::vector<int>> RankGroups(const std::vector<Dim>& dims, const std::string& x, int world_size) {
  std::vector<int> stride(dims.size());
  int s = 1, x_index = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    stride[i] = s;
    s *= dims[i].size;
    if (dims[i].name == x) x_index = static_cast<int>(i);
  }
  int x_size = dims[x_index].size;
  std::vector<std::vector<int>> groups(static_cast<size_t>(world_size / x_size));
  for (size_t g = 0; g < groups.size(); ++g) {
    int rest = static_cast<int>(g), base = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (static_cast<int>(i) == x_index) continue;
      base += (rest % dims[i].size) * stride[i];
      rest /= dims[i].size;
    }
    groups[g].reserve(static_cast<size_t>(x_size));
    for (int c = 0; c < x_size; ++c) groups[g].push_back(base + c * stride[x_index]);
  }
  return groups;
}

// The chunks of one rank (§11.4).
std::vector<ChunkComponents> RankChunks(const ParallelLayout& l, int stage) {
  bool vpp_on = l.vpp > 1;
  bool first = stage == 0, last = stage == l.pp - 1;
  bool standalone = l.config.standalone_embedding_stage;
  int count = l.num_layers;
  if (l.pp > 1) count = (standalone && first) ? 0 : (vpp_on ? l.lps / l.vpp : l.lps);
  int p = stage - (standalone ? 1 : 0);
  std::vector<ChunkComponents> chunks(static_cast<size_t>(l.vpp));
  for (int v = 0; v < l.vpp; ++v) {
    ChunkComponents& c = chunks[static_cast<size_t>(v)];
    if (first && v == 0) c.push_back({LayerComponent::Kind::kEmbedding, 0});
    int offset = vpp_on ? v * (l.num_layers / l.vpp) + p * (l.lps / l.vpp) : p * l.lps;
    for (int i = 1; i <= count; ++i) c.push_back({LayerComponent::Kind::kLayer, offset + i});
    if (last && (!vpp_on || v == l.vpp - 1)) c.push_back({LayerComponent::Kind::kOutputLayer, 0});
  }
  return chunks;
}

void AppendInts(std::string& out, const std::vector<int>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(v[i]);
  }
  out += ']';
}

void AppendIntLists(std::string& out, const std::vector<std::vector<int>>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    AppendInts(out, v[i]);
  }
  out += ']';
}

void AppendStrings(std::string& out, const std::vector<std::string>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, v[i]);
  }
  out += ']';
}

}  // namespace

std::string ModelCopyColor(int copy, int copies) {
  if (copies <= 20) return kTab20[copy % 20];
  if (copies <= 40) return kTab20bc[copy % 40];
  return Viridis(static_cast<double>(copy) / (copies - 1));
}

std::string ChunkCellText(const ChunkComponents& chunk) {
  bool embed = false, out = false, any = false;
  int lo = 0, hi = 0;
  for (const LayerComponent& c : chunk) {
    switch (c.kind) {
      case LayerComponent::Kind::kEmbedding: embed = true; break;
      case LayerComponent::Kind::kOutputLayer: out = true; break;
      case LayerComponent::Kind::kLayer:
        lo = any ? std::min(lo, c.layer) : c.layer;
        hi = any ? std::max(hi, c.layer) : c.layer;
        any = true;
        break;
    }
  }
  std::string text;
  if (embed) text = "Embed";
  if (any) text += (text.empty() ? "L" : "+L") + std::to_string(lo) + "-" + std::to_string(hi);
  if (out) text += text.empty() ? "Out" : "+Out";
  return text;
}

namespace {

// Steps 5-9 of §11.2: the pipeline size capped by the world, the layers per stage and per virtual
// stage, the data-parallel size.
Status DeriveSizes(const ParallelConfig& config, ParallelLayout& l) {
  l.world_size = static_cast<int>(config.world_size);
  l.num_layers = static_cast<int>(config.num_layers);
  l.tp = static_cast<int>(config.tensor_parallel_size);
  l.pp = std::min(static_cast<int>(config.pipeline_parallel_size), l.world_size / l.tp);  // step 5
  l.config.pipeline_parallel_size = l.pp;
  bool standalone = config.standalone_embedding_stage;
  l.tpp = standalone ? l.pp - 1 : l.pp;  // step 6
  if (l.tpp == 0 || l.num_layers % l.tpp != 0) {  // step 7
    if (standalone) return InvalidInput(Msg<msg::kNumberLayersMustDivisible>(l.num_layers, l.tpp));
    return InvalidInput(Msg<msg::kNumberLayersMustDivisiblePipeline>(l.num_layers, l.pp));
  }
  l.lps = l.num_layers / l.tpp;  // step 8
  if (config.num_layers_per_virtual_pipeline_stage) {
    int v = static_cast<int>(std::min<int64_t>(*config.num_layers_per_virtual_pipeline_stage, kMaxNumLayers + 1));
    if (l.lps % v != 0)
      return InvalidInput(Msg<msg::kNumberLayersPerPipeline>(l.lps, *config.num_layers_per_virtual_pipeline_stage));
    l.vpp = l.lps / v;
    if (l.vpp > 1 && l.pp <= 1) return InvalidInput(Msg<msg::kPipelineModelParallelSize>());
  }
  l.dp = l.world_size / (l.tp * l.pp);  // step 9
  return Status::Ok();
}

// Each rank's stage and model copy from the groups of §11.3, and for each TP group (a row) the
// copy it belongs to and the rank it is drawn from: the first rank of that copy, in copy order, in
// the group. copy_of_row / rep_of_row: -1 where none (an invariant says there always is one).
void AssignStagesAndCopies(ParallelLayout& l, std::vector<int>* stage_of, std::vector<int>* copy_of_row,
                           std::vector<int>* rep_of_row) {
  stage_of->assign(static_cast<size_t>(l.world_size), 0);
  l.stage_ranks.assign(static_cast<size_t>(l.pp), {});
  for (const auto& g : l.pp_groups)
    for (size_t s = 0; s < g.size(); ++s) {
      l.stage_ranks[s].push_back(g[s]);
      (*stage_of)[static_cast<size_t>(g[s])] = static_cast<int>(s);
    }
  l.model_copies.assign(static_cast<size_t>(l.dp), {});
  for (const auto& g : l.dp_groups)
    for (size_t c = 0; c < g.size(); ++c) l.model_copies[c].push_back(g[c]);

  std::vector<int> tp_group_of(static_cast<size_t>(l.world_size), 0);
  for (size_t r = 0; r < l.tp_groups.size(); ++r)
    for (int rank : l.tp_groups[r]) tp_group_of[static_cast<size_t>(rank)] = static_cast<int>(r);
  copy_of_row->assign(l.tp_groups.size(), -1);
  rep_of_row->assign(l.tp_groups.size(), -1);
  for (size_t c = 0; c < l.model_copies.size(); ++c)
    for (int rank : l.model_copies[c]) {
      auto r = static_cast<size_t>(tp_group_of[static_cast<size_t>(rank)]);
      if ((*rep_of_row)[r] >= 0) continue;
      (*rep_of_row)[r] = rank;
      (*copy_of_row)[r] = static_cast<int>(c);
    }
}

}  // namespace

Result<ParallelLayout> ComputeParallelLayout(const ParallelConfig& config) {
  RETURN_IF_ERROR(CheckScalars(config));  // steps 1-3; step 4 (a bool) is the type's business
  ParallelLayout l;
  l.config = config;
  RETURN_IF_ERROR(DeriveSizes(config, l));

  std::vector<Dim> dims;
  ASSIGN_OR_RETURN(dims, ResolveOrder(config.order, l.tp, l.pp, l.dp));
  for (const Dim& d : dims) l.order_tokens.push_back(d.name);
  l.tp_groups = RankGroups(dims, "tp", l.world_size);
  l.pp_groups = RankGroups(dims, "pp", l.world_size);
  l.dp_groups = RankGroups(dims, "dp", l.world_size);
  std::vector<int> stage_of, copy_of_row, rep_of_row;
  AssignStagesAndCopies(l, &stage_of, &copy_of_row, &rep_of_row);

  for (int c = 0; c < l.dp; ++c) l.copy_colors.push_back(ModelCopyColor(c, l.dp));
  l.rows.reserve(l.tp_groups.size());
  for (size_t r = 0; r < l.tp_groups.size(); ++r) {
    ParallelRow row;
    row.index = static_cast<int>(r);
    row.ranks = l.tp_groups[r];
    int lo = *std::min_element(row.ranks.begin(), row.ranks.end());
    int hi = *std::max_element(row.ranks.begin(), row.ranks.end());
    row.label = lo == hi ? "Rank" + std::to_string(lo)
                         : "Group" + std::to_string(r) + ": Ranks" + std::to_string(lo) + "-" + std::to_string(hi);
    // Every TP group lies in exactly one copy; the fallbacks only guard the invariant.
    row.model_copy = std::max(copy_of_row[r], 0);
    row.representative_rank = rep_of_row[r] >= 0 ? rep_of_row[r] : row.ranks.front();
    row.components = RankChunks(l, stage_of[static_cast<size_t>(row.representative_rank)]);
    for (const auto& chunk : row.components) row.cells.push_back(ChunkCellText(chunk));
    l.rows.push_back(std::move(row));
  }
  l.cell_count = static_cast<int64_t>(l.rows.size()) * l.vpp;
  l.title = "Model Parallelism Configuration | Total Layers: " + std::to_string(l.num_layers) + " | DP=" + std::to_string(l.dp) +
            " | TP=" + std::to_string(l.tp) + " | PP=" + std::to_string(l.pp) + " | VPP=" + std::to_string(l.vpp);
  l.file_stem = "ws" + std::to_string(l.world_size) + "_ln" + std::to_string(l.num_layers) + "_tp" + std::to_string(l.tp) +
                "_pp" + std::to_string(l.pp) + "_vpp" + std::to_string(l.vpp);
  return l;
}

std::string ParallelLayoutToJson(const ParallelLayout& l) {
  std::string s;
  s.reserve(256 + l.rows.size() * (64 + static_cast<size_t>(l.vpp) * 24 + static_cast<size_t>(l.num_layers) * 4));
  s += "{\"world_size\":" + std::to_string(l.world_size);
  s += ",\"num_layers\":" + std::to_string(l.num_layers);
  s += ",\"tp\":" + std::to_string(l.tp);
  s += ",\"pp\":" + std::to_string(l.pp);
  s += ",\"vpp\":" + std::to_string(l.vpp);
  s += ",\"dp\":" + std::to_string(l.dp);
  s += ",\"order\":";
  AppendJsonString(s, l.config.order);
  s += ",\"standalone_embedding_stage\":";
  s += l.config.standalone_embedding_stage ? "true" : "false";
  s += ",\"title\":";
  AppendJsonString(s, l.title);
  s += ",\"num_layers_per_virtual_pipeline_stage\":";
  s += l.config.num_layers_per_virtual_pipeline_stage ? std::to_string(*l.config.num_layers_per_virtual_pipeline_stage) : "null";
  s += ",\"tpp\":" + std::to_string(l.tpp);
  s += ",\"lps\":" + std::to_string(l.lps);
  s += ",\"file_stem\":";
  AppendJsonString(s, l.file_stem);
  s += ",\"cell_count\":" + std::to_string(l.cell_count);
  s += ",\"order_tokens\":";
  AppendStrings(s, l.order_tokens);
  s += ",\"colors\":";
  AppendStrings(s, l.copy_colors);
  s += ",\"pp_groups\":";
  AppendIntLists(s, l.pp_groups);
  s += ",\"dp_groups\":";
  AppendIntLists(s, l.dp_groups);
  s += ",\"rows\":[";
  for (size_t i = 0; i < l.rows.size(); ++i) {
    const ParallelRow& r = l.rows[i];
    if (i) s += ',';
    s += "{\"index\":" + std::to_string(r.index) + ",\"label\":";
    AppendJsonString(s, r.label);
    s += ",\"ranks\":";
    AppendInts(s, r.ranks);
    s += ",\"model_copy\":" + std::to_string(r.model_copy);
    s += ",\"cells\":";
    AppendStrings(s, r.cells);
    s += ",\"representative_rank\":" + std::to_string(r.representative_rank);
    s += ",\"color\":";
    AppendJsonString(s, l.copy_colors[static_cast<size_t>(r.model_copy)]);
    s += ",\"components\":[";
    for (size_t v = 0; v < r.components.size(); ++v) {
      if (v) s += ',';
      s += '[';
      bool first = true;
      for (const LayerComponent& c : r.components[v]) {
        if (!first) s += ',';
        first = false;
        if (c.kind == LayerComponent::Kind::kEmbedding)
          s += "\"Embedding\"";
        else if (c.kind == LayerComponent::Kind::kOutputLayer)
          s += "\"OutputLayer\"";
        else
          s += std::to_string(c.layer);
      }
      s += ']';
    }
    s += "]}";
  }
  s += "]}";
  return s;
}

}  // namespace visprobe
