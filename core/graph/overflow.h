// Overflow check (spec §11): the level of one dump entry, with msProbe's ignore rules.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

#include "graph/graph.h"
#include "loader/json_tree.h"

namespace visprobe {

// Level of dump entry `entry` (an object) named `name`; kNone when normal or ignored.
Overflow CheckOverflow(const JTree& t, JIdx entry, std::string_view name);

// The check run again over a whole graph (a merged one, §15.2): every entry of `dump_path` (the last
// record of a name counts, §2.1) that is flagged and names a node of `g` (Graph::Find) sets that
// node's level; other nodes keep theirs.
Status ApplyOverflowCheck(Graph& g, const std::string& dump_path, size_t window_bytes);

}  // namespace visprobe
