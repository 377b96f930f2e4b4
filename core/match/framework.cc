// Framework detection (spec §8.5): the dump's `framework` field, else a streamed search of
// dump.json for the first line naming a MindSpore or PyTorch type.
#include "match/framework.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "loader/json_reader.h"
#include "match/layer_mapping_internal.h"

namespace visprobe {
namespace match_detail {
namespace {

// Python's regex \s on one byte, line ends excluded (they end the line before).
bool RegexSpaceByte(unsigned char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || (c >= 0x1C && c <= 0x1F); }

}  // namespace

// The first line matching `"type":\s*"mindspore` (mindspore) or `"type":\s*"torch` (pytorch),
// mindspore winning inside one line, as the reference's `for line in file` loop. Lines may be
// any length: the pattern is followed by a small NFA over the bytes of a block read.
Result<std::string> SearchFrameworkLines(const std::string& path) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return IoError(Msg<msg::kPathCannotOpen>(path, ErrnoMessage(errno)));
  static constexpr char kType[] = "\"type\":";  // 7 characters, state 7 = inside \s*
  static constexpr char kMs[] = "\"mindspore";  // 10
  static constexpr char kPt[] = "\"torch";  // 6
  uint32_t type_st = 0, ms_st = 0, pt_st = 0;  // bit k: k characters of the literal matched
  bool line_pt = false;
  std::vector<unsigned char> block(1u << 20);
  for (;;) {
    size_t n = std::fread(block.data(), 1, block.size(), f.get());
    if (n == 0) {
      if (std::ferror(f.get())) return IoError(Msg<msg::kPathReadError>(path, ErrnoMessage(errno)));
      break;
    }
    for (size_t p = 0; p < n; ++p) {
      unsigned char c = block[p];
      if (c == '\n' || c == '\r') {
        if (line_pt) return std::string("pytorch");
        type_st = ms_st = pt_st = 0;
        continue;
      }
      uint32_t nt = 0, nm = 0, np = 0;
      for (int k = 0; k < 7; ++k)
        if ((k == 0 || (type_st >> k) & 1u) && c == static_cast<unsigned char>(kType[k])) nt |= 1u << (k + 1);
      if ((type_st >> 7) & 1u) {
        if (RegexSpaceByte(c)) nt |= 1u << 7;
        if (c == '"') {
          nm |= 1u << 1;
          np |= 1u << 1;
        }
      }
      for (int k = 1; k < 10; ++k)
        if ((ms_st >> k) & 1u && c == static_cast<unsigned char>(kMs[k])) nm |= 1u << (k + 1);
      if ((nm >> 10) & 1u) return std::string("mindspore");
      for (int k = 1; k < 6; ++k)
        if ((pt_st >> k) & 1u && c == static_cast<unsigned char>(kPt[k])) np |= 1u << (k + 1);
      if ((np >> 6) & 1u) line_pt = true;
      type_st = nt;
      ms_st = nm;
      pt_st = np & ~(1u << 6);
    }
  }
  if (line_pt) return std::string("pytorch");
  return InvalidInput(Msg<msg::kMustBasedMindsporePytorch>(path));
}

}  // namespace match_detail

using match_detail::LoadFailed;
using match_detail::SearchFrameworkLines;

Result<std::string> DetectFramework(const std::string& dump_json_path) {
  JsonReadOptions o;
  o.container_key = "data";
  auto r = ScanJsonKeys(dump_json_path, o, [](std::string_view, uint64_t) { return Status::Ok(); });
  if (!r.ok()) return LoadFailed(dump_json_path, r.status());
  std::string fw = FrameworkField(r.value());
  if (!fw.empty()) return fw;
  return SearchFrameworkLines(dump_json_path);
}

Result<std::string> DetectFramework(const Graph& g) {
  if (!g.framework_field) return DetectFramework(g.dump_path);
  if (!g.framework_field->empty()) return *g.framework_field;
  return SearchFrameworkLines(g.dump_path);
}

}  // namespace visprobe
