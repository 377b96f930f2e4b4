// graph_visualize's command line (spec §16.1), parsed with argparse's rules: long and short
// forms, "--opt value" or "--opt=value", unknown options are errors.
#pragma once

#include <string>
#include <vector>

#include "app/argparse.h"
#include "base/status.h"
#include "db/shard_part.h"
#include "merge/parallel_params.h"

namespace visprobe {

struct GraphVisualizeArgs {
  std::string target_path, golden_path, output_path;
  bool has_golden = false;
  bool layer_mapping = false;  // -lm given
  std::string layer_mapping_file;  // -lm <file>
  bool overflow_check = false;
  bool fuzzy_match = false;
  bool print_compare_log = false;  // -tensor_log
  bool progress_log = false;  // -progress_log
  std::vector<int> rank_size, tp, pp, vpp{1};
  std::vector<std::string> order{"tp-cp-ep-dp-pp"};
  std::string file_type = "db";
  bool has_rank_size = false, has_tp = false, has_pp = false;
  ShardSpec shard;  // --shard I/N: write part I of N (db/shard_part.h)
};

// GraphVisualizeArgs is the typed request of a run: the CLI parses argv into it, the browser worker
// fills it field by field (wasm/bindings.cc). Both go through these two for what argparse checks.
// Sets a list option given as text (--rank_size, --tp, --pp, --vpp: integers; --order), with
// argparse's messages ("argument --tp: invalid int value: 'x'").
Status SetListOption(GraphVisualizeArgs& a, const std::string& long_name, const std::vector<std::string>& values);
// -tp and -o are required ("the following arguments are required: ..."); --file_type is db or json.
Status CheckRequiredArgs(const GraphVisualizeArgs& a, bool has_target, bool has_output);

// Parses the arguments after the command name. On error the message is argparse's text
// ("the following arguments are required: ...", "unrecognized arguments: ...").
Result<GraphVisualizeArgs> ParseGraphVisualizeArgs(const std::vector<std::string>& argv);

std::string GraphVisualizeUsage();

// §16.2 step 2: one ParallelParam (build) or two (target, golden) from --rank_size / --tp / --pp /
// --vpp / --order. In compare mode --vpp and --order count only with exactly two values. The merge
// layer (merge/) takes the parameters, never the command line.
Result<std::vector<ParallelParam>> LoadParallelParams(const GraphVisualizeArgs& args);

std::string GraphVisualizeHelp();

}  // namespace visprobe
