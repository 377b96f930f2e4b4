#include "trend/csv.h"

namespace visprobe {

CsvReader::CsvReader(std::string_view text) : text_(text) {
  if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
}

Result<bool> CsvReader::Next(std::vector<std::string_view>& fields) {
  for (;;) {
    fields.clear();
    size_t used = 0;
    if (pos_ >= text_.size()) return false;
    record_line_ = line_;
    bool end_of_record = false;
    while (!end_of_record) {
      if (pos_ < text_.size() && text_[pos_] == '"') {
        // Quoted field: copy with "" -> " until the closing quote.
        if (used == unquoted_.size()) unquoted_.emplace_back();
        std::string& buf = unquoted_[used++];
        buf.clear();
        size_t i = pos_ + 1;
        for (;;) {
          if (i >= text_.size()) return InvalidInput(Msg<msg::kLineUnterminatedQuotedField>(record_line_));
          char c = text_[i];
          if (c == '"') {
            if (i + 1 < text_.size() && text_[i + 1] == '"') {
              buf.push_back('"');
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (c == '\n') ++line_;
          buf.push_back(c);
          ++i;
        }
        fields.emplace_back(buf);
        pos_ = i;
        if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r')
          return InvalidInput(Msg<msg::kLineTextAfterClosing>(record_line_));
      } else {
        size_t i = pos_;
        while (i < text_.size() && text_[i] != ',' && text_[i] != '\n' && text_[i] != '\r') {
          if (text_[i] == '"') return InvalidInput(Msg<msg::kLineQuoteInsideUnquoted>(record_line_));
          ++i;
        }
        fields.emplace_back(text_.substr(pos_, i - pos_));
        pos_ = i;
      }
      if (pos_ >= text_.size()) {
        end_of_record = true;
      } else if (text_[pos_] == ',') {
        ++pos_;
        if (pos_ >= text_.size()) {
          fields.emplace_back();
          end_of_record = true;
        }
      } else {
        if (text_[pos_] == '\r') ++pos_;
        if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
        ++line_;
        end_of_record = true;
      }
    }
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    return true;
  }
}

}  // namespace visprobe
