// Input limits (issue #8): each one turns an input that would exhaust memory, the 5 MB wasm
// stack or a 32-bit index into one clear error naming the file and the limit. Every value is
// far above what real msProbe dumps reach (README "Limits"); msProbe's own per-file size limits
// (§16.3) live in base/fs.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace visprobe {

// One member of a JSON file's top-level object (a dump.json record, a construct.json or
// stack.json member) or dump.json's members besides "data". A record is parsed as one
// window, and its tree indexes text with 32-bit offsets; real records are a few KB.
constexpr uint64_t kMaxJsonRecordBytes = 256ull << 20;  // 256 MiB
// Values (numbers, strings, lists, objects) in one record: the record's tree costs ~56 bytes
// per value, so this bounds it near 1 GB (a 16M-element list of zeros is 32 MiB of text).
constexpr uint32_t kMaxJsonRecordValues = 1u << 24;  // 16,777,216
// One JSON string or object key after unescaping: node names, stack frames, dtype strings.
constexpr size_t kMaxJsonStringBytes = 16u << 20;  // 16 MiB
// Nesting of lists and objects inside one record (the tree conversion recurses).
constexpr int kMaxJsonDepth = 1000;
// Nodes of one (step, rank) graph: construct.json entries, dump.json records.
constexpr uint64_t kMaxGraphNodes = 100000000;  // 100 million
// rankN (or procN) folders of one step, and stepN folders of one run.
constexpr size_t kMaxRanksPerStep = 1u << 20;  // 1,048,576
constexpr size_t kMaxStepsPerRun = 1u << 20;  // 1,048,576

}  // namespace visprobe
