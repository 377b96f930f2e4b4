#include "app/plot_cli.h"

#include "app/args.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "app/log.h"
#include "base/fs.h"
#include "base/status.h"
#include "trend/parallel_layout.h"

namespace visprobe {
namespace {

constexpr const char* kProg = "visprobe plot_model_parallelism";
constexpr int64_t kDrawSlowCells = 5000;
constexpr int64_t kDrawMemoryCells = 20000;

enum class Kind { kInt, kString, kBool, kFormat };

struct Opt {
  const char* name;
  const char* metavar;
  Kind kind;
  const char* help;
};

const Opt kOpts[] = {
    {"--world_size", "WORLD_SIZE", Kind::kInt, "<Required> Total number of ranks (1 … 1024)."},
    {"--num_layers", "NUM_LAYERS", Kind::kInt, "<Required> Number of transformer layers (1 … 256)."},
    {"--tensor_parallel_size", "TENSOR_PARALLEL_SIZE", Kind::kInt, "<Optional> Tensor parallel size (default 1)."},
    {"--pipeline_parallel_size", "PIPELINE_PARALLEL_SIZE", Kind::kInt, "<Optional> Pipeline parallel size (default 1)."},
    {"--num_layers_per_virtual_pipeline_stage", "NUM_LAYERS_PER_VIRTUAL_PIPELINE_STAGE", Kind::kInt,
     "<Optional> Layers per virtual pipeline stage; enables VPP (default off)."},
    {"--order", "ORDER", Kind::kString, "<Optional> Rank order of the parallel dimensions (default tp-cp-ep-dp-pp)."},
    {"--standalone_embedding_stage", "{true,false,True,False}", Kind::kBool,
     "<Optional> The first pipeline stage holds only the embedding (default false)."},
    {"--output_path", "OUTPUT_PATH", Kind::kString, "<Optional> Output folder, created if missing (default ./)."},
    {"--format", "{svg,json}", Kind::kFormat, "<Optional> Output format (default svg)."},
};

struct PlotArgs {
  ParallelConfig config;
  std::string output_path = "./";
  std::string format = "svg";
};

// argparse accepts a unique prefix of a long option; nullptr when nothing matches.
Result<const Opt*> FindOpt(const std::string& arg) {
  for (const Opt& o : kOpts)
    if (arg == o.name) return &o;
  std::vector<const Opt*> matches;
  for (const Opt& o : kOpts)
    if (std::strncmp(o.name, arg.c_str(), arg.size()) == 0) matches.push_back(&o);
  if (matches.size() <= 1) return matches.empty() ? nullptr : matches[0];
  std::string names;
  for (const Opt* o : matches) names += std::string(names.empty() ? "" : ", ") + o->name;
  return InvalidInput(Msg<msg::kAmbiguousOptionCouldMatch>(arg, names));
}

// Python's int(str): surrounding blanks, an optional sign, digits with single '_' between them.
// Values beyond 64 bits saturate (they fail the range checks either way).
bool ParsePyInt(const std::string& text, int64_t* out) {
  size_t b = 0, e = text.size();
  while (b < e && std::strchr(" \t\n\r\f\v", text[b])) ++b;
  while (e > b && std::strchr(" \t\n\r\f\v", text[e - 1])) --e;
  bool neg = false;
  if (b < e && (text[b] == '+' || text[b] == '-')) neg = text[b++] == '-';
  if (b == e) return false;
  int64_t v = 0;
  bool saturated = false, prev_digit = false;
  for (size_t i = b; i < e; ++i) {
    char c = text[i];
    if (c == '_') {
      if (!prev_digit || i + 1 == e) return false;
      prev_digit = false;
      continue;
    }
    if (c < '0' || c > '9') return false;
    prev_digit = true;
    if (v > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10)
      saturated = true;
    else
      v = v * 10 + (c - '0');
  }
  if (saturated) v = std::numeric_limits<int64_t>::max();
  *out = neg ? -v : v;
  return true;
}

Result<PlotArgs> ParseArgs(const std::vector<std::string>& argv) {
  PlotArgs a;
  bool has_ws = false, has_layers = false;
  std::vector<std::string> unknown;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string arg = argv[i], value;
    bool has_inline = false;
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) {
      auto eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    const Opt* o = nullptr;
    if (arg.size() > 2 && arg.compare(0, 2, "--") == 0) { ASSIGN_OR_RETURN(o, FindOpt(arg)); }
    if (!o) {
      unknown.push_back(argv[i]);
      continue;
    }
    if (!has_inline) {
      if (i + 1 >= argv.size() || LooksLikeOption(argv[i + 1]))
        return InvalidInput(Msg<msg::kArgumentExpectedOneArgument>(o->name));
      value = argv[++i];
    }
    std::string name = o->name;
    switch (o->kind) {
      case Kind::kInt: {
        int64_t x = 0;
        if (!ParsePyInt(value, &x)) return InvalidInput(Msg<msg::kArgumentInvalidIntValue>(o->name, value));
        if (name == "--world_size") {
          a.config.world_size = x;
          has_ws = true;
        } else if (name == "--num_layers") {
          a.config.num_layers = x;
          has_layers = true;
        } else if (name == "--tensor_parallel_size")
          a.config.tensor_parallel_size = x;
        else if (name == "--pipeline_parallel_size")
          a.config.pipeline_parallel_size = x;
        else
          a.config.num_layers_per_virtual_pipeline_stage = x;
        break;
      }
      case Kind::kString:
        if (name == "--order")
          a.config.order = value;
        else
          a.output_path = value;
        break;
      case Kind::kBool:
        if (value == "true" || value == "True")
          a.config.standalone_embedding_stage = true;
        else if (value == "false" || value == "False")
          a.config.standalone_embedding_stage = false;
        else
          return InvalidInput(Msg<msg::kArgumentInvalidChoiceChoose>(o->name, value, "'true', 'false', 'True', 'False'"));
        break;
      case Kind::kFormat:
        if (value != "svg" && value != "json")
          return InvalidInput(Msg<msg::kArgumentInvalidChoiceChoose>(o->name, value, "'svg', 'json'"));
        a.format = value;
        break;
    }
  }
  std::string missing;
  if (!has_ws) missing += "--world_size";
  if (!has_layers) missing += std::string(missing.empty() ? "" : ", ") + "--num_layers";
  if (!missing.empty()) return InvalidInput(Msg<msg::kFollowingArgumentsRequired>(missing));
  if (!unknown.empty()) {
    std::string u;
    for (const auto& s : unknown) u += (u.empty() ? "" : " ") + s;
    return InvalidInput(Msg<msg::kUnrecognizedArguments>(u));
  }
  return a;
}

class Logger {
 public:
  explicit Logger(std::FILE* out) : out_(out), threshold_(LogThreshold(std::getenv("MSPROBE_LOG_LEVEL"))), json_(LogAsJson()) {}
  void operator()(LogLevel level, const Message& msg) const {
    if (static_cast<int>(level) < threshold_) return;
    const std::string line = json_ ? LogJsonLine(level, msg) : FormatLogLine(level, msg.text());
    std::fprintf(out_, "%s\n", line.c_str());
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
  int threshold_;
  bool json_;
};

// Written beside the target and renamed over it: an existing file is replaced whole or kept.
Status WriteFileAtomically(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return IoError(Msg<msg::kCannotWriteWhy>(tmp, ErrnoMessage(errno)));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return IoError(Msg<msg::kCannotWriteWhy>(path, ErrnoMessage(err)));
  }
  return Status::Ok();
}

}  // namespace

std::string PlotModelParallelismUsage() {
  return "usage: visprobe plot_model_parallelism [-h] --world_size WORLD_SIZE --num_layers NUM_LAYERS\n"
         "                                       [--tensor_parallel_size TENSOR_PARALLEL_SIZE]\n"
         "                                       [--pipeline_parallel_size PIPELINE_PARALLEL_SIZE]\n"
         "                                       [--num_layers_per_virtual_pipeline_stage "
         "NUM_LAYERS_PER_VIRTUAL_PIPELINE_STAGE]\n"
         "                                       [--order ORDER] [--standalone_embedding_stage {true,false,True,False}]\n"
         "                                       [--output_path OUTPUT_PATH] [--format {svg,json}]\n";
}

std::string PlotModelParallelismHelp() {
  std::string s = PlotModelParallelismUsage();
  s += "\nDraw which Megatron layers live on which ranks for a TP / PP / VPP / DP configuration.\n"
       "Writes <output_path>/ws<N>_ln<L>_tp<T>_pp<P>_vpp<V>.svg (or .json).\n\noptions:\n";
  s += "  -h, --help            show this help message and exit\n";
  for (const Opt& o : kOpts) {
    std::string name = std::string(o.name) + " " + o.metavar;
    s += "  " + name;
    s += name.size() < 20 ? std::string(20 - name.size(), ' ') : std::string("\n                        ");
    s += o.help;
    s += '\n';
  }
  return s;
}

int PlotModelParallelismMain(const std::vector<std::string>& argv, std::FILE* out, std::FILE* err) {
  for (const auto& a : argv)
    if (a == "-h" || a == "--help") {
      std::fputs(PlotModelParallelismHelp().c_str(), out);
      return 0;
    }
  auto parsed = ParseArgs(argv);
  if (!parsed.ok()) {
    std::fputs(PlotModelParallelismUsage().c_str(), err);
    PrintError(err, std::string(kProg) + ": ", parsed.status().detail());
    return 2;
  }
  const PlotArgs& a = parsed.value();
  Logger log(out);
  auto fail = [&](const Status& s) {
    PrintError(err, "", s.detail());
    return 1;
  };
  log(LogLevel::kInfo, Msg<msg::kStartingModelParallelismVisualization>());
  auto layout = ComputeParallelLayout(a.config);
  if (!layout.ok()) return fail(layout.status());
  const ParallelLayout& l = layout.value();
  log(LogLevel::kInfo,
      Msg<msg::kModelConfigurationGenerationCompleted>(l.tp_groups.size(), l.dp_groups.size(), l.pp_groups.size()));

  Status made = MakeDirs(a.output_path);
  if (!made.ok()) return fail(made);
  std::string path = JoinPath(a.output_path, l.file_stem + (a.format == "json" ? ".json" : ".svg"));
  if (PathExists(path)) log(LogLevel::kWarning, Msg<msg::kExistingPathWillRecovered>(path));

  std::string bytes;
  if (a.format == "json") {
    bytes = ParallelLayoutToJson(l);
    bytes += '\n';
  } else {
    if (l.cell_count > kDrawSlowCells) log(LogLevel::kWarning, Msg<msg::kLargeScaleDrawing>(l.cell_count));
    bytes = ParallelLayoutToSvg(l);
    if (l.cell_count > kDrawMemoryCells) log(LogLevel::kWarning, Msg<msg::kLargeScaleVisualization>(l.cell_count));
  }
  log(LogLevel::kInfo, Msg<msg::kSavingVisualizationResult>(path));
  Status w = WriteFileAtomically(path, bytes);
  if (!w.ok()) return fail(w);
  log(LogLevel::kInfo, Msg<msg::kPlotDone>());
  std::fprintf(out, "%s\n", path.c_str());
  std::fflush(out);
  return 0;
}

}  // namespace visprobe
