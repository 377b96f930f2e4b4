#include "base/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace visprobe {
namespace stdfs = std::filesystem;

Message ErrnoMessage(int err) {
  switch (err) {
    case ENOENT: return Msg<msg::kErrnoNoEntry>();
    case EACCES: return Msg<msg::kErrnoAccess>();
    case EISDIR: return Msg<msg::kErrnoIsDirectory>();
    case ENOTDIR: return Msg<msg::kErrnoNotDirectory>();
    case ELOOP: return Msg<msg::kErrnoLoop>();
    case ENOSPC: return Msg<msg::kErrnoNoSpace>();
    case EROFS: return Msg<msg::kErrnoReadOnly>();
    case EIO: return Msg<msg::kErrnoIo>();
    case EMFILE: return Msg<msg::kErrnoTooManyOpenFiles>();
    case ENOMEM: return Msg<msg::kErrnoNoMemory>();
    case EDQUOT: return Msg<msg::kErrnoQuota>();
    case ENAMETOOLONG: return Msg<msg::kErrnoNameTooLong>();
    case EFBIG: return Msg<msg::kErrnoFileTooLarge>();
    case EPERM: return Msg<msg::kErrnoNotPermitted>();
    case EINVAL: return Msg<msg::kErrnoInvalidArgument>();
    default: return Message(std::strerror(err));
  }
}

bool PathExists(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}
bool IsDir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool IsRegularFile(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

uint64_t FileSize(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

std::string BaseName(const std::string& p) {
  std::string s = p;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  auto k = s.find_last_of('/');
  return k == std::string::npos ? s : s.substr(k + 1);
}

std::string DirName(const std::string& p) {
  std::string s = p;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  auto k = s.find_last_of('/');
  if (k == std::string::npos) return ".";
  if (k == 0) return "/";
  return s.substr(0, k);
}

Result<std::vector<DirEntry>> ListDir(const std::string& dir) {
  std::vector<DirEntry> out;
  std::error_code ec;
  stdfs::directory_iterator it(dir, ec), end;
  if (ec) return IoError(Msg<msg::kCannotList>(dir, ErrnoMessage(ec.value())));
  for (; it != end; it.increment(ec)) {
    if (ec) return IoError(Msg<msg::kCannotList>(dir, ErrnoMessage(ec.value())));
    DirEntry e;
    e.name = it->path().filename().string();
    std::error_code ec2;
    e.is_dir = it->is_directory(ec2);
    e.is_file = it->is_regular_file(ec2);
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  return out;
}

std::string RealPath(const std::string& p) {
  char buf[PATH_MAX];
  if (::realpath(p.c_str(), buf)) return buf;
  std::error_code ec;
  auto abs = stdfs::absolute(p, ec);
  return ec ? p : abs.lexically_normal().string();
}

namespace {

bool ValidChars(const std::string& p) {
  if (p.empty()) return false;
  for (unsigned char c : p) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
              c == '/' || c == '-';
    if (!ok) return false;
  }
  return true;
}

uint64_t SizeLimit(const std::string& p) {
  constexpr uint64_t kGiB = 1ull << 30;
  auto ends = [&](const char* s) {
    std::string suf(s);
    return p.size() >= suf.size() && p.compare(p.size() - suf.size(), suf.size(), suf) == 0;
  };
  if (ends(".yaml") || ends(".yml")) return kGiB;
  if (ends(".db")) return 100 * kGiB;
  return 10 * kGiB;
}

bool LengthOk(const std::string& real) {
  if (real.size() > 4096) return false;
  return BaseName(real).size() <= 255;
}

}  // namespace

Status CheckPath(const std::string& path, PathKind kind, PathAccess access, const std::string& suffix) {
  if (!PathExists(path)) return InvalidInput(Msg<msg::kFilePathNotExist>(path));
  std::string real = RealPath(path);
  if (!LengthOk(real)) return InvalidInput(Msg<msg::kFilePathLengthExceeds>());
  if (kind == PathKind::kFile && !IsRegularFile(real)) return InvalidInput(Msg<msg::kShouldBeFile>(path));
  if (kind == PathKind::kDir && !IsDir(real)) return InvalidInput(Msg<msg::kShouldBeDirectory>(path));
  if ((access == PathAccess::kRead || access == PathAccess::kReadWrite) && ::access(real.c_str(), R_OK) != 0)
    return InvalidInput(Msg<msg::kFilePathNotReadable>(path));
  if ((access == PathAccess::kWrite || access == PathAccess::kReadWrite) && ::access(real.c_str(), W_OK) != 0)
    return InvalidInput(Msg<msg::kFilePathNotWritable>(path));
  if (!ValidChars(real)) return InvalidInput(Msg<msg::kFilePathContainsSpecial>(path));
  if (kind == PathKind::kFile) {
    uint64_t size = FileSize(real), limit = SizeLimit(real);
    if (size >= limit) return InvalidInput(Msg<msg::kSizeExceedsBytesTools>(size, path, limit));
    if (!suffix.empty() && (real.size() < suffix.size() || real.compare(real.size() - suffix.size(), suffix.size(), suffix) != 0))
      return InvalidInput(Msg<msg::kShouldOneFollowingTypes>(path, suffix));
  }
  return Status::Ok();
}

Status CheckNewPath(const std::string& path) {
  std::error_code ec;
  std::string abs = stdfs::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  if (!LengthOk(abs)) return InvalidInput(Msg<msg::kFilePathLengthExceeds>());
  if (!ValidChars(abs)) return InvalidInput(Msg<msg::kFilePathContainsSpecial>(path));
  return Status::Ok();
}

Result<std::string> ClaimNewFile(const std::string& dir, const std::string& stem, const std::string& ext, bool* taken) {
  if (taken) *taken = false;
  constexpr int kMaxTries = 10000;
  for (int k = 0; k < kMaxTries; ++k) {
    std::string path = JoinPath(dir, k == 0 ? stem + ext : stem + "_" + std::to_string(k) + ext);
    RETURN_IF_ERROR(CheckNewPath(path));
    if (!PathExists(path)) {
      int fd = ::open((path + ".tmp").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0640);
      if (fd >= 0) {
        ::close(fd);
        return path;
      }
      if (errno != EEXIST) return IoError(Msg<msg::kCannotCreate>(path + ".tmp", ErrnoMessage(errno)));
    }
    if (taken) *taken = true;  // finished, or another run is writing it
  }
  return IoError(Msg<msg::kNoFreeFileName>(JoinPath(dir, stem + ext), kMaxTries));
}

Status TruncateOrCreate(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0640);
  if (fd < 0) return IoError(Msg<msg::kCannotCreate>(path, ErrnoMessage(errno)));
  ::close(fd);
  return Status::Ok();
}

Status MakeDirs(const std::string& dir) {
  if (IsDir(dir)) return Status::Ok();
  RETURN_IF_ERROR(CheckNewPath(dir));
  std::string parent = DirName(dir);
  if (parent != dir && !IsDir(parent)) RETURN_IF_ERROR(MakeDirs(parent));
  if (::mkdir(dir.c_str(), 0750) != 0 && !IsDir(dir)) return IoError(Msg<msg::kCannotCreateFolder>(dir));
  return Status::Ok();
}

}  // namespace visprobe
