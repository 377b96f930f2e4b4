// Edits of a node's items during a graph merge (§15): the statistics of an item are replaced by
// merged values, item keys follow renamed nodes, a node takes another node's outputs. The items
// must have been parsed with ItemOptions::capture (their raw values are what the merge reads).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace visprobe {

enum class ItemSide : uint8_t { kInput, kOutput };

inline std::vector<ItemRef>& Refs(NodeItems& it, ItemSide s) { return s == ItemSide::kInput ? it.inputs : it.outputs; }
inline const std::vector<ItemRef>& Refs(const NodeItems& it, ItemSide s) {
  return s == ItemSide::kInput ? it.inputs : it.outputs;
}

// Position of the item with key `key`, or -1.
int FindItem(const NodeItems& it, ItemSide s, std::string_view key);
// The raw values of item `i` (null when they were not captured).
const CmpItem* ItemValues(const NodeItems& it, ItemSide s, size_t i);

// Sets statistic k (0 Max, 1 Min, 2 Mean, 3 Norm) of item `i` to `v` (a number or null).
void SetItemStat(NodeItems& it, ItemSide s, size_t i, int k, const CmpValue& v);
// Copies the four statistics (raw values and printed texts) of item `si` of `src` into item `di`.
void CopyItemStats(NodeItems& dst, ItemSide ds, size_t di, const NodeItems& src, ItemSide ss, size_t si);

// Python's str.replace(old_id, new_id) on every item key and full_op_name (§15.3).
void RenameItemKeys(NodeItems& it, std::string_view old_id, std::string_view new_id);

// `base` with the outputs (or inputs) of `from` instead of its own.
NodeItems WithItemsOf(const NodeItems& base, ItemSide s, const NodeItems& from);

// The printed value of field `field` of item `i` as its JSON text ("" when absent).
std::string ItemFieldText(const NodeItems& it, ItemSide s, size_t i, std::string_view field);

}  // namespace visprobe
