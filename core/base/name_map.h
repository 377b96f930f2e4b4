#pragma once
// A flat hash map from a name (a string_view into storage that outlives the map) to a small value.
// The structure pass looks up every node name of a dump several times (construct.json's index,
// stack.json's names, the graph's own index); with a million names std::unordered_map chases a
// bucket, a list node and the key for each lookup, and the large build's node pass was bound by
// those cache misses. tsl::robin_map (Debian robin-map-dev, header-only) keeps the key, the value
// and 32 bits of the hash in one array: one miss for the slot, one for the key text on a hash hit.
#include <tsl/robin_map.h>
#include <functional>
#include <string_view>

namespace visprobe {

template <class V>
class NameMap : public tsl::robin_map<std::string_view, V, std::hash<std::string_view>, std::equal_to<std::string_view>,
                                      std::allocator<std::pair<std::string_view, V>>, /*StoreHash=*/true> {
 public:
  // Robin Hood probing keeps its probe lengths short up to a high load: 0.8 instead of the
  // default 0.5 halves the table of a large graph (2^21 slots of 32 bytes for 1.15 M names).
  NameMap() { this->max_load_factor(0.8f); }
};

}  // namespace visprobe
