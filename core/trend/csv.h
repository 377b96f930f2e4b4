// An RFC-4180 CSV reader over a text in memory (monitor files are < 1 GiB, typically MBs):
// comma separator, double-quoted fields with "" escapes and embedded line breaks, CRLF or LF,
// a UTF-8 BOM stripped, blank lines skipped (as pandas.read_csv does).
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace visprobe {

class CsvReader {
 public:
  explicit CsvReader(std::string_view text);
  // Next record into `fields` (views valid until the next call). False at the end of the text.
  // A malformed record (a quote inside an unquoted field, an unterminated quote) gives an error
  // naming the 1-based line.
  Result<bool> Next(std::vector<std::string_view>& fields);
  size_t line() const { return record_line_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  size_t line_ = 1, record_line_ = 0;
  std::deque<std::string> unquoted_;  // fields that needed unescaping (deque: stable addresses)
};

}  // namespace visprobe
