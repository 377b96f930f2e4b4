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
    if (i.value < 1) return InvalidInput(std::string(i.name) + " must be a positive integer");
  if (c.world_size > kMaxWorldSize)
    return InvalidInput("world_size (" + std::to_string(c.world_size) + ") exceeds the maximum supported value of 1024.");
  if (c.num_layers > kMaxNumLayers)
    return InvalidInput("num_layers (" + std::to_string(c.num_layers) + ") exceeds the maximum supported value of 256.");
  // tp or pp above world_size cannot divide it; testing that first keeps tp × pp from overflowing.
  int64_t tp = c.tensor_parallel_size, pp = c.pipeline_parallel_size;
  if (tp > c.world_size || pp > c.world_size || c.world_size % (tp * pp) != 0)
    return InvalidInput("world_size (" + std::to_string(c.world_size) + ") is not divisible by tensor_parallel_size(" +
                        std::to_string(tp) + ") x pipeline_parallel_size (" + std::to_string(pp) + ")");
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
    return InvalidInput("The ep and dp must be adjacent in order (" + order + ").");
  const Dim sizes[] = {{"tp", tp}, {"pp", pp}, {"dp", dp}, {"ep", 1}, {"cp", 1}};
  // A substring test, as the reference does; with valid tokens it is the same as token membership.
  for (const Dim& d : sizes) {
    if (norm.find(d.name) != std::string::npos) continue;
    if (d.size != 1)
      return InvalidInput("The parallel size (" + d.name + ") is (" + std::to_string(d.size) +
                          "), but it's not specified in order (" + order + ").");
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
    if (!d) return InvalidInput("invalid token '" + shown + "' in order (" + order + ")");
    if (std::find(seen.begin(), seen.end(), tokens[i]) != seen.end())
      return InvalidInput("duplicate token '" + shown + "' in order (" + order + ")");
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

Result<ParallelLayout> ComputeParallelLayout(const ParallelConfig& config) {
  RETURN_IF_ERROR(CheckScalars(config));  // steps 1-3; step 4 (a bool) is the type's business
  ParallelLayout l;
  l.config = config;
  l.world_size = static_cast<int>(config.world_size);
  l.num_layers = static_cast<int>(config.num_layers);
  l.tp = static_cast<int>(config.tensor_parallel_size);
  l.pp = std::min(static_cast<int>(config.pipeline_parallel_size), l.world_size / l.tp);  // step 5
  l.config.pipeline_parallel_size = l.pp;
  bool standalone = config.standalone_embedding_stage;
  l.tpp = standalone ? l.pp - 1 : l.pp;  // step 6
  if (l.tpp == 0 || l.num_layers % l.tpp != 0) {  // step 7
    std::string head = "number of layers (" + std::to_string(l.num_layers) + ") must be divisible by ";
    if (standalone)
      return InvalidInput(head + "transformer_pipeline_parallel_size (" + std::to_string(l.tpp) +
                          "), which is pipeline_parallel_size-1 when standalone_embedding_stage is enabled.");
    return InvalidInput(head + "pipeline_parallel_size (" + std::to_string(l.pp) + ").");
  }
  l.lps = l.num_layers / l.tpp;  // step 8
  if (config.num_layers_per_virtual_pipeline_stage) {
    int v = static_cast<int>(std::min<int64_t>(*config.num_layers_per_virtual_pipeline_stage, kMaxNumLayers + 1));
    if (l.lps % v != 0)
      return InvalidInput("number of layers per pipeline stage (" + std::to_string(l.lps) +
                          ") must be divisible by number of layers per virtual pipeline stage (" +
                          std::to_string(*config.num_layers_per_virtual_pipeline_stage) + ").");
    l.vpp = l.lps / v;
    if (l.vpp > 1 && l.pp <= 1)
      return InvalidInput("pipeline-model-parallel size should be greater than 1 with virtual-pipeline");
  }
  l.dp = l.world_size / (l.tp * l.pp);  // step 9

  std::vector<Dim> dims;
  ASSIGN_OR_RETURN(dims, ResolveOrder(config.order, l.tp, l.pp, l.dp));
  for (const Dim& d : dims) l.order_tokens.push_back(d.name);
  l.tp_groups = RankGroups(dims, "tp", l.world_size);
  l.pp_groups = RankGroups(dims, "pp", l.world_size);
  l.dp_groups = RankGroups(dims, "dp", l.world_size);

  std::vector<int> stage_of(static_cast<size_t>(l.world_size), 0);
  l.stage_ranks.assign(static_cast<size_t>(l.pp), {});
  for (const auto& g : l.pp_groups)
    for (size_t s = 0; s < g.size(); ++s) {
      l.stage_ranks[s].push_back(g[s]);
      stage_of[static_cast<size_t>(g[s])] = static_cast<int>(s);
    }
  l.model_copies.assign(static_cast<size_t>(l.dp), {});
  for (const auto& g : l.dp_groups)
    for (size_t c = 0; c < g.size(); ++c) l.model_copies[c].push_back(g[c]);

  std::vector<int> tp_group_of(static_cast<size_t>(l.world_size), 0);
  for (size_t r = 0; r < l.tp_groups.size(); ++r)
    for (int rank : l.tp_groups[r]) tp_group_of[static_cast<size_t>(rank)] = static_cast<int>(r);
  // Representative of (copy c, TP group r): the first rank of copy c, in copy order, in group r.
  std::vector<int> copy_of_row(l.tp_groups.size(), -1), rep_of_row(l.tp_groups.size(), -1);
  for (size_t c = 0; c < l.model_copies.size(); ++c)
    for (int rank : l.model_copies[c]) {
      auto r = static_cast<size_t>(tp_group_of[static_cast<size_t>(rank)]);
      if (rep_of_row[r] >= 0) continue;
      rep_of_row[r] = rank;
      copy_of_row[r] = static_cast<int>(c);
    }

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

// ---- SVG ----------------------------------------------------------------------------------

namespace {

void AppendXml(std::string& out, std::string_view text) {
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab / newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\t' || ch == '\n') out += ch;
    }
  }
}

// Coordinates with at most two decimals, without trailing zeros.
std::string Num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

// Width of a text in DejaVu Sans, estimated (no font metrics in the engine).
double TextWidth(std::string_view text, double font_size) { return 0.6 * font_size * static_cast<double>(text.size()); }

void Text(std::string& s, double x, double y, std::string_view text, const char* extra = "") {
  s += "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\"" + extra + ">";
  AppendXml(s, text);
  s += "</text>\n";
}

}  // namespace

// Sizes follow the reference figure (§11.5) in points (72 per inch): the axes with their labels
// take clamp(2·vpp, 6, 60) × clamp(0.5·rows, 4, 100) inches, the legend sits at their right, and
// the drawing is cut to what is drawn (or grows for a tall legend), as matplotlib's tight
// bounding box does.
std::string ParallelLayoutToSvg(const ParallelLayout& l) {
  constexpr double kInch = 72, kTitleFont = 14, kAxisFont = 12, kTickFont = 10, kLegendFont = 10, kCellFont = 9;
  constexpr double kTick = 3.5, kPad = 3.5;
  const int rows = static_cast<int>(l.rows.size()), cols = l.vpp;
  double fig_w = std::min(60.0, std::max(6.0, 2.0 * cols)) * kInch;
  double fig_h = std::min(100.0, std::max(4.0, 0.5 * rows)) * kInch;
  double label_w = 0;
  for (const auto& r : l.rows) label_w = std::max(label_w, TextWidth(r.label, kTickFont));

  double left = 10 + kAxisFont + 8 + label_w + kPad + kTick;
  double top = 10 + kTitleFont + 20;
  double bottom = kTick + kPad + kTickFont * 1.2 + 8 + kAxisFont * 1.2 + 10;
  double plot_x = left, plot_y = top;
  double plot_w = std::max(fig_w - left - 10, 60.0);
  double plot_h = std::max(fig_h - top - bottom, 60.0);
  // The title is centred on the axes; a title wider than them moves the drawing right.
  double title_w = TextWidth(l.title, kTitleFont);
  plot_x += std::max(0.0, 10 - (plot_x + plot_w / 2 - title_w / 2));
  double cw = plot_w / cols, rh = plot_h / rows;
  auto px = [&](double x) { return plot_x + (x + 0.5) * cw; };
  auto py = [&](double y) { return plot_y + plot_h - (y + 0.5) * rh; };

  // Legend: title, one entry per copy, centred vertically at the right of the axes.
  std::string legend_title = "Model Copies";
  double entry_h = kLegendFont * 1.5, handle_w = 2 * kLegendFont, handle_h = 0.7 * kLegendFont;
  double legend_text_w = TextWidth(legend_title, kLegendFont);
  for (int c = 0; c < l.dp; ++c)
    legend_text_w =
        std::max(legend_text_w, handle_w + 0.8 * kLegendFont + TextWidth("Model Copy " + std::to_string(c + 1), kLegendFont));
  double legend_w = legend_text_w + 2 * 0.4 * kLegendFont + 2;
  double legend_h = kLegendFont * 1.6 + l.dp * entry_h + 0.8 * kLegendFont;
  double legend_x = plot_x + plot_w * 1.02;
  double legend_y = plot_y + plot_h / 2 - legend_h / 2;
  double shift = legend_y < 10 ? 10 - legend_y : 0;  // a tall legend pushes the drawing down
  plot_y += shift;
  legend_y += shift;

  double width = std::max(legend_x + legend_w, plot_x + plot_w / 2 + title_w / 2) + 10;  // tight
  double height = std::max(plot_y + plot_h + bottom, legend_y + legend_h + 10);

  std::string s;
  s.reserve(4096 + static_cast<size_t>(l.cell_count) * 260 + static_cast<size_t>(rows + l.dp) * 200);
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + Num(width) + "\" height=\"" + Num(height) +
       "\" viewBox=\"0 0 " + Num(width) + " " + Num(height) + "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n";
  s += "<title>";
  AppendXml(s, l.title);
  s += "</title>\n";
  s += "<rect x=\"0\" y=\"0\" width=\"" + Num(width) + "\" height=\"" + Num(height) + "\" fill=\"#ffffff\"/>\n";

  // Cells: 0.9 × 0.9 squares centred on (column, row), coloured by model copy.
  s += "<g class=\"cells\" stroke=\"#ffffff\" stroke-width=\"1\" fill-opacity=\"0.8\" stroke-opacity=\"0.8\">\n";
  for (const auto& r : l.rows) {
    const std::string& color = l.copy_colors[static_cast<size_t>(r.model_copy)];
    for (int v = 0; v < cols; ++v)
      s += "<rect x=\"" + Num(px(v - 0.45)) + "\" y=\"" + Num(py(r.index + 0.45)) + "\" width=\"" + Num(0.9 * cw) +
           "\" height=\"" + Num(0.9 * rh) + "\" fill=\"" + color + "\"/>\n";
  }
  s += "</g>\n";

  // Dashed grid at the ticks (matplotlib draws it above the patches, below the texts).
  s += "<g class=\"grid\" stroke=\"#b0b0b0\" stroke-width=\"0.8\" stroke-opacity=\"0.3\" stroke-dasharray=\"2.96,1.28\">\n";
  for (int v = 0; v < cols; ++v)
    s += "<line x1=\"" + Num(px(v)) + "\" y1=\"" + Num(plot_y) + "\" x2=\"" + Num(px(v)) + "\" y2=\"" + Num(plot_y + plot_h) +
         "\"/>\n";
  for (int r = 0; r < rows; ++r)
    s += "<line x1=\"" + Num(plot_x) + "\" y1=\"" + Num(py(r)) + "\" x2=\"" + Num(plot_x + plot_w) + "\" y2=\"" + Num(py(r)) +
         "\"/>\n";
  s += "</g>\n";

  // Cell texts on a translucent white box.
  s += "<g class=\"cell-boxes\" fill=\"#ffffff\" fill-opacity=\"0.3\" stroke=\"#000000\" stroke-opacity=\"0.3\" "
       "stroke-width=\"0.5\">\n";
  for (const auto& r : l.rows)
    for (int v = 0; v < cols; ++v) {
      const std::string& t = r.cells[static_cast<size_t>(v)];
      if (t.empty()) continue;
      double w = TextWidth(t, kCellFont) + 2, h = kCellFont * 1.2 + 2;
      s += "<rect x=\"" + Num(px(v) - w / 2) + "\" y=\"" + Num(py(r.index) - h / 2) + "\" width=\"" + Num(w) + "\" height=\"" +
           Num(h) + "\"/>\n";
    }
  s += "</g>\n";
  s += "<g class=\"cell-texts\" font-size=\"9\" text-anchor=\"middle\" dominant-baseline=\"central\" fill=\"#000000\">\n";
  for (const auto& r : l.rows)
    for (int v = 0; v < cols; ++v) {
      const std::string& t = r.cells[static_cast<size_t>(v)];
      if (!t.empty()) Text(s, px(v), py(r.index), t);
    }
  s += "</g>\n";

  // Axes frame, ticks and tick labels.
  s += "<rect class=\"frame\" x=\"" + Num(plot_x) + "\" y=\"" + Num(plot_y) + "\" width=\"" + Num(plot_w) + "\" height=\"" +
       Num(plot_h) + "\" fill=\"none\" stroke=\"#000000\" stroke-width=\"0.8\"/>\n";
  s += "<g class=\"ticks\" stroke=\"#000000\" stroke-width=\"0.8\">\n";
  for (int v = 0; v < cols; ++v)
    s += "<line x1=\"" + Num(px(v)) + "\" y1=\"" + Num(plot_y + plot_h) + "\" x2=\"" + Num(px(v)) + "\" y2=\"" +
         Num(plot_y + plot_h + kTick) + "\"/>\n";
  for (int r = 0; r < rows; ++r)
    s += "<line x1=\"" + Num(plot_x - kTick) + "\" y1=\"" + Num(py(r)) + "\" x2=\"" + Num(plot_x) + "\" y2=\"" + Num(py(r)) +
         "\"/>\n";
  s += "</g>\n";
  s += "<g class=\"xticklabels\" font-size=\"10\" text-anchor=\"middle\" dominant-baseline=\"hanging\">\n";
  for (int v = 0; v < cols; ++v) Text(s, px(v), plot_y + plot_h + kTick + kPad, "Stage " + std::to_string(v));
  s += "</g>\n";
  s += "<g class=\"yticklabels\" font-size=\"10\" text-anchor=\"end\" dominant-baseline=\"central\">\n";
  for (const auto& r : l.rows) Text(s, plot_x - kTick - kPad, py(r.index), r.label);
  s += "</g>\n";

  // Axis labels and title.
  double xlabel_y = plot_y + plot_h + kTick + kPad + kTickFont * 1.2 + 8;
  Text(s, plot_x + plot_w / 2, xlabel_y, "Virtual Pipeline Stage",
       " class=\"xlabel\" font-size=\"12\" text-anchor=\"middle\" dominant-baseline=\"hanging\"");
  double ylabel_x = plot_x - kTick - kPad - label_w - 8;
  std::string rot = " class=\"ylabel\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 " + Num(ylabel_x) + " " +
                    Num(plot_y + plot_h / 2) + ")\"";
  Text(s, ylabel_x, plot_y + plot_h / 2, "TP Group", rot.c_str());
  Text(s, plot_x + plot_w / 2, plot_y - 20, l.title, " class=\"title\" font-size=\"14\" text-anchor=\"middle\"");

  // Legend "Model Copies".
  s += "<g class=\"legend\" font-size=\"10\">\n";
  s += "<rect x=\"" + Num(legend_x) + "\" y=\"" + Num(legend_y) + "\" width=\"" + Num(legend_w) + "\" height=\"" + Num(legend_h) +
       "\" rx=\"2\" fill=\"#ffffff\" fill-opacity=\"0.8\" stroke=\"#cccccc\" stroke-width=\"0.8\"/>\n";
  Text(s, legend_x + legend_w / 2, legend_y + 0.4 * kLegendFont + kLegendFont, legend_title, " text-anchor=\"middle\"");
  for (int c = 0; c < l.dp; ++c) {
    double ey = legend_y + kLegendFont * 1.6 + c * entry_h + entry_h / 2;
    double hx = legend_x + 0.4 * kLegendFont + 1;
    s += "<rect x=\"" + Num(hx) + "\" y=\"" + Num(ey - handle_h / 2) + "\" width=\"" + Num(handle_w) + "\" height=\"" +
         Num(handle_h) + "\" fill=\"" + l.copy_colors[static_cast<size_t>(c)] + "\" fill-opacity=\"0.8\"/>\n";
    Text(s, hx + handle_w + 0.8 * kLegendFont, ey, "Model Copy " + std::to_string(c + 1), " dominant-baseline=\"central\"");
  }
  s += "</g>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace visprobe
