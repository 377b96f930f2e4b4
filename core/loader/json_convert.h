// simdjson's on-demand values into JTree nodes, for the reader's windows and whole texts: Python
// json's NaN / Infinity, the engine's limits, big integers and float tokens kept as text.
// Internal to loader/ (json_reader.cc, json_records.cc).
#pragma once

#include <string>
#include <utility>

#include "loader/json_reader_internal.h"
#include "loader/json_tree.h"
#include "simdjson.h"

namespace visprobe {
namespace json_internal {

// The error messages: a string over the limit, and simdjson's errors in the reader's words.
Message StringLimitText(size_t limit);
Message ErrorText(simdjson::error_code e);

// Converts one value (and everything below it) into a tree; a converter per value.
class Converter {
 public:
  explicit Converter(JTree& t, JsonLimits l = {}) : tree(t), limits(l) {}

  // The value into node idx (already added), its children below it. False on an error: Text()
  // says which. Recursion depth is bounded by kMaxJsonDepth (a few hundred bytes per frame).
  bool Value(od::value v, JIdx idx, int depth);
  Message Text() const;

 private:
  // A scalar (or a value simdjson cannot type: NaN / Infinity, or an error).
  bool Scalar(od::value& v, JIdx idx);
  bool Fail(simdjson::error_code e) {
    error = e;
    return false;
  }
  bool FailLimit(Message w) {
    what = std::move(w);
    return false;
  }
  bool Add(JIdx* out) {
    if (tree.size() >= limits.max_record_values) return FailLimit(Msg<msg::kMemberHoldsMoreValues>(limits.max_record_values));
    *out = tree.Add(JKind::kNull);
    return true;
  }

  JTree& tree;
  JsonLimits limits;
  simdjson::error_code error = simdjson::SUCCESS;
  Message what;  // set for a limit; replaces the simdjson error
};

}  // namespace json_internal
}  // namespace visprobe
