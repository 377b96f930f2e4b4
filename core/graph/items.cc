#include "graph/items.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/pyfmt.h"
#include "base/thread_init.h"

namespace visprobe {
namespace {

constexpr int kMaxWalkDepth = 400;

// One field of an item under construction: a raw JSON value, a literal string, or null.
struct Field {
  std::string_view name;
  enum Kind : uint8_t { kTree, kLit, kNull } kind = kNull;
  JIdx j = kJNone;
  uint32_t lit_off = 0, lit_len = 0;
};

struct ItemBuild {
  std::vector<Field> fields;
  std::string lits;       // literal strings of this item
  std::string full_op_name;
  std::string data_name;  // "-1" when absent
  bool data_name_is_str = false;
};

class EntryParser {
 public:
  EntryParser(const JTree& t, std::string_view node, const ItemOptions& o, NodeItems& out)
      : t_(t), node_(node), opts_(o), out_(out) {
    batch_p2p_node_ = node.find("batch_isend_irecv") != std::string_view::npos;
  }

  // `nm` is the item name so far; children extend it in place and cut it back (no string per child).
  Status Walk(JIdx v, std::string& nm, int depth);
  void SetState(ItemState s) { state_ = s; }
  Status Finish();

 private:
  static Field* FindField(ItemBuild& it, std::string_view name) {
    for (auto& f : it.fields) if (f.name == name) return &f;
    return nullptr;
  }
  void SetTree(ItemBuild& it, std::string_view name, JIdx j) {
    Field* f = FindField(it, name);
    if (!f) { it.fields.push_back({}); f = &it.fields.back(); f->name = name; }
    f->kind = Field::kTree; f->j = j;
  }
  void SetLit(ItemBuild& it, std::string_view name, std::string_view s) {
    Field* f = FindField(it, name);
    if (!f) { it.fields.push_back({}); f = &it.fields.back(); f->name = name; }
    f->kind = Field::kLit; f->lit_off = static_cast<uint32_t>(it.lits.size()); f->lit_len = static_cast<uint32_t>(s.size());
    it.lits.append(s.data(), s.size());
  }
  void SetNull(ItemBuild& it, std::string_view name) {
    Field* f = FindField(it, name);
    if (!f) { it.fields.push_back({}); f = &it.fields.back(); f->name = name; }
    f->kind = Field::kNull;
  }
  void AddIfAbsent(ItemBuild& it, std::string_view name) { if (!FindField(it, name)) SetNull(it, name); }

  void SetDataName(ItemBuild& it, JIdx dn, const std::string& nm);
  // The common leaf written straight into the blob: true when it was (or when, as Emit would,
  // it was dropped), false when it needs the general way (GenItem, then Emit).
  bool FastLeaf(JIdx leaf, const std::string& nm);
  void RenderValue(JIdx c, bool is_max, bool* collapsed);
  void CaptureMember(JIdx c, CmpValue* v) const;
  // Adds an item to the inputs or outputs: a later item with the same key replaces the earlier one.
  void Place(const ItemRef& ref, bool is_output, std::string_view key);
  // Items are built one at a time (never two at once), in one reused ItemBuild per thread.
  static ItemBuild& Fresh();
  ItemBuild& GenItem(JIdx leaf, const std::string& nm);
  ItemBuild& DefaultItem(const std::string& nm);
  void Emit(ItemBuild& it);
  void Capture(const ItemBuild& it, CmpItem* c) const;
  void CaptureValue(const ItemBuild& it, const Field& f, CmpValue* v) const;
  void Render(const ItemBuild& it, std::string& text, bool* collapsed, bool* is_group);

  const JTree& t_;
  std::string_view node_;
  const ItemOptions& opts_;
  NodeItems& out_;
  bool batch_p2p_node_ = false;
  ItemState state_ = ItemState::kInput;
  std::string text_, key_, val_, dn_, fon_;
  // key -> index in out_.inputs / out_.outputs (for "later replaces earlier, first position").
  std::unordered_map<std::string, uint32_t> in_pos_, out_pos_;
};

const char* PyTypeName(const JTree& t, JIdx v) {
  if (v == kJNone) return "NoneType";
  switch (t.Kind(v)) {
    case JKind::kNull: return "NoneType";
    case JKind::kBool: return "bool";
    case JKind::kInt: case JKind::kBigInt: return "int";
    case JKind::kFloat: return "float";
    case JKind::kString: return "str";
    case JKind::kArray: return "list";
    case JKind::kObject: return "dict";
  }
  return "NoneType";
}

std::string_view LastSegment(std::string_view s) {
  auto k = s.rfind('.');
  return k == std::string_view::npos ? s : s.substr(k + 1);
}

void EntryParser::SetDataName(ItemBuild& it, JIdx dn, const std::string& nm) {
  if (dn != kJNone && t_.Truthy(dn)) {
    SetTree(it, "data_name", dn);
    if (t_.Kind(dn) == JKind::kString) { it.data_name.assign(t_.Str(dn)); it.data_name_is_str = true; }
    else it.data_name = t_.PyStr(dn);
  } else {
    SetLit(it, "data_name", "-1");
    it.data_name = "-1";
  }
  if (it.data_name != "-1") it.full_op_name.assign(it.data_name, 0, it.data_name.rfind('.'));   // npos: all of it
  else it.full_op_name.assign(nm);
}

ItemBuild& EntryParser::Fresh() {
  static VP_THREAD_LOCAL ItemBuild b;
  b.fields.clear();
  b.lits.clear();
  b.full_op_name.clear();
  b.data_name.clear();
  b.data_name_is_str = false;
  return b;
}

ItemBuild& EntryParser::DefaultItem(const std::string& nm) {
  ItemBuild& it = Fresh();
  for (const char* k : {"type", "dtype", "shape", "md5", "Max", "Min", "Mean", "Norm"}) SetNull(it, k);
  SetLit(it, "data_name", "-1");
  it.data_name = "-1";
  it.full_op_name = nm;
  SetNull(it, "requires_grad");
  return it;
}

ItemBuild& EntryParser::GenItem(JIdx leaf, const std::string& nm) {
  ItemBuild& it = Fresh();
  // The members this function reads, found in the same pass (the last of a repeated key, as Find).
  JIdx data_name = kJNone, dtype = kJNone, value = kJNone, type = kJNone, md5 = kJNone;
  for (JIdx c = t_.at(leaf).first; c != kJNone; c = t_.at(c).next) {
    const std::string_view k = t_.Key(c);
    if (t_.Kind(c) == JKind::kBool) SetLit(it, k, t_.at(c).b ? "True" : "False");
    else SetTree(it, k, c);
    switch (k.size()) {
      case 3: if (k == "md5") md5 = c; break;
      case 4: if (k == "type") type = c; break;
      case 5: if (k == "dtype") dtype = c; else if (k == "value") value = c; break;
      case 9: if (k == "data_name") data_name = c; break;
      default: break;
    }
  }
  SetDataName(it, data_name, nm);
  AddIfAbsent(it, "requires_grad");
  for (const char* s : {"Max", "Min", "Mean", "Norm"}) AddIfAbsent(it, s);

  std::string_view type_s = (type != kJNone && t_.Kind(type) == JKind::kString) ? t_.Str(type) : std::string_view();
  std::string md5_override;
  bool has_md5_override = false;
  if (!t_.Truthy(dtype)) {
    auto set_stats_tree = [&](JIdx v) {
      for (const char* s : {"Max", "Min", "Mean", "Norm"}) { if (v == kJNone) SetNull(it, s); else SetTree(it, s, v); }
    };
    auto set_stats_lit = [&](const std::string& v) { for (const char* s : {"Max", "Min", "Mean", "Norm"}) SetLit(it, s, v); };
    std::string_view last = LastSegment(nm);
    if (type_s == "torch.Size") {
      SetLit(it, "dtype", "torch.Size");
      SetLit(it, "shape", value == kJNone ? std::string("None") : t_.PyStr(value));
    } else if (type_s == "slice") {
      SetLit(it, "dtype", "slice");
      // numpy shape of the value; such items have no statistics and print as {"value": "null"}.
      std::string shape = "()";
      if (value != kJNone && t_.Kind(value) == JKind::kArray) shape = "(" + std::to_string(t_.at(value).count) + ",)";
      SetLit(it, "shape", shape);
    } else if (type_s == "ellipsis") {
      SetLit(it, "dtype", "ellipsis");
      SetLit(it, "shape", "[]");
      set_stats_tree(value);
    } else if (last == "src" || last == "dst" || last == "group_src" || last == "group_dst") {
      if (type != kJNone) SetTree(it, "dtype", type); else SetNull(it, "dtype");
      SetLit(it, "shape", "[]");
      std::string v = value == kJNone ? std::string("None") : t_.PyStr(value);
      set_stats_lit(v);
      md5_override = v;
      has_md5_override = true;
    } else if (type_s == "torch.ProcessGroup") {
      SetLit(it, "dtype", "torch.ProcessGroup");
      SetLit(it, "shape", "[]");
      JIdx gr = t_.Find(leaf, "group_ranks");
      std::string v = gr == kJNone ? std::string("None") : t_.PyStr(gr);
      set_stats_lit(v);
      md5_override = v;
      has_md5_override = true;
    } else {
      SetLit(it, "dtype", std::string("<class '") + PyTypeName(t_, value) + "'>");
      SetLit(it, "shape", "[]");
      set_stats_tree(value);
    }
  }
  if (opts_.keep_md5) {
    if (!t_.Truthy(md5)) {
      if (has_md5_override) SetLit(it, "md5", Crc32Hex(md5_override));
      else if (value != kJNone) SetLit(it, "md5", Crc32Hex(t_.PyStr(value)));
      else SetLit(it, "md5", "00000000");
    }
  }
  return it;
}

Status EntryParser::Walk(JIdx v, std::string& nm, int depth) {
  if (depth > kMaxWalkDepth)
    return InvalidInput("the entry '" + std::string(node_) + "' is nested more than 400 levels deep (exceeds the recursion limit)");
  JKind k = t_.Kind(v);
  if (k == JKind::kNull) {
    ItemBuild& it = DefaultItem(nm);
    Emit(it);
    return Status::Ok();
  }
  if (!t_.Truthy(v)) return Status::Ok();
  if (k == JKind::kArray) {
    bool pg = false;
    for (size_t s = 0, e; s <= nm.size(); s = e + 1) {
      e = nm.find('.', s);
      if (e == std::string::npos) e = nm.size();
      if (nm.compare(s, e - s, "parameters_grad") == 0) { pg = true; break; }
    }
    uint32_t i = 0;
    for (JIdx c = t_.at(v).first; c != kJNone; c = t_.at(c).next, ++i) {
      if (pg) { RETURN_IF_ERROR(Walk(c, nm, depth + 1)); continue; }
      const size_t keep = nm.size();
      char digits[16];
      nm += '.';
      nm.append(digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, i).ptr - digits));
      RETURN_IF_ERROR(Walk(c, nm, depth + 1));
      nm.resize(keep);
    }
    return Status::Ok();
  }
  if (k != JKind::kObject) return Status::Ok();
  JIdx ct = t_.Find(v, "class_type");
  if (ct != kJNone && t_.Kind(ct) == JKind::kString && t_.Str(ct) == "torch.distributed.P2POp") {
    JIdx tensor = t_.Find(v, "tensor");
    ItemBuild& it = (tensor != kJNone && t_.Kind(tensor) == JKind::kObject) ? GenItem(tensor, nm) : DefaultItem(nm);
    for (const char* f : {"class_type", "op", "peer", "tag", "group_id"}) {
      JIdx x = t_.Find(v, f);
      if (x == kJNone) SetNull(it, f);
      else if (t_.Kind(x) == JKind::kBool) SetLit(it, f, t_.at(x).b ? "True" : "False");
      else SetTree(it, f, x);
    }
    Emit(it);
    return Status::Ok();
  }
  JIdx type = t_.Find(v, "type");
  if (type != kJNone && t_.Kind(type) == JKind::kString) {
    if (FastLeaf(v, nm)) return Status::Ok();
    ItemBuild& it = GenItem(v, nm);
    Emit(it);
    return Status::Ok();
  }
  for (JIdx c = t_.at(v).first; c != kJNone; c = t_.at(c).next) {
    const size_t keep = nm.size();
    nm += '.';
    nm += t_.Key(c);
    RETURN_IF_ERROR(Walk(c, nm, depth + 1));
    nm.resize(keep);
  }
  return Status::Ok();
}

void AppendDecimalRule(std::string& out, const std::string& s) {
  // ^\d{1,20}\.\d{1,20}%?$ with more than 6 decimals -> 6 decimals.
  size_t n = s.size();
  bool pct = n > 0 && s[n - 1] == '%';
  size_t body = pct ? n - 1 : n;
  size_t i = 0;
  while (i < body && s[i] >= '0' && s[i] <= '9') ++i;
  size_t int_digits = i;
  bool ok = int_digits >= 1 && int_digits <= 20 && i < body && s[i] == '.';
  size_t frac = 0;
  if (ok) {
    ++i;
    while (i < body && s[i] >= '0' && s[i] <= '9') ++i, ++frac;
    ok = i == body && frac >= 1 && frac <= 20;
  }
  if (ok && frac > 6) {
    AppendFixed(out, std::strtod(s.substr(0, body).c_str(), nullptr), 6);
    if (pct) out += '%';
    return;
  }
  out += s;
}

}  // namespace

void AppendFormattedRepr(std::string& out, double v, std::string_view suffix) {
  const size_t start = out.size();
  AppendPyFloat(out, v);
  // The decimal rule's pattern ^\d{1,20}\.\d{1,20}%?$ (sign and exponent forms never match).
  const char* d = out.data() + start;
  const size_t n = out.size() - start;
  size_t i = 0;
  while (i < n && d[i] >= '0' && d[i] <= '9') ++i;
  const size_t point = i;
  bool ok = point >= 1 && point <= 20 && i < n && d[i] == '.' && (suffix.empty() || suffix == "%");
  size_t frac = 0;
  if (ok) {
    for (++i; i < n && d[i] >= '0' && d[i] <= '9'; ++i) ++frac;
    ok = i == n && frac >= 1 && frac <= 20;
  }
  if (!ok || frac <= 6) {
    out.append(suffix.data(), suffix.size());
    return;
  }
  if (frac == 7 && d[n - 1] == '5') {   // a tie in the text: v is on one side of it
    out.resize(start);
    AppendFixed(out, v, 6);
    out.append(suffix.data(), suffix.size());
    return;
  }
  const bool up = d[point + 7] >= '5';
  out.resize(start + point + 7);   // integer digits, the point, 6 decimals
  if (up) {
    size_t k = out.size();
    while (k > start) {
      --k;
      if (out[k] == '.') continue;
      if (out[k] != '9') { ++out[k]; break; }
      out[k] = '0';
      if (k == start) out.insert(out.begin() + static_cast<long>(start), '1');
    }
  }
  out.append(suffix.data(), suffix.size());
}

void AppendFormattedString(std::string& out, std::string_view s) {
  // Fast path: nothing to remove or replace, and not a candidate for the decimal rule.
  if (s.find('\'') == std::string_view::npos && s.find("None") == std::string_view::npos &&
      (s.empty() || s[0] < '0' || s[0] > '9')) {
    out.append(s.data(), s.size());
    return;
  }
  std::string tmp;
  tmp.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\'') continue;
    if (s[i] == 'N' && s.compare(i, 4, "None") == 0) { tmp += "null"; i += 3; continue; }
    tmp += s[i];
  }
  AppendDecimalRule(out, tmp);
}

namespace {

void EntryParser::Render(const ItemBuild& it, std::string& text, bool* collapsed, bool* is_group) {
  text.clear();
  bool process_group = false;
  for (const auto& fld : it.fields)
    if (fld.name == "type" && fld.kind == Field::kTree && t_.Kind(fld.j) == JKind::kString && t_.Str(fld.j) == "torch.ProcessGroup")
      process_group = true;
  std::string& val = val_;
  bool first = true;
  *collapsed = false;
  *is_group = process_group;
  for (const auto& f : it.fields) {
    std::string_view n = f.name;
    if (n == "md5" && !opts_.keep_md5) continue;
    if (batch_p2p_node_ && (n == "op" || n == "peer" || n == "tag" || n == "group_id")) continue;
    if (process_group && !(n == "type" || n == "group_ranks" || n == "group_id" || n == "data_name")) continue;
    if (!first) text += ", ";
    first = false;
    AppendJsonString(text, n);
    text += ": ";
    if (n == "error_key") {
      if (f.kind == Field::kTree) t_.AppendJson(text, f.j);
      else if (f.kind == Field::kLit) AppendJsonString(text, std::string_view(it.lits).substr(f.lit_off, f.lit_len));
      else text += "null";
      continue;
    }
    val.clear();
    if (f.kind == Field::kTree && t_.IsNumber(f.j)) {
      // Numbers print as plain ASCII: no escaping, no rule-3 string processing, never "null".
      text += '"';
      t_.AppendPyStr(text, f.j);
      text += '"';
      continue;
    }
    if (f.kind == Field::kNull || (f.kind == Field::kTree && t_.Kind(f.j) == JKind::kNull)) {
      val = "null";
    } else if (f.kind == Field::kLit) {
      AppendFormattedString(val, std::string_view(it.lits).substr(f.lit_off, f.lit_len));
    } else if (t_.Kind(f.j) == JKind::kString) {
      AppendFormattedString(val, t_.Str(f.j));
    } else {
      t_.AppendPyStr(val, f.j);
    }
    if (n == "Max" && val == "null") *collapsed = true;
    AppendJsonString(text, val);
  }
}

void EntryParser::CaptureValue(const ItemBuild& it, const Field& f, CmpValue* v) const {
  *v = CmpValue();
  if (f.kind == Field::kNull) return;
  if (f.kind == Field::kLit) {
    v->kind = CmpValue::kString;
    v->s.assign(std::string_view(it.lits).substr(f.lit_off, f.lit_len));
    return;
  }
  switch (t_.Kind(f.j)) {
    case JKind::kNull: return;
    case JKind::kBool: v->kind = CmpValue::kBool; v->b = t_.at(f.j).b; return;
    case JKind::kInt: v->kind = CmpValue::kInt; v->i = t_.at(f.j).i; return;
    case JKind::kFloat: v->kind = CmpValue::kFloat; v->d = t_.at(f.j).d; return;
    case JKind::kString: v->kind = CmpValue::kString; v->s.assign(t_.Str(f.j)); return;
    default: v->kind = CmpValue::kJson; t_.AppendJson(v->s, f.j); return;
  }
}

void EntryParser::Capture(const ItemBuild& it, CmpItem* c) const {
  c->name = it.full_op_name;
  c->state = state_;
  c->data_name = it.data_name;
  // One pass over the fields (each name is there once): a field not there stays None.
  CmpValue* const all[] = {&c->dtype, &c->shape, &c->requires_grad, &c->stats[0], &c->stats[1], &c->stats[2], &c->stats[3], &c->md5};
  for (CmpValue* v : all) *v = CmpValue();
  for (const Field& f : it.fields) {
    const std::string_view n = f.name;
    CmpValue* v = nullptr;
    if (n == "dtype") v = &c->dtype;
    else if (n == "shape") v = &c->shape;
    else if (n == "requires_grad") v = &c->requires_grad;
    else if (n == "Max") v = &c->stats[0];
    else if (n == "Min") v = &c->stats[1];
    else if (n == "Mean") v = &c->stats[2];
    else if (n == "Norm") v = &c->stats[3];
    else if (n == "md5") v = &c->md5;
    if (v) CaptureValue(it, f, v);
  }
}

void EntryParser::Emit(ItemBuild& it) {
  if (it.full_op_name.empty()) return;
  const std::string& fon = it.full_op_name;
  bool is_output = fon.find(".output.") != std::string::npos && fon.find(".input.") == std::string::npos;
  std::string& key = key_;
  if (!is_output && it.data_name_is_str && it.data_name != "-1") key.assign(it.data_name, 0, it.data_name.rfind('.'));
  else key.assign(fon);

  bool collapsed = false, is_group = false;
  Render(it, text_, &collapsed, &is_group);
  ItemRef ref;
  ref.key_off = static_cast<uint32_t>(out_.blob.size());
  ref.key_len = static_cast<uint32_t>(key.size());
  out_.blob += key;
  ref.text_off = static_cast<uint32_t>(out_.blob.size());
  ref.text_len = static_cast<uint32_t>(text_.size());
  out_.blob += text_;
  ref.collapsed = collapsed;
  ref.process_group = is_group;
  if (opts_.capture) {
    ref.cmp = static_cast<uint32_t>(out_.cmp.size());
    out_.cmp.emplace_back();
    Capture(it, &out_.cmp.back());
  }

  Place(ref, is_output, key);
}

void EntryParser::Place(const ItemRef& ref, bool is_output, std::string_view key) {
  auto& list = is_output ? out_.outputs : out_.inputs;
  // "A later item with the same key replaces the earlier one, keeping its position" (§7.4).
  // Entries hold a handful of items: a linear scan beats a hash map until they do not.
  if (list.size() < 32) {
    for (ItemRef& r : list)
      if (out_.Key(r) == key) { r = ref; return; }
    list.push_back(ref);
    return;
  }
  auto& pos = is_output ? out_pos_ : in_pos_;
  if (pos.empty())
    for (uint32_t i = 0; i < list.size(); ++i) pos.emplace(std::string(out_.Key(list[i])), i);
  auto found = pos.find(std::string(key));
  if (found != pos.end()) {
    list[found->second] = ref;
  } else {
    pos.emplace(std::string(key), static_cast<uint32_t>(list.size()));
    list.push_back(ref);
  }
}

// AppendFormattedString leaves s as it is (its fast path).
bool FormatsAsItself(std::string_view s) {
  return s.find('\'') == std::string_view::npos && s.find("None") == std::string_view::npos &&
         (s.empty() || s[0] < '0' || s[0] > '9');
}

// One member's value as Render writes a field of the leaf (a boolean member is the literal
// "True" / "False" there, which formats as itself).
void EntryParser::RenderValue(JIdx c, bool is_max, bool* collapsed) {
  std::string& b = out_.blob;
  switch (t_.Kind(c)) {
    case JKind::kBool:
      b += t_.at(c).b ? "\"True\"" : "\"False\"";
      return;
    case JKind::kNull:
      b += "\"null\"";
      if (is_max) *collapsed = true;
      return;
    case JKind::kInt: case JKind::kFloat: case JKind::kBigInt:
      b += '"';
      t_.AppendPyStr(b, c);
      b += '"';
      return;
    case JKind::kString: {
      const std::string_view s = t_.Str(c);
      if (FormatsAsItself(s)) {
        if (is_max && s == "null") *collapsed = true;
        AppendJsonString(b, s);
        return;
      }
      val_.clear();
      AppendFormattedString(val_, s);
      break;
    }
    default:
      val_.clear();
      t_.AppendPyStr(val_, c);
      break;
  }
  if (is_max && val_ == "null") *collapsed = true;
  AppendJsonString(b, val_);
}

// CaptureValue of the field GenItem makes of member c (a boolean member is a literal string).
void EntryParser::CaptureMember(JIdx c, CmpValue* v) const {
  *v = CmpValue();
  switch (t_.Kind(c)) {
    case JKind::kNull: return;
    case JKind::kBool: v->kind = CmpValue::kString; v->s.assign(t_.at(c).b ? "True" : "False"); return;
    case JKind::kInt: v->kind = CmpValue::kInt; v->i = t_.at(c).i; return;
    case JKind::kFloat: v->kind = CmpValue::kFloat; v->d = t_.at(c).d; return;
    case JKind::kString: v->kind = CmpValue::kString; v->s.assign(t_.Str(c)); return;
    default: v->kind = CmpValue::kJson; t_.AppendJson(v->s, c); return;
  }
}

// GenItem + Emit in one pass for the leaf almost every record is made of: a string "type" that is
// not torch.ProcessGroup, a truthy "dtype" (so none of GenItem's rules for values without one),
// no repeated key (a later one would replace an earlier one's value in its position), no
// "error_key", md5 not to be made up, not a batch_isend_irecv node. Its fields are its members in
// order, then data_name, requires_grad, Max, Min, Mean and Norm where absent (GenItem's order),
// and each is written as Render writes it. The corpus and the generated dumps give the same rows
// both ways (tests/core/test_items.cc runs both on every leaf shape).
VP_THREAD_LOCAL uint64_t one_pass_leaves = 0;

bool EntryParser::FastLeaf(JIdx leaf, const std::string& nm) {
  if (batch_p2p_node_ || opts_.general_only) return false;
  constexpr int kMaxMembers = 24;
  JIdx mem[kMaxMembers];
  int n = 0;
  JIdx type = kJNone, dtype = kJNone, shape = kJNone, data_name = kJNone, md5 = kJNone, rg = kJNone;
  JIdx stat[4] = {kJNone, kJNone, kJNone, kJNone};
  for (JIdx c = t_.at(leaf).first; c != kJNone; c = t_.at(c).next) {
    if (n == kMaxMembers) return false;
    const std::string_view k = t_.Key(c);
    for (int j = 0; j < n; ++j) {
      const std::string_view o = t_.Key(mem[j]);
      if (o.size() == k.size() && o == k) return false;
    }
    mem[n++] = c;
    switch (k.size()) {
      case 3:
        if (k == "md5") md5 = c;
        else if (k == "Max") stat[0] = c;
        else if (k == "Min") stat[1] = c;
        break;
      case 4:
        if (k == "type") type = c;
        else if (k == "Mean") stat[2] = c;
        else if (k == "Norm") stat[3] = c;
        break;
      case 5:
        if (k == "dtype") dtype = c;
        else if (k == "shape") shape = c;
        break;
      case 9:
        if (k == "data_name") data_name = c;
        else if (k == "error_key") return false;
        break;
      case 13: if (k == "requires_grad") rg = c; break;
      default: break;
    }
  }
  if (type == kJNone || t_.Kind(type) != JKind::kString || t_.Str(type) == "torch.ProcessGroup") return false;
  if (!t_.Truthy(dtype)) return false;
  if (opts_.keep_md5 && !t_.Truthy(md5)) return false;

  // SetDataName and Emit's key.
  const bool dn_truthy = t_.Truthy(data_name);
  const bool dn_is_str = dn_truthy && t_.Kind(data_name) == JKind::kString;
  std::string& dn = dn_;
  if (dn_is_str) dn.assign(t_.Str(data_name));
  else if (dn_truthy) { dn.clear(); t_.AppendPyStr(dn, data_name); }
  else dn.assign("-1");
  std::string& fon = fon_;
  if (dn != "-1") fon.assign(dn, 0, dn.rfind('.'));
  else fon.assign(nm);
  if (fon.empty()) return true;   // Emit drops an item without a name
  const bool is_output = fon.find(".output.") != std::string::npos && fon.find(".input.") == std::string::npos;
  std::string& key = key_;
  if (!is_output && dn_is_str && dn != "-1") key.assign(dn, 0, dn.rfind('.'));
  else key.assign(fon);

  std::string& b = out_.blob;
  ItemRef ref;
  ref.key_off = static_cast<uint32_t>(b.size());
  ref.key_len = static_cast<uint32_t>(key.size());
  b += key;
  ref.text_off = static_cast<uint32_t>(b.size());
  bool first = true, collapsed = false;
  auto name = [&](std::string_view f) {
    if (!first) b += ", ";
    first = false;
    AppendJsonString(b, f);
    b += ": ";
  };
  for (int j = 0; j < n; ++j) {
    const JIdx c = mem[j];
    if (c == md5 && !opts_.keep_md5) continue;
    name(t_.Key(c));
    if (c == data_name && !dn_truthy) b += "\"-1\"";
    else RenderValue(c, c == stat[0], &collapsed);
  }
  if (data_name == kJNone) { name("data_name"); b += "\"-1\""; }
  if (rg == kJNone) { name("requires_grad"); b += "\"null\""; }
  static const char* const kStats[] = {"Max", "Min", "Mean", "Norm"};
  for (int i = 0; i < 4; ++i) {
    if (stat[i] != kJNone) continue;
    name(kStats[i]);
    b += "\"null\"";
    if (i == 0) collapsed = true;
  }
  ref.text_len = static_cast<uint32_t>(b.size() - ref.text_off);
  ref.collapsed = collapsed;
  if (opts_.capture) {
    ref.cmp = static_cast<uint32_t>(out_.cmp.size());
    out_.cmp.emplace_back();
    CmpItem& ci = out_.cmp.back();
    ci.name = fon;
    ci.state = state_;
    ci.data_name = dn;
    if (dtype != kJNone) CaptureMember(dtype, &ci.dtype);
    if (shape != kJNone) CaptureMember(shape, &ci.shape);
    if (rg != kJNone) CaptureMember(rg, &ci.requires_grad);
    for (int i = 0; i < 4; ++i) if (stat[i] != kJNone) CaptureMember(stat[i], &ci.stats[i]);
    if (md5 != kJNone) CaptureMember(md5, &ci.md5);
  }
  Place(ref, is_output, key);
  ++one_pass_leaves;
  return true;
}

}  // namespace

namespace {
Status ParseEntryItemsInto(const JTree& t, JIdx entry, std::string_view name, const ItemOptions& opts, NodeItems& out);
}  // namespace

uint64_t OnePassLeavesOfThisThread() { return one_pass_leaves; }

Status ParseEntryItems(const JTree& t, JIdx entry, std::string_view name, const ItemOptions& opts, NodeItems& out) {
  // Into `out` as it is, keeping its buffers: the callers reuse one NodeItems per thread and copy
  // what they keep (the copy is exact-size), so nothing is allocated item by item once warm.
  out.blob.clear();
  out.inputs.clear();
  out.outputs.clear();
  out.cmp.clear();
  return ParseEntryItemsInto(t, entry, name, opts, out);
}

namespace {
Status ParseEntryItemsInto(const JTree& t, JIdx entry, std::string_view name, const ItemOptions& opts, NodeItems& out) {
  EntryParser p(t, name, opts, out);
  std::string nm(name);
  std::string_view last = LastSegment(name);
  std::string_view second_last;
  if (auto k = name.rfind('.'); k != std::string_view::npos) second_last = LastSegment(name.substr(0, k));
  if (last == "debug") { p.SetState(ItemState::kDebug); return p.Walk(entry, nm, 0); }
  if (last == "parameters_grad" || second_last == "parameters_grad") {
    p.SetState(ItemState::kParametersGrad);
    return p.Walk(entry, nm, 0);
  }
  if (t.Kind(entry) != JKind::kObject) return Status::Ok();
  static const struct { const char* key; const char* suffix; ItemState state; } kParts[] = {
      {"input_args", ".input", ItemState::kInput}, {"input_kwargs", ".input", ItemState::kInput},
      {"input", ".input", ItemState::kInput}, {"output", ".output", ItemState::kOutput},
      {"parameters", ".parameters", ItemState::kParameters}};
  for (const auto& part : kParts) {
    JIdx v = t.Find(entry, part.key);
    if (v == kJNone) continue;
    p.SetState(part.state);
    std::string part_name = nm + part.suffix;
    RETURN_IF_ERROR(p.Walk(v, part_name, 0));
  }
  return Status::Ok();
}

}  // namespace

}  // namespace visprobe
