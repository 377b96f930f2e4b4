// `--file_type json` output of a merged build (spec §15.9): the merged graph written back as a
// rank folder (construct.json, stack.json, dump.json) that graph_visualize accepts as input.
#pragma once

#include <functional>
#include <string>

#include "base/status.h"
#include "merge/graph_merger.h"

namespace visprobe {

// Writes <out_dir>/step<step>/rank<rank>/{construct,stack,dump}.json for `r`; `info` gets the INFO line
// saying where (JsonFilesExported).
Status WriteMergedJson(const RankGraph& r, const std::string& out_dir, const std::function<void(const Message&)>& info);

}  // namespace visprobe
