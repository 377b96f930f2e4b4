// Pieces shared by layer_mapping.cc and framework.cc: the line search of framework detection
// (§8.5) is also the layer mapping's fallback when its own dump.json scan finds no framework
// field. Internal to core/match.
#pragma once

#include <cstdio>
#include <string>

#include "base/fs.h"
#include "base/status.h"

namespace visprobe {
namespace match_detail {

struct FileCloser {
  void operator()(FILE* f) const { if (f) std::fclose(f); }
};

inline Status LoadFailed(const std::string& path, const Status& st) {
  return Status(st.code(), "load json file \"" + BaseName(path) + "\" failed: " + st.message());
}

// §8.5 without the field: the first line of the file naming a framework type (framework.cc).
Result<std::string> SearchFrameworkLines(const std::string& path);

}  // namespace match_detail
}  // namespace visprobe
