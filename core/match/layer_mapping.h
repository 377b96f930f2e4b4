// Layer mapping (spec §8.4): computes, for every dump.json key of the target side, the golden
// dump.json key it corresponds to (or "N/A"), from the module scopes of both sides, the framework
// frame of each API call stack and an optional user YAML that renames scopes class by class (e.g.
// MindSpore `attention` -> PyTorch `self_attention`). The reading of one side (§8.4.1) is in
// layer_reader.h, framework detection (§8.5) in framework.h.
//
// Reading follows the reference: dump.json keys only (streamed, any size), construct.json and
// stack.json raw (no Megatron micro-step parsing beyond the parent, no conversion of the grouped
// stack.json format, which therefore gives no stacks, §19.2 quirk 20).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "match/layer_reader.h"
#include "match/yaml_subset.h"

namespace visprobe {

// §8.4: target dump.json key -> golden dump.json key or "N/A". `yaml_path_or_empty` empty means
// `-lm` without a file (empty user mapping). Every failure of the reference computation (file
// checks, YAML outside the subset or empty, a dump key with fewer than 4 segments, exactly one
// of stack.json/construct.json missing, a non-list stack entry, …) is an error Status; the caller
// then warns and falls back to an empty mapping (§8.3).
Result<std::unordered_map<std::string, std::string>> ComputeLayerMapping(const std::string& target_dump_json,
                                                                         const std::string& golden_dump_json,
                                                                         const std::string& yaml_path_or_empty);

// ---- the steps, visible for tests (the first, ReadLayerDataItems, in layer_reader.h) ------------

// §8.4.1 frame scope of one raw stack (a list of frame strings): the function name of the last
// framework frame before user code inside the hook region, or "" (see the spec for the rules).
// Errors like the reference: a frame line with fewer than three comma-separated fields or a
// function field with fewer than two words.
Result<std::string> StackFrameScope(const std::vector<std::string>& lines, bool mindspore);

// §8.4.3: class name -> first segment of src -> (src, dst cut at the first '(', number of
// segments of src), each list sorted by descending segment count (stable). `Cell` is renamed to
// `TopLayer`; a null `Cell` is dropped, any other null class is an error.
struct LayerMappingRule {
  std::string src, dst;
  size_t segments = 0;
};
using LayerMappingRules = std::unordered_map<std::string, std::unordered_map<std::string, std::vector<LayerMappingRule>>>;
Result<LayerMappingRules> PreprocessLayerMapping(const std::vector<YamlClassMapping>& classes);

// Whether `text` (a layer-mapping file named `file_name`) is one a run can use: parsed and
// preprocessed as -lm reads it. The page checks a chosen file with this before the run.
Status CheckLayerMappingText(std::string_view text, const std::string& file_name);

// §8.4.2-§8.4.4 on items already read.
std::unordered_map<std::string, std::string> TranslateLayerItems(const std::vector<LayerDataItem>& target,
                                                                 const std::vector<LayerDataItem>& golden,
                                                                 const LayerMappingRules& rules);

}  // namespace visprobe
