// `visprobe plot_model_parallelism` (trend spec §11.7): argv -> ParallelConfig ->
// ComputeParallelLayout -> <output_path>/ws…_vpp….svg|json.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace visprobe {

// `argv` holds the arguments after the command name. Log lines and the written path go to
// `out`; usage errors (exit 2, argparse's wording) and validation errors (exit 1,
// "error: <message>") to `err`. Returns the exit status.
int PlotModelParallelismMain(const std::vector<std::string>& argv, std::FILE* out, std::FILE* err);

std::string PlotModelParallelismUsage();
std::string PlotModelParallelismHelp();

}  // namespace visprobe
