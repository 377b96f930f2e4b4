// The one declaration of msProbe's .vis.db schema (spec §13): tables, column order, declared
// types and indexes. Both builds create their tables from these declarations.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"

struct sqlite3;

namespace visprobe {

struct ColumnDef {
  const char* name;
  const char* type;  // declared type with constraints, e.g. "TEXT PRIMARY KEY"
};

struct TableDef {
  const char* name;
  std::vector<ColumnDef> columns;
};

struct IndexDef {
  const char* name;
  std::vector<const char*> columns;
  // Its keys come in the order the rows are written (node_order within a (step, rank)), so each
  // insert appends to it: cheap to keep up during the inserts even on one thread.
  bool in_row_order = false;
};

// Process-wide SQLite settings, applied once before the first connection of a writer: no memory
// statistics and no per-connection mutex (each connection is used by one thread at a time). Both
// take a mutex on every allocation or API call of the row loop.
void ConfigureSqliteOnce();

// Publishes a finished private database file (nothing half-written is ever visible): closes `*db`
// and renames `temp` to `final_path`. A failed close returns `close_error()` (computed while the
// connection is still open); either failure leaves the temporary file for the caller to remove.
Status PublishDb(sqlite3** db, const std::string& temp, const std::string& final_path,
                 const std::function<Status()>& close_error);

const TableDef& NodesTable();  // tb_nodes, 22 columns
const TableDef& ConfigTable();  // tb_config
const TableDef& StackTable();  // tb_stack
const std::vector<IndexDef>& NodeIndexes();  // index1 .. index7 on tb_nodes
// Extension table (not msProbe's; its viewer ignores it): problem badges per expandable node
// (db/badges.h), and its lookup index.
const TableDef& BadgesTable();  // vp_badges
const IndexDef& BadgesIndex();  // vp_badges_scope on (step, rank, data_source, node_name)

// msProbe's statement texts (§17 item 62); identifiers must match ^[a-zA-Z0-9_]+$.
Result<std::string> CreateTableSql(const TableDef& t);
// The conflict clause: INSERT (abort), INSERT OR IGNORE, or INSERT OR FAIL, which keeps the rows a
// failing statement inserted before the failure, so SQLite keeps no statement journal for it (the
// writer's multi-row inserts: a failure discards the whole file anyway).
enum class OnConflict { kAbort, kIgnore, kFail };
// `with_rowid`: the first parameter is the row's rowid.
// `rows` > 1: one statement that inserts that many rows (VALUES (...), (...), ...).
Result<std::string> InsertSql(const TableDef& t, OnConflict on_conflict, bool with_rowid = false, size_t rows = 1);
Result<std::string> CreateIndexSql(const char* table, const IndexDef& idx);

}  // namespace visprobe
