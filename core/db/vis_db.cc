#include "db/vis_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "base/fs.h"
#include "base/pyfmt.h"
#include "db/badges.h"
#include "db/schema.h"

namespace visprobe {

std::vector<NodeId> PostOrder(const Graph& g) {
  std::vector<NodeId> out;
  out.reserve(g.size());
  std::vector<char> state(g.size(), 0);  // 0 new, 1 on the path, 2 emitted
  std::vector<std::pair<NodeId, size_t>> stack;
  std::unordered_set<std::string_view> names;
  stack.emplace_back(g.root(), 0);
  state[g.root()] = 1;
  if (g.repeated_names) names.insert(g.node(g.root()).name);
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const Node& n = g.node(id);
    if (next < n.subnodes.size()) {
      NodeId c = n.subnodes[next++];
      if (g.repeated_names && !names.insert(g.node(c).name).second) continue;
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

void AppendItems(std::string& out, const NodeItems& items, const std::vector<ItemRef>& refs,
                 const std::vector<std::string>* extra = nullptr) {
  StrWriter w(out);
  w.Put('{');
  bool first = true;
  for (size_t i = 0; i < refs.size(); ++i) {
    const ItemRef& r = refs[i];
    if (!first) w.Put(", ");
    first = false;
    AppendJsonString(w, items.Key(r));
    if (r.collapsed) {
      w.Put(": {\"value\": \"null\"}");  // §12 rule 4 also swallows comparison fields
    } else {
      w.Put(": {");
      w.Put(items.Text(r));
      if (extra && i < extra->size() && !r.process_group) w.Put((*extra)[i]);
      w.Put('}');
    }
  }
  w.Put('}');
}

}  // namespace

Status VisDbWriter::SqlError(const char* what) const {
  std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
  // SQLite's own text (and the step that failed) is nested as it is.
  return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(msg + (what ? std::string(" (") + what + ")" : ""))));
}

Status VisDbWriter::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string m = err ? err : "unknown error";
    sqlite3_free(err);
    return IoError(Msg<msg::kSqlite3ErrorOccurred>(Message(m)));
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
  w->held_limit_ = opts.held_bytes;
  // A new, empty file (ClaimNewFile made it; truncated, not removed, so the claim holds).
  RETURN_IF_ERROR(TruncateOrCreate(w->temp_));
  ConfigureSqliteOnce();
  if (sqlite3_open_v2(w->temp_.c_str(), &w->db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    Status s = w->SqlError("open");
    return s;
  }
  ::chmod(w->temp_.c_str(), 0640);
  // The file is private until it is renamed at the end, so it needs no journal: a failed run
  // deletes it. (msProbe uses WAL + synchronous=NORMAL on its shared file; measured here on a
  // 250 MB dump, the journal-less temporary file took 7.0 s instead of 13.0 s: see README.)
  RETURN_IF_ERROR(w->Exec("PRAGMA journal_mode=OFF"));
  RETURN_IF_ERROR(w->Exec("PRAGMA synchronous=OFF"));
  // Rows carry KB-sized JSON texts: with 4 KiB pages most rows spill into part-filled overflow
  // pages (the 250 MB dump made a 698 MB file, 519 MB with 64 KiB pages).
  RETURN_IF_ERROR(w->Exec("PRAGMA page_size=" + std::to_string(opts.page_size)));
  RETURN_IF_ERROR(w->Exec("PRAGMA cache_size=-" + std::to_string(opts.cache_kib)));
  if (opts.mmap_bytes > 0) RETURN_IF_ERROR(w->Exec("PRAGMA mmap_size=" + std::to_string(opts.mmap_bytes)));
  for (const TableDef* t : {&NodesTable(), &ConfigTable(), &StackTable(), &BadgesTable()}) {
    ASSIGN_OR_RETURN(std::string sql, CreateTableSql(*t));
    RETURN_IF_ERROR(w->Exec(sql));
  }
  // OR FAIL: no statement journal (a 64 KiB page copied for every page a statement first touches);
  // a refused row fails the run, whose file is deleted.
  ASSIGN_OR_RETURN(std::string ins_node, InsertSql(NodesTable(), OnConflict::kFail, true));
  ASSIGN_OR_RETURN(std::string ins_nodes, InsertSql(NodesTable(), OnConflict::kFail, true, kRowsPerStatement));
  ASSIGN_OR_RETURN(std::string ins_stack, InsertSql(StackTable(), OnConflict::kAbort));
  ASSIGN_OR_RETURN(std::string ins_config, InsertSql(ConfigTable(), OnConflict::kIgnore));
  ASSIGN_OR_RETURN(std::string ins_badge, InsertSql(BadgesTable(), OnConflict::kAbort));
  // The indexes whose keys come in row order cost little during the inserts (64 rows a statement
  // append to them); the others are sorted once at the end unless a writer thread of its own hides
  // their upkeep (measured on the wasm build: see README).
  if (opts.indexes_first || opts.in_row_order_indexes_first) RETURN_IF_ERROR(w->CreateIndexes(!opts.indexes_first));
  RETURN_IF_ERROR(w->Prepare(ins_node, &w->ins_node_));
  RETURN_IF_ERROR(w->Prepare(ins_nodes, &w->ins_nodes_));
  w->node_params_ = sqlite3_bind_parameter_count(w->ins_node_);
  RETURN_IF_ERROR(w->Prepare(ins_stack, &w->ins_stack_));
  RETURN_IF_ERROR(w->Prepare(ins_config, &w->ins_config_));
  RETURN_IF_ERROR(w->Prepare(ins_badge, &w->ins_badge_));
  return w;
}

VisDbWriter::~VisDbWriter() {
  if (!done_) Abort();
}

void VisDbWriter::Abort() {
  if (spill_put_) sqlite3_finalize(spill_put_);
  if (spill_get_) sqlite3_finalize(spill_get_);
  spill_put_ = spill_get_ = nullptr;
  if (ins_node_) sqlite3_finalize(ins_node_);
  if (ins_nodes_) sqlite3_finalize(ins_nodes_);
  if (ins_stack_) sqlite3_finalize(ins_stack_);
  if (ins_config_) sqlite3_finalize(ins_config_);
  if (ins_badge_) sqlite3_finalize(ins_badge_);
  ins_node_ = ins_nodes_ = ins_stack_ = ins_config_ = ins_badge_ = nullptr;
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
  RETURN_IF_ERROR(BeginGraph(g, info));
  return EndGraph();
}

Status VisDbWriter::BeginGraph(const Graph& g, const GraphRowsInfo& info, RowPlan plan) {
  g_ = &g;
  info_ = info;
  plan_ = std::move(plan);
  plan_.given.resize(g.size(), 0);
  held_.clear();
  free_slots_.clear();
  slot_of_.assign(g.size(), -1);
  held_count_ = 0;
  held_bytes_ = 0;
  spilled_.assign(g.size(), 0);
  next_ = 0;
  for (PendingRow& r : pending_) r.block.reset();
  pending_count_ = 0;
  pending_text_.clear();
  link_up_ = kNoNode;
  consts_bound_[0] = consts_bound_[1] = false;
  first_rowid_ = info.first_rowid > 0 ? info.first_rowid : top_rowid_ + 1;
  prefix_ = info.data_source + "_" + std::to_string(info.step) + "_" + std::to_string(info.rank);
  order_.assign(g.size(), -1);
  written_.assign(g.size(), 0);
  stack_of_node_.assign(g.size(), -1);
  stack_texts_.clear();
  rows_ = 0;
  static const std::string kEmptyStack = "[]";
  std::unordered_map<std::string_view, int> ids;
  std::vector<int> id_of_entry(g.stacks.size(), -1);  // many nodes share an entry: hash its text once
  int empty_id = -1;
  post_ = PostOrder(g);
  const std::vector<NodeId>& post = post_;
  for (size_t k = 0; k < post.size(); ++k) {
    NodeId id = post[k];
    order_[id] = static_cast<int64_t>(k);
    const Node& n = g.node(id);
    int& known = n.stack >= 0 ? id_of_entry[static_cast<size_t>(n.stack)] : empty_id;
    if (known < 0) {
      std::string_view text = n.stack >= 0 ? std::string_view(g.stacks[n.stack].json) : std::string_view(kEmptyStack);
      auto it = ids.find(text);
      if (it == ids.end()) {
        it = ids.emplace(text, static_cast<int>(stack_texts_.size())).first;
        stack_texts_.push_back(text);
      }
      known = it->second;
    }
    stack_of_node_[id] = known;
  }
  return Exec("BEGIN");
}

void VisDbWriter::RenderItems(const NodeItems& items, std::string* in, std::string* out) {
  in->clear();
  out->clear();
  AppendItems(*in, items, items.inputs);
  AppendItems(*out, items, items.outputs);
}

void VisDbWriter::RenderItems(const NodeItems& items, const std::vector<std::string>& in_extra,
                              const std::vector<std::string>& out_extra, std::string* in, std::string* out) {
  in->clear();
  out->clear();
  AppendItems(*in, items, items.inputs, &in_extra);
  AppendItems(*out, items, items.outputs, &out_extra);
}

void VisDbWriter::AppendRenderedItems(const NodeItems& items, const std::vector<std::string>* in_extra,
                                      const std::vector<std::string>* out_extra, std::string* text, size_t* mid) {
  AppendItems(*text, items, items.inputs, in_extra);
  *mid = text->size();
  AppendItems(*text, items, items.outputs, out_extra);
}

Status VisDbWriter::WriteNodeRow(NodeId id, const NodeItems& items) {
  if (!g_ || id >= order_.size() || order_[id] < 0) return Status::Ok();  // unreachable: not exported
  RenderItems(items, &in_buf_, &out_buf_);
  return WriteRenderedRow(id, in_buf_, out_buf_);
}

int64_t VisDbWriter::ReserveRows(size_t rows) {
  const int64_t first = top_rowid_ + 1;
  top_rowid_ += static_cast<int64_t>(rows);
  return first;
}

Result<size_t> VisDbWriter::EndGraph() {
  if (!g_) return Internal(Msg<msg::kEndGraphWithoutBeginGraph>());
  auto fail = [&](Status s) {
    Exec("ROLLBACK");
    g_ = nullptr;
    return s;
  };
  Status ds = Drain(true);
  if (ds.ok()) ds = FlushRows();
  if (!ds.ok()) return fail(ds);
  held_.clear();
  free_slots_.clear();
  held_count_ = 0;
  held_bytes_ = 0;
  if (spill_put_) {
    Status cs = Exec("DELETE FROM temp.vp_held");
    if (!cs.ok()) return fail(cs);
  }
  for (size_t k = 0; k < stack_texts_.size(); ++k) {
    stack_buf_ = prefix_ + "_" + std::to_string(k);
    sqlite3_reset(ins_stack_);
    sqlite3_bind_text(ins_stack_, 1, stack_buf_.data(), static_cast<int>(stack_buf_.size()), SQLITE_STATIC);
    sqlite3_bind_text(ins_stack_, 2, stack_texts_[k].data(), static_cast<int>(stack_texts_[k].size()), SQLITE_STATIC);
    if (sqlite3_step(ins_stack_) != SQLITE_DONE) {
      Status s = SqlError("tb_stack");
      sqlite3_reset(ins_stack_);
      return fail(s);
    }
  }
  sqlite3_reset(ins_stack_);
  Status bs = InsertBadges();
  if (!bs.ok()) return fail(bs);
  RETURN_IF_ERROR(Exec("COMMIT"));
  g_ = nullptr;
  return rows_;
}

Status VisDbWriter::InsertBadges() {
  const Graph& g = *g_;
  sqlite3_stmt* st = ins_badge_;
  for (const BadgeRow& b : ComputeBadges(g, written_, info_.compare)) {
    const std::string_view name = g.node(b.node).name;
    sqlite3_reset(st);
    int c = 1;
    sqlite3_bind_int(st, c++, info_.step);
    sqlite3_bind_int(st, c++, info_.rank);
    sqlite3_bind_text(st, c++, info_.data_source.data(), static_cast<int>(info_.data_source.size()), SQLITE_STATIC);
    sqlite3_bind_text(st, c++, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    if (b.worst < 0)
      sqlite3_bind_null(st, c++);
    else
      sqlite3_bind_double(st, c++, b.worst);
    for (uint32_t v : {b.n_error, b.n_warning, b.n_unmatched, b.n_overflow}) sqlite3_bind_int64(st, c++, v);
    sqlite3_bind_int(st, c++, b.worst_overflow);
    if (sqlite3_step(st) != SQLITE_DONE) {
      Status s = SqlError("vp_badges");
      sqlite3_reset(st);
      return s;
    }
  }
  sqlite3_reset(st);
  return Status::Ok();
}

Status VisDbWriter::WriteConfig(const ConfigRow& r) {
  sqlite3_stmt* st = ins_config_;
  sqlite3_reset(st);
  sqlite3_bind_text(st, 1, "1", 1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, r.graph_type.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, r.task.c_str(), -1, SQLITE_TRANSIENT);
  if (r.has_tool_tip)
    sqlite3_bind_text(st, 4, r.tool_tip.c_str(), -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null(st, 4);
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

Status VisDbWriter::CreateIndexes(bool in_row_order_only) {
  for (const IndexDef& idx : NodeIndexes()) {
    if (in_row_order_only && !idx.in_row_order) continue;
    ASSIGN_OR_RETURN(std::string sql, CreateIndexSql(NodesTable().name, idx));
    RETURN_IF_ERROR(Exec(sql));
  }
  if (in_row_order_only) return Status::Ok();
  ASSIGN_OR_RETURN(std::string badges, CreateIndexSql(BadgesTable().name, BadgesIndex()));
  return Exec(badges);
}

Result<std::string> VisDbWriter::Commit() {
  sqlite3_finalize(spill_put_);
  sqlite3_finalize(spill_get_);
  spill_put_ = spill_get_ = nullptr;
  sqlite3_finalize(ins_node_);
  sqlite3_finalize(ins_nodes_);
  sqlite3_finalize(ins_stack_);
  sqlite3_finalize(ins_config_);
  sqlite3_finalize(ins_badge_);
  ins_node_ = ins_nodes_ = ins_stack_ = ins_config_ = ins_badge_ = nullptr;
  // Leave a self-contained file: back to a rollback journal so no -wal/-shm remain.
  Status s = Exec("PRAGMA journal_mode=DELETE");
  if (!s.ok()) {
    Abort();
    return s;
  }
  Status p = PublishDb(&db_, temp_, final_, [this] { return SqlError("close"); });
  if (!p.ok()) {
    Abort();
    return p;
  }
  done_ = true;
  return final_;
}

}  // namespace visprobe
