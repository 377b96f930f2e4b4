// The directory of a zip archive whose members are stored (method 0), as torch.save writes them:
// where each member's bytes start in the file and how many there are, so a tensor is read from
// the file in place, never the archive whole (files on WORKERFS stay on disk in the browser).
//
// Written here rather than taken from a library: zlib's minizip and libzip both build natively
// (Debian has them) but neither can be built for the wasm target on this project's toolchain
// (Emscripten 3.1.6's ports are fetched from GitHub at build time, and no npm or Debian package
// carries their sources for it), and a torch archive needs none of their inflate code: torch's
// PyTorchStreamWriter stores every record uncompressed (all 722 `.pt` files of the real-dumper
// fixtures: method 0). What is left is the end-of-directory search, the central directory
// (with its ZIP64 forms) and the local headers, each read bounded by the file size.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct ZipMember {
  std::string name;
  uint64_t size = 0;  // bytes of the stored data
  uint64_t data_offset = 0;  // where they start in the file (after the local header)
};

class StoredZip {
 public:
  // Opens `path` and reads its central directory. Errors name the file and what is wrong (not a
  // zip archive, truncated, a member outside the file, a compressed or encrypted member).
  static Result<StoredZip> Open(const std::string& path);

  const std::vector<ZipMember>& members() const { return members_; }
  const ZipMember* Find(const std::string& name) const;
  uint64_t file_size() const { return file_size_; }
  const std::string& path() const { return path_; }

  // Reads `n` bytes at `offset` (bounded by the file size).
  Status ReadAt(uint64_t offset, void* out, size_t n) const;
  // A member's whole data (for small records such as data.pkl; `limit` bounds it).
  Result<std::string> ReadMember(const ZipMember& m, uint64_t limit) const;

 private:
  struct Closer {
    void operator()(FILE* f) const {
      if (f) std::fclose(f);
    }
  };
  Status Bad(const std::string& what) const;
  Status ReadDirectory();
  Status LocateData(ZipMember& m, uint64_t local_offset);

  std::string path_;
  std::shared_ptr<FILE> file_;
  uint64_t file_size_ = 0;
  std::vector<ZipMember> members_;
};

}  // namespace visprobe
