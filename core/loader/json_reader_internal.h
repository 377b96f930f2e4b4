// Pieces of the JSON reader shared by json_reader.cc (one thread, the key scan, whole texts) and
// json_records.cc (windows parsed by worker threads, record ranges). Not for other callers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "loader/json_reader.h"
#include "loader/record_splitter.h"
#include "simdjson.h"

namespace visprobe {
namespace json_internal {
namespace od = simdjson::ondemand;

struct JsonLimits {
  size_t max_string_bytes = kMaxJsonStringBytes;
  uint32_t max_record_values = kMaxJsonRecordValues;
};

JsonLimits LimitsOf(const JsonReadOptions& o);

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};

// Parses one window "{record, record, ...}" and hands each record to the callback with the file
// offset of its key; errors name the file and the offset of the record that failed.
class WindowParser {
 public:
  using AtFn = std::function<Status(std::string_view key, uint64_t pos, const JTree& tree, JIdx value)>;
  WindowParser(const std::string& path, AtFn fn, JsonLimits limits = {}) : path_(path), fn_(std::move(fn)), limits_(limits) {}

  Status Parse(std::string& window, const std::vector<RecordOrigin>& origins);

 private:
  Status Error(simdjson::error_code e, const std::vector<RecordOrigin>& origins, size_t rec);
  Status Error(const Message& what, const std::vector<RecordOrigin>& origins, size_t rec);

  const std::string& path_;
  AtFn fn_;
  JsonLimits limits_;
  od::parser parser_;
  JTree tree_;
  std::string key_;
};

// Feeds a whole file through a splitter in blocks; file errors name `path` and the byte offset.
Result<uint64_t> FeedFile(const std::string& path, const JsonReadOptions& opts, RecordSplitter& splitter, bool* found = nullptr);

// Parses the members read beside the container (container mode only) into out.meta.
Status ParseMeta(const std::string& path, const RecordSplitter& splitter, const JsonReadOptions& opts, JsonReadResult& out);

}  // namespace json_internal
}  // namespace visprobe
