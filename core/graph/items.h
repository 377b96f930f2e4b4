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

// §12 rule 3 for a string value: drop ', None -> null, round long decimals to 6 places.
void AppendFormattedString(std::string& out, std::string_view s);
// AppendFormattedString leaves s as it is (its fast path).
inline bool FormatsAsItself(std::string_view s) {
  return s.find('\'') == std::string_view::npos && s.find("None") == std::string_view::npos &&
         (s.empty() || s[0] < '0' || s[0] > '9');
}
// The same for a text that is repr(v) followed by `suffix` (e.g. a relative error "1.2345678%"),
// without reading the number back: the shortest repr rounds to 6 places like v itself unless it
// ends on a tie (7 decimals, the last a 5), which is formatted from v.
void AppendFormattedRepr(std::string& out, double v, std::string_view suffix);
// The same number without the suffix, written at d (kPyFloatRoom bytes); `rule` is whether the
// decimal rule applies (the suffix is empty or "%"). Returns its length.
size_t WriteFormattedRepr(char* d, double v, bool rule);

}  // namespace visprobe
