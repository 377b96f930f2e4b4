// The two small files of a rank folder (spec §4.2, §4.3): construct.json (plain and Megatron
// values) and stack.json (legacy and grouped formats), read for the graph builder.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/arena.h"
#include "base/limits.h"
#include "base/name_map.h"
#include "base/status.h"
#include "graph/graph.h"

namespace visprobe {

struct ConstructEntry {
  std::string_view child;  // in Construct::text
  std::string_view parent;  // "" = top level (null or "")
  int micro = 0;
  bool from_list = false;
};

struct Construct {
  std::vector<ConstructEntry> entries;
  NameMap<uint32_t> index;  // child -> entry
  bool megatron = false;
  int micro_step_num = -1;
  TextArena text;  // the names the entries and the index point into

  const std::string_view* Get(std::string_view k) const {
    auto it = index.find(k);
    return it == index.end() ? nullptr : &entries[it->second].parent;
  }
  bool Has(std::string_view k) const { return index.count(k) != 0; }
};

struct Stacks {
  NameMap<int32_t> by_name;  // node name (in `names`) -> index in graph.stacks
  TextArena names;
};

// msProbe's "load json file \"<base>\" failed." followed by the reader's reason.
Status LoadFailed(const std::string& base, const Status& why);

// More than max_entries members (base/limits.h kMaxGraphNodes) fail with a message naming the limit.
Result<Construct> LoadConstruct(const std::string& path, uint64_t max_entries = kMaxGraphNodes);
// "<path> holds more than <limit> <what>, the limit of nodes in one graph."
Status TooManyNodes(const std::string& path, uint64_t limit, const Message& what);
// Fills g.stacks and s.by_name (node name -> index in g.stacks).
Status LoadStacks(const std::string& path, Graph& g, Stacks& s);

}  // namespace visprobe
