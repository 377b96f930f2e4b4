// The tb_config texts of a compare run: the tool tips (§13.5) and the node colours (§9.9) of each
// compare mode, as JSON objects.
#pragma once

#include <string>

#include "compare/compare.h"

namespace visprobe {

std::string ToolTipJson(CompareMode m);
std::string NodeColorsJson(CompareMode m);

}  // namespace visprobe
