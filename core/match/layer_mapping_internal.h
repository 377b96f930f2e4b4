// Pieces shared by layer_mapping.cc, layer_reader.cc and framework.cc: the file helpers, and the
// Python string helpers and the stack frame scope of layer_mapping.cc that the reading of one side
// (layer_reader.cc, §8.4.1) uses. Internal to core/match.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "base/fs.h"
#include "base/status.h"

namespace visprobe {
namespace match_detail {

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};

inline Status LoadFailed(const std::string& path, const Status& st) {
  return Status(st.code(), Msg<msg::kLoadJsonFileFailedColon>(BaseName(path), st));
}

inline constexpr std::string_view kTopLayer = "TopLayer";

// Byte length of the UTF-8 character at s[i] if Python's str.isspace() is true for it, else 0
// (layer_mapping.cc).
size_t PySpaceLen(std::string_view s, size_t i);
// Byte length of the UTF-8 character at s[i], cut at the end of s (layer_mapping.cc).
size_t Utf8Len(std::string_view s, size_t i);

// §8.4.1 frame scope of one raw stack (layer_mapping.cc; StackFrameScope in layer_mapping.h).
Result<std::string> FrameScopeOf(const std::vector<std::string_view>& lines, bool mindspore);

}  // namespace match_detail
}  // namespace visprobe
