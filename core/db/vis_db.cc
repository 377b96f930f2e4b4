#include "db/vis_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <unordered_map>

#include "base/fs.h"
#include "base/pyfmt.h"
#include "db/schema.h"

namespace visprobe {

std::vector<NodeId> PostOrder(const Graph& g) {
  std::vector<NodeId> out;
  out.reserve(g.size());
  std::vector<char> state(g.size(), 0);   // 0 new, 1 on the path, 2 emitted
  std::vector<std::pair<NodeId, size_t>> stack;
  stack.emplace_back(g.root(), 0);
  state[g.root()] = 1;
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const Node& n = g.node(id);
    if (next < n.subnodes.size()) {
      NodeId c = n.subnodes[next++];
      if (state[c] == 0) {
        state[c] = 1;
        stack.emplace_back(c, 0);
      }
      continue;
    }
    state[id] = 2;
    out.push_back(id);
    stack.pop_back();
  }
  return out;
}

namespace {

Status CopyFile(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  if (!in || !out) return IoError("cannot copy " + from + " to " + to);
  out << in.rdbuf();
  if (!out) return IoError("cannot copy " + from + " to " + to);
  return Status::Ok();
}

void AppendItems(std::string& out, const NodeItems& items, const std::vector<ItemRef>& refs) {
  out += '{';
  bool first = true;
  for (const ItemRef& r : refs) {
    if (!first) out += ", ";
    first = false;
    AppendJsonString(out, items.Key(r));
    if (r.collapsed) {
      out += ": {\"value\": \"null\"}";
    } else {
      out += ": {";
      out.append(items.Text(r));
      out += '}';
    }
  }
  out += '}';
}

}  // namespace

Status VisDbWriter::SqlError(const char* what) const {
  std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
  return IoError(std::string("An sqlite3 error occurred: ") + msg + (what ? std::string(" (") + what + ")" : ""));
}

Status VisDbWriter::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "unknown error";
    sqlite3_free(err);
    return IoError("An sqlite3 error occurred: " + m);
  }
  return Status::Ok();
}

Status VisDbWriter::Prepare(const std::string& sql, sqlite3_stmt** st) {
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, st, nullptr) != SQLITE_OK) return SqlError("prepare");
  return Status::Ok();
}

Result<std::unique_ptr<VisDbWriter>> VisDbWriter::Open(const std::string& final_path, const DbOptions& opts) {
  std::unique_ptr<VisDbWriter> w(new VisDbWriter());
  w->final_ = final_path;
  w->temp_ = final_path + ".tmp";
  std::remove(w->temp_.c_str());
  if (PathExists(final_path)) {
    RETURN_IF_ERROR(CheckPath(final_path, PathKind::kFile, PathAccess::kReadWrite, ".db"));
    RETURN_IF_ERROR(CopyFile(final_path, w->temp_));
  }
  if (sqlite3_open_v2(w->temp_.c_str(), &w->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    Status s = w->SqlError("open");
    return s;
  }
  ::chmod(w->temp_.c_str(), 0640);
  if (opts.wal) RETURN_IF_ERROR(w->Exec("PRAGMA journal_mode=WAL"));
  RETURN_IF_ERROR(w->Exec("PRAGMA synchronous=NORMAL"));
  for (const TableDef* t : {&NodesTable(), &ConfigTable(), &StackTable()}) {
    ASSIGN_OR_RETURN(std::string sql, CreateTableSql(*t));
    RETURN_IF_ERROR(w->Exec(sql));
  }
  ASSIGN_OR_RETURN(std::string ins_node, InsertSql(NodesTable(), false));
  ASSIGN_OR_RETURN(std::string ins_stack, InsertSql(StackTable(), false));
  ASSIGN_OR_RETURN(std::string ins_config, InsertSql(ConfigTable(), true));
  RETURN_IF_ERROR(w->Prepare(ins_node, &w->ins_node_));
  RETURN_IF_ERROR(w->Prepare(ins_stack, &w->ins_stack_));
  RETURN_IF_ERROR(w->Prepare(ins_config, &w->ins_config_));
  return w;
}

VisDbWriter::~VisDbWriter() { if (!done_) Abort(); }

void VisDbWriter::Abort() {
  if (ins_node_) sqlite3_finalize(ins_node_);
  if (ins_stack_) sqlite3_finalize(ins_stack_);
  if (ins_config_) sqlite3_finalize(ins_config_);
  ins_node_ = ins_stack_ = ins_config_ = nullptr;
  if (db_) sqlite3_close(db_);
  db_ = nullptr;
  if (!temp_.empty()) {
    std::remove(temp_.c_str());
    std::remove((temp_ + "-wal").c_str());
    std::remove((temp_ + "-shm").c_str());
    std::remove((temp_ + "-journal").c_str());
  }
  done_ = true;
}

Result<size_t> VisDbWriter::WriteGraph(const Graph& g, const GraphRowsInfo& info) {
  const std::string prefix = info.data_source + "_" + std::to_string(info.step) + "_" + std::to_string(info.rank);
  std::vector<NodeId> order = PostOrder(g);
  std::unordered_map<std::string_view, int> stack_ids;
  std::vector<std::string_view> stack_texts;
  static const std::string kEmptyStack = "[]";

  RETURN_IF_ERROR(Exec("BEGIN"));
  std::string id, sub, link, in, out, stack_id, up;
  sqlite3_stmt* st = ins_node_;
  for (size_t k = 0; k < order.size(); ++k) {
    const Node& n = g.node(order[k]);
    id = prefix; id += '_'; id.append(n.name);
    up = n.up == kNoNode ? std::string() : std::string(g.node(n.up).name);
    sub.clear();
    if (!n.subnodes.empty()) {
      sub += '[';
      for (size_t i = 0; i < n.subnodes.size(); ++i) {
        if (i) sub += ", ";
        AppendJsonString(sub, g.node(n.subnodes[i]).name);
      }
      sub += ']';
    }
    link = "[";
    for (size_t i = 0; i < n.matched_link.size(); ++i) {
      if (i) link += ", ";
      AppendJsonString(link, n.matched_link[i]);
    }
    link += ']';
    in.clear(); out.clear();
    AppendItems(in, n.items, n.items.inputs);
    AppendItems(out, n.items, n.items.outputs);
    std::string_view stext = n.stack >= 0 ? std::string_view(g.stacks[n.stack].json) : std::string_view(kEmptyStack);
    auto it = stack_ids.find(stext);
    int sk;
    if (it == stack_ids.end()) {
      sk = static_cast<int>(stack_texts.size());
      stack_ids.emplace(stext, sk);
      stack_texts.push_back(stext);
    } else {
      sk = it->second;
    }
    stack_id = prefix + "_" + std::to_string(sk);

    sqlite3_reset(st);
    int c = 1;
    sqlite3_bind_text(st, c++, id.data(), static_cast<int>(id.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, c++, prefix.data(), static_cast<int>(prefix.size()), SQLITE_STATIC);
    sqlite3_bind_int64(st, c++, static_cast<sqlite3_int64>(k));
    sqlite3_bind_text(st, c++, n.name.data(), static_cast<int>(n.name.size()), SQLITE_STATIC);
    sqlite3_bind_int(st, c++, static_cast<int>(n.op));   // TEXT affinity stores "0" / "1" / "9"
    sqlite3_bind_text(st, c++, up.data(), static_cast<int>(up.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, c++, sub.data(), static_cast<int>(sub.size()), SQLITE_STATIC);
    if (n.precision_index < 0) sqlite3_bind_null(st, c++);
    else sqlite3_bind_double(st, c++, n.precision_index);
    if (const char* ov = OverflowName(n.overflow)) sqlite3_bind_text(st, c++, ov, -1, SQLITE_STATIC);
    else sqlite3_bind_null(st, c++);
    sqlite3_bind_int(st, c++, n.micro_step < 0 ? 0 : n.micro_step);
    sqlite3_bind_text(st, c++, link.data(), static_cast<int>(link.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, c++, stack_id.data(), static_cast<int>(stack_id.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, c++, "", 0, SQLITE_STATIC);     // parallel_merge_info
    sqlite3_bind_text(st, c++, "{}", 2, SQLITE_STATIC);   // matched_distributed
    sqlite3_bind_int(st, c++, 0);                         // modified
    sqlite3_bind_text(st, c++, in.data(), static_cast<int>(in.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, c++, out.data(), static_cast<int>(out.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, c++, info.data_source.data(), static_cast<int>(info.data_source.size()), SQLITE_STATIC);
    if (g.has_dump_data_dir)
      sqlite3_bind_text(st, c++, g.dump_data_dir.data(), static_cast<int>(g.dump_data_dir.size()), SQLITE_STATIC);
    else
      sqlite3_bind_null(st, c++);
    sqlite3_bind_int(st, c++, info.step);
    sqlite3_bind_int(st, c++, info.rank);
    sqlite3_bind_int(st, c++, n.name.compare(0, 11, "Distributed") == 0 ? 1 : 0);
    if (sqlite3_step(st) != SQLITE_DONE) {
      Status s = SqlError("tb_nodes");
      sqlite3_reset(st);
      Exec("ROLLBACK");
      return s;
    }
  }
  sqlite3_reset(st);
  for (size_t k = 0; k < stack_texts.size(); ++k) {
    stack_id = prefix + "_" + std::to_string(k);
    sqlite3_reset(ins_stack_);
    sqlite3_bind_text(ins_stack_, 1, stack_id.data(), static_cast<int>(stack_id.size()), SQLITE_STATIC);
    sqlite3_bind_text(ins_stack_, 2, stack_texts[k].data(), static_cast<int>(stack_texts[k].size()), SQLITE_STATIC);
    if (sqlite3_step(ins_stack_) != SQLITE_DONE) {
      Status s = SqlError("tb_stack");
      sqlite3_reset(ins_stack_);
      Exec("ROLLBACK");
      return s;
    }
  }
  sqlite3_reset(ins_stack_);
  RETURN_IF_ERROR(Exec("COMMIT"));
  return order.size();
}

Status VisDbWriter::WriteConfig(const ConfigRow& r) {
  sqlite3_stmt* st = ins_config_;
  sqlite3_reset(st);
  sqlite3_bind_text(st, 1, "1", 1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, r.graph_type.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, r.task.c_str(), -1, SQLITE_TRANSIENT);
  if (r.has_tool_tip) sqlite3_bind_text(st, 4, r.tool_tip.c_str(), -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(st, 4);
  sqlite3_bind_int(st, 5, r.micro_steps);
  sqlite3_bind_int(st, 6, r.overflow_check ? 1 : 0);
  sqlite3_bind_text(st, 7, r.node_colors.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 8, r.rank_list.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 9, r.step_list.c_str(), -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc != SQLITE_DONE) return SqlError("tb_config");
  return Status::Ok();
}

Status VisDbWriter::CreateIndexes() {
  for (const IndexDef& idx : NodeIndexes()) {
    ASSIGN_OR_RETURN(std::string sql, CreateIndexSql(NodesTable().name, idx));
    RETURN_IF_ERROR(Exec(sql));
  }
  return Status::Ok();
}

Result<std::string> VisDbWriter::Commit() {
  sqlite3_finalize(ins_node_);
  sqlite3_finalize(ins_stack_);
  sqlite3_finalize(ins_config_);
  ins_node_ = ins_stack_ = ins_config_ = nullptr;
  // Leave a self-contained file: back to a rollback journal so no -wal/-shm remain.
  Status s = Exec("PRAGMA journal_mode=DELETE");
  if (!s.ok()) { Abort(); return s; }
  if (sqlite3_close(db_) != SQLITE_OK) { Status e = SqlError("close"); Abort(); return e; }
  db_ = nullptr;
  if (std::rename(temp_.c_str(), final_.c_str()) != 0) {
    Abort();
    return IoError("cannot rename " + temp_ + " to " + final_);
  }
  done_ = true;
  return final_;
}

}  // namespace visprobe
