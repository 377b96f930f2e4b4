// Framework detection (spec §8.5): the dump's `framework` field, else a streamed search of
// dump.json for the first line naming a MindSpore or PyTorch type.
#pragma once

#include <string>

#include "base/status.h"
#include "graph/graph.h"

namespace visprobe {

// §8.5: "pytorch" or "mindspore" — the `framework` field if it is one of those, else the first
// line of the file matching `"type":\s*"mindspore` / `"type":\s*"torch`, else the error
// `<path> must be based on the MindSpore or PyTorch framework.` Streams the file: one key scan
// for the field, then block reads for the line search.
Result<std::string> DetectFramework(const std::string& dump_json_path);
// The same for a built graph: its key scan already read the field, so the file is searched only
// when the field is missing.
Result<std::string> DetectFramework(const Graph& g);

namespace match_detail {

// §8.5 without the field: the first line of the file naming a framework type. Internal to
// core/match: also the layer mapping's fallback when its own dump.json scan finds no framework
// field (layer_reader.cc).
Result<std::string> SearchFrameworkLines(const std::string& path);

}  // namespace match_detail
}  // namespace visprobe
