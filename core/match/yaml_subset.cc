#include "match/yaml_subset.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "base/fs.h"

namespace visprobe {
namespace {

// PyYAML separates tokens with spaces only: a tab outside a quoted scalar or a comment is an error.
bool IsSpace(char c) { return c == ' '; }

// Remaining text is empty or a comment (a '#' after optional blanks).
bool BlankOrComment(std::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i == s.size() || s[i] == '#';
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Result<std::vector<YamlClassMapping>> Run() {
    if (text_.size() >= 3 && text_.compare(0, 3, "\xEF\xBB\xBF") == 0) text_.remove_prefix(3);
    size_t pos = 0;
    while (pos <= text_.size()) {
      size_t e = pos;
      while (e < text_.size() && text_[e] != '\n' && text_[e] != '\r') ++e;
      ++line_no_;
      RETURN_IF_ERROR(Line(text_.substr(pos, e - pos)));
      if (e >= text_.size()) break;
      pos = e + ((text_[e] == '\r' && e + 1 < text_.size() && text_[e + 1] == '\n') ? 2 : 1);
    }
    if (!seen_content_) return Error(Msg<msg::kYamlDocumentEmpty>());
    return std::move(classes_);
  }

 private:
  Status Error(const Message& what) const { return InvalidInput(Msg<msg::kYamlErrorAt>(file_, line_no_, what)); }

  static bool Marker(std::string_view line, const char* m) {
    return line.size() >= 3 && line.compare(0, 3, m) == 0 && (line.size() == 3 || IsSpace(line[3]));
  }

  Status Line(std::string_view line) {
    size_t n = 0;
    while (n < line.size() && line[n] == ' ') ++n;
    if (BlankOrComment(line, n)) return Status::Ok();
    if (line[n] == '\t') return Error(Msg<msg::kYamlTabIndent>());
    if (n == 0 && Marker(line, "---")) {
      if (seen_content_ || ended_) return Error(Msg<msg::kYamlOneDocument>());
      if (BlankOrComment(line, 3)) return Status::Ok();
      return Error(Msg<msg::kYamlContentAfterStart>());
    }
    if (n == 0 && Marker(line, "...")) {
      if (!BlankOrComment(line, 3)) return Error(Msg<msg::kYamlContentAfterEndSameLine>());
      ended_ = true;
      return Status::Ok();
    }
    if (ended_) return Error(Msg<msg::kYamlContentAfterEnd>());
    if (flow_empty_) return Error(Msg<msg::kYamlContentAfterFlow>());
    if (top_indent_ < 0) {
      if (line[n] == '{') {
        size_t i = n;
        if (!EmptyFlow(line, i)) return Error(Msg<msg::kYamlFlowMappings>());
        flow_empty_ = true;
        seen_content_ = true;
        return Status::Ok();
      }
      top_indent_ = static_cast<int>(n);
    }
    int ind = static_cast<int>(n);
    if (ind == top_indent_) return ClassLine(line, n);
    if (ind < top_indent_) return Error(Msg<msg::kYamlBadEntryIndent>());
    if (current_ < 0 || closed_) return Error(Msg<msg::kYamlUnexpectedIndent>());
    if (nested_indent_ < 0) nested_indent_ = ind;
    if (ind != nested_indent_) return Error(Msg<msg::kYamlBadIndentExpected>(nested_indent_));
    return EntryLine(line, n);
  }

  // `{` blanks `}` followed by blanks or a comment; advances `i`.
  static bool EmptyFlow(std::string_view s, size_t& i) {
    if (i >= s.size() || s[i] != '{') return false;
    size_t j = i + 1;
    while (j < s.size() && IsSpace(s[j])) ++j;
    if (j >= s.size() || s[j] != '}') return false;
    if (!BlankOrComment(s, j + 1)) return false;
    i = s.size();
    return true;
  }

  Status ClassLine(std::string_view line, size_t i) {
    seen_content_ = true;
    std::string name;
    RETURN_IF_ERROR(Scalar(line, i, true, name));
    RETURN_IF_ERROR(Colon(line, i));
    auto it = class_index_.find(name);
    if (it == class_index_.end()) {
      it = class_index_.emplace(name, classes_.size()).first;
      classes_.push_back(YamlClassMapping{name, {}, false});
    }
    current_ = static_cast<int>(it->second);
    YamlClassMapping& cls = classes_[it->second];
    cls.entries.clear();  // a repeated class replaces the earlier value
    entry_index_.clear();
    nested_indent_ = -1;
    closed_ = false;
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (BlankOrComment(line, i)) {
      cls.is_null = true;  // until an entry arrives
      return Status::Ok();
    }
    cls.is_null = false;
    if (line[i] == '{' && EmptyFlow(line, i)) {
      closed_ = true;
      return Status::Ok();
    }
    return Error(Msg<msg::kYamlValueMustBeMapping>(name));
  }

  Status EntryLine(std::string_view line, size_t i) {
    std::string key, value;
    RETURN_IF_ERROR(Scalar(line, i, true, key));
    RETURN_IF_ERROR(Colon(line, i));
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (BlankOrComment(line, i)) return Error(Msg<msg::kYamlEmptyValue>(key));
    RETURN_IF_ERROR(Scalar(line, i, false, value));
    if (!BlankOrComment(line, i)) return Error(Msg<msg::kYamlContentAfterValue>(key));
    YamlClassMapping& cls = classes_[current_];
    cls.is_null = false;
    auto it = entry_index_.find(key);
    if (it != entry_index_.end()) {
      cls.entries[it->second].second = std::move(value);
    } else {
      entry_index_.emplace(key, cls.entries.size());
      cls.entries.emplace_back(std::move(key), std::move(value));
    }
    return Status::Ok();
  }

  // After a key: optional blanks, ':' and then a blank or the end of the line.
  Status Colon(std::string_view line, size_t& i) {
    while (i < line.size() && IsSpace(line[i])) ++i;
    if (i >= line.size() || line[i] != ':') return Error(Msg<msg::kYamlExpectedColon>());
    ++i;
    if (i < line.size() && line[i] == '\t') return Error(Msg<msg::kYamlTabNotAllowed>());
    if (i < line.size() && !IsSpace(line[i])) return Error(Msg<msg::kYamlExpectedBlank>());
    return Status::Ok();
  }

  Status Scalar(std::string_view s, size_t& i, bool key, std::string& out) {
    out.clear();
    if (s[i] == '"') return DoubleQuoted(s, i, out);
    if (s[i] == '\'') return SingleQuoted(s, i, out);
    return Plain(s, i, key, out);
  }

  Status DoubleQuoted(std::string_view s, size_t& i, std::string& out) {
    ++i;
    while (i < s.size() && s[i] != '"') {
      char c = s[i];
      if (c != '\\') {
        out += c;
        ++i;
        continue;
      }
      if (i + 1 >= s.size()) return Error(Msg<msg::kYamlUnterminatedDouble>());
      char e = s[i + 1];
      i += 2;
      int hex_digits = 0;
      switch (e) {
        case '0': out += '\0'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 't':
        case '\t': out += '\t'; break;
        case 'n': out += '\n'; break;
        case 'v': out += '\v'; break;
        case 'f': out += '\f'; break;
        case 'r': out += '\r'; break;
        case 'e': out += '\x1b'; break;
        case ' ': out += ' '; break;
        case '"': out += '"'; break;
        case '/': out += '/'; break;
        case '\\': out += '\\'; break;
        case 'N': AppendUtf8(out, 0x85); break;
        case '_': AppendUtf8(out, 0xA0); break;
        case 'L': AppendUtf8(out, 0x2028); break;
        case 'P': AppendUtf8(out, 0x2029); break;
        case 'x': hex_digits = 2; break;
        case 'u': hex_digits = 4; break;
        case 'U': hex_digits = 8; break;
        default: return Error(Msg<msg::kYamlUnknownEscape>(std::string(1, e)));
      }
      if (hex_digits) {
        uint32_t cp = 0;
        for (int k = 0; k < hex_digits; ++k) {
          int h = i < s.size() ? HexValue(s[i]) : -1;
          if (h < 0) return Error(Msg<msg::kYamlBadHexEscape>());
          cp = cp * 16 + static_cast<uint32_t>(h);
          ++i;
        }
        if (cp > 0x10FFFF) return Error(Msg<msg::kYamlCodePointRange>());
        AppendUtf8(out, cp);
      }
    }
    if (i >= s.size()) return Error(Msg<msg::kYamlUnterminatedDouble>());
    ++i;
    return AfterQuoted(s, i);
  }

  Status SingleQuoted(std::string_view s, size_t& i, std::string& out) {
    ++i;
    for (;;) {
      if (i >= s.size()) return Error(Msg<msg::kYamlUnterminatedSingle>());
      if (s[i] == '\'') {
        if (i + 1 < s.size() && s[i + 1] == '\'') {
          out += '\'';
          i += 2;
          continue;
        }
        ++i;
        break;
      }
      out += s[i++];
    }
    return AfterQuoted(s, i);
  }

  // A closing quote must be followed by a blank, ':', a comment or the end of the line.
  Status AfterQuoted(std::string_view s, size_t i) {
    if (i < s.size() && s[i] == '\t') return Error(Msg<msg::kYamlTabNotAllowed>());
    if (i < s.size() && !IsSpace(s[i]) && s[i] != ':' && s[i] != '#') return Error(Msg<msg::kYamlCharAfterQuoted>());
    return Status::Ok();
  }

  Status Plain(std::string_view s, size_t& i, bool key, std::string& out) {
    char c = s[i];
    bool next_blank = i + 1 >= s.size() || IsSpace(s[i + 1]);
    if (std::strchr(",[]{}#&*!|>'\"%@`", c) != nullptr) {
      if (c == '{' || c == '[') return Error(Msg<msg::kYamlFlowCollections>());
      if (c == '&' || c == '*' || c == '!') return Error(Msg<msg::kYamlAnchors>());
      if (c == '|' || c == '>') return Error(Msg<msg::kYamlBlockScalars>());
      return Error(Msg<msg::kYamlPlainScalarStart>(std::string(1, c)));
    }
    if ((c == '-' || c == '?' || c == ':') && next_blank) {
      if (c == '-') return Error(Msg<msg::kYamlSequences>());
      if (c == '?') return Error(Msg<msg::kYamlComplexKeys>());
      return Error(Msg<msg::kYamlMissingKey>());
    }
    size_t start = i;
    size_t end = start;  // end of the scalar text (before trailing blanks)
    while (i < s.size()) {
      char d = s[i];
      if (d == '\t') return Error(Msg<msg::kYamlTabNotAllowed>());
      if (d == ':' && (i + 1 >= s.size() || IsSpace(s[i + 1]))) {
        if (key) break;
        return Error(Msg<msg::kYamlValuesNotAllowed>());
      }
      if (d == '#' && i > start && IsSpace(s[i - 1])) break;  // a comment ends the scalar
      ++i;
      if (!IsSpace(d)) end = i;
    }
    out.assign(s.data() + start, end - start);
    i = end;
    return Status::Ok();
  }

  std::string_view text_;
  const std::string& file_;
  int line_no_ = 0;
  bool seen_content_ = false, ended_ = false, flow_empty_ = false;
  int top_indent_ = -1, nested_indent_ = -1, current_ = -1;
  bool closed_ = false;  // the current class was given as `{}`
  std::vector<YamlClassMapping> classes_;
  std::unordered_map<std::string, size_t> class_index_;
  std::unordered_map<std::string, size_t> entry_index_;
};

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};

}  // namespace

Result<std::vector<YamlClassMapping>> ParseLayerMappingYaml(std::string_view text, const std::string& file_name) {
  return Parser(text, file_name).Run();
}

Result<std::vector<YamlClassMapping>> LoadLayerMappingYaml(const std::string& path) {
  RETURN_IF_ERROR(CheckPath(path, PathKind::kFile, PathAccess::kRead, ".yaml"));
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return IoError(Msg<msg::kPathCannotOpen>(path, ErrnoMessage(errno)));
  std::string text;
  char buf[65536];
  for (;;) {
    size_t n = std::fread(buf, 1, sizeof buf, f.get());
    if (n == 0) {
      if (std::ferror(f.get())) return IoError(Msg<msg::kPathReadError>(path, ErrnoMessage(errno)));
      break;
    }
    text.append(buf, n);
  }
  return ParseLayerMappingYaml(text, path);
}

}  // namespace visprobe
