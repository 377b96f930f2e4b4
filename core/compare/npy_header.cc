#include "compare/npy_header.h"

#include <cstring>
#include <limits>

namespace visprobe {
namespace {

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& s) : s_(s) {}

  // Empty string on success, else what is wrong.
  std::string Parse(NpyHeader& h) {
    SkipWs();
    if (!Eat('{')) return "header is not a dict";
    for (;;) {
      SkipWs();
      if (Eat('}')) break;
      std::string key;
      if (!ParseString(key)) return "header dict keys must be strings";
      SkipWs();
      if (!Eat(':')) return "expected ':' in the header dict";
      SkipWs();
      std::string err;
      if (key == "descr") {
        h.has_descr = true;
        h.descr_is_string = Peek() == '\'' || Peek() == '"';
        if (h.descr_is_string) {
          if (!ParseString(h.descr)) return "bad 'descr' string";
        } else if (!SkipValue()) {
          return "bad 'descr' value";
        }
      } else if (key == "fortran_order") {
        h.has_fortran = true;
        if (Word("True"))
          h.fortran = true;
        else if (Word("False"))
          h.fortran = false;
        else
          return "'fortran_order' must be True or False";
      } else if (key == "shape") {
        h.has_shape = true;
        err = ParseShape(h.shape);
        if (!err.empty()) return err;
      } else {
        return "unexpected key '" + key + "' in the header";
      }
      SkipWs();
      if (Eat(',')) continue;
      SkipWs();
      if (Eat('}')) break;
      return "expected ',' or '}' in the header dict";
    }
    SkipWs();
    if (i_ != s_.size()) return "trailing characters after the header dict";
    if (!h.has_descr || !h.has_fortran || !h.has_shape)
      return "header does not contain the keys 'descr', 'fortran_order' and 'shape'";
    return "";
  }

 private:
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++i_;
    return true;
  }
  void SkipWs() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool Word(const char* w) {
    size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    char next = i_ + n < s_.size() ? s_[i_ + n] : '\0';
    if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9') || next == '_') return false;
    i_ += n;
    return true;
  }
  bool ParseString(std::string& out) {
    char q = Peek();
    if (q != '\'' && q != '"') return false;
    ++i_;
    out.clear();
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == q) return true;
      if (c == '\\') {
        if (i_ >= s_.size()) return false;
        out += s_[i_++];  // descr values never need more than \\ \' \"
      } else if (c == '\n') {
        return false;
      } else {
        out += c;
      }
    }
    return false;
  }
  bool ParseUInt(uint64_t& v) {
    size_t start = i_;
    v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      uint64_t d = static_cast<uint64_t>(s_[i_] - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
      v = v * 10 + d;
      ++i_;
    }
    if (i_ == start) return false;
    if (Peek() == 'L' || Peek() == 'l') ++i_;  // Python 2 long literal in old files
    return true;
  }
  // A tuple of non-negative ints: "()", "(3,)", "(2, 3)". "(3)" is an int in Python, not a tuple.
  std::string ParseShape(std::vector<uint64_t>& shape) {
    shape.clear();
    if (!Eat('(')) return "'shape' must be a tuple of ints";
    bool comma_seen = false;
    for (;;) {
      SkipWs();
      if (Eat(')')) break;
      uint64_t v;
      if (!ParseUInt(v)) return "'shape' must be a tuple of non-negative ints";
      shape.push_back(v);
      SkipWs();
      if (Eat(',')) {
        comma_seen = true;
        continue;
      }
      if (Eat(')')) break;
      return "bad 'shape' tuple";
    }
    if (shape.size() == 1 && !comma_seen) return "'shape' must be a tuple of ints";
    return "";
  }
  // Skips a bracketed or scalar value (structured dtypes give a list here).
  bool SkipValue() {
    int depth = 0;
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\'' || c == '"') {
        std::string dummy;
        if (!ParseString(dummy)) return false;
        continue;
      }
      if (c == '[' || c == '(' || c == '{') ++depth;
      if (c == ']' || c == ')' || c == '}') {
        if (depth == 0) return true;
        --depth;
      }
      if (c == ',' && depth == 0) return true;
      ++i_;
    }
    return false;
  }

  const std::string& s_;
  size_t i_ = 0;
};

}  // namespace

std::string ParseNpyHeader(const std::string& text, NpyHeader* h) { return HeaderParser(text).Parse(*h); }

std::string ParseNpyDescr(const std::string& d, NpyDtype& dt) {
  std::string s = d;
  char order = '=';
  if (!s.empty() && (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    order = s[0];
    s = s.substr(1);
  }
  if (s == "?") s = "b1";
  if (s.empty()) return "empty 'descr'";
  char kind = s[0];
  if (kind == 'O') return "object arrays (pickles) are not supported";
  std::string digits = s.substr(1);
  int size = 0;
  if (digits.size() == 1 && digits[0] >= '1' && digits[0] <= '8') size = digits[0] - '0';
  bool ok = (kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
            ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) || (kind == 'b' && size == 1);
  if (!ok) return "unsupported dtype '" + d + "'";
  dt.kind = kind;
  dt.size = size;
  // '|' (not applicable) and '=' (native) mean the reader's order: little-endian on every target.
  dt.order = size == 1 ? '|' : (order == '>' ? '>' : '<');
  return "";
}

}  // namespace visprobe
