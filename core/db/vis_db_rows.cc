// Part of db/vis_db.h: VisDbWriter's row inserts (vis_db.cc holds the rest of the class).
// How a tb_nodes row goes in (declared in db/vis_db.h): in node_order whatever order the rows come
// in (a row that comes early is held, past the limit in a TEMP table; the graph's own rows go in
// when their turn comes), 64 rows to an INSERT statement.
#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <utility>

#include "base/pyfmt.h"
#include "base/str_writer.h"
#include "db/vis_db.h"

namespace visprobe {

Status VisDbWriter::WriteRenderedRow(NodeId id, std::string_view in, std::string_view out) {
  return Take(id, in, out, nullptr, 0);
}

Status VisDbWriter::WriteRows(const std::shared_ptr<const RowBlock>& block) {
  for (size_t i = 0; i < block->ids.size(); ++i)
    RETURN_IF_ERROR(Take(block->ids[i], block->In(i), block->Out(i), &block, static_cast<uint32_t>(i)));
  return Status::Ok();
}

Status VisDbWriter::Take(NodeId id, std::string_view in, std::string_view out, const std::shared_ptr<const RowBlock>* block,
                         uint32_t row) {
  if (!g_ || id >= order_.size() || order_[id] < 0) return Status::Ok();
  const size_t k = static_cast<size_t>(order_[id]);
  const bool first = plan_.given[id] && !written_[id] && slot_of_[id] < 0 && !spilled_[id];
  Status s = first ? Drain(false) : Status::Ok();  // the rows before it that the graph holds
  if (!s.ok()) {
  } else if (first && k == next_) {  // its turn: in it goes, then the rows that waited for it
    s = InsertNode(id, in, out, block);
    if (s.ok()) {
      ++next_;
      s = Drain(false);
    }
  } else if (first && k > next_) {
    s = Hold(id, in, out, block, row);
  } else {  // not planned (in at once), or a second row of one node (the primary key refuses it)
    s = InsertNode(id, in, out);
  }
  if (!s.ok()) {
    Exec("ROLLBACK");
    g_ = nullptr;
  }
  return s;
}

Status VisDbWriter::Hold(NodeId id, std::string_view in, std::string_view out, const std::shared_ptr<const RowBlock>* block,
                         uint32_t row) {
  int32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<int32_t>(held_.size());
    held_.emplace_back();
  }
  slot_of_[id] = slot;
  ++held_count_;
  HeldRow& h = held_[static_cast<size_t>(slot)];
  h.bytes = in.size() + out.size() + 64;
  if (block) {
    h.block = *block;
    h.row = row;
  } else {
    h.text.assign(in);
    h.text.append(out);
    h.mid = in.size();
  }
  held_bytes_ += h.bytes;
  return held_bytes_ > held_limit_ ? SpillHeld() : Status::Ok();
}

void VisDbWriter::Release(NodeId id) {
  HeldRow& h = held_[static_cast<size_t>(slot_of_[id])];
  held_bytes_ -= h.bytes;
  h.block.reset();
  h.text.clear();
  free_slots_.push_back(slot_of_[id]);
  slot_of_[id] = -1;
  --held_count_;
}

// The held rows move to a temporary table (TEMP: its own file, never part of the .vis.db), where
// they wait for their turn without holding memory.
Status VisDbWriter::SpillHeld() {
  if (!spill_put_) {
    RETURN_IF_ERROR(Exec("CREATE TEMP TABLE IF NOT EXISTS vp_held (k INTEGER PRIMARY KEY, t BLOB NOT NULL, m INTEGER NOT NULL)"));
    RETURN_IF_ERROR(Prepare("INSERT OR REPLACE INTO temp.vp_held (k, t, m) VALUES (?, ?, ?)", &spill_put_));
    RETURN_IF_ERROR(Prepare("SELECT t, m FROM temp.vp_held WHERE k = ?", &spill_get_));
  }
  std::string text;
  for (NodeId id = 0; id < slot_of_.size() && held_count_ > 0; ++id) {
    if (slot_of_[id] < 0) continue;
    const HeldRow& h = held_[static_cast<size_t>(slot_of_[id])];
    text.assign(h.In());
    text.append(h.Out());
    sqlite3_reset(spill_put_);
    sqlite3_bind_int64(spill_put_, 1, order_[id]);
    sqlite3_bind_blob(spill_put_, 2, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    sqlite3_bind_int64(spill_put_, 3, static_cast<int64_t>(h.In().size()));
    if (sqlite3_step(spill_put_) != SQLITE_DONE) {
      Status s = SqlError("vp_held");
      sqlite3_reset(spill_put_);
      return s;
    }
    spilled_[id] = 1;
    Release(id);
  }
  sqlite3_reset(spill_put_);
  return Status::Ok();
}

Status VisDbWriter::InsertSpilled(NodeId id) {
  sqlite3_reset(spill_get_);
  sqlite3_bind_int64(spill_get_, 1, order_[id]);
  if (sqlite3_step(spill_get_) != SQLITE_ROW) {
    Status s = SqlError("vp_held");
    sqlite3_reset(spill_get_);
    return s;
  }
  const char* t = static_cast<const char*>(sqlite3_column_blob(spill_get_, 0));
  const size_t n = static_cast<size_t>(sqlite3_column_bytes(spill_get_, 0));
  const size_t mid = static_cast<size_t>(sqlite3_column_int64(spill_get_, 1));
  std::string_view text(t ? t : "", n);
  Status s = InsertNode(id, text.substr(0, mid), text.substr(mid));
  sqlite3_reset(spill_get_);
  spilled_[id] = 0;
  return s;
}

Status VisDbWriter::InsertOwn(NodeId id) {
  if (plan_.before_own) plan_.before_own(id);
  RenderItems(g_->node(id).items, &in_buf_, &out_buf_);
  return InsertNode(id, in_buf_, out_buf_);
}

Status VisDbWriter::Drain(bool all) {
  for (; next_ < post_.size(); ++next_) {
    const NodeId id = post_[next_];
    if (written_[id]) continue;
    if (!plan_.given[id]) {
      RETURN_IF_ERROR(InsertOwn(id));
    } else if (slot_of_[id] >= 0) {
      const HeldRow& h = held_[static_cast<size_t>(slot_of_[id])];
      RETURN_IF_ERROR(InsertNode(id, h.In(), h.Out(), h.block ? &h.block : nullptr));
      Release(id);
    } else if (spilled_[id]) {
      RETURN_IF_ERROR(InsertSpilled(id));
    } else if (all) {  // planned, never handed over: from the graph's items, as if not planned
      RenderItems(g_->node(id).items, &in_buf_, &out_buf_);
      RETURN_IF_ERROR(InsertNode(id, in_buf_, out_buf_));
    } else {
      break;
    }
  }
  return Status::Ok();
}

namespace {

// A JSON list of the n strings name(i), or nothing at all when n is 0 (tb_nodes' subnodes and
// merge info are "" then).
template <typename NameOf>
inline void PutStringList(StrWriter& t, size_t n, NameOf name) {
  if (n == 0) return;
  t.Put('[');
  for (size_t i = 0; i < n; ++i) {
    if (i) t.Put(", ");
    AppendJsonString(t, name(i));
  }
  t.Put(']');
}

}  // namespace

// matched_node_link: the matched node's ancestors and its own name, as a JSON list ("[]" when
// unmatched). Siblings share the ancestors' part (link_prefix_).
inline void VisDbWriter::PutMatchedLink(StrWriter& t, const Node& n) {
  const Graph& g = *g_;
  if (n.matched != kNoNode && g.matched_graph) {
    const Graph& other = *g.matched_graph;
    const NodeId up = other.node(n.matched).up;
    if (up != link_up_ || up == kNoNode) {
      other.AncestorsInto(n.matched, &link_chain_);
      link_prefix_.clear();
      StrWriter lp(link_prefix_);
      lp.Put('[');
      for (NodeId a : link_chain_) {
        AppendJsonString(lp, other.node(a).name);
        lp.Put(", ");
      }
      link_up_ = up;
    }
    t.Put(link_prefix_);
    AppendJsonString(t, other.node(n.matched).name);
  } else {
    t.Put('[');
  }
  t.Put(']');
}

Status VisDbWriter::InsertNode(NodeId id, std::string_view in, std::string_view out,
                               const std::shared_ptr<const RowBlock>* block) {
  const Graph& g = *g_;
  const Node& n = g.node(id);
  // The row waits in the batch until kRowsPerStatement have come: one statement then inserts them all
  // (FlushRows). Its texts are copied, except those in a block, which it keeps alive instead (the
  // caller's other buffers are reused); up_node and node_name are the graph's own strings.
  PendingRow& p = pending_[pending_count_++];
  {  // the writer is closed (pending_text_ cut to what was written) before FlushRows reads it
    StrWriter t(pending_text_);
    auto open = [&t] { return static_cast<uint32_t>(t.size()); };
    auto close = [&t](uint32_t off) { return std::pair<uint32_t, uint32_t>(off, static_cast<uint32_t>(t.size()) - off); };
    p.id = id;
    p.rowid = first_rowid_ + order_[id];
    uint32_t o = open();
    t.Put(prefix_);
    t.Put('_');
    t.Put(n.name);
    p.text[kId] = close(o);
    o = open();
    PutStringList(t, n.subnodes.size(), [&](size_t i) -> std::string_view { return g.node(n.subnodes[i]).name; });
    p.text[kSub] = close(o);
    o = open();
    PutMatchedLink(t, n);
    p.text[kLink] = close(o);
    o = open();
    t.Put(prefix_);
    t.Put('_');
    t.PutInt(stack_of_node_[id]);
    p.text[kStack] = close(o);
    o = open();
    PutStringList(t, n.merge_info.size(), [&](size_t i) -> std::string_view { return n.merge_info[i]; });  // §13.2
    p.text[kMerge] = close(o);
    if (block) {
      p.block = *block;
      p.in_out[0] = in;
      p.in_out[1] = out;
    } else {
      p.block.reset();
      o = open();
      t.Put(in);
      p.text[kIn] = close(o);
      o = open();
      t.Put(out);
      p.text[kOut] = close(o);
    }
  }
  written_[id] = 1;
  ++rows_;
  top_rowid_ = std::max(top_rowid_, p.rowid);
  return pending_count_ == kRowsPerStatement ? FlushRows() : Status::Ok();
}

void VisDbWriter::BindRow(sqlite3_stmt* st, int c, const PendingRow& p, bool consts) {
  const Graph& g = *g_;
  const Node& n = g.node(p.id);
  const char* t = pending_text_.data();
  auto text = [&](int k) {
    if (p.block && (k == kIn || k == kOut)) {
      const std::string_view v = p.in_out[k - kIn];
      sqlite3_bind_text(st, c++, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    } else {
      sqlite3_bind_text(st, c++, t + p.text[k].first, static_cast<int>(p.text[k].second), SQLITE_STATIC);
    }
  };
  auto str = [&](std::string_view v) { sqlite3_bind_text(st, c++, v.data(), static_cast<int>(v.size()), SQLITE_STATIC); };
  sqlite3_bind_int64(st, c++, p.rowid);
  text(kId);
  if (consts)
    str(prefix_);  // prefix_ and info_ stay put until the next BeginGraph
  else
    ++c;
  sqlite3_bind_int64(st, c++, order_[p.id]);
  sqlite3_bind_text(st, c++, n.name.data(), static_cast<int>(n.name.size()), SQLITE_STATIC);
  sqlite3_bind_int(st, c++, static_cast<int>(n.op));  // TEXT affinity stores "0" / "1" / "9"
  if (n.up != kNoNode)
    str(g.node(n.up).name);
  else
    sqlite3_bind_text(st, c++, "", 0, SQLITE_STATIC);
  text(kSub);
  if (n.precision_index < 0)
    sqlite3_bind_null(st, c++);
  else
    sqlite3_bind_double(st, c++, n.precision_index);
  if (const char* ov = OverflowName(n.overflow))
    sqlite3_bind_text(st, c++, ov, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null(st, c++);
  sqlite3_bind_int(st, c++, n.micro_step == kMicroStepUnset ? 0 : n.micro_step);
  text(kLink);
  text(kStack);
  text(kMerge);  // parallel_merge_info
  if (consts) {
    sqlite3_bind_text(st, c++, "{}", 2, SQLITE_STATIC);  // matched_distributed
    sqlite3_bind_int(st, c++, 0);  // modified
  } else {
    c += 2;
  }
  text(kIn);
  text(kOut);
  if (consts) {
    str(info_.data_source);
    if (g.has_dump_data_dir)
      str(g.dump_data_dir);
    else
      sqlite3_bind_null(st, c++);
    sqlite3_bind_int(st, c++, info_.step);
    sqlite3_bind_int(st, c++, info_.rank);
  } else {
    c += 4;
  }
  sqlite3_bind_int(st, c++, n.name.compare(0, 11, "Distributed") == 0 ? 1 : 0);
}

// One statement for a full batch: its cursors stay open from row to row, so an index whose keys
// come in order (node_order, rowid) is appended to without a search from its root, and the
// statement is set up once (measured: 125,785 rows of the medium build in 0.97-1.02 s instead of
// 1.37-1.62 s, 16 to 256 rows a statement alike in wall time then). 64 rather than 16: the small
// build's writer thread 344.6 -> 336.2 M instructions (256: 338.2 M); medium 0.98x (9 pairs), c200
// compare 0.93x (4 pairs), large 0.95x (3 pairs).
Status VisDbWriter::FlushRows() {
  if (pending_count_ == 0) return Status::Ok();
  const bool whole = pending_count_ == kRowsPerStatement;
  sqlite3_stmt* st = whole ? ins_nodes_ : ins_node_;
  // The graph's constants go in once per statement: into every row's parameters of the batch
  // statement, into the single-row statement with its first row.
  bool& bound = consts_bound_[whole ? 1 : 0];
  const bool consts = !bound;
  bound = true;
  Status s = Status::Ok();
  for (size_t r = 0; r < pending_count_ && s.ok(); ++r) {
    BindRow(st, whole ? static_cast<int>(r * static_cast<size_t>(node_params_)) + 1 : 1, pending_[r],
            consts && (whole || r == 0));
    if (whole && r + 1 < pending_count_) continue;
    if (sqlite3_step(st) != SQLITE_DONE) s = SqlError("tb_nodes");
    sqlite3_reset(st);
  }
  for (size_t r = 0; r < pending_count_; ++r) pending_[r].block.reset();
  pending_count_ = 0;
  pending_text_.clear();
  return s;
}

}  // namespace visprobe
