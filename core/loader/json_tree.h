// A small owned JSON tree for one record (one dump entry, one construct member). Records are
// converted from simdjson's on-demand values into this tree, which the graph rules walk with
// Python's json semantics (§2.1): int vs float kept apart, NaN/Infinity accepted, key order kept.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace visprobe {

enum class JKind : uint8_t { kNull, kBool, kInt, kFloat, kString, kArray, kObject, kBigInt };

using JIdx = uint32_t;
constexpr JIdx kJNone = 0xFFFFFFFFu;

struct JNode {
  JKind kind = JKind::kNull;
  bool b = false;
  uint32_t key_off = 0, key_len = 0;  // member name when the parent is an object
  uint32_t str_off = 0, str_len = 0;  // string value, the digits of a big integer, or a float's
      // token when it is repr of the float (IsPyFloatRepr)
  JIdx first = kJNone;  // first child (array element / object member)
  JIdx next = kJNone;  // next sibling
  uint32_t count = 0;  // number of children
  int64_t i = 0;
  double d = 0;
};

class JTree {
 public:
  void Clear() {
    nodes_.clear();
    used_ = 0;
  }
  JIdx Add(JKind kind) {
    nodes_.push_back(JNode{});
    nodes_.back().kind = kind;
    return Last();
  }
  JIdx Last() const { return static_cast<JIdx>(nodes_.size() - 1); }
  JNode& at(JIdx i) { return nodes_[i]; }
  const JNode& at(JIdx i) const { return nodes_[i]; }
  size_t size() const { return nodes_.size(); }

  // Stores bytes in the tree's text arena; returns (offset, length).
  void SetKey(JIdx i, std::string_view k) {
    auto o = Store(k);
    nodes_[i].key_off = o;
    nodes_[i].key_len = static_cast<uint32_t>(k.size());
  }
  void SetStr(JIdx i, std::string_view s) {
    auto o = Store(s);
    nodes_[i].str_off = o;
    nodes_[i].str_len = static_cast<uint32_t>(s.size());
  }

  std::string_view Key(JIdx i) const { return {text_.data() + nodes_[i].key_off, nodes_[i].key_len}; }
  std::string_view Str(JIdx i) const { return {text_.data() + nodes_[i].str_off, nodes_[i].str_len}; }
  JKind Kind(JIdx i) const { return nodes_[i].kind; }
  bool IsNumber(JIdx i) const {
    auto k = nodes_[i].kind;
    return k == JKind::kInt || k == JKind::kFloat || k == JKind::kBigInt;
  }
  double AsDouble(JIdx i) const;

  // Member lookup with Python dict semantics for duplicate keys (the last one wins).
  JIdx Find(JIdx obj, std::string_view key) const;
  // Python dict view of member `c` of object `obj`: kJNone if an earlier member has the same key
  // (the key is shown at its first position), else the last member with that key.
  JIdx DictMember(JIdx obj, JIdx c) const;
  // Python truthiness.
  bool Truthy(JIdx i) const;

  // str() and repr() of the value as Python prints the json-loaded object (§2.2).
  void AppendPyStr(std::string& out, JIdx i) const;
  void AppendPyRepr(std::string& out, JIdx i) const;
  std::string PyStr(JIdx i) const {
    std::string s;
    AppendPyStr(s, i);
    return s;
  }
  // json.dumps of the value (ensure_ascii, ", " and ": " separators).
  void AppendJson(std::string& out, JIdx i) const;

 private:
  // text_'s size is its room (kept across Clear, so a reused tree zero-fills nothing once warm);
  // used_ bytes of it hold the tree's keys and strings.
  // "[1, 2]" for an array of integers only (what repr and json.dumps both write); false otherwise.
  bool AppendIntList(std::string& out, JIdx i) const;
  uint32_t Store(std::string_view s) {
    const size_t o = used_;
    if (o + s.size() > text_.size()) text_.resize(std::max(text_.size() * 2, o + s.size() + 64));
    if (!s.empty()) std::memcpy(&text_[0] + o, s.data(), s.size());
    used_ = o + s.size();
    return static_cast<uint32_t>(o);
  }
  std::vector<JNode> nodes_;
  std::string text_;
  size_t used_ = 0;
};

}  // namespace visprobe
