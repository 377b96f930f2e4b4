// Splits a JSON object into windows of whole members ("records") without parsing them, so a
// multi-GB dump.json is parsed a few MB at a time (STYLE §2.4). Accepts any chunking of the
// input (Feed may be called with 1 byte or 64 MB). A quote/escape/depth scanner: it does not
// validate records, the window parser does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct RecordOrigin {
  uint64_t window_pos;  // offset of the record's key in the window text
  uint64_t file_pos;  // offset of the same byte in the file
};

class RecordSplitter {
 public:
  // window: '{' + whole members + '}' (valid JSON if the members are).
  using WindowFn = std::function<Status(std::string& window, const std::vector<RecordOrigin>& origins)>;

  // container_key empty: records are the members of the top-level object. Otherwise records are
  // the members of the top-level member `container_key` (dump.json's "data"); the other
  // top-level members are kept in meta() with the container replaced by 0.
  RecordSplitter(std::string container_key, size_t window_bytes, WindowFn fn);

  // Keys-only mode: no windows are built; `fn` gets each record's key (raw JSON string content,
  // escapes not decoded) and the file offset of its opening quote. The meta text is still kept.
  using KeyFn = std::function<Status(std::string_view raw_key, uint64_t file_pos)>;
  void SetKeysOnly(KeyFn fn) {
    key_fn_ = std::move(fn);
    keys_only_ = true;
  }
  // A record (or the meta text) larger than max_record_bytes, or a key whose escaped text is
  // longer than 6 * max_key_bytes (so that no unescaping can bring it under max_key_bytes),
  // fails with a message naming the limit; so does nesting deeper than kMaxJsonDepth inside a
  // record (base/limits.h). The readers check decoded keys exactly.
  void SetLimits(uint64_t max_record_bytes, size_t max_key_bytes) {
    max_record_bytes_ = max_record_bytes;
    max_key_bytes_ = max_key_bytes;
  }

  Status Feed(const char* data, size_t size);
  Status Finish();

  // Top-level members other than the container, as a JSON object text (only in container mode).
  const std::string& meta() const { return meta_; }
  uint64_t records() const { return records_; }
  // File offset of the container's closing brace (UINT64_MAX until seen).
  uint64_t container_end() const { return container_end_; }
  // Visible for testing.
  size_t largest_window() const { return largest_window_; }
  // Off: values are scanned byte by byte only (the reference the block scan is tested against).
  void SetBlockScan(bool on) { block_scan_ = on; }
  // Tests: the block scan classifies bytes one at a time, as a build without SSE2 does.
  void SetScalarBlocks(bool on) { scalar_blocks_ = on; }

 private:
  enum class Sink : uint8_t { kNone, kMeta, kWindow };
  // One Feed call's scan: its chunk, the bytes not yet appended (from `seg`, to `sink`) and the
  // next quote found ahead of the scan position.
  struct FeedScan {
    const char* data;
    const char* seg;
    Sink sink;
    const char* next_quote = nullptr;
    bool quote_known = false;
  };
  uint64_t At(const FeedScan& s, const char* p) const { return pos_ + static_cast<uint64_t>(p - s.data); }
  // Where the bytes go now: a record's into the window, the top-level members' into meta.
  Sink SinkNow() const;
  void SwitchSink(FeedScan& s, const char* at);
  void Append(Sink s, const char* b, const char* e);
  // Feed's steps inside a string: to the next quote or backslash (or past the escaped byte), and
  // the same while a key is read (a top-level member's, or a record's in keys-only mode).
  const char* NextQuote(FeedScan& s, const char* p, const char* end);
  const char* SkipString(FeedScan& s, const char* p, const char* end);
  Status ScanKeyString(FeedScan& s, const char*& p, const char* end);
  // Feed's steps on the key being read: a part of it (up to a backslash or the chunk's end), and
  // its end at the closing quote.
  Status CaptureKeyPart(const FeedScan& s, const char* p, const char* e, bool escape);
  Status CloseKey(const FeedScan& s, const char* p, const char* q);
  // Feed's steps on a '"', an opening or closing bracket and a ',' at the records' level or above
  // it (depth_ <= container_depth_): where records, the container and the meta text start and end.
  // p points at the byte; Feed moves past it.
  Status OpenOuterString(FeedScan& s, const char* p);
  Status OpenOuterBracket(FeedScan& s, const char* p, char c);
  Status CloseOuterBracket(FeedScan& s, const char* p);
  Status OuterComma(FeedScan& s, const char* p);
  Status TooDeep(uint64_t at) const;
  // A byte after the top-level object, or one that does not open it.
  Status AfterTopLevel(uint64_t at) const;
  Status EndRecord(bool container_closed);
  Status Fail(uint64_t pos, const Message& what) const;
  Status CheckRecordSize(uint64_t at) const;
  // Inside a record's value (not in a string), 64 bytes at a time: returns the first bracket
  // outside strings that the byte scan must see (the one closing the value, or one nesting past
  // the limit) with *at_bracket set, or where fewer than 64 bytes are left (in_string_ / escape_
  // then say where the scan stands). Brackets before it are counted into depth_.
  const char* ScanValueBlocks(const char* p, const char* end, bool* at_bracket);
  bool KeyTooLong() const { return key_.size() / 6 > max_key_bytes_ || record_key_.size() / 6 > max_key_bytes_; }
  Message KeyLimitText() const;

  std::string container_key_;
  size_t window_bytes_;
  WindowFn fn_;
  uint64_t max_record_bytes_;
  size_t max_key_bytes_;
  uint64_t record_start_ = 0;  // file offset of the current record's key

  uint64_t pos_ = 0;  // bytes consumed before the current chunk
  int depth_ = 0;
  bool in_string_ = false, escape_ = false;
  bool top_closed_ = false;
  bool in_container_ = false;  // between the container's braces
  bool in_record_ = false;  // inside a member of the container
  int container_depth_ = 1;  // depth of the container's members
  // Key tracking at depth 1 (container mode).
  bool expect_key_ = false, capturing_key_ = false, key_done_ = false;
  std::string key_;
  bool value_is_container_ = false;  // the current depth-1 value belongs to container_key_

  bool block_scan_ = true;
  bool scalar_blocks_ = false;
  bool keys_only_ = false;
  KeyFn key_fn_;
  bool capturing_record_key_ = false;
  uint64_t record_key_pos_ = 0;
  std::string record_key_;

  std::string meta_;
  std::string window_;
  std::vector<RecordOrigin> origins_;
  uint64_t records_ = 0;
  uint64_t container_end_ = UINT64_MAX;
  size_t largest_window_ = 0;
};

}  // namespace visprobe
