// Small helpers shared by the core unit tests: temporary folders, file writing, SQLite queries,
// a recording Reporter and shortcuts for building graphs from JSON texts.
// Everything is portable C++17 + POSIX so the same tests run natively and under Node (NODERAWFS).
#pragma once

#include <sqlite3.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/graph_visualize.h"
#include "app/log.h"
#include "graph/builder.h"
#include "graph/graph.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace vptest {

// A fresh folder under /tmp (mkdtemp), removed with its content at scope exit.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/vp_core_test_XXXXXX";
    char* p = ::mkdtemp(tmpl);
    if (!p) throw std::runtime_error("mkdtemp failed");
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

 private:
  std::string path_;
};

inline void MakeDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir);
}

// Writes `content` to `path`, creating the parent folders.
inline void WriteFile(const std::string& path, const std::string& content) {
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) MakeDir(parent.string());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << content;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void CopyFileTo(const std::string& from, const std::string& to) { WriteFile(to, ReadFile(from)); }

// Names of the entries of a folder, sorted.
inline std::vector<std::string> ListNames(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline bool EndsWith(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

// The .vis.db files and temporary files a run left in `dir`.
inline std::vector<std::string> DbLeftovers(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& n : ListNames(dir))
    if (EndsWith(n, ".vis.db") || EndsWith(n, ".tmp") || n.find(".vis.db") != std::string::npos) out.push_back(n);
  return out;
}

// Read-only fixtures shared with the other tools (never written to).
inline std::string SamplesDir(const std::string& rel) { return std::string(VP_SHARED_DIR) + "/fixtures/msprobe-samples/" + rel; }

// The spec §18 worked example dump kept in the repository.
inline std::string WorkedExampleDir(const std::string& side = "npu") {
  return std::string(VP_SOURCE_DIR) + "/tests/data/worked_example/" + side + "/step0/rank0";
}

// Copies construct.json, dump.json and stack.json of `from` into `to` (created).
inline void CopyRankFolder(const std::string& from, const std::string& to) {
  for (const char* f : {"construct.json", "dump.json", "stack.json"}) CopyFileTo(from + "/" + f, to + "/" + f);
}

// ---- SQLite --------------------------------------------------------------------------------

constexpr const char* kNull = "<NULL>";  // how a SQL NULL appears in Query() results

using Rows = std::vector<std::vector<std::string>>;

inline Rows Query(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string m = db ? sqlite3_errmsg(db) : "open failed";
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + db_path + ": " + m);
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    std::string m = sqlite3_errmsg(db);
    sqlite3_close(db);
    throw std::runtime_error("bad query '" + sql + "': " + m);
  }
  Rows rows;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      if (sqlite3_column_type(st, c) == SQLITE_NULL) {
        row.emplace_back(kNull);
      } else {
        const unsigned char* t = sqlite3_column_text(st, c);
        row.emplace_back(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, c)));
      }
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (rc != SQLITE_DONE) throw std::runtime_error("query failed: " + sql);
  return rows;
}

// First column of every row.
inline std::vector<std::string> Column(const Rows& rows, size_t c = 0) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(c < r.size() ? r[c] : std::string(kNull));
  return out;
}

// ---- Reporter ------------------------------------------------------------------------------

class RecordingReporter : public visprobe::Reporter {
 public:
  struct Line {
    visprobe::LogLevel level;
    std::string msg;
  };
  struct Tick {
    double percent;
    bool running;
  };
  void Log(visprobe::LogLevel level, const visprobe::Message& msg) override {
    lines.push_back({level, msg.text()});
    messages.push_back(msg);
  }
  void Progress(double percent, bool running) override { ticks.push_back({percent, running}); }

  std::vector<std::string> Messages(visprobe::LogLevel level) const {
    std::vector<std::string> out;
    for (const auto& l : lines)
      if (l.level == level) out.push_back(l.msg);
    return out;
  }
  std::vector<Line> lines;
  std::vector<visprobe::Message> messages;  // with their ids, in order
  std::vector<Tick> ticks;
};

// ---- graphs --------------------------------------------------------------------------------

// Writes the three files into `dir` and builds the graph.
inline visprobe::Result<std::unique_ptr<visprobe::Graph>> BuildFromTexts(
    const std::string& dir, const std::string& construct, const std::string& dump, const std::string& stack,
    const visprobe::BuildOptions& opts = visprobe::BuildOptions()) {
  WriteFile(dir + "/construct.json", construct);
  WriteFile(dir + "/dump.json", dump);
  WriteFile(dir + "/stack.json", stack);
  return visprobe::BuildGraph(dir, opts);
}

// A dump.json text with the given "data" member text.
inline std::string DumpWithData(const std::string& data) {
  return "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"dump_data_dir\": null, "
         "\"data\": " +
         data + "}";
}

inline std::string NameOf(const visprobe::Graph& g, visprobe::NodeId id) {
  return id == visprobe::kNoNode ? std::string("<none>") : std::string(g.node(id).name);
}

inline std::vector<std::string> ChildNames(const visprobe::Graph& g, visprobe::NodeId id) {
  std::vector<std::string> out;
  for (visprobe::NodeId c : g.node(id).subnodes) out.push_back(std::string(g.node(c).name));
  return out;
}

inline std::vector<std::string> ChildNames(const visprobe::Graph& g, const std::string& name) {
  return ChildNames(g, g.Find(name));
}

inline std::string ParentName(const visprobe::Graph& g, const std::string& name) {
  visprobe::NodeId id = g.Find(name);
  if (id == visprobe::kNoNode) return "<missing>";
  return NameOf(g, g.node(id).up);
}

// The stack of a node as stored in tb_stack (§13.6): "[]" when it has none.
inline std::string StackJson(const visprobe::Graph& g, const std::string& name) {
  const visprobe::Node& n = g.node(g.Find(name));
  return n.stack >= 0 ? g.stacks[n.stack].json : std::string("[]");
}

// The §12 JSON object text of a node's inputs or outputs, as the database stores it.
inline std::string ItemsJson(const visprobe::NodeItems& items, bool outputs) {
  const auto& refs = outputs ? items.outputs : items.inputs;
  std::string out = "{";
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i) out += ", ";
    out += "\"";
    out.append(items.Key(refs[i]));  // test keys are plain ASCII
    out += "\": ";
    if (refs[i].collapsed)
      out += "{\"value\": \"null\"}";
    else {
      out += "{";
      out.append(items.Text(refs[i]));
      out += "}";
    }
  }
  return out + "}";
}

inline std::vector<std::string> ItemKeys(const visprobe::NodeItems& items, bool outputs) {
  std::vector<std::string> out;
  for (const auto& r : outputs ? items.outputs : items.inputs) out.emplace_back(items.Key(r));
  return out;
}

// A parsed JSON object text (ParseJsonText) kept together with its tree.
struct Parsed {
  visprobe::JTree tree;
  visprobe::JIdx root = visprobe::kJNone;
  visprobe::Status status;
  visprobe::JIdx Get(const std::string& key) const { return tree.Find(root, key); }
};

inline std::unique_ptr<Parsed> ParseObject(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  p->status = visprobe::ParseJsonText(text, p->tree, &p->root);
  return p;
}

// Items of a dump entry `entry_json` for node `name` (§7, §12).
struct EntryItems {
  visprobe::Status status;
  visprobe::NodeItems items;
  std::string in() const { return ItemsJson(items, false); }
  std::string out() const { return ItemsJson(items, true); }
};

inline EntryItems ItemsOf(const std::string& name, const std::string& entry_json, bool keep_md5 = false) {
  EntryItems r;
  auto p = ParseObject("{\"e\": " + entry_json + "}");
  if (!p->status.ok()) {
    r.status = p->status;
    return r;
  }
  visprobe::ItemOptions o;
  o.keep_md5 = keep_md5;
  r.status = visprobe::ParseEntryItems(p->tree, p->Get("e"), name, o, r.items);
  return r;
}

// Compares the worked example natively (the engine's own run) and returns the database path.
inline std::string CompareWorkedExample(const std::string& out, const std::string& timestamp = "20240102030405") {
  visprobe::GraphVisualizeArgs a;
  a.target_path = WorkedExampleDir("npu");
  a.golden_path = WorkedExampleDir("bench");
  a.has_golden = true;
  a.output_path = out;
  visprobe::RunOptions o;
  o.timestamp = timestamp;
  o.check_input_writable = false;
  RecordingReporter rep;
  auto r = visprobe::RunGraphVisualize(a, o, rep);
  REQUIRE(r.ok());
  return r->db_path;
}

}  // namespace vptest
