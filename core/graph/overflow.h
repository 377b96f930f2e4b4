// Overflow check (spec §11): the level of one dump entry, with msProbe's ignore rules.
#pragma once

#include <string_view>

#include "graph/graph.h"
#include "loader/json_tree.h"

namespace visprobe {

// Level of dump entry `entry` (an object) named `name`; kNone when normal or ignored.
Overflow CheckOverflow(const JTree& t, JIdx entry, std::string_view name);

}  // namespace visprobe
