// Manual matching's pairing rules (web-ui MAT-03 / MAT-04), decided here and nowhere else: which
// nodes a match or an unmatch pairs (the selected pair, with descendants their children by key in
// order, then the forward / backward twin), the matched_node_link each row gets (its counterpart's
// ancestors and name, json.dumps text) and the items each NPU row gets (CompareStoredItems,
// StripComparisonFields). The page's worker only transports: it answers the row reads from its own
// database (the engine's SQLite cannot read the worker's sql.js file) and writes back the updates.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "compare/manual_match.h"

namespace visprobe {

// tb_nodes.data_source of a compare: "NPU" (target, Debug) or "Bench" (golden).
enum class MatchSide : uint8_t { kNpu, kBench };
const char* MatchSideName(MatchSide side);

// The stored columns of one tb_nodes row that matching reads ('' for NULL).
struct StoredNodeRow {
  std::string node_name;
  int64_t node_type = 0;
  std::string up_node;
  std::string sub_nodes;  // JSON list of names
  std::string matched_node_link;  // JSON list: the counterpart's ancestors, then the counterpart
  std::string input_data, output_data;
  std::string dump_data_dir;
};

// The row of `name` on `side` of the request's (step, rank), or nullopt when there is none.
using StoredNodeReader = std::function<std::optional<StoredNodeRow>(MatchSide side, const std::string& name)>;

struct ManualMatchRequest {
  std::string task;  // tb_config.task
  std::string npu, bench;  // the selected nodes' names
  bool descendants = false;  // their descendants (and the twin's) too
  TensorDataDirs roots;  // tensor mode: the folders given for each side ('' when none)
};

// One row's change. Every changed row gets matched_node_link and modified = 1; a row with
// set_items (the NPU side) also gets precision_index (< 0: NULL), input_data and output_data.
struct MatchedNodeUpdate {
  MatchSide side = MatchSide::kNpu;
  std::string node_name;
  std::string matched_node_link;
  bool set_items = false;
  double precision_index = -1;
  std::string input_data, output_data;
};

struct ManualMatchPlan {
  std::vector<std::pair<std::string, std::string>> pairs;  // (NPU, Bench), in the order visited
  std::vector<MatchedNodeUpdate> updates;  // to be written in this order, in one transaction
};

// Match (MAT-03): both nodes unmatched and of one type; each pair is compared from its stored
// texts (tensor mode: from the tensor files under `roots`). Errors name what is wrong, and no
// update is to be written then.
Result<ManualMatchPlan> PlanManualMatch(const ManualMatchRequest& request, const StoredNodeReader& read);

// Unmatch (MAT-04): the two nodes must be matched with each other; links emptied, the NPU rows'
// comparison fields removed.
Result<ManualMatchPlan> PlanManualUnmatch(const ManualMatchRequest& request, const StoredNodeReader& read);

// The rules, for tests. Children pair by this key: the node type, then the name without its
// numeric parts, from the module class on for a module (type 0), from the second part on else.
std::string ChildPairingKey(int64_t node_type, std::string_view node_name);
// The forward node's backward twin and the backward node's forward twin (every occurrence).
std::string TwinNodeName(std::string_view node_name);
// matched_node_link's text: json.dumps of the list (", " separators, ensure_ascii).
std::string MatchedNodeLinkJson(const std::vector<std::string>& path);

}  // namespace visprobe
