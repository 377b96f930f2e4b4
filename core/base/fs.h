// File-system helpers and msProbe's path checks (§16.3). Plain POSIX/std::filesystem calls:
// in the browser the dropped folders are mounted with WORKERFS and the same calls work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct DirEntry {
  std::string name;
  bool is_dir = false;
  bool is_file = false;
};

// strerror(err) as a message: its Errno* id (base/messages.def) where there is one, else the plain
// text (a nested part of the message that names the file).
Message ErrnoMessage(int err);

bool PathExists(const std::string& p);
bool IsDir(const std::string& p);
bool IsRegularFile(const std::string& p);
std::string JoinPath(const std::string& a, const std::string& b);
std::string BaseName(const std::string& p);
std::string DirName(const std::string& p);
// Entries sorted by name (the reference uses the OS order; sorting makes runs reproducible).
Result<std::vector<DirEntry>> ListDir(const std::string& dir);
std::string RealPath(const std::string& p);

enum class PathKind { kFile, kDir };
enum class PathAccess { kNone, kRead, kWrite, kReadWrite };

// msProbe FileChecker: exists, length, kind, permission, characters, size limit, suffix.
// `suffix` empty = any. Messages are msProbe's (§16.3).
Status CheckPath(const std::string& path, PathKind kind, PathAccess access, const std::string& suffix = "");
// Checks for a path that will be created: length and characters.
Status CheckNewPath(const std::string& path);
// The output file a run may write: the first of dir/stem + ext, dir/stem_1 + ext, dir/stem_2 + ext, ...
// that does not exist and whose temporary file (name + ".tmp") this call creates exclusively
// (O_CREAT | O_EXCL), so two runs started in the same second, even at the same time, never share a
// file and a finished file is never overwritten or appended to. The caller writes the temporary
// file and renames it when complete; *taken (optional) is set when the first name was taken.
Result<std::string> ClaimNewFile(const std::string& dir, const std::string& stem, const std::string& ext, bool* taken = nullptr);
// Empties path (creating it with mode 0640 when missing), keeping the same file.
Status TruncateOrCreate(const std::string& path);
// Creates dir and parents with mode 0750.
Status MakeDirs(const std::string& dir);
uint64_t FileSize(const std::string& p);

}  // namespace visprobe
