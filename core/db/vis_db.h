// Writes graphs into a .vis.db through the SQLite C API (spec §13). The file is written under a
// temporary name and renamed when complete, so a failed run leaves no .vis.db behind.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "graph/graph.h"

struct sqlite3;
struct sqlite3_stmt;

namespace visprobe {

class StrWriter;

struct GraphRowsInfo {
  std::string data_source = "NPU";  // NPU / Bench
  int step = 0;
  int rank = 0;
  bool compare = false;  // one side of a comparison: leaves without a counterpart are flagged (vp_badges)
  // The rowid of the graph's first row (node_order 0); 0: right after every rowid used so far.
  // With ReserveRows, a graph written later can take rowids before one written earlier.
  int64_t first_rowid = 0;
};

struct ConfigRow {
  std::string graph_type = "build";
  std::string task;
  bool has_tool_tip = false;
  std::string tool_tip;
  int micro_steps = 1;
  bool overflow_check = false;
  std::string node_colors = "null";
  std::string rank_list = "[0]";
  std::string step_list = "[0]";
};

struct DbOptions {
  int page_size = 65536;  // SQLite page size of a new file
  // Create the indexes before the rows: each row then updates them as it is inserted, instead of
  // one full table scan per index at the end (cheaper when the inserts run on their own thread).
  bool indexes_first = false;
  // Without indexes_first: make those whose keys come in row order first (IndexDef::in_row_order).
  bool in_row_order_indexes_first = false;
  int64_t cache_kib = 16384;  // SQLite page cache
  int64_t mmap_bytes = 0;  // PRAGMA mmap_size (0 = off)
  // Rows that came before their turn (RowPlan) are kept in memory up to this many bytes of text;
  // past it they wait in a temporary table (a dump whose record order is far from the post-order).
  size_t held_bytes = 64u << 20;
};

// Rows rendered together (by a parse thread): row i's input_data and output_data are consecutive
// texts in `text`, ending at cuts[2i] and cuts[2i + 1].
struct RowBlock {
  std::vector<NodeId> ids;
  std::vector<size_t> cuts;
  std::string text;
  std::string_view In(size_t i) const {
    return std::string_view(text).substr(i ? cuts[2 * i - 1] : 0, cuts[2 * i] - (i ? cuts[2 * i - 1] : 0));
  }
  std::string_view Out(size_t i) const { return std::string_view(text).substr(cuts[2 * i], cuts[2 * i + 1] - cuts[2 * i]); }
};

// Which rows of a graph the caller will hand over (WriteRenderedRow), so the writer can put every
// row in in node_order (§13.3), the rowid order msProbe writes, whatever order they come in.
struct RowPlan {
  std::vector<char> given;  // per node: 1 = its row comes through WriteRenderedRow
  // Called just before a node not in `given` is written from the graph's own items, when every
  // node below it has been written (post-order): e.g. §9.7's collection rule.
  std::function<void(NodeId)> before_own;
};

class VisDbWriter {
 public:
  // final_path: the .vis.db to produce (a name from ClaimNewFile: it never exists yet). The rows go
  // to final_path + ".tmp", renamed to final_path by Finish().
  static Result<std::unique_ptr<VisDbWriter>> Open(const std::string& final_path, const DbOptions& opts);
  ~VisDbWriter();

  // All rows of one graph in one transaction (§13.3: node_order is the post-order index), then
  // its tb_stack rows. Returns the number of tb_nodes rows written. The rows go in in node_order,
  // as msProbe writes them, and may be handed over in any order: BeginGraph numbers the nodes and
  // takes the plan of the rows to come (none: every row from the graph's items), WriteNodeRow /
  // WriteRenderedRow hand over one planned row (streamed from dump.json), which goes in when its
  // turn comes (the rows before it that are not planned go in from the graph's items then);
  // EndGraph writes every reachable node not written yet (a planned row that never came from
  // the graph's items), the stacks, the graph's vp_badges rows (db/badges.h), and commits.
  Result<size_t> WriteGraph(const Graph& g, const GraphRowsInfo& info);
  Status BeginGraph(const Graph& g, const GraphRowsInfo& info, RowPlan plan = {});
  Status WriteNodeRow(NodeId id, const NodeItems& items);
  // The same with input_data / output_data already rendered (RenderItems), e.g. by another thread.
  Status WriteRenderedRow(NodeId id, std::string_view input_data, std::string_view output_data);
  // A block's rows; rows that come early wait in the block (kept alive), not in a copy.
  Status WriteRows(const std::shared_ptr<const RowBlock>& block);
  // input_data / output_data JSON texts of a node's items (§12 formatting is already in the items).
  static void RenderItems(const NodeItems& items, std::string* input_data, std::string* output_data);
  // The same with comparison fields appended to items (texts parallel to inputs / outputs, each
  // starting with ", "; empty = none).
  // Appends input_data then output_data to `text` (a row buffer shared by many rows); *mid is where
  // input_data ends. Extras as RenderItems' (null: none). The text is formatted once, in place.
  static void AppendRenderedItems(const NodeItems& items, const std::vector<std::string>* input_extra,
                                  const std::vector<std::string>* output_extra, std::string* text, size_t* mid);
  static void RenderItems(const NodeItems& items, const std::vector<std::string>& input_extra,
                          const std::vector<std::string>& output_extra, std::string* input_data, std::string* output_data);
  Result<size_t> EndGraph();
  // Sets aside `rows` rowids after every rowid used so far, for a graph written later (its
  // GraphRowsInfo::first_rowid): a compare writes the golden graph first, msProbe's file has the
  // target's rows first (§13.3). Returns the first of them.
  int64_t ReserveRows(size_t rows);
  Status WriteConfig(const ConfigRow& row);  // INSERT OR IGNORE: the first call wins
  // Every index not made yet; `in_row_order_only`: those whose keys come in row order.
  Status CreateIndexes(bool in_row_order_only = false);
  // Closes (checkpointing the WAL) and renames the temporary file to the final name.
  Result<std::string> Commit();
  // Closes and deletes the temporary file (also done by the destructor when not committed).
  void Abort();

  sqlite3* handle() { return db_; }
  // tb_nodes rows go in this many to an INSERT statement (the rest of a graph's rows in a last,
  // shorter batch); public for the tests that fill whole batches.
  static constexpr size_t kRowsPerStatement = 64;
  const std::string& temp_path() const { return temp_; }

 private:
  VisDbWriter() = default;
  Status Exec(const std::string& sql);
  Status Prepare(const std::string& sql, sqlite3_stmt** st);
  Status SqlError(const char* what) const;

  // Stages a row in the batch; a full batch goes in (FlushRows).
  // `block`: the texts are in that block, which the staged row keeps alive (no copy).
  Status InsertNode(NodeId id, std::string_view input_data, std::string_view output_data,
                    const std::shared_ptr<const RowBlock>* block = nullptr);
  Status FlushRows();
  void PutMatchedLink(StrWriter& t, const Node& n);  // InsertNode's matched_node_link text
  Status InsertOwn(NodeId id);  // from the graph's items
  // Writes the rows whose turn has come; `all`: every one left (EndGraph).
  Status Drain(bool all);
  // A row handed over: in now, or held (a copy of its texts, or a reference into `block`).
  Status Take(NodeId id, std::string_view in, std::string_view out, const std::shared_ptr<const RowBlock>* block, uint32_t row);
  Status Hold(NodeId id, std::string_view in, std::string_view out, const std::shared_ptr<const RowBlock>* block, uint32_t row);
  void Release(NodeId id);
  Status SpillHeld();
  Status InsertSpilled(NodeId id);
  Status InsertBadges();

  // The graph being written.
  const Graph* g_ = nullptr;
  GraphRowsInfo info_;
  std::string prefix_;
  std::vector<int64_t> order_;  // node -> post-order index, -1 if unreachable
  std::vector<NodeId> post_;  // the reachable nodes in post-order
  size_t next_ = 0;  // post_[next_] is the next row to go in
  int64_t first_rowid_ = 1;  // rowid of node_order 0
  int64_t top_rowid_ = 0;  // the largest rowid used or set aside
  RowPlan plan_;
  struct HeldRow {
    std::shared_ptr<const RowBlock> block;  // the row is block->In(row) / Out(row), or else
    uint32_t row = 0;
    std::string text;  // its texts, input_data ending at mid
    size_t mid = 0;
    size_t bytes = 0;
    std::string_view In() const { return block ? block->In(row) : std::string_view(text).substr(0, mid); }
    std::string_view Out() const { return block ? block->Out(row) : std::string_view(text).substr(mid); }
  };
  // Planned rows that came before their turn: held_[slot_of_[node]], free slots reused.
  std::vector<HeldRow> held_;
  std::vector<int32_t> slot_of_, free_slots_;
  size_t held_count_ = 0;
  size_t held_bytes_ = 0, held_limit_ = 0;
  std::vector<char> spilled_;  // per node: its row waits in temp.vp_held
  std::vector<char> written_;
  std::vector<int> stack_of_node_;  // node -> stack k
  std::vector<std::string_view> stack_texts_;
  size_t rows_ = 0;
  std::string in_buf_, out_buf_, stack_buf_;
  // Rows staged for one multi-row INSERT: their texts in pending_text_ (offset, length).
  enum PendingText { kId, kSub, kLink, kStack, kMerge, kIn, kOut, kPendingTexts };
  struct PendingRow {
    NodeId id = 0;
    int64_t rowid = 0;
    std::pair<uint32_t, uint32_t> text[kPendingTexts];
    std::shared_ptr<const RowBlock> block;  // set: input_data / output_data are in_out, in it
    std::string_view in_out[2];
  };
  // `consts`: also bind the parameters that are the same for every row of the graph (graph_id,
  // matched_distributed, modified, data_source, dump_data_dir, step, rank). Bindings outlive
  // sqlite3_reset, so each statement gets them once per graph (consts_bound_, cleared by BeginGraph).
  void BindRow(sqlite3_stmt* st, int first_param, const PendingRow& row, bool consts);
  bool consts_bound_[2] = {false, false};  // ins_node_, ins_nodes_
  PendingRow pending_[kRowsPerStatement];
  size_t pending_count_ = 0;
  std::string pending_text_;
  // matched_node_link of the last row up to its last name: "[" and the JSON names of the matched
  // node's ancestors, each followed by ", ". Siblings share it (Ancestors depends on the parent only);
  // link_up_ is that parent in the graph's matched graph (kNoNode: none yet, cleared by BeginGraph).
  NodeId link_up_ = kNoNode;
  std::string link_prefix_;
  std::vector<NodeId> link_chain_;  // reused by each new link prefix
  int node_params_ = 0;  // parameters of one row of ins_node_

  sqlite3* db_ = nullptr;
  sqlite3_stmt* ins_node_ = nullptr;
  sqlite3_stmt* ins_nodes_ = nullptr;  // kRowsPerStatement rows
  sqlite3_stmt* ins_stack_ = nullptr;
  sqlite3_stmt* ins_config_ = nullptr;
  sqlite3_stmt* ins_badge_ = nullptr;
  sqlite3_stmt* spill_put_ = nullptr;
  sqlite3_stmt* spill_get_ = nullptr;
  std::string final_, temp_;
  bool done_ = false;
};

// Post-order of the nodes reachable from the root (§13.3).
std::vector<NodeId> PostOrder(const Graph& g);

}  // namespace visprobe
