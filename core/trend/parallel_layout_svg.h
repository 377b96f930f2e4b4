// The chart of §11.5 as a standalone SVG document, laid out as the reference's matplotlib figure
// (plot_model_parallelism's default output; the browser draws the JSON with D3 instead).
#pragma once

#include <string>

namespace visprobe {

struct ParallelLayout;

std::string ParallelLayoutToSvg(const ParallelLayout& layout);

}  // namespace visprobe
