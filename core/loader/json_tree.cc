#include "loader/json_tree.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/pyfmt.h"
#include "base/str_writer.h"

namespace visprobe {

double JTree::AsDouble(JIdx i) const {
  const JNode& n = nodes_[i];
  switch (n.kind) {
    case JKind::kInt: return static_cast<double>(n.i);
    case JKind::kFloat: return n.d;
    case JKind::kBigInt: return std::strtod(std::string(Str(i)).c_str(), nullptr);
    case JKind::kBool: return n.b ? 1.0 : 0.0;
    default: return 0.0;
  }
}

JIdx JTree::Find(JIdx obj, std::string_view key) const {
  if (obj == kJNone || nodes_[obj].kind != JKind::kObject) return kJNone;
  JIdx found = kJNone;
  for (JIdx c = nodes_[obj].first; c != kJNone; c = nodes_[c].next)
    if (Key(c) == key) found = c;
  return found;
}

bool JTree::Truthy(JIdx i) const {
  if (i == kJNone) return false;
  const JNode& n = nodes_[i];
  switch (n.kind) {
    case JKind::kNull: return false;
    case JKind::kBool: return n.b;
    case JKind::kInt: return n.i != 0;
    case JKind::kFloat: return n.d != 0.0;  // NaN is truthy in Python, and NaN != 0
    case JKind::kBigInt: return true;
    case JKind::kString: return n.str_len != 0;
    case JKind::kArray:
    case JKind::kObject: return n.count != 0;
  }
  return false;
}

void JTree::AppendPyStr(std::string& out, JIdx i) const {
  if (nodes_[i].kind == JKind::kString) {
    out += Str(i);
    return;
  }
  AppendPyRepr(out, i);
}

JIdx JTree::DictMember(JIdx obj, JIdx c) const {
  if (nodes_[obj].count <= 1) return c;
  std::string_view k = Key(c);
  for (JIdx p = nodes_[obj].first; p != c; p = nodes_[p].next)
    if (Key(p) == k) return kJNone;  // an earlier member has this key
  JIdx v = c;
  for (JIdx n = nodes_[c].next; n != kJNone; n = nodes_[n].next)
    if (Key(n) == k) v = n;
  return v;
}

bool JTree::AppendIntList(std::string& out, JIdx i) const {
  if (nodes_[i].kind != JKind::kArray) return false;
  for (JIdx c = nodes_[i].first; c != kJNone; c = nodes_[c].next)
    if (nodes_[c].kind != JKind::kInt) return false;
  StrWriter w(out);
  w.Put('[');
  for (JIdx c = nodes_[i].first; c != kJNone; c = nodes_[c].next) {
    if (c != nodes_[i].first) w.Put(", ");
    w.PutInt(nodes_[c].i);
  }
  w.Put(']');
  return true;
}

void JTree::AppendPyRepr(std::string& out, JIdx i) const {
  // Fast path for the common case, a shape: a flat list of integers.
  if (AppendIntList(out, i)) return;
  // Iterative on purpose: nesting depth comes from user files.
  struct Frame {
    JIdx node;
    JIdx child;
    bool first;
  };
  std::vector<Frame> stack;
  auto emit_scalar = [&](JIdx k) {
    const JNode& n = nodes_[k];
    switch (n.kind) {
      case JKind::kNull: out += "None"; break;
      case JKind::kBool: out += n.b ? "True" : "False"; break;
      case JKind::kInt: {
        char buf[24];
        out.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, n.i).ptr - buf));
        break;
      }
      case JKind::kBigInt: out += Str(k); break;
      case JKind::kFloat:
        if (n.str_len != 0)
          out.append(text_.data() + n.str_off, n.str_len);  // the token, already repr
        else
          AppendPyFloat(out, n.d);
        break;
      case JKind::kString: AppendPyReprString(out, Str(k)); break;
      default: break;
    }
  };
  auto open = [&](JIdx k) {
    const JNode& n = nodes_[k];
    if (n.kind == JKind::kArray || n.kind == JKind::kObject) {
      out += n.kind == JKind::kArray ? '[' : '{';
      stack.push_back({k, n.first, true});
    } else {
      emit_scalar(k);
    }
  };
  open(i);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.child == kJNone) {
      out += nodes_[f.node].kind == JKind::kArray ? ']' : '}';
      stack.pop_back();
      continue;
    }
    JIdx c = f.child;
    f.child = nodes_[c].next;
    if (nodes_[f.node].kind == JKind::kObject) {
      JIdx v = DictMember(f.node, c);
      if (v == kJNone) continue;  // a repeated key: printed at its first position
      if (!f.first) out += ", ";
      f.first = false;
      AppendPyReprString(out, Key(c));
      out += ": ";
      open(v);  // may invalidate f
      continue;
    }
    if (!f.first) out += ", ";
    f.first = false;
    open(c);  // may invalidate f
  }
}

void JTree::AppendJson(std::string& out, JIdx i) const {
  if (AppendIntList(out, i)) return;  // a shape: json.dumps writes it as repr does
  struct Frame {
    JIdx node;
    JIdx child;
    bool first;
  };
  std::vector<Frame> stack;
  auto open = [&](JIdx k) {
    const JNode& n = nodes_[k];
    switch (n.kind) {
      case JKind::kNull: out += "null"; return;
      case JKind::kBool: out += n.b ? "true" : "false"; return;
      case JKind::kInt: {
        char buf[24];
        out.append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, n.i).ptr - buf));
        return;
      }
      case JKind::kBigInt: out += Str(k); return;
      case JKind::kFloat:
        if (n.str_len != 0)
          out.append(text_.data() + n.str_off, n.str_len);  // finite: json.dumps is repr
        else
          AppendJsonFloat(out, n.d);
        return;
      case JKind::kString: AppendJsonString(out, Str(k)); return;
      default: break;
    }
    out += n.kind == JKind::kArray ? '[' : '{';
    stack.push_back({k, n.first, true});
  };
  open(i);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.child == kJNone) {
      out += nodes_[f.node].kind == JKind::kArray ? ']' : '}';
      stack.pop_back();
      continue;
    }
    JIdx c = f.child;
    f.child = nodes_[c].next;
    if (nodes_[f.node].kind == JKind::kObject) {
      JIdx v = DictMember(f.node, c);
      if (v == kJNone) continue;
      if (!f.first) out += ", ";
      f.first = false;
      AppendJsonString(out, Key(c));
      out += ": ";
      open(v);
      continue;
    }
    if (!f.first) out += ", ";
    f.first = false;
    open(c);
  }
}

}  // namespace visprobe
