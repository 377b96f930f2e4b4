// The one declaration of msProbe's .vis.db schema (spec §13): tables, column order, declared
// types and indexes. Both builds create their tables from these declarations.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct ColumnDef {
  const char* name;
  const char* type;   // declared type with constraints, e.g. "TEXT PRIMARY KEY"
};

struct TableDef {
  const char* name;
  std::vector<ColumnDef> columns;
};

struct IndexDef {
  const char* name;
  std::vector<const char*> columns;
};

const TableDef& NodesTable();    // tb_nodes, 22 columns
const TableDef& ConfigTable();   // tb_config
const TableDef& StackTable();    // tb_stack
const std::vector<IndexDef>& NodeIndexes();   // index1 .. index7 on tb_nodes
// Extension table (not msProbe's; its viewer ignores it): problem badges per expandable node
// (db/badges.h), and its lookup index.
const TableDef& BadgesTable();   // vp_badges
const IndexDef& BadgesIndex();   // vp_badges_scope on (step, rank, data_source, node_name)

// msProbe's statement texts (§17 item 62); identifiers must match ^[a-zA-Z0-9_]+$.
Result<std::string> CreateTableSql(const TableDef& t);
Result<std::string> InsertSql(const TableDef& t, bool or_ignore);
Result<std::string> CreateIndexSql(const char* table, const IndexDef& idx);

}  // namespace visprobe
