// Part of graph/entry_parser.h: EntryParser's one-pass leaf (and graph/items.h's OnePassLeavesOfThisThread).
// The one-pass way for the common tensor leaf (EntryParser::FastLeaf) and the value rules it
// shares with the general way in items.cc.
#include <string>

#include "base/pyfmt.h"
#include "base/str_writer.h"
#include "base/thread_init.h"
#include "graph/entry_parser.h"
#include "graph/value_format.h"

namespace visprobe {
namespace items_internal {

// (A boolean member is the literal "True" / "False" in GenItem's fields, which formats as itself.)
void EntryParser::RenderValue(StrWriter& b, JIdx c, bool is_max, bool* collapsed) {
  switch (t_.Kind(c)) {
    case JKind::kBool: b.Put(t_.at(c).b ? std::string_view("\"True\"") : std::string_view("\"False\"")); return;
    case JKind::kNull:
      b.Put("\"null\"");
      if (is_max) *collapsed = true;
      return;
    case JKind::kInt:
      b.Put('"');
      b.PutInt(t_.at(c).i);
      b.Put('"');
      return;
    case JKind::kFloat:
    case JKind::kBigInt: {
      const JNode& n = t_.at(c);
      b.Put('"');
      if (n.str_len != 0)
        b.Put(t_.Str(c));  // the token: already repr, or a big integer's digits
      else
        AppendPyFloat(b, n.d);
      b.Put('"');
      return;
    }
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

void EntryParser::CaptureMember(JIdx c, CmpValue* v) const {
  *v = CmpValue();
  switch (t_.Kind(c)) {
    case JKind::kNull: return;
    case JKind::kBool:
      v->kind = CmpValue::kString;
      v->s.assign(t_.at(c).b ? "True" : "False");
      return;
    case JKind::kInt:
      v->kind = CmpValue::kInt;
      v->i = t_.at(c).i;
      return;
    case JKind::kFloat:
      v->kind = CmpValue::kFloat;
      v->d = t_.at(c).d;
      return;
    case JKind::kString:
      v->kind = CmpValue::kString;
      v->s.assign(t_.Str(c));
      return;
    default:
      v->kind = CmpValue::kJson;
      t_.AppendJson(v->s, c);
      return;
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

// The leaf's members in order, and those FastLeaf reads by name. False: the leaf needs the general
// way (more members than kMax, a repeated key, or an "error_key").
static inline bool FindLeafMembers(const JTree& t, JIdx leaf, LeafMembers* m) {
  for (JIdx c = t.at(leaf).first; c != kJNone; c = t.at(c).next) {
    if (m->n == LeafMembers::kMax) return false;
    const std::string_view k = t.Key(c);
    for (int j = 0; j < m->n; ++j) {
      const std::string_view o = t.Key(m->mem[j]);
      if (o.size() == k.size() && o == k) return false;
    }
    m->mem[m->n++] = c;
    switch (k.size()) {
      case 3:
        if (k == "md5")
          m->md5 = c;
        else if (k == "Max")
          m->stat[0] = c;
        else if (k == "Min")
          m->stat[1] = c;
        break;
      case 4:
        if (k == "type")
          m->type = c;
        else if (k == "Mean")
          m->stat[2] = c;
        else if (k == "Norm")
          m->stat[3] = c;
        break;
      case 5:
        if (k == "dtype")
          m->dtype = c;
        else if (k == "shape")
          m->shape = c;
        break;
      case 9:
        if (k == "data_name")
          m->data_name = c;
        else if (k == "error_key")
          return false;
        break;
      case 13:
        if (k == "requires_grad") m->rg = c;
        break;
      default: break;
    }
  }
  return true;
}

bool EntryParser::FastLeaf(JIdx leaf, const std::string& nm) {
  if (batch_p2p_node_ || opts_.general_only) return false;
  LeafMembers m;
  if (!FindLeafMembers(t_, leaf, &m)) return false;
  if (m.type == kJNone || t_.Kind(m.type) != JKind::kString || t_.Str(m.type) == "torch.ProcessGroup") return false;
  if (!t_.Truthy(m.dtype)) return false;
  if (opts_.keep_md5 && !t_.Truthy(m.md5)) return false;

  // SetDataName and Emit's key.
  const bool dn_truthy = t_.Truthy(m.data_name);
  const bool dn_is_str = dn_truthy && t_.Kind(m.data_name) == JKind::kString;
  std::string& dn = dn_;
  if (dn_is_str)
    dn.assign(t_.Str(m.data_name));
  else if (dn_truthy) {
    dn.clear();
    t_.AppendPyStr(dn, m.data_name);
  } else
    dn.assign("-1");
  std::string& fon = fon_;
  if (dn != "-1")
    fon.assign(dn, 0, dn.rfind('.'));
  else
    fon.assign(nm);
  if (fon.empty()) return true;  // Emit drops an item without a name
  const bool is_output = IsOutputName(fon);
  std::string& key = key_;
  if (!is_output && dn_is_str && dn != "-1")
    key.assign(dn, 0, dn.rfind('.'));
  else
    key.assign(fon);

  ItemRef ref = WriteLeaf(m, key, dn_truthy);
  if (opts_.capture) ref.cmp = CaptureLeaf(m, fon, dn);
  Place(ref, is_output, key);
  ++one_pass_leaves;
  return true;
}

// The key, then the fields as Render writes them, into the blob.
inline ItemRef EntryParser::WriteLeaf(const LeafMembers& m, const std::string& key, bool dn_truthy) {
  StrWriter b(out_.blob);
  ItemRef ref;
  ref.key_off = static_cast<uint32_t>(b.size());
  ref.key_len = static_cast<uint32_t>(key.size());
  b.Put(key);
  ref.text_off = static_cast<uint32_t>(b.size());
  bool first = true, collapsed = false;
  auto name = [&](std::string_view f) {
    if (!first) b.Put(", ");
    first = false;
    AppendJsonString(b, f);
    b.Put(": ");
  };
  for (int j = 0; j < m.n; ++j) {
    const JIdx c = m.mem[j];
    if (c == m.md5 && !opts_.keep_md5) continue;
    name(t_.Key(c));
    if (c == m.data_name && !dn_truthy)
      b.Put("\"-1\"");
    else
      RenderValue(b, c, c == m.stat[0], &collapsed);
  }
  if (m.data_name == kJNone) {
    name("data_name");
    b.Put("\"-1\"");
  }
  if (m.rg == kJNone) {
    name("requires_grad");
    b.Put("\"null\"");
  }
  static const char* const kStats[] = {"Max", "Min", "Mean", "Norm"};
  for (int i = 0; i < 4; ++i) {
    if (m.stat[i] != kJNone) continue;
    name(kStats[i]);
    b.Put("\"null\"");
    if (i == 0) collapsed = true;
  }
  ref.text_len = static_cast<uint32_t>(b.size() - ref.text_off);
  b.Done();
  ref.collapsed = collapsed;
  return ref;
}

// The values the comparison reads (opts_.capture), as Capture takes them from GenItem's fields.
uint32_t EntryParser::CaptureLeaf(const LeafMembers& m, const std::string& fon, const std::string& dn) {
  const auto at = static_cast<uint32_t>(out_.cmp.size());
  out_.cmp.emplace_back();
  CmpItem& ci = out_.cmp.back();
  ci.name = fon;
  ci.state = state_;
  ci.data_name = dn;
  if (m.dtype != kJNone) CaptureMember(m.dtype, &ci.dtype);
  if (m.shape != kJNone) CaptureMember(m.shape, &ci.shape);
  if (m.rg != kJNone) CaptureMember(m.rg, &ci.requires_grad);
  for (int i = 0; i < 4; ++i)
    if (m.stat[i] != kJNone) CaptureMember(m.stat[i], &ci.stats[i]);
  if (m.md5 != kJNone) CaptureMember(m.md5, &ci.md5);
  return at;
}

}  // namespace items_internal

uint64_t OnePassLeavesOfThisThread() { return items_internal::one_pass_leaves; }

}  // namespace visprobe
