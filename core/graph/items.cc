#include "graph/items.h"

#include <charconv>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/pyfmt.h"
#include "base/str_writer.h"
#include "base/thread_init.h"
#include "graph/entry_parser.h"
#include "graph/value_format.h"

namespace visprobe {
namespace {

constexpr int kMaxWalkDepth = 400;

const char* PyTypeName(const JTree& t, JIdx v) {
  if (v == kJNone) return "NoneType";
  switch (t.Kind(v)) {
    case JKind::kNull: return "NoneType";
    case JKind::kBool: return "bool";
    case JKind::kInt:
    case JKind::kBigInt: return "int";
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

}  // namespace

namespace items_internal {

void EntryParser::SetDataName(ItemBuild& it, JIdx dn, const std::string& nm) {
  if (dn != kJNone && t_.Truthy(dn)) {
    SetTree(it, "data_name", dn);
    if (t_.Kind(dn) == JKind::kString) {
      it.data_name.assign(t_.Str(dn));
      it.data_name_is_str = true;
    } else
      it.data_name = t_.PyStr(dn);
  } else {
    SetLit(it, "data_name", "-1");
    it.data_name = "-1";
  }
  if (it.data_name != "-1")
    it.full_op_name.assign(it.data_name, 0, it.data_name.rfind('.'));  // npos: all of it
  else
    it.full_op_name.assign(nm);
}

EntryParser::Texts& EntryParser::ThreadTexts() {
  static VP_THREAD_LOCAL Texts t;
  return t;
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
    if (t_.Kind(c) == JKind::kBool)
      SetLit(it, k, t_.at(c).b ? "True" : "False");
    else
      SetTree(it, k, c);
    switch (k.size()) {
      case 3:
        if (k == "md5") md5 = c;
        break;
      case 4:
        if (k == "type") type = c;
        break;
      case 5:
        if (k == "dtype")
          dtype = c;
        else if (k == "value")
          value = c;
        break;
      case 9:
        if (k == "data_name") data_name = c;
        break;
      default: break;
    }
  }
  SetDataName(it, data_name, nm);
  AddIfAbsent(it, "requires_grad");
  for (const char* s : {"Max", "Min", "Mean", "Norm"}) AddIfAbsent(it, s);

  std::string md5_text;
  bool md5_of_text = false;
  if (!t_.Truthy(dtype)) md5_of_text = SetUntypedFields(it, leaf, nm, type, value, &md5_text);
  if (opts_.keep_md5 && !t_.Truthy(md5)) {
    if (md5_of_text)
      SetLit(it, "md5", Crc32Hex(md5_text));
    else if (value != kJNone)
      SetLit(it, "md5", Crc32Hex(t_.PyStr(value)));
    else
      SetLit(it, "md5", "00000000");
  }
  return it;
}

inline void EntryParser::SetStats(ItemBuild& it, JIdx v) {
  for (const char* s : {"Max", "Min", "Mean", "Norm"}) {
    if (v == kJNone)
      SetNull(it, s);
    else
      SetTree(it, s, v);
  }
}

inline void EntryParser::SetStatsLit(ItemBuild& it, const std::string& v) {
  for (const char* s : {"Max", "Min", "Mean", "Norm"}) SetLit(it, s, v);
}

bool EntryParser::SetUntypedFields(ItemBuild& it, JIdx leaf, const std::string& nm, JIdx type, JIdx value,
                                   std::string* md5_text) {
  const std::string_view type_s = (type != kJNone && t_.Kind(type) == JKind::kString) ? t_.Str(type) : std::string_view();
  const std::string_view last = LastSegment(nm);
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
    SetStats(it, value);
  } else if (last == "src" || last == "dst" || last == "group_src" || last == "group_dst") {
    if (type != kJNone)
      SetTree(it, "dtype", type);
    else
      SetNull(it, "dtype");
    SetLit(it, "shape", "[]");
    *md5_text = value == kJNone ? std::string("None") : t_.PyStr(value);
    SetStatsLit(it, *md5_text);
    return true;
  } else if (type_s == "torch.ProcessGroup") {
    SetLit(it, "dtype", "torch.ProcessGroup");
    SetLit(it, "shape", "[]");
    JIdx gr = t_.Find(leaf, "group_ranks");
    *md5_text = gr == kJNone ? std::string("None") : t_.PyStr(gr);
    SetStatsLit(it, *md5_text);
    return true;
  } else {
    SetLit(it, "dtype", std::string("<class '") + PyTypeName(t_, value) + "'>");
    SetLit(it, "shape", "[]");
    SetStats(it, value);
  }
  return false;
}

Status EntryParser::Walk(JIdx v, std::string& nm, int depth) {
  if (depth > kMaxWalkDepth) return InvalidInput(Msg<msg::kEntryNestedMoreThan>(node_, kMaxWalkDepth));
  JKind k = t_.Kind(v);
  if (k == JKind::kNull) {
    ItemBuild& it = DefaultItem(nm);
    Emit(it);
    return Status::Ok();
  }
  if (!t_.Truthy(v)) return Status::Ok();
  if (k == JKind::kArray) {
    // Whether a dot-separated part of the name is "parameters_grad" (rarely any part contains it).
    bool pg = false;
    const std::string_view whole(nm);
    constexpr std::string_view kPg = "parameters_grad";
    if (whole.find(kPg) != std::string_view::npos) {
      for (size_t s = 0, e; s <= whole.size(); s = e + 1) {
        e = whole.find('.', s);
        if (e == std::string_view::npos) e = whole.size();
        if (whole.substr(s, e - s) == kPg) {
          pg = true;
          break;
        }
      }
    }
    uint32_t i = 0;
    for (JIdx c = t_.at(v).first; c != kJNone; c = t_.at(c).next, ++i) {
      if (pg) {
        RETURN_IF_ERROR(Walk(c, nm, depth + 1));
        continue;
      }
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
      if (x == kJNone)
        SetNull(it, f);
      else if (t_.Kind(x) == JKind::kBool)
        SetLit(it, f, t_.at(x).b ? "True" : "False");
      else
        SetTree(it, f, x);
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

void EntryParser::Render(const ItemBuild& it, std::string& text, bool* collapsed, bool* is_group) {
  text.clear();
  bool process_group = false;
  for (const auto& fld : it.fields)
    if (fld.name == "type" && fld.kind == Field::kTree && t_.Kind(fld.j) == JKind::kString &&
        t_.Str(fld.j) == "torch.ProcessGroup")
      process_group = true;
  std::string& val = val_;
  bool first = true;
  *collapsed = false;
  *is_group = process_group;
  StrWriter w(text);
  for (const auto& f : it.fields) {
    std::string_view n = f.name;
    if (n == "md5" && !opts_.keep_md5) continue;
    if (batch_p2p_node_ && (n == "op" || n == "peer" || n == "tag" || n == "group_id")) continue;
    if (process_group && !(n == "type" || n == "group_ranks" || n == "group_id" || n == "data_name")) continue;
    if (!first) w.Put(", ");
    first = false;
    AppendJsonString(w, n);
    w.Put(": ");
    if (n == "error_key") {
      if (f.kind == Field::kTree) {
        t_.AppendJson(w.Done(), f.j);
        w.Sync();
      } else if (f.kind == Field::kLit)
        AppendJsonString(w, std::string_view(it.lits).substr(f.lit_off, f.lit_len));
      else
        w.Put("null");
      continue;
    }
    if (f.kind == Field::kTree) {
      RenderValue(w, f.j, n == "Max", collapsed);
      continue;
    }
    val.clear();
    if (f.kind == Field::kNull)
      val = "null";
    else
      AppendFormattedString(val, std::string_view(it.lits).substr(f.lit_off, f.lit_len));
    if (n == "Max" && val == "null") *collapsed = true;
    AppendJsonString(w, val);
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
  if (t_.Kind(f.j) == JKind::kBool) {  // a boolean kept as a tree (data_name), not as a literal
    v->kind = CmpValue::kBool;
    v->b = t_.at(f.j).b;
    return;
  }
  CaptureMember(f.j, v);
}

void EntryParser::Capture(const ItemBuild& it, CmpItem* c) const {
  c->name = it.full_op_name;
  c->state = state_;
  c->data_name = it.data_name;
  // One pass over the fields (each name is there once): a field not there stays None.
  CmpValue* const all[] = {&c->dtype,    &c->shape,    &c->requires_grad, &c->stats[0],
                           &c->stats[1], &c->stats[2], &c->stats[3],      &c->md5};
  for (CmpValue* v : all) *v = CmpValue();
  for (const Field& f : it.fields) {
    const std::string_view n = f.name;
    CmpValue* v = nullptr;
    if (n == "dtype")
      v = &c->dtype;
    else if (n == "shape")
      v = &c->shape;
    else if (n == "requires_grad")
      v = &c->requires_grad;
    else if (n == "Max")
      v = &c->stats[0];
    else if (n == "Min")
      v = &c->stats[1];
    else if (n == "Mean")
      v = &c->stats[2];
    else if (n == "Norm")
      v = &c->stats[3];
    else if (n == "md5")
      v = &c->md5;
    if (v) CaptureValue(it, f, v);
  }
}

void EntryParser::Emit(ItemBuild& it) {
  if (it.full_op_name.empty()) return;
  const std::string& fon = it.full_op_name;
  bool is_output = IsOutputName(fon);
  std::string& key = key_;
  if (!is_output && it.data_name_is_str && it.data_name != "-1")
    key.assign(it.data_name, 0, it.data_name.rfind('.'));
  else
    key.assign(fon);

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
      if (out_.Key(r) == key) {
        r = ref;
        return;
      }
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

}  // namespace items_internal

namespace {

using items_internal::EntryParser;

Status ParseEntryItemsInto(const JTree& t, JIdx entry, std::string_view name, const ItemOptions& opts, NodeItems& out) {
  EntryParser p(t, name, opts, out);
  std::string& nm = p.NameScratch();
  nm.assign(name.data(), name.size());
  std::string_view last = LastSegment(name);
  std::string_view second_last;
  if (auto k = name.rfind('.'); k != std::string_view::npos) second_last = LastSegment(name.substr(0, k));
  if (last == "debug") {
    p.SetState(ItemState::kDebug);
    return p.Walk(entry, nm, 0);
  }
  if (last == "parameters_grad" || second_last == "parameters_grad") {
    p.SetState(ItemState::kParametersGrad);
    return p.Walk(entry, nm, 0);
  }
  if (t.Kind(entry) != JKind::kObject) return Status::Ok();
  static const struct {
    const char* key;
    const char* suffix;
    ItemState state;
  } kParts[] = {{"input_args", ".input", ItemState::kInput},
                {"input_kwargs", ".input", ItemState::kInput},
                {"input", ".input", ItemState::kInput},
                {"output", ".output", ItemState::kOutput},
                {"parameters", ".parameters", ItemState::kParameters}};
  for (const auto& part : kParts) {
    JIdx v = t.Find(entry, part.key);
    if (v == kJNone) continue;
    p.SetState(part.state);
    nm.assign(name.data(), name.size());  // the entry's name again for each part
    nm += part.suffix;
    RETURN_IF_ERROR(p.Walk(v, nm, 0));
  }
  return Status::Ok();
}

}  // namespace

Status ParseEntryItems(const JTree& t, JIdx entry, std::string_view name, const ItemOptions& opts, NodeItems& out) {
  // Into `out` as it is, keeping its buffers: the callers reuse one NodeItems per thread and copy
  // what they keep (the copy is exact-size), so nothing is allocated item by item once warm.
  out.blob.clear();
  out.inputs.clear();
  out.outputs.clear();
  out.cmp.clear();
  return ParseEntryItemsInto(t, entry, name, opts, out);
}

}  // namespace visprobe
