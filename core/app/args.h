// graph_visualize's command line (spec §16.1), parsed with argparse's rules: long and short
// forms, "--opt value" or "--opt=value", unknown options are errors.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "db/shard_part.h"

namespace visprobe {

struct GraphVisualizeArgs {
  std::string target_path, golden_path, output_path;
  bool has_golden = false;
  bool layer_mapping = false;           // -lm given
  std::string layer_mapping_file;       // -lm <file>
  bool overflow_check = false;
  bool fuzzy_match = false;
  bool print_compare_log = false;       // -tensor_log
  bool progress_log = false;            // -progress_log
  std::vector<int> rank_size, tp, pp, vpp{1};
  std::vector<std::string> order{"tp-cp-ep-dp-pp"};
  std::string file_type = "db";
  bool has_rank_size = false, has_tp = false, has_pp = false;
  ShardSpec shard;                      // --shard I/N: write part I of N (db/shard_part.h)
};

// Parses the arguments after the command name. On error the message is argparse's text
// ("the following arguments are required: ...", "unrecognized arguments: ...").
Result<GraphVisualizeArgs> ParseGraphVisualizeArgs(const std::vector<std::string>& argv);

std::string GraphVisualizeUsage();

// argparse's rule for the word after an option: "-x" is the next option unless it parses as a
// number (negative numbers are values). Shared by every command's parser.
bool LooksLikeOption(const std::string& s);
std::string GraphVisualizeHelp();

}  // namespace visprobe
