// The YAML subset read by layer mapping (spec §8.4.3): a block mapping of class names, each
// holding a block mapping of (source path -> target path) scalars.
//
//   # comment
//   ---                          (tolerated before the content)
//   TopLayer:
//     network_with_loss: module  # trailing comment
//     'quoted.key': "quoted value"
//   Empty: {}
//
// or the flow form `{}` for an empty document. Keys and values are plain, 'single' or "double"
// quoted scalars, always kept as text (YAML's int/bool/null typing is not applied). As in
// PyYAML, tokens are separated by spaces: a tab outside a quoted scalar or a comment is an error,
// and a comment may follow a closing quote directly. Anything
// outside the subset (sequences, anchors, tags, block scalars, flow collections other than `{}`,
// multi-line scalars, a third level) is an error naming the file and the line. No third-party
// library: the same code runs natively and under Emscripten.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct YamlClassMapping {
  std::string name;
  // (src, dst) in file order. A repeated key keeps its first position and its last value
  // (PyYAML builds a dict).
  std::vector<std::pair<std::string, std::string>> entries;
  // `Name:` with nothing under it: YAML null, not a mapping (the caller decides what that means;
  // the reference drops a null `Cell` and fails on any other null class).
  bool is_null = false;
};

// Top-level classes in file order; a repeated class name keeps its first position and its last
// value. An empty document (only blank lines, comments, `---`) is an error: PyYAML yields None.
Result<std::vector<YamlClassMapping>> ParseLayerMappingYaml(std::string_view text, const std::string& file_name);

// Reads and parses a mapping file after msProbe's file checks (§16.3: existence, kind,
// permission, characters, the 1 GiB size limit of `.yaml`, and the `.yaml` suffix).
Result<std::vector<YamlClassMapping>> LoadLayerMappingYaml(const std::string& path);

}  // namespace visprobe
