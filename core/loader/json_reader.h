// Reads a JSON file whose top-level object holds many members ("records"), in bounded windows:
// records of dump.json's "data", or the members of construct.json / stack.json. Each record is
// handed over as a JTree; memory is the window plus one record, never the file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/limits.h"
#include "base/status.h"
#include "loader/json_tree.h"

namespace visprobe {

struct JsonReadOptions {
  std::string container_key;  // "" = top-level members; "data" for dump.json
  size_t window_bytes = 4u << 20;  // records are parsed this many bytes at a time
  size_t block_bytes = 8u << 20;  // file read size
  std::function<void(uint64_t done, uint64_t total)> progress;  // optional
  std::string find_text;  // optional: report whether these bytes occur in the file
  // Limits (base/limits.h); tests lower them.
  uint64_t max_record_bytes = kMaxJsonRecordBytes;
  size_t max_string_bytes = kMaxJsonStringBytes;
  uint32_t max_record_values = kMaxJsonRecordValues;
};

using RecordFn = std::function<Status(std::string_view key, const JTree& tree, JIdx value)>;

struct JsonReadResult {
  JTree meta;  // top-level members other than the container (container mode)
  JIdx meta_root = kJNone;  // object node of `meta`
  uint64_t records = 0;
  uint64_t bytes = 0;
  size_t largest_window = 0;
  bool found_text = false;  // JsonReadOptions::find_text occurs in the file
  uint64_t container_end = UINT64_MAX;  // offset of the container's closing brace
};

// `path` is opened with fopen (WORKERFS makes this work in the browser). Errors name `path`
// and the byte offset; the caller adds msProbe's "load json file ... failed." prefix.
Result<JsonReadResult> ReadJsonRecords(const std::string& path, const JsonReadOptions& opts, const RecordFn& on_record);

// The same with the windows parsed by worker threads: ReadJsonRecordsParallel and
// ReadJsonRecordRanges, in loader/json_records.h.

// First pass over a file: only the record keys (decoded) and the meta members, at scanning speed,
// without parsing the records. Same errors as ReadJsonRecords for the file's structure.
using KeyOnlyFn = std::function<Status(std::string_view key, uint64_t pos)>;
Result<JsonReadResult> ScanJsonKeys(const std::string& path, const JsonReadOptions& opts, const KeyOnlyFn& on_key);

// §8.5: the meta member "framework" of a read if it is the string "pytorch" or "mindspore", else "".
std::string FrameworkField(const JsonReadResult& r);

// Decodes the content of a JSON string literal (without quotes). False if malformed.
bool DecodeJsonString(std::string_view raw, std::string* out);

// Parses a whole in-memory JSON text as one value (tests, small config texts).
Status ParseJsonText(std::string_view text, JTree& tree, JIdx* root);

}  // namespace visprobe
