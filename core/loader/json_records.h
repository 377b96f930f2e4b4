// dump.json's records parsed by worker threads: ReadJsonRecords (json_reader.h) with its windows
// parsed by a pool of threads, and the second pass over the record offsets a key scan gave.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace visprobe {

// ReadJsonRecords with the windows parsed by `workers` threads (1 = this thread only). `fn` is
// called concurrently from the workers, with the worker index and the file offset of the record's key.
using RecordAtFn = std::function<Status(int worker, std::string_view key, uint64_t pos, const JTree& tree, JIdx value)>;
Result<JsonReadResult> ReadJsonRecordsParallel(const std::string& path, const JsonReadOptions& opts, int workers,
                                               const RecordAtFn& fn);

// Second pass when the first one (ScanJsonKeys) gave every record's offset: `record_pos` are the
// offsets of the records' keys in file order, `end` the container's closing brace. Only records
// whose index has wanted[i] != 0 are parsed; windows of consecutive records are read straight
// from the file (no byte scanning) and parsed by `workers` threads as in ReadJsonRecordsParallel.
Status ReadJsonRecordRanges(const std::string& path, const std::vector<uint64_t>& record_pos, uint64_t end,
                            const std::vector<char>& wanted, size_t window_bytes, int workers, const RecordAtFn& fn,
                            const std::function<void(uint64_t, uint64_t)>& progress);

}  // namespace visprobe
