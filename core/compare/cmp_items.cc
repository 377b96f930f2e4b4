// Captured comparison items in their compact byte form (PackCmpItems / UnpackCmpItems): varint
// lengths, one kind byte per value, numbers as their raw 8 bytes.
#include "compare/cmp_items.h"

#include <algorithm>
#include <cstring>

namespace visprobe {

namespace {

void PutLen(std::string& out, size_t n) {
  while (n >= 0x80) {
    out += static_cast<char>((n & 0x7F) | 0x80);
    n >>= 7;
  }
  out += static_cast<char>(n);
}

size_t GetLen(std::string_view in, size_t* pos) {
  size_t n = 0;
  int shift = 0;
  while (*pos < in.size()) {
    unsigned char c = static_cast<unsigned char>(in[(*pos)++]);
    n |= static_cast<size_t>(c & 0x7F) << shift;
    if (!(c & 0x80)) break;
    shift += 7;
  }
  return n;
}

void PutStr(std::string& out, const std::string& s) {
  PutLen(out, s.size());
  out += s;
}

void GetStr(std::string_view in, size_t* pos, std::string* s) {
  size_t n = GetLen(in, pos);
  n = std::min(n, in.size() - *pos);
  s->assign(in.data() + *pos, n);
  *pos += n;
}

void PutValue(std::string& out, const CmpValue& v) {
  out += static_cast<char>(v.kind);
  switch (v.kind) {
    case CmpValue::kNull: break;
    case CmpValue::kBool: out += v.b ? '\1' : '\0'; break;
    case CmpValue::kInt: out.append(reinterpret_cast<const char*>(&v.i), sizeof v.i); break;
    case CmpValue::kFloat: out.append(reinterpret_cast<const char*>(&v.d), sizeof v.d); break;
    default: PutStr(out, v.s);
  }
}

// Into `v` as it is, keeping its string's buffer.
void GetValue(std::string_view in, size_t* pos, CmpValue* v) {
  v->kind = CmpValue::kNull;
  v->b = false;
  v->i = 0;
  v->d = 0;
  v->s.clear();
  if (*pos >= in.size()) return;
  v->kind = static_cast<CmpValue::Kind>(in[(*pos)++]);
  switch (v->kind) {
    case CmpValue::kNull: break;
    case CmpValue::kBool: v->b = *pos < in.size() && in[(*pos)++] != 0; break;
    case CmpValue::kInt:
      if (*pos + sizeof v->i <= in.size()) std::memcpy(&v->i, in.data() + *pos, sizeof v->i);
      *pos += sizeof v->i;
      break;
    case CmpValue::kFloat:
      if (*pos + sizeof v->d <= in.size()) std::memcpy(&v->d, in.data() + *pos, sizeof v->d);
      *pos += sizeof v->d;
      break;
    default: GetStr(in, pos, &v->s);
  }
}

}  // namespace

std::string PackCmpItems(const std::vector<CmpItem>& items) {
  std::string out;
  PutLen(out, items.size());
  for (const CmpItem& c : items) {
    PutStr(out, c.name);
    out += static_cast<char>(c.state);
    for (const CmpValue* v : {&c.dtype, &c.shape, &c.requires_grad, &c.stats[0], &c.stats[1], &c.stats[2], &c.stats[3], &c.md5})
      PutValue(out, *v);
    PutStr(out, c.data_name);
  }
  out.shrink_to_fit();
  return out;
}

void UnpackCmpItems(std::string_view in, std::vector<CmpItem>* items) {
  size_t pos = 0;
  size_t n = GetLen(in, &pos);
  n = std::min(n, in.size());
  // The items already there are overwritten in place: their strings keep their buffers.
  if (items->size() < n) items->resize(n);
  size_t k = 0;
  for (; k < n && pos < in.size(); ++k) {
    CmpItem& c = (*items)[k];
    GetStr(in, &pos, &c.name);
    c.state = pos < in.size() ? static_cast<ItemState>(in[pos++]) : ItemState::kInput;
    for (CmpValue* v : {&c.dtype, &c.shape, &c.requires_grad, &c.stats[0], &c.stats[1], &c.stats[2], &c.stats[3], &c.md5})
      GetValue(in, &pos, v);
    GetStr(in, &pos, &c.data_name);
  }
  items->resize(k);
}

std::vector<CmpItem> UnpackCmpItems(std::string_view in) {
  std::vector<CmpItem> items;
  UnpackCmpItems(in, &items);
  return items;
}

}  // namespace visprobe
