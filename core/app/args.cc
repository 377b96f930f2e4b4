#include "app/args.h"

#include "app/argparse.h"

#include <cstdlib>

namespace visprobe {
namespace {

enum class Kind { kString, kFlag, kOptionalValue, kInts, kStrings, kChoice };

struct Opt {
  const char* short_name;
  const char* long_name;
  Kind kind;
  const char* help;
};

const Opt kOpts[] = {
    {"-tp", "--target_path", Kind::kString, "<Required> The target (debug) dump folder."},
    {"-gp", "--golden_path", Kind::kString, "<Optional> The golden (benchmark) dump folder; selects compare mode."},
    {"-o", "--output_path", Kind::kString, "<Required> The folder where the .vis.db file is written."},
    {"-lm", "--layer_mapping", Kind::kOptionalValue, "<Optional> Layer mapping, with an optional mapping .yaml file."},
    {"-oc", "--overflow_check", Kind::kFlag, "<Optional> Mark overflow levels (medium / high / critical)."},
    {"-fm", "--fuzzy_match", Kind::kFlag, "<Optional> Fuzzy matching of nodes."},
    {"-tensor_log", "--is_print_compare_log", Kind::kFlag, "<Optional> Log every tensor comparison."},
    {"-progress_log", "--is_print_progress_log", Kind::kFlag, "<Optional> Print machine-readable PROGRESS lines."},
    {nullptr, "--rank_size", Kind::kInts, "<Optional> World size(s) of the parallel run(s); enables graph merge."},
    {nullptr, "--tp", Kind::kInts, "<Optional> Tensor parallel size(s)."},
    {nullptr, "--pp", Kind::kInts, "<Optional> Pipeline parallel size(s)."},
    {nullptr, "--vpp", Kind::kInts, "<Optional> Virtual pipeline parallel size(s) (default 1)."},
    {nullptr, "--order", Kind::kStrings, "<Optional> Rank order(s) (default tp-cp-ep-dp-pp)."},
    {nullptr, "--file_type", Kind::kChoice, "<Optional> db or json (json: merge build only)."},
    {nullptr, "--shard", Kind::kString, "<Optional> I/N: do shard I of N of the run into a part (visprobe gather joins them)."},
};

const Opt* FindOpt(const std::string& s) {
  for (const Opt& o : kOpts)
    if ((o.short_name && s == o.short_name) || s == o.long_name) return &o;
  return nullptr;
}

std::string OptTitle(const Opt& o) {
  return o.short_name ? std::string(o.short_name) + "/" + o.long_name : std::string(o.long_name);
}

}  // namespace

std::string GraphVisualizeUsage() {
  return "usage: visprobe graph_visualize [-h] -tp TARGET_PATH [-gp GOLDEN_PATH] -o OUTPUT_PATH [-lm [LAYER_MAPPING]]\n"
         "                                [-oc] [-fm] [-tensor_log] [-progress_log] [--rank_size RANK_SIZE [RANK_SIZE ...]]\n"
         "                                [--tp TP [TP ...]] [--pp PP [PP ...]] [--vpp VPP [VPP ...]]\n"
         "                                [--order ORDER [ORDER ...]] [--file_type {db,json}] [--shard SHARD]\n";
}

std::string GraphVisualizeHelp() {
  std::string s = GraphVisualizeUsage();
  s += "\nBuild the hierarchical graph of an msProbe dump (or compare two dumps) into a .vis.db file.\n\noptions:\n";
  s += "  -h, --help            show this help message and exit\n";
  for (const Opt& o : kOpts) {
    std::string name = o.short_name ? std::string(o.short_name) + ", " + o.long_name : std::string("    ") + o.long_name;
    s += "  " + name;
    s += name.size() < 20 ? std::string(20 - name.size(), ' ') : std::string("\n                      ");
    s += o.help;
    s += '\n';
  }
  return s;
}

Status SetListOption(GraphVisualizeArgs& a, const std::string& long_name, const std::vector<std::string>& values) {
  const Opt* o = FindOpt(long_name);
  if (!o || (o->kind != Kind::kInts && o->kind != Kind::kStrings))
    return InvalidInput(Msg<msg::kUnrecognizedArguments>(long_name));
  if (values.empty()) return InvalidInput(Msg<msg::kArgumentExpectedLeastOne>(OptTitle(*o)));
  if (o->kind == Kind::kStrings) {
    a.order = values;
    return Status::Ok();
  }
  std::vector<int> ints;
  for (const auto& v : values) {
    char* end = nullptr;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0') return InvalidInput(Msg<msg::kArgumentInvalidIntValue>(OptTitle(*o), v));
    ints.push_back(static_cast<int>(x));
  }
  if (long_name == "--rank_size") {
    a.rank_size = ints;
    a.has_rank_size = true;
  } else if (long_name == "--tp") {
    a.tp = ints;
    a.has_tp = true;
  } else if (long_name == "--pp") {
    a.pp = ints;
    a.has_pp = true;
  } else
    a.vpp = ints;
  return Status::Ok();
}

Status CheckRequiredArgs(const GraphVisualizeArgs& a, bool has_target, bool has_output) {
  std::string missing;
  if (!has_target) missing += "-tp/--target_path";
  if (!has_output) missing += std::string(missing.empty() ? "" : ", ") + "-o/--output_path";
  if (!missing.empty()) return InvalidInput(Msg<msg::kFollowingArgumentsRequired>(missing));
  if (a.file_type != "db" && a.file_type != "json")
    return InvalidInput(Msg<msg::kArgumentInvalidChoiceChoose>("--file_type", a.file_type, "'db', 'json'"));
  return Status::Ok();
}

Result<GraphVisualizeArgs> ParseGraphVisualizeArgs(const std::vector<std::string>& argv) {
  std::vector<OptSpec> specs;
  for (const Opt& o : kOpts) {
    OptSpec sp;
    sp.short_name = o.short_name ? o.short_name : "";
    sp.long_name = o.long_name;
    sp.arity = o.kind == Kind::kFlag                                 ? OptSpec::Arity::kFlag
               : o.kind == Kind::kOptionalValue                      ? OptSpec::Arity::kOptional
               : (o.kind == Kind::kInts || o.kind == Kind::kStrings) ? OptSpec::Arity::kMany
                                                                     : OptSpec::Arity::kOne;
    sp.required = sp.long_name == "--target_path" || sp.long_name == "--output_path";
    specs.push_back(sp);
  }
  GraphVisualizeArgs a;
  RETURN_IF_ERROR(ReadArgs(specs, argv, [&a](const OptSpec& o, const std::vector<std::string>& v) -> Status {
    const std::string& name = o.long_name;
    if (name == "--target_path")
      a.target_path = v[0];
    else if (name == "--golden_path") {
      a.golden_path = v[0];
      a.has_golden = true;
    } else if (name == "--output_path")
      a.output_path = v[0];
    else if (name == "--shard") {
      ASSIGN_OR_RETURN(a.shard, ParseShardSpec("--shard", v[0]));
    } else if (name == "--overflow_check")
      a.overflow_check = true;
    else if (name == "--fuzzy_match")
      a.fuzzy_match = true;
    else if (name == "--is_print_compare_log")
      a.print_compare_log = true;
    else if (name == "--is_print_progress_log")
      a.progress_log = true;
    else if (name == "--layer_mapping") {
      a.layer_mapping = true;
      if (!v.empty()) a.layer_mapping_file = v[0];
    } else if (name == "--file_type") {
      if (v[0] != "db" && v[0] != "json")
        return InvalidInput(Msg<msg::kArgumentInvalidChoiceChoose>("--file_type", v[0], "'db', 'json'"));
      a.file_type = v[0];
    } else
      return SetListOption(a, name, v);
    return Status::Ok();
  }));
  return a;
}

Result<std::vector<ParallelParam>> LoadParallelParams(const GraphVisualizeArgs& a) {
  if (!a.has_rank_size || !a.has_tp || !a.has_pp || a.rank_size.empty() || a.tp.empty() || a.pp.empty())
    return InvalidInput(Msg<msg::kGraphMergeTaskParameters>());
  if (!a.has_golden && a.rank_size.size() != 1) return InvalidInput(Msg<msg::kGraphMergeBuildTask>("rank_size", 1));
  if (a.has_golden && a.rank_size.size() != 2) return InvalidInput(Msg<msg::kGraphMergeCompareTask>("rank_size", 2));
  std::vector<ParallelParam> out;
  if (a.rank_size.size() == 1) {
    if (a.tp.size() != 1 || a.pp.size() != 1) return InvalidInput(Msg<msg::kGraphMergeBuildTask>("tp/pp/rank_size", 1));
    ParallelParam p;
    p.rank_size = a.rank_size[0];
    p.tp = a.tp[0];
    p.pp = a.pp[0];
    p.vpp = a.vpp.empty() ? 1 : a.vpp[0];
    if (!a.order.empty()) p.order = a.order[0];
    out.push_back(p);
    return out;
  }
  if (a.tp.size() != 2 || a.pp.size() != 2) return InvalidInput(Msg<msg::kGraphMergeCompareTask>("tp/pp/rank_size", 2));
  for (size_t i = 0; i < 2; ++i) {
    ParallelParam p;
    p.rank_size = a.rank_size[i];
    p.tp = a.tp[i];
    p.pp = a.pp[i];
    // Reference quirk (§19.2 item 18): a single --vpp / --order value is ignored in compare mode.
    p.vpp = a.vpp.size() == 2 ? a.vpp[i] : 1;
    if (a.order.size() == 2) p.order = a.order[i];
    out.push_back(p);
  }
  return out;
}

}  // namespace visprobe
