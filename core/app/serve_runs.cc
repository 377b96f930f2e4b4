#include "app/serve_runs.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "base/fs.h"
#include "base/pyfmt.h"
#include "base/strings.h"

namespace visprobe {
namespace {

bool Matches(const std::string& name, const char* prefix) {
  const size_t n = std::char_traits<char>::length(prefix);
  if (name.size() <= n || name.compare(0, n, prefix) != 0) return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(n), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One row of a read-only query as a JSON object of its columns ("{}" when the file has no such table).
std::string RowJson(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  std::string out = "{}";
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 200);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
      out = "{";
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        if (c) out += ", ";
        AppendJsonString(out, sqlite3_column_name(st, c));
        out += ": ";
        switch (sqlite3_column_type(st, c)) {
          case SQLITE_INTEGER: out += std::to_string(sqlite3_column_int64(st, c)); break;
          case SQLITE_NULL: out += "null"; break;
          default: AppendJsonString(out, reinterpret_cast<const char*>(sqlite3_column_text(st, c))); break;
        }
      }
      out += "}";
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return out;
}

struct Walk {
  std::string root;
  size_t budget;
  std::vector<RunEntry> runs;
};

int64_t MTime(const struct stat& st) { return static_cast<int64_t>(st.st_mtime); }

// What a folder holds, for the layouts: dump.json (a rank), rankN/procN folders with dump.json
// (ranks), stepN folders of those (steps), CSV files (a monitor rank folder), folders of those (a
// monitor run).
struct FolderFacts {
  bool dump_json = false;
  bool csv_here = false;
  int ranks = 0, steps = 0, csv_folders = 0;
  uint64_t bytes = 0;
};

void Report(Walk& w, const std::string& abs, const std::string& rel, const char* kind, const FolderFacts& f,
            const std::string& summary) {
  struct stat st;
  RunEntry r;
  r.path = rel;
  r.kind = kind;
  r.size = f.bytes;
  r.mtime = ::stat(abs.c_str(), &st) == 0 ? MTime(st) : 0;
  r.summary = summary;
  w.runs.push_back(std::move(r));
}

FolderFacts Visit(Walk& w, const std::string& abs, const std::string& rel, int depth) {
  FolderFacts mine;
  Result<std::vector<DirEntry>> entries = ListDir(abs);
  if (!entries.ok()) return mine;
  for (const DirEntry& e : *entries) {
    if (w.budget == 0) break;
    --w.budget;
    if (e.name.empty() || e.name[0] == '.') continue;
    const std::string child = JoinPath(abs, e.name);
    const std::string child_rel = rel.empty() ? e.name : rel + "/" + e.name;
    struct stat st;
    if (::lstat(child.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;  // symlinks are not followed
    if (S_ISREG(st.st_mode)) {
      const uint64_t size = static_cast<uint64_t>(st.st_size);
      if (e.name == "dump.json") {
        mine.dump_json = true;
        mine.bytes += size;
      } else if (EndsWith(e.name, ".csv")) {
        mine.csv_here = true;
        mine.bytes += size;
      } else if (EndsWith(e.name, ".vis.db") || EndsWith(e.name, ".trend.db")) {
        RunEntry r;
        r.path = child_rel;
        r.kind = EndsWith(e.name, ".trend.db") ? "trend" : e.name.find(".part-") != std::string::npos ? "part" : "graph";
        r.size = size;
        r.mtime = MTime(st);
        w.runs.push_back(std::move(r));
      }
    } else if (S_ISDIR(st.st_mode) && depth < 12 && e.name != "dump_tensor_data") {
      const FolderFacts sub = Visit(w, child, child_rel, depth + 1);
      if ((Matches(e.name, "rank") || Matches(e.name, "proc")) && sub.dump_json) {
        ++mine.ranks;
        mine.bytes += sub.bytes;
      }
      if (Matches(e.name, "step") && (sub.ranks > 0 || sub.dump_json)) {
        ++mine.steps;
        mine.bytes += sub.bytes;
      }
      if (sub.csv_here && !sub.dump_json) {
        ++mine.csv_folders;
        mine.bytes += sub.bytes;
      }
    }
  }
  // A dump run is reported at the top of its layout (a rank folder of rankN/ or stepN/rankN/ by
  // its parent), a monitor run at the folder of its rank folders.
  const std::string name = BaseName(abs);
  const bool inside_layout = depth > 0 && (Matches(name, "rank") || Matches(name, "proc") || Matches(name, "step"));
  const char* layout = mine.steps > 0 ? "steps" : mine.ranks > 0 ? "ranks" : mine.dump_json ? "rank" : nullptr;
  if (layout && !inside_layout)
    Report(w, abs, rel, "dump", mine,
           std::string("{\"layout\": \"") + layout + "\", \"ranks\": " + std::to_string(mine.ranks) +
               ", \"steps\": " + std::to_string(mine.steps) + "}");
  else if (!layout && mine.csv_folders > 0)
    Report(w, abs, rel, "monitor", mine, "{\"ranks\": " + std::to_string(mine.csv_folders) + "}");
  return mine;
}

}  // namespace

std::string JsonText(const std::string& s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

Result<std::string> ConfinedPath(const std::string& root_real, const std::string& rel, bool must_exist) {
  if (rel.find('\0') != std::string::npos) return InvalidInput("the path holds a NUL byte");
  if (rel.find('\\') != std::string::npos) return InvalidInput("the path holds a backslash");
  if (!rel.empty() && rel[0] == '/') return InvalidInput("the path is absolute; paths are relative to the log folder");
  std::string path = root_real;
  for (size_t i = 0; i < rel.size();) {
    size_t j = rel.find('/', i);
    if (j == std::string::npos) j = rel.size();
    const std::string seg = rel.substr(i, j - i);
    if (seg.empty() || seg == "." || seg == "..") return InvalidInput("the path has an empty, '.' or '..' part");
    path = JoinPath(path, seg);
    i = j + 1;
  }
  char buf[PATH_MAX];
  if (!::realpath(path.c_str(), buf)) {
    if (must_exist) return NotFound("no such file or folder under the log folder");
    // A path to be created: its folder must exist inside the root.
    if (!::realpath(DirName(path).c_str(), buf)) return NotFound("no such folder under the log folder");
    const std::string dir(buf);
    if (dir != root_real && dir.compare(0, root_real.size() + 1, root_real + "/") != 0)
      return InvalidInput("the path leads outside the log folder");
    return JoinPath(dir, BaseName(path));
  }
  const std::string real(buf);
  if (real != root_real && real.compare(0, root_real.size() + 1, root_real + "/") != 0)
    return InvalidInput("the path leads outside the log folder");
  return real;
}

std::string RunLister::Summary(const std::string& abs, const std::string& kind, uint64_t size, int64_t mtime) {
  const std::string stamp = std::to_string(size) + ":" + std::to_string(mtime);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(abs);
    if (it != cache_.end() && it->second.first == stamp) return it->second.second;
  }
  std::string s = kind == "trend"
                      ? RowJson(abs, "SELECT max_rank, min_step, max_step FROM global_stats")
                      : RowJson(abs, "SELECT graph_type, task, micro_steps, step_list, rank_list, overflow_check FROM tb_config");
  std::lock_guard<std::mutex> lock(mu_);
  cache_[abs] = {stamp, s};
  return s;
}

std::vector<RunEntry> RunLister::List(size_t max_entries) {
  Walk w{root_, max_entries, {}};
  Visit(w, root_, "", 0);
  for (RunEntry& r : w.runs)
    if (r.kind == "graph" || r.kind == "trend" || r.kind == "part")
      r.summary = Summary(JoinPath(root_, r.path), r.kind, r.size, r.mtime);
  std::sort(w.runs.begin(), w.runs.end(), [](const RunEntry& a, const RunEntry& b) { return a.path < b.path; });
  return w.runs;
}

}  // namespace visprobe
