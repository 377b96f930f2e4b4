// Captured comparison items in their compact byte form: varint lengths, one kind byte per value,
// numbers as their raw 8 bytes. The golden side of a compare keeps them for every matched node
// until the target streams past, so they must cost little more than the dump text they came from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace visprobe {

std::string PackCmpItems(const std::vector<CmpItem>& items);
std::vector<CmpItem> UnpackCmpItems(std::string_view packed);
// The same into `items`, reusing its elements (and their strings' buffers).
void UnpackCmpItems(std::string_view packed, std::vector<CmpItem>* items);

}  // namespace visprobe
