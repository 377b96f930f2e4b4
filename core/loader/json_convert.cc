#include "loader/json_convert.h"

#include <limits>
#include <string>
#include <string_view>

#include "base/pyfmt.h"

namespace visprobe {
namespace json_internal {
namespace {

std::string_view TrimToken(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

// Python's json accepts NaN, Infinity and -Infinity; simdjson does not.
bool NonFinite(std::string_view tok, double* out) {
  tok = TrimToken(tok);
  if (tok == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (tok == "Infinity") {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (tok == "-Infinity") {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  return false;
}

}  // namespace

Message StringLimitText(size_t limit) { return Msg<msg::kStringLongerThanLimit>(limit); }

Message ErrorText(simdjson::error_code e) {
  switch (e) {
    case simdjson::TAPE_ERROR: return Msg<msg::kInvalidJsonSyntax>();
    case simdjson::INCORRECT_TYPE: return Msg<msg::kUnexpectedValueType>();
    case simdjson::N_ATOM_ERROR: return Msg<msg::kInvalidLiteralExpectedNull>();
    case simdjson::T_ATOM_ERROR: return Msg<msg::kInvalidLiteralExpectedTrue>();
    case simdjson::F_ATOM_ERROR: return Msg<msg::kInvalidLiteralExpectedFalse>();
    case simdjson::NUMBER_ERROR: return Msg<msg::kInvalidNumber>();
    case simdjson::UTF8_ERROR: return Msg<msg::kInvalidUtfString>();
    case simdjson::UNCLOSED_STRING: return Msg<msg::kUnclosedString>();
    case simdjson::STRING_ERROR: return Msg<msg::kInvalidStringEscape>();
    case simdjson::DEPTH_ERROR: return Msg<msg::kJsonNestingDeeperThan>(kMaxJsonDepth);
    case simdjson::TRAILING_CONTENT: return Msg<msg::kUnexpectedContentAfterValue>();
    // simdjson's own texts for the rest (error_message), by id where the page has them.
    case simdjson::UNESCAPED_CHARS: return Msg<msg::kSimdjsonUnescapedChars>();
    case simdjson::BIGINT_ERROR: return Msg<msg::kSimdjsonBigint>();
    case simdjson::NUMBER_OUT_OF_RANGE: return Msg<msg::kSimdjsonNumberOutOfRange>();
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return Msg<msg::kSimdjsonIncomplete>();
    case simdjson::CAPACITY: return Msg<msg::kSimdjsonCapacity>();
    case simdjson::MEMALLOC: return Msg<msg::kSimdjsonMemalloc>();
    case simdjson::EMPTY: return Msg<msg::kSimdjsonEmpty>();
    default: return Message(simdjson::error_message(e));
  }
}

Message Converter::Text() const { return what.text().empty() ? ErrorText(error) : what; }

bool Converter::Scalar(od::value& v, JIdx idx) {
  JNode* n = &tree.at(idx);
  od::json_type t;
  auto te = v.type().get(t);
  if (te) {
    std::string_view tok;
    double d;
    tok = v.raw_json_token();
    if (NonFinite(tok, &d)) {
      n->kind = JKind::kFloat;
      n->d = d;
      return true;
    }
    return Fail(te);
  }
  switch (t) {
    case od::json_type::null: {
      bool is_null = false;
      if (auto e = v.is_null().get(is_null)) return Fail(e);
      if (!is_null) return Fail(simdjson::N_ATOM_ERROR);
      n->kind = JKind::kNull;
      return true;
    }
    case od::json_type::boolean: {
      bool b;
      if (auto e = v.get_bool().get(b)) return Fail(e);
      n->kind = JKind::kBool;
      n->b = b;
      return true;
    }
    case od::json_type::string: {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return Fail(e);
      if (s.size() > limits.max_string_bytes) return FailLimit(StringLimitText(limits.max_string_bytes));
      n->kind = JKind::kString;
      tree.SetStr(idx, s);
      return true;
    }
    case od::json_type::number: {
      // One scan of the number gives its type and value (get_number_type then get_double
      // scanned it twice). The token is kept for big integers, and for a float whose text is
      // already repr(d): printing it is then a copy (pyfmt.h).
      const std::string_view tok = TrimToken(v.raw_json_token());
      od::number num;
      if (v.get_number().get(num)) {
        double d;
        if (NonFinite(tok, &d)) {
          n->kind = JKind::kFloat;
          n->d = d;
          return true;
        }
        // Integers beyond 64 bits fail get_number (as BIGINT_ERROR or NUMBER_ERROR, by length);
        // the classifying scan tells them from malformed numbers, with its own error.
        od::number_type nt;
        if (auto e = v.get_number_type().get(nt)) return Fail(e);
        if (nt != od::number_type::big_integer) return Fail(simdjson::NUMBER_ERROR);
        n->kind = JKind::kBigInt;
        tree.SetStr(idx, tok);
        return true;
      }
      const od::number_type nt = num.get_number_type();
      if (nt == od::number_type::signed_integer) {
        n->kind = JKind::kInt;
        n->i = num.get_int64();
      } else if (nt == od::number_type::floating_point_number) {
        n->kind = JKind::kFloat;
        n->d = num.get_double();
        if (IsPyFloatRepr(tok)) tree.SetStr(idx, tok);
      } else {  // an unsigned integer beyond int64
        n->kind = JKind::kBigInt;
        tree.SetStr(idx, tok);
      }
      return true;
    }
    default: return Fail(simdjson::INCORRECT_TYPE);
  }
}

bool Converter::Value(od::value v, JIdx idx, int depth) {
  if (depth > kMaxJsonDepth) return Fail(simdjson::DEPTH_ERROR);
  od::json_type t;
  if (v.type().get(t)) return Scalar(v, idx);
  if (t == od::json_type::array) {
    od::array arr;
    if (auto e = v.get_array().get(arr)) return Fail(e);
    tree.at(idx).kind = JKind::kArray;
    JIdx prev = kJNone;
    uint32_t count = 0;
    for (auto el : arr) {
      od::value ev;
      if (auto e = el.get(ev)) return Fail(e);
      JIdx c;
      if (!Add(&c)) return false;
      if (prev == kJNone)
        tree.at(idx).first = c;
      else
        tree.at(prev).next = c;
      prev = c;
      ++count;
      if (!Value(ev, c, depth + 1)) return false;
    }
    tree.at(idx).count = count;
    return true;
  }
  if (t == od::json_type::object) {
    od::object obj;
    if (auto e = v.get_object().get(obj)) return Fail(e);
    tree.at(idx).kind = JKind::kObject;
    JIdx prev = kJNone;
    uint32_t count = 0;
    for (auto fr : obj) {
      od::field f;
      if (auto e = std::move(fr).get(f)) return Fail(e);
      std::string_view k;
      if (auto e = f.unescaped_key(false).get(k)) return Fail(e);
      if (k.size() > limits.max_string_bytes) return FailLimit(StringLimitText(limits.max_string_bytes));
      JIdx c;
      if (!Add(&c)) return false;
      tree.SetKey(c, k);
      if (prev == kJNone)
        tree.at(idx).first = c;
      else
        tree.at(prev).next = c;
      prev = c;
      ++count;
      if (!Value(f.value(), c, depth + 1)) return false;
    }
    tree.at(idx).count = count;
    return true;
  }
  return Scalar(v, idx);
}

}  // namespace json_internal
}  // namespace visprobe
