// Reading one side for the layer mapping (spec §8.4.1): the dump.json keys in order, the frame
// scope of each API stack in stack.json, each parent in construct.json, then the backward and
// layer renumbering passes.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace visprobe {

// One dump.json key as layer mapping sees it (§8.4.1).
struct LayerDataItem {
  std::string data_name;
  std::string api_type, api_name, type_name, state;
  std::string layer_scope, frame_scope, full_scope;
};

// §8.4.1 for one dump.json: the items in dump order after the backward and renumbering passes.
// Empty when stack.json and construct.json are both missing or either is empty.
Result<std::vector<LayerDataItem>> ReadLayerDataItems(const std::string& dump_json_path);

}  // namespace visprobe
