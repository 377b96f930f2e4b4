#include "db/schema.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace visprobe {
namespace {

bool SafeIdentifier(const char* s) {
  if (!s || !*s) return false;
  for (; *s; ++s) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

Status Unsafe(const char* s) { return InvalidInput(Msg<msg::kInvalidIdentifierPotentialSql>(s ? s : "")); }

}  // namespace

void ConfigureSqliteOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    // SQLITE_MISUSE when SQLite is already initialised (another user in the process): keep its settings.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
  });
}

Status PublishDb(sqlite3** db, const std::string& temp, const std::string& final_path,
                 const std::function<Status()>& close_error) {
  if (sqlite3_close(*db) != SQLITE_OK) return close_error();
  *db = nullptr;
  if (std::rename(temp.c_str(), final_path.c_str()) != 0) return IoError(Msg<msg::kCannotRename>(temp, final_path));
  return Status::Ok();
}

const TableDef& NodesTable() {
  static const TableDef t{"tb_nodes",
                          {{"id", "TEXT PRIMARY KEY"},
                           {"graph_id", "TEXT NOT NULL"},
                           {"node_order", "INTEGER NOT NULL"},
                           {"node_name", "TEXT NOT NULL"},
                           {"node_type", "TEXT NOT NULL"},
                           {"up_node", "TEXT"},
                           {"sub_nodes", "TEXT"},
                           {"precision_index", "INTEGER"},
                           {"overflow_level", "TEXT"},
                           {"micro_step_id", "INTEGER NOT NULL"},
                           {"matched_node_link", "TEXT"},
                           {"stack_id", "TEXT"},
                           {"parallel_merge_info", "TEXT"},
                           {"matched_distributed", "TEXT"},
                           {"modified", "INTEGER NOT NULL"},
                           {"input_data", "TEXT"},
                           {"output_data", "TEXT"},
                           {"data_source", "TEXT"},
                           {"dump_data_dir", "TEXT"},
                           {"step", "INTEGER NOT NULL"},
                           {"rank", "INTEGER NOT NULL"},
                           {"is_distributed", "INTEGER"}}};
  return t;
}

const TableDef& ConfigTable() {
  static const TableDef t{"tb_config",
                          {{"id", "TEXT PRIMARY KEY"},
                           {"graph_type", "TEXT NOT NULL"},
                           {"task", "TEXT"},
                           {"tool_tip", "TEXT"},
                           {"micro_steps", "INTEGER"},
                           {"overflow_check", "INTEGER"},
                           {"node_colors", "TEXT NOT NULL"},
                           {"rank_list", "TEXT NOT NULL"},
                           {"step_list", "TEXT NOT NULL"}}};
  return t;
}

const TableDef& StackTable() {
  static const TableDef t{"tb_stack", {{"id", "TEXT PRIMARY KEY"}, {"stack_info", "TEXT"}}};
  return t;
}

const std::vector<IndexDef>& NodeIndexes() {
  static const std::vector<IndexDef> idx{{"index1", {"step", "rank", "data_source", "up_node", "node_order"}},
                                         {"index2", {"step", "rank", "data_source", "node_name"}},
                                         {"index3", {"step", "rank", "data_source", "node_order"}, true},
                                         {"index4", {"step", "rank", "node_order"}, true},
                                         {"index5", {"step", "rank", "micro_step_id", "node_order"}, true},
                                         {"index6", {"step", "rank", "modified", "matched_node_link"}},
                                         {"index7", {"is_distributed"}, true}};
  return idx;
}

const TableDef& BadgesTable() {
  static const TableDef t{"vp_badges",
                          {{"step", "INTEGER NOT NULL"},
                           {"rank", "INTEGER NOT NULL"},
                           {"data_source", "TEXT NOT NULL"},
                           {"node_name", "TEXT NOT NULL"},
                           {"worst", "REAL"},  // largest precision index of the leaves below
                           {"n_error", "INTEGER NOT NULL"},  // leaves in the error bucket
                           {"n_warning", "INTEGER NOT NULL"},  // leaves in the warning bucket
                           {"n_unmatched", "INTEGER NOT NULL"},  // leaves without a counterpart (compare)
                           {"n_overflow", "INTEGER NOT NULL"},  // leaves with an overflow level
                           {"worst_overflow", "INTEGER NOT NULL"}}};  // 0 none, 1 medium, 2 high, 3 critical
  return t;
}

const IndexDef& BadgesIndex() {
  static const IndexDef idx{"vp_badges_scope", {"step", "rank", "data_source", "node_name"}};
  return idx;
}

Result<std::string> CreateTableSql(const TableDef& t) {
  if (!SafeIdentifier(t.name)) return Unsafe(t.name);
  std::string s = std::string("CREATE TABLE IF NOT EXISTS ") + t.name + " (\n";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (!SafeIdentifier(t.columns[i].name)) return Unsafe(t.columns[i].name);
    if (i) s += ",\n";
    s += "    ";
    s += t.columns[i].name;
    s += ' ';
    s += t.columns[i].type;
  }
  s += "\n);";
  return s;
}

Result<std::string> InsertSql(const TableDef& t, OnConflict on_conflict, bool with_rowid, size_t rows) {
  if (!SafeIdentifier(t.name)) return Unsafe(t.name);
  std::string cols = with_rowid ? "rowid, " : "", marks = with_rowid ? "?, " : "";
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (!SafeIdentifier(t.columns[i].name)) return Unsafe(t.columns[i].name);
    if (i) {
      cols += ", ";
      marks += ", ";
    }
    cols += t.columns[i].name;
    marks += '?';
  }
  std::string values;
  for (size_t r = 0; r < std::max<size_t>(rows, 1); ++r) values += (r ? ", (" : "(") + marks + ")";
  const char* verb = on_conflict == OnConflict::kIgnore ? "INSERT OR IGNORE INTO "
                     : on_conflict == OnConflict::kFail ? "INSERT OR FAIL INTO "
                                                        : "INSERT INTO ";
  return std::string(verb) + t.name + " (" + cols + ") VALUES " + values;
}

Result<std::string> CreateIndexSql(const char* table, const IndexDef& idx) {
  if (!SafeIdentifier(table)) return Unsafe(table);
  if (!SafeIdentifier(idx.name)) return Unsafe(idx.name);
  std::string cols;
  for (size_t i = 0; i < idx.columns.size(); ++i) {
    if (!SafeIdentifier(idx.columns[i])) return Unsafe(idx.columns[i]);
    if (i) cols += ", ";
    cols += idx.columns[i];
  }
  return std::string("CREATE INDEX IF NOT EXISTS ") + idx.name + " ON " + table + " (" + cols + ")";
}

}  // namespace visprobe
