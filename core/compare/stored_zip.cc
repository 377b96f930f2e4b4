#include "compare/stored_zip.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <cstring>

namespace visprobe {
namespace {

constexpr uint32_t kEndSig = 0x06054b50;  // end of central directory
constexpr uint32_t kEnd64Sig = 0x06064b50;  // ZIP64 end of central directory
constexpr uint32_t kEnd64LocSig = 0x07064b50;  // ZIP64 end of central directory locator
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kLocalSig = 0x04034b50;
constexpr size_t kEndSize = 22, kEnd64LocSize = 20, kEnd64Size = 56, kCentralSize = 46, kLocalSize = 30;
constexpr size_t kMaxComment = 0xffff;
// A torch archive has a handful of records a tensor; a directory this large is not one of them.
constexpr uint64_t kMaxMembers = 1u << 20;

uint64_t Le(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Status StoredZip::Bad(const std::string& what) const { return InvalidInput(Msg<msg::kNotReadableTorchArchive>(path_, what)); }

Status StoredZip::ReadAt(uint64_t offset, void* out, size_t n) const {
  if (offset > file_size_ || n > file_size_ - offset) return Bad("truncated (a read past the end of the file)");
  if (fseeko(file_.get(), static_cast<off_t>(offset), SEEK_SET) != 0) return IoError(Msg<msg::kCannotSeek>(path_));
  if (n && std::fread(out, 1, n, file_.get()) != n) return IoError(Msg<msg::kReadErrorIn>(path_));
  return Status::Ok();
}

Result<std::string> StoredZip::ReadMember(const ZipMember& m, uint64_t limit) const {
  if (m.size > limit)
    return Bad(m.name + " is " + std::to_string(m.size) + " bytes, more than the " + std::to_string(limit) + " allowed");
  std::string s(static_cast<size_t>(m.size), '\0');
  RETURN_IF_ERROR(ReadAt(m.data_offset, s.empty() ? nullptr : &s[0], s.size()));
  return s;
}

const ZipMember* StoredZip::Find(const std::string& name) const {
  for (const ZipMember& m : members_)
    if (m.name == name) return &m;
  return nullptr;
}

Result<StoredZip> StoredZip::Open(const std::string& path) {
  StoredZip z;
  z.path_ = path;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return NotFound(Msg<msg::kCannotOpen>(path));
  if (!S_ISREG(st.st_mode)) return IoError(Msg<msg::kPathNotRegularFile>(path));
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return IoError(Msg<msg::kCannotOpen>(path));
  z.file_.reset(f, Closer());
  if (fseeko(f, 0, SEEK_END) != 0) return IoError(Msg<msg::kCannotSeek>(path));
  const off_t end = ftello(f);
  if (end < 0) return IoError(Msg<msg::kCannotSeek>(path));
  z.file_size_ = static_cast<uint64_t>(end);
  RETURN_IF_ERROR(z.ReadDirectory());
  return z;
}

Status StoredZip::ReadDirectory() {
  if (file_size_ < kEndSize) return Bad("not a zip archive (too short)");
  // The end record sits in the last 22 + 65535 bytes (its comment is at most 65535 bytes long);
  // the last signature whose comment length reaches exactly to the end of the file is it.
  const uint64_t tail = std::min<uint64_t>(file_size_, kEndSize + kMaxComment);
  std::vector<unsigned char> buf(static_cast<size_t>(tail));
  RETURN_IF_ERROR(ReadAt(file_size_ - tail, buf.data(), buf.size()));
  size_t at = buf.size();
  bool found = false;
  for (size_t i = buf.size() - kEndSize + 1; i-- > 0;) {
    if (Le(&buf[i], 4) == kEndSig && i + kEndSize + Le(&buf[i + 20], 2) == buf.size()) {
      at = i;
      found = true;
      break;
    }
  }
  if (!found) return Bad("not a zip archive (no end of central directory record)");
  const unsigned char* e = &buf[at];
  uint64_t count = Le(e + 10, 2), cd_size = Le(e + 12, 4), cd_offset = Le(e + 16, 4);
  const uint64_t end_offset = file_size_ - tail + at;
  if (count == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
    // ZIP64: the locator sits right before the end record and points at the ZIP64 end record.
    if (end_offset < kEnd64LocSize) return Bad("truncated ZIP64 locator");
    unsigned char loc[kEnd64LocSize];
    RETURN_IF_ERROR(ReadAt(end_offset - kEnd64LocSize, loc, sizeof loc));
    if (Le(loc, 4) != kEnd64LocSig) return Bad("missing ZIP64 end of central directory locator");
    unsigned char e64[kEnd64Size];
    RETURN_IF_ERROR(ReadAt(Le(loc + 8, 8), e64, sizeof e64));
    if (Le(e64, 4) != kEnd64Sig) return Bad("bad ZIP64 end of central directory record");
    count = Le(e64 + 32, 8);
    cd_size = Le(e64 + 40, 8);
    cd_offset = Le(e64 + 48, 8);
  }
  if (cd_offset > file_size_ || cd_size > file_size_ - cd_offset) return Bad("central directory outside the file");
  if (count > kMaxMembers || count > cd_size / kCentralSize) return Bad("implausible member count " + std::to_string(count));
  std::vector<unsigned char> cd(static_cast<size_t>(cd_size));
  RETURN_IF_ERROR(ReadAt(cd_offset, cd.data(), cd.size()));
  size_t p = 0;
  members_.reserve(static_cast<size_t>(count));
  for (uint64_t k = 0; k < count; ++k) {
    if (cd.size() - p < kCentralSize || Le(&cd[p], 4) != kCentralSig) return Bad("bad central directory entry");
    const unsigned char* c = &cd[p];
    const uint64_t flags = Le(c + 8, 2), method = Le(c + 10, 2);
    uint64_t csize = Le(c + 20, 4), usize = Le(c + 24, 4), local = Le(c + 42, 4);
    const size_t name_len = Le(c + 28, 2), extra_len = Le(c + 30, 2), comment_len = Le(c + 32, 2);
    if (cd.size() - p - kCentralSize < name_len + extra_len + comment_len) return Bad("truncated central directory");
    ZipMember m;
    m.name.assign(reinterpret_cast<const char*>(c + kCentralSize), name_len);
    // ZIP64 extended information: the 8-byte forms of whichever fields read 0xffffffff, in order.
    const unsigned char* x = c + kCentralSize + name_len;
    for (size_t q = 0; q + 4 <= extra_len;) {
      const uint64_t id = Le(x + q, 2), len = Le(x + q + 2, 2);
      if (q + 4 + len > extra_len) return Bad("bad extra field of " + m.name);
      if (id == 0x0001) {
        size_t r = q + 4;
        for (uint64_t* field : {&usize, &csize, &local}) {
          if (*field != 0xffffffffu) continue;
          if (r + 8 > q + 4 + len) return Bad("short ZIP64 field of " + m.name);
          *field = Le(x + r, 8);
          r += 8;
        }
      }
      q += 4 + len;
    }
    if (flags & 1) return Bad(m.name + " is encrypted");
    if (method != 0)
      return Bad(m.name + " is compressed (method " + std::to_string(method) + "); torch.save stores its records uncompressed");
    if (csize != usize) return Bad(m.name + ": stored sizes differ");
    m.size = usize;
    RETURN_IF_ERROR(LocateData(m, local));
    members_.push_back(std::move(m));
    p += kCentralSize + name_len + extra_len + comment_len;
  }
  return Status::Ok();
}

Status StoredZip::LocateData(ZipMember& m, uint64_t local_offset) {
  unsigned char h[kLocalSize];
  if (local_offset > file_size_ || file_size_ - local_offset < kLocalSize) return Bad(m.name + ": local header outside the file");
  RETURN_IF_ERROR(ReadAt(local_offset, h, sizeof h));
  if (Le(h, 4) != kLocalSig) return Bad(m.name + ": bad local header");
  const uint64_t start = local_offset + kLocalSize + Le(h + 26, 2) + Le(h + 28, 2);
  if (start > file_size_ || m.size > file_size_ - start)
    return Bad(m.name + " runs past the end of the file (truncated archive)");
  m.data_offset = start;
  return Status::Ok();
}

}  // namespace visprobe
