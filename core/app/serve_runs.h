// `visprobe serve`: what the server shows and may touch under LOGDIR, without HTTP. Paths from a
// request are confined to LOGDIR; the runs under it are found as TensorBoard finds runs (recursively,
// by what the folders hold), with a summary of each database's tb_config / global_stats.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"

namespace visprobe {

// A path a request names, relative to LOGDIR ('/'-separated; "" is LOGDIR itself), checked and
// resolved: no NUL bytes, no backslashes, no absolute path, no empty or "." / ".." segment, and
// its real path (symlinks followed) inside LOGDIR's real path. `must_exist` also requires it to
// exist. The error says which rule the path broke (never echoing more than the path itself).
Result<std::string> ConfinedPath(const std::string& root_real, const std::string& rel, bool must_exist = true);

struct RunEntry {
  std::string path;  // relative to LOGDIR
  std::string kind;  // graph | trend | part | dump | monitor
  uint64_t size = 0;  // bytes (databases; for folders the dump.json / csv bytes found)
  int64_t mtime = 0;  // seconds since the epoch
  std::string summary;  // JSON object: tb_config (graph), global_stats (trend), layout (dump); "{}" if none
};

class RunLister {
 public:
  explicit RunLister(std::string root_real) : root_(std::move(root_real)) {}
  // Every run under LOGDIR, sorted by path. Hidden folders (".name", the server's job folders) and
  // dump_tensor_data are not entered; symlinks are not followed; at most `max_entries` directory
  // entries are looked at.
  std::vector<RunEntry> List(size_t max_entries = 200000);

 private:
  std::string Summary(const std::string& abs, const std::string& kind, uint64_t size, int64_t mtime);
  std::string root_;
  std::mutex mu_;
  std::map<std::string, std::pair<std::string, std::string>> cache_;  // abs path -> (size:mtime, summary)
};

// A JSON string literal of `s` (the listing and the API's answers).
std::string JsonText(const std::string& s);

}  // namespace visprobe
