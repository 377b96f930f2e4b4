// Dump entry -> formatted input/output items (spec §7 walking and gen_item, §12 formatting).
#pragma once

#include <cstdint>
#include <string_view>

#include "base/pyfmt.h"
#include "base/status.h"
#include "graph/graph.h"
#include "loader/json_tree.h"

namespace visprobe {

struct ItemOptions {
  bool keep_md5 = false;  // md5 compare mode keeps the md5 field (§12 rule 1)
  bool capture = false;  // also keep the raw values the comparison needs (NodeItems::cmp)
  // Tests only: every leaf goes the general way (GenItem, Render), never the one-pass way for
  // common tensor leaves, so a test can check that both give the same items.
  bool general_only = false;
};

// Tests only: how many leaves the calling thread has written the one-pass way so far.
uint64_t OnePassLeavesOfThisThread();

// Replaces `out` with the items of dump entry `entry` of node `name`.
Status ParseEntryItems(const JTree& tree, JIdx entry, std::string_view name, const ItemOptions& opts, NodeItems& out);

}  // namespace visprobe
