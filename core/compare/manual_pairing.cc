#include "compare/manual_pairing.h"

#include <deque>
#include <map>

#include "base/pyfmt.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace visprobe {
namespace {

// A row as the rules read it: the JSON lists parsed.
struct NodeView {
  std::string name;
  int64_t type = 0;
  std::string up;
  std::vector<std::string> subs, links;  // a link that is not a string reads as ''
  std::string input, output, data_dir;
  const std::string& LastLink() const {
    static const std::string kNone;
    return links.empty() ? kNone : links.back();
  }
};

// The strings of a stored JSON list; anything else (NULL, '', not JSON, not a list) is empty.
std::vector<std::string> JsonList(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  // The JSON reader reads objects: the list as the one member of one.
  JTree t;
  JIdx root;
  if (!ParseJsonText("{\"l\": " + text + "}", t, &root).ok() || t.at(root).count != 1) return out;
  const JIdx list = t.at(root).first;
  if (t.Kind(list) != JKind::kArray) return out;
  for (JIdx e = t.at(list).first; e != kJNone; e = t.at(e).next)
    out.emplace_back(t.Kind(e) == JKind::kString ? t.Str(e) : std::string_view());
  return out;
}

// The first data file a node's items name (to find its tensor folder), or ''.
std::string FirstDataName(const std::string& items) {
  JTree t;
  JIdx root;
  if (items.empty() || !ParseJsonText(items, t, &root).ok() || t.Kind(root) != JKind::kObject) return "";
  for (JIdx item = t.at(root).first; item != kJNone; item = t.at(item).next) {
    if (t.Kind(item) != JKind::kObject) continue;
    JIdx d = t.Find(item, "data_name");
    if (d == kJNone || t.Kind(d) != JKind::kString) continue;
    std::string_view name = t.Str(d);
    if (!name.empty() && name != "-1" && name != "N/A") return std::string(name);
  }
  return "";
}

// One request's walk: rows read through the worker, the links this plan has set so far laid over
// them (a row read again later sees its new link, as it would in the database).
class Pairing {
 public:
  Pairing(const ManualMatchRequest& request, const StoredNodeReader& read) : request_(request), read_(read) {}

  std::optional<NodeView> Read(MatchSide side, const std::string& name) const {
    std::optional<StoredNodeRow> row = read_(side, name);
    if (!row) return std::nullopt;
    NodeView v;
    v.name = std::move(row->node_name);
    v.type = row->node_type;
    v.up = std::move(row->up_node);
    v.subs = JsonList(row->sub_nodes);
    auto set = links_.find({side, v.name});
    v.links = set != links_.end() ? set->second : JsonList(row->matched_node_link);
    v.input = std::move(row->input_data);
    v.output = std::move(row->output_data);
    v.data_dir = std::move(row->dump_data_dir);
    return v;
  }
  // The rows of `names` on `side` that exist, in order.
  std::vector<NodeView> ReadAll(MatchSide side, const std::vector<std::string>& names) const {
    std::vector<NodeView> out;
    for (const std::string& n : names)
      if (auto v = Read(side, n)) out.push_back(std::move(*v));
    return out;
  }
  // The node's ancestors, root first, then the node: its counterpart's matched_node_link.
  std::vector<std::string> PathTo(MatchSide side, const std::string& name) const {
    std::vector<std::string> up;
    std::optional<NodeView> cur = Read(side, name);
    for (int guard = 0; cur && !cur->up.empty() && guard < 10000; ++guard) {
      up.push_back(cur->up);
      cur = Read(side, cur->up);
    }
    std::vector<std::string> path(up.rbegin(), up.rend());
    path.push_back(name);
    return path;
  }

  Status MatchPair(const NodeView& n, const NodeView& b);
  Status VisitMatch(const NodeView& x, const NodeView& y);
  Status UnmatchPair(const NodeView& n, const NodeView& b);
  Status VisitUnmatch(const NodeView& x, const NodeView& y);
  ManualMatchPlan Take() { return std::move(plan_); }

 private:
  void Update(MatchedNodeUpdate u, std::vector<std::string> links) {
    links_[{u.side, u.node_name}] = std::move(links);
    plan_.updates.push_back(std::move(u));
  }
  Result<TensorDataDirs> TensorDirs(const NodeView& n, const NodeView& b) const;

  const ManualMatchRequest& request_;
  const StoredNodeReader& read_;
  std::map<std::pair<MatchSide, std::string>, std::vector<std::string>> links_;
  ManualMatchPlan plan_;
};

// Tensor mode: the pair's two tensor folders under the roots given (LocateTensorDir of the stored
// dump_data_dir and the first data file a node's items name; '' for a node that names none).
Result<TensorDataDirs> Pairing::TensorDirs(const NodeView& n, const NodeView& b) const {
  TensorDataDirs dirs;
  if (request_.task != "all" || request_.roots.npu.empty() || request_.roots.bench.empty()) return dirs;
  auto where = [](const NodeView& r, const std::string& root, std::string* dir) -> Status {
    std::string probe = FirstDataName(r.input);
    if (probe.empty()) probe = FirstDataName(r.output);
    if (probe.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(*dir, LocateTensorDir(r.data_dir, root, probe));
    return Status::Ok();
  };
  RETURN_IF_ERROR(where(n, request_.roots.npu, &dirs.npu));
  RETURN_IF_ERROR(where(b, request_.roots.bench, &dirs.bench));
  return dirs;
}

Status Pairing::MatchPair(const NodeView& n, const NodeView& b) {
  ASSIGN_OR_RETURN(TensorDataDirs dirs, TensorDirs(n, b));
  ASSIGN_OR_RETURN(ManualCompareResult res,
                   CompareStoredItems(request_.task, n.name, n.input, n.output, b.input, b.output, dirs));
  std::vector<std::string> n_link = PathTo(MatchSide::kBench, b.name);
  std::vector<std::string> b_link = PathTo(MatchSide::kNpu, n.name);
  MatchedNodeUpdate un{
      MatchSide::kNpu,           n.name, MatchedNodeLinkJson(n_link), true, res.precision_index, std::move(res.input_data),
      std::move(res.output_data)};
  MatchedNodeUpdate ub;
  ub.side = MatchSide::kBench;
  ub.node_name = b.name;
  ub.matched_node_link = MatchedNodeLinkJson(b_link);
  Update(std::move(un), std::move(n_link));
  Update(std::move(ub), std::move(b_link));
  return Status::Ok();
}

// The pair, then (with descendants) the unmatched children of each side paired by key in order:
// the first NPU child of a key with the first Bench child of that key, and so on down.
Status Pairing::VisitMatch(const NodeView& x, const NodeView& y) {
  RETURN_IF_ERROR(MatchPair(x, y));
  plan_.pairs.emplace_back(x.name, y.name);
  if (!request_.descendants) return Status::Ok();
  std::map<std::string, std::deque<NodeView>> groups;
  for (NodeView& c : ReadAll(MatchSide::kBench, y.subs))
    if (c.links.empty()) groups[ChildPairingKey(c.type, c.name)].push_back(std::move(c));
  for (const NodeView& c : ReadAll(MatchSide::kNpu, x.subs)) {
    if (!c.links.empty()) continue;
    auto g = groups.find(ChildPairingKey(c.type, c.name));
    if (g == groups.end() || g->second.empty()) continue;
    NodeView peer = std::move(g->second.front());
    g->second.pop_front();
    RETURN_IF_ERROR(VisitMatch(c, peer));
  }
  return Status::Ok();
}

Status Pairing::UnmatchPair(const NodeView& n, const NodeView& b) {
  ASSIGN_OR_RETURN(std::string input, StripComparisonFields(n.input));
  ASSIGN_OR_RETURN(std::string output, StripComparisonFields(n.output));
  Update(MatchedNodeUpdate{MatchSide::kNpu, n.name, "[]", true, -1, std::move(input), std::move(output)}, {});
  MatchedNodeUpdate ub;
  ub.side = MatchSide::kBench;
  ub.node_name = b.name;
  ub.matched_node_link = "[]";
  Update(std::move(ub), {});
  return Status::Ok();
}

// The pair, then (with descendants) every matched NPU child whose counterpart links back to it.
Status Pairing::VisitUnmatch(const NodeView& x, const NodeView& y) {
  RETURN_IF_ERROR(UnmatchPair(x, y));
  plan_.pairs.emplace_back(x.name, y.name);
  if (!request_.descendants) return Status::Ok();
  for (const NodeView& c : ReadAll(MatchSide::kNpu, x.subs)) {
    if (c.links.empty()) continue;
    std::optional<NodeView> peer = Read(MatchSide::kBench, c.LastLink());
    if (peer && peer->LastLink() == c.name) RETURN_IF_ERROR(VisitUnmatch(c, *peer));
  }
  return Status::Ok();
}

}  // namespace

const char* MatchSideName(MatchSide side) { return side == MatchSide::kNpu ? "NPU" : "Bench"; }

std::string ChildPairingKey(int64_t node_type, std::string_view node_name) {
  std::vector<std::string_view> parts;
  for (size_t i = 0; i <= node_name.size();) {
    size_t j = node_name.find('.', i);
    if (j == std::string_view::npos) j = node_name.size();
    std::string_view part = node_name.substr(i, j - i);
    bool number = !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos;
    if (!number) parts.push_back(part);
    i = j + 1;
  }
  size_t from = node_type == 0 ? (parts.size() > 2 ? parts.size() - 2 : 0) : std::min<size_t>(1, parts.size());
  std::string key = std::to_string(node_type) + ":";
  for (size_t k = from; k < parts.size(); ++k) {
    if (k > from) key += '.';
    key += parts[k];
  }
  return key;
}

std::string TwinNodeName(std::string_view node_name) {
  const bool forward = node_name.find("forward") != std::string_view::npos;
  const std::string_view from = forward ? "forward" : "backward", to = forward ? "backward" : "forward";
  std::string out;
  size_t i = 0;
  for (size_t j = node_name.find(from); j != std::string_view::npos; j = node_name.find(from, i)) {
    out.append(node_name.substr(i, j - i)).append(to);
    i = j + from.size();
  }
  out.append(node_name.substr(i));
  return out;
}

std::string MatchedNodeLinkJson(const std::vector<std::string>& path) {
  std::string out = "[";
  for (size_t i = 0; i < path.size(); ++i) {
    if (i) out += ", ";
    AppendJsonString(out, path[i]);
  }
  return out + "]";
}

Result<ManualMatchPlan> PlanManualMatch(const ManualMatchRequest& request, const StoredNodeReader& read) {
  Pairing p(request, read);
  std::optional<NodeView> n = p.Read(MatchSide::kNpu, request.npu);
  std::optional<NodeView> b = p.Read(MatchSide::kBench, request.bench);
  if (!n) return InvalidInput(Msg<msg::kPleaseSelectDebugSide>());
  if (!b) return InvalidInput(Msg<msg::kPleaseSelectBenchSide>());
  if (!n->links.empty() || !b->links.empty()) return InvalidInput(Msg<msg::kBothNodesMustUnmatched>());
  if (n->type != b->type) return InvalidInput(Msg<msg::kNodeTypesDiffer>());
  RETURN_IF_ERROR(p.VisitMatch(*n, *b));
  // The twin pair (forward with backward) follows, when both exist, unmatched and of one type.
  std::optional<NodeView> tn = p.Read(MatchSide::kNpu, TwinNodeName(n->name));
  std::optional<NodeView> tb = p.Read(MatchSide::kBench, TwinNodeName(b->name));
  if (tn && tb && tn->name != n->name && tn->links.empty() && tb->links.empty() && tn->type == tb->type)
    RETURN_IF_ERROR(p.VisitMatch(*tn, *tb));
  return p.Take();
}

Result<ManualMatchPlan> PlanManualUnmatch(const ManualMatchRequest& request, const StoredNodeReader& read) {
  Pairing p(request, read);
  std::optional<NodeView> n = p.Read(MatchSide::kNpu, request.npu);
  std::optional<NodeView> b = p.Read(MatchSide::kBench, request.bench);
  if (!n || !b) return InvalidInput(Msg<msg::kPleaseSelectNodesUnmatched>());
  if (n->links.empty() || b->links.empty() || n->LastLink() != b->name || b->LastLink() != n->name)
    return InvalidInput(Msg<msg::kTheseNodesNotMatched>());
  RETURN_IF_ERROR(p.VisitUnmatch(*n, *b));
  // The twin pair follows when it is matched with each other.
  std::optional<NodeView> tn = p.Read(MatchSide::kNpu, TwinNodeName(n->name));
  std::optional<NodeView> tb = p.Read(MatchSide::kBench, TwinNodeName(b->name));
  if (tn && tb && tn->name != n->name && !tn->links.empty() && tn->LastLink() == tb->name)
    RETURN_IF_ERROR(p.VisitUnmatch(*tn, *tb));
  return p.Take();
}

}  // namespace visprobe
