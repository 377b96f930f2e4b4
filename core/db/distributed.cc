#include "db/distributed.h"

#include <sqlite3.h>

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/pyfmt.h"
#include "base/strings.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace visprobe {
namespace {

struct DistNode {
  std::string name;
  std::string api;
  std::string index;  // pystr of the counterpart's precision index / overflow level, or "Nan"
  JTree tree;
  JIdx input = kJNone;  // the parsed input_data object
  std::string result;  // matched_distributed JSON, empty until set
  std::string key;  // §14.3 unique key on its rank
};

struct ApiInfo {
  const char* counterpart;  // p2p counterpart api, or nullptr
  const char* rank_param;  // parameter naming the peer / root, or nullptr
  const char* type;  // send / receive / send_receive
  bool p2p, rooted;
};

ApiInfo Lookup(const std::string& api) {
  if (api == "send") return {"recv", "dst", "send", true, false};
  if (api == "isend") return {"irecv", "dst", "send", true, false};
  if (api == "recv") return {"send", "src", "receive", true, false};
  if (api == "irecv") return {"isend", "src", "receive", true, false};
  if (api == "broadcast") return {nullptr, "1", "send", false, true};
  if (api == "scatter") return {nullptr, "src", "send", false, true};
  if (api == "gather") return {nullptr, "dst", "receive", false, true};
  if (api == "reduce") return {nullptr, "1", "receive", false, true};
  return {nullptr, nullptr, "send_receive", false, false};
}

const char* Opposite(const char* type) {
  std::string t(type);
  if (t == "send") return "receive";
  if (t == "receive") return "send";
  return type;
}

// `input_data["<X>.input.<p>"].value` as text; false when missing.
bool Parameter(const DistNode& n, const std::string& p, std::string* out) {
  if (n.input == kJNone) return false;
  JIdx item = n.tree.Find(n.input, n.name + ".input." + p);
  if (item == kJNone || n.tree.Kind(item) != JKind::kObject) return false;
  JIdx v = n.tree.Find(item, "value");
  if (v == kJNone || n.tree.Kind(v) == JKind::kNull) return false;
  *out = n.tree.PyStr(v);
  return true;
}

// The `group` keyword argument: its ranks (as text) and id.
bool Group(const DistNode& n, std::vector<std::string>* ranks, std::string* id) {
  if (n.input == kJNone) return false;
  JIdx item = n.tree.Find(n.input, n.name + ".input.group");
  if (item == kJNone || n.tree.Kind(item) != JKind::kObject) return false;
  JIdx gid = n.tree.Find(item, "group_id");
  JIdx gr = n.tree.Find(item, "group_ranks");
  if (gid == kJNone || gr == kJNone || !n.tree.Truthy(gid)) return false;
  *id = n.tree.PyStr(gid);
  ranks->clear();
  JTree parsed;
  JIdx list = gr;
  const JTree* t = &n.tree;
  if (n.tree.Kind(gr) == JKind::kString) {
    // Formatted data holds the list as text, e.g. "[0, 1]".
    std::string text = "{\"v\": " + std::string(n.tree.Str(gr)) + "}";
    JIdx root;
    if (!ParseJsonText(text, parsed, &root).ok()) return false;
    list = parsed.Find(root, "v");
    t = &parsed;
  }
  if (list == kJNone || t->Kind(list) != JKind::kArray) return false;
  for (JIdx c = t->at(list).first; c != kJNone; c = t->at(c).next) ranks->push_back(t->PyStr(c));
  return true;
}

std::string Info(const char* type, const std::vector<std::pair<std::string, const DistNode*>>& peers) {
  std::string s = "{\"communications_type\": ";
  AppendJsonString(s, type);
  s += ", \"nodes_info\": {";
  for (size_t i = 0; i < peers.size(); ++i) {
    if (i) s += ", ";
    AppendJsonString(s, peers[i].first);
    s += ": [";
    AppendJsonString(s, peers[i].second->index);
    s += ", ";
    AppendJsonString(s, peers[i].second->name);
    s += "]";
  }
  s += "}}";
  return s;
}

using Rank = std::vector<std::unique_ptr<DistNode>>;
// One step's ranks (rank as text -> its nodes, in row order), and the runs' steps by data_source.
using StepRanks = std::vector<std::pair<std::string, Rank>>;
using Groups = std::map<std::string, std::map<int, StepRanks>>;
// rank -> §14.3 key -> node.
using NodesByKey = std::unordered_map<std::string, std::unordered_map<std::string, DistNode*>>;

// The node of one row of the query in ReadDistributedNodes; null when its input_data is not valid
// JSON (skipped, §14.1).
Result<std::unique_ptr<DistNode>> ReadNode(sqlite3_stmt* st, bool overflow_check) {
  auto text = [&](int c) {
    const unsigned char* p = sqlite3_column_text(st, c);
    return p ? std::string(reinterpret_cast<const char*>(p)) : std::string();
  };
  auto n = std::make_unique<DistNode>();
  n->name = text(0);
  std::string input = text(1);
  JIdx root;
  if (!ParseJsonText(input, n->tree, &root).ok()) return std::unique_ptr<DistNode>();
  n->input = root;
  size_t dot = n->name.find('.');
  if (dot == std::string::npos) return InvalidInput(Msg<msg::kInvalidNodeId>(n->name));
  size_t dot2 = n->name.find('.', dot + 1);
  n->api = n->name.substr(dot + 1, dot2 == std::string::npos ? std::string::npos : dot2 - dot - 1);
  int idx_col = overflow_check ? 6 : 5;
  switch (sqlite3_column_type(st, idx_col)) {
    case SQLITE_NULL: n->index = "Nan"; break;
    case SQLITE_INTEGER: n->index = std::to_string(sqlite3_column_int64(st, idx_col)); break;
    case SQLITE_FLOAT: n->index = PyFloat(sqlite3_column_double(st, idx_col)); break;
    default: n->index = text(idx_col);
  }
  return n;
}

// The distributed nodes of tb_nodes, grouped by data_source, step and rank; *total counts them.
Status ReadDistributedNodes(sqlite3* db, bool overflow_check, Groups* groups, size_t* total) {
  sqlite3_stmt* st = nullptr;
  const char* q =
      "SELECT node_name, input_data, rank, step, data_source, precision_index, overflow_level FROM tb_nodes "
      "WHERE is_distributed = 1 ORDER BY data_source DESC, step, rank, node_order";
  if (sqlite3_prepare_v2(db, q, -1, &st, nullptr) != SQLITE_OK)
    return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(sqlite3_errmsg(db))));
  *total = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    Result<std::unique_ptr<DistNode>> n = ReadNode(st, overflow_check);
    if (!n.ok()) {
      sqlite3_finalize(st);
      return n.status();
    }
    if (!n.value()) continue;
    std::string rank = std::to_string(sqlite3_column_int64(st, 2));
    const unsigned char* source = sqlite3_column_text(st, 4);
    auto& ranks = (*groups)[source ? std::string(reinterpret_cast<const char*>(source)) : std::string()]
                           [static_cast<int>(sqlite3_column_int64(st, 3))];
    if (ranks.empty() || ranks.back().first != rank) ranks.emplace_back(rank, Rank());
    ranks.back().second.push_back(std::move(n.value()));
    ++*total;
  }
  sqlite3_finalize(st);
  return Status::Ok();
}

// §14.3: each node's key, unique on its rank (its peer or group, its api and a running count).
NodesByKey KeyNodes(StepRanks& ranks) {
  NodesByKey by_key;
  for (auto& [rank, nodes] : ranks) {
    std::unordered_map<std::string, int> count;
    for (auto& n : nodes) {
      ApiInfo a = Lookup(n->api);
      std::string g;
      if (a.p2p) {
        std::string t;
        if (!Parameter(*n, a.rank_param, &t)) continue;
        g = n->api + "rank" + t;
      } else {
        std::vector<std::string> gr;
        std::string gid;
        if (!Group(*n, &gr, &gid)) continue;
        g = gid + n->api;
      }
      n->key = g + "_" + std::to_string(++count[g]);
      by_key[rank][n->key] = n.get();
    }
  }
  return by_key;
}

DistNode* FindByKey(const NodesByKey& by_key, const std::string& rank, const std::string& key) {
  auto r = by_key.find(rank);
  if (r == by_key.end()) return nullptr;
  auto k = r->second.find(key);
  return k == r->second.end() ? nullptr : k->second;
}

// §14.4 for a point-to-point node x on `rank`: its counterpart on the peer rank, when that names
// x's rank back; both get their result.
void MatchPointToPoint(const NodesByKey& by_key, const std::string& rank, DistNode& x, const ApiInfo& a) {
  std::string t;
  if (!Parameter(x, a.rank_param, &t)) return;
  std::string key = ReplaceAll(ReplaceAll(x.key, "rank" + t, "rank" + rank), x.api, a.counterpart);
  DistNode* other = FindByKey(by_key, t, key);
  if (!other) return;
  ApiInfo c = Lookup(other->api);
  std::string s;
  if (!Parameter(*other, c.rank_param ? c.rank_param : "", &s) || s != rank) return;
  x.result = Info(a.type, {{t, other}});
  other->result = Info(c.type, {{rank, &x}});
}

// §14.4 for a collective node x on `rank`: the nodes with its key on the other ranks of its group
// (with the same group id). A rooted collective is matched from its root only, and its peers get
// the opposite direction.
void MatchCollective(const NodesByKey& by_key, const std::string& rank, DistNode& x, const ApiInfo& a) {
  const char* type = "send_receive";
  if (a.rooted) {
    std::string s;
    if (!Parameter(x, a.rank_param, &s) || s != rank) return;
    type = a.type;
  }
  std::vector<std::string> gr;
  std::string gid;
  if (!Group(x, &gr, &gid)) return;
  std::vector<std::pair<std::string, const DistNode*>> peers;
  for (const std::string& t : gr) {
    if (t == rank) continue;
    DistNode* other = FindByKey(by_key, t, x.key);
    if (!other) continue;
    std::vector<std::string> ogr;
    std::string ogid;
    if (!Group(*other, &ogr, &ogid) || ogid != gid) continue;  // the group ids differ
    peers.emplace_back(t, other);
    if (a.rooted) other->result = Info(Opposite(type), {{rank, &x}});
  }
  if (!peers.empty()) x.result = Info(type, peers);
}

// The matched nodes' matched_distributed, by the prepared UPDATE `up`.
Status WriteMatches(sqlite3* db, sqlite3_stmt* up, const std::string& source, int step, const StepRanks& ranks, size_t* updated) {
  for (auto& [rank, nodes] : ranks) {
    for (auto& n : nodes) {
      if (n->result.empty()) continue;
      sqlite3_reset(up);
      sqlite3_bind_text(up, 1, n->result.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_int(up, 2, step);
      sqlite3_bind_int64(up, 3, std::stoll(rank));
      sqlite3_bind_text(up, 4, source.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(up, 5, n->name.c_str(), -1, SQLITE_TRANSIENT);
      if (sqlite3_step(up) != SQLITE_DONE) return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(sqlite3_errmsg(db))));
      ++*updated;
    }
  }
  return Status::Ok();
}

}  // namespace

Result<size_t> AnalyzeDistributed(sqlite3* db, bool overflow_check, const std::function<void(const Message&)>& log) {
  Groups groups;
  size_t total = 0;
  RETURN_IF_ERROR(ReadDistributedNodes(db, overflow_check, &groups, &total));
  if (total == 0) return size_t{0};
  log(Msg<msg::kStartAnalyzingDistributedNodes>());

  sqlite3_stmt* up = nullptr;
  if (sqlite3_prepare_v2(db,
                         "UPDATE tb_nodes SET matched_distributed = ? WHERE step = ? AND rank = ? AND data_source = ? "
                         "AND node_name = ?",
                         -1, &up, nullptr) != SQLITE_OK)
    return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(sqlite3_errmsg(db))));
  size_t updated = 0;
  sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
  for (auto& [source, steps] : groups) {
    for (auto& [step, ranks] : steps) {
      const NodesByKey by_key = KeyNodes(ranks);
      for (auto& [rank, nodes] : ranks) {
        for (auto& xp : nodes) {
          DistNode& x = *xp;
          if (!x.result.empty() || x.key.empty()) continue;
          const ApiInfo a = Lookup(x.api);
          if (a.p2p)
            MatchPointToPoint(by_key, rank, x, a);
          else
            MatchCollective(by_key, rank, x, a);
        }
      }
      Status written = WriteMatches(db, up, source, step, ranks, &updated);
      if (!written.ok()) {
        sqlite3_finalize(up);
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        return written;
      }
    }
  }
  sqlite3_finalize(up);
  sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  log(Msg<msg::kSuccessfullyAnalyzedDistributedNodes>());
  return updated;
}

}  // namespace visprobe
