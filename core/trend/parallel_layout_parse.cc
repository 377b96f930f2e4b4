// The browser's parallel config (trend spec §11): a JSON object read into a ParallelConfig, with
// its type errors reported where §11.2 puts them.
#include "trend/parallel_layout_parse.h"

#include <limits>

#include "loader/json_reader.h"
#include "loader/json_tree.h"
#include "trend/parallel_layout_internal.h"

namespace visprobe {

using trend_detail::CheckScalars;

namespace {

// A JSON integer member as ParallelConfig stores it: anything that is not an integer becomes 0,
// which step 1 of §11.2 rejects with "<name> must be a positive integer" in the reference's order.
int64_t IntMember(const JTree& t, JIdx v) {
  switch (t.Kind(v)) {
    case JKind::kInt: return t.at(v).i;
    case JKind::kBigInt: {
      std::string_view digits = t.Str(v);
      return !digits.empty() && digits[0] == '-' ? 0 : std::numeric_limits<int64_t>::max();
    }
    default: return 0;
  }
}

}  // namespace

Result<ParallelConfig> ParallelConfigFromJson(std::string_view json) {
  JTree t;
  JIdx root = kJNone;
  Status ps = ParseJsonText(json, t, &root);
  if (!ps.ok()) return InvalidInput(Msg<msg::kInvalidParallelConfigJson>(ps));
  ParallelConfig c;
  auto member = [&](const char* name) { return t.Find(root, name); };
  auto is_null = [&](JIdx v) { return v == kJNone || t.Kind(v) == JKind::kNull; };
  JIdx v;
  c.world_size = is_null(v = member("world_size")) ? 0 : IntMember(t, v);
  c.num_layers = is_null(v = member("num_layers")) ? 0 : IntMember(t, v);
  c.tensor_parallel_size = is_null(v = member("tensor_parallel_size")) ? 1 : IntMember(t, v);  // None -> 1
  c.pipeline_parallel_size = is_null(v = member("pipeline_parallel_size")) ? 1 : IntMember(t, v);
  if (!is_null(v = member("num_layers_per_virtual_pipeline_stage"))) c.num_layers_per_virtual_pipeline_stage = IntMember(t, v);

  bool bad_order = false, bad_standalone = false;
  if (!is_null(v = member("order"))) {
    if (t.Kind(v) == JKind::kString)
      c.order = std::string(t.Str(v));
    else
      bad_order = true;
  }
  if ((v = member("standalone_embedding_stage")) != kJNone) {
    if (t.Kind(v) == JKind::kBool)
      c.standalone_embedding_stage = t.at(v).b;
    else
      bad_standalone = true;
  }
  // Type errors of the last two members surface where §11.2 puts them: standalone after step 3,
  // the order when the groups are built (after every other check).
  if (bad_standalone) {
    RETURN_IF_ERROR(CheckScalars(c));
    return InvalidInput(Msg<msg::kStandaloneEmbeddingStageMust>());
  }
  if (bad_order) {
    ParallelConfig probe = c;
    probe.order = ParallelConfig().order;
    auto r = ComputeParallelLayout(probe);
    if (!r.ok()) return r.status();
    return InvalidInput(Msg<msg::kOrderMustString>());
  }
  return c;
}

}  // namespace visprobe
