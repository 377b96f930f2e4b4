// The one-pass way for the common tensor leaf (EntryParser::FastLeaf) and the value rules it
// shares with the general way in items.cc.
#include <string>

#include "base/pyfmt.h"
#include "base/str_writer.h"
#include "base/thread_init.h"
#include "graph/entry_parser.h"

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
        if (k == "md5")
          md5 = c;
        else if (k == "Max")
          stat[0] = c;
        else if (k == "Min")
          stat[1] = c;
        break;
      case 4:
        if (k == "type")
          type = c;
        else if (k == "Mean")
          stat[2] = c;
        else if (k == "Norm")
          stat[3] = c;
        break;
      case 5:
        if (k == "dtype")
          dtype = c;
        else if (k == "shape")
          shape = c;
        break;
      case 9:
        if (k == "data_name")
          data_name = c;
        else if (k == "error_key")
          return false;
        break;
      case 13:
        if (k == "requires_grad") rg = c;
        break;
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
  if (dn_is_str)
    dn.assign(t_.Str(data_name));
  else if (dn_truthy) {
    dn.clear();
    t_.AppendPyStr(dn, data_name);
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
  for (int j = 0; j < n; ++j) {
    const JIdx c = mem[j];
    if (c == md5 && !opts_.keep_md5) continue;
    name(t_.Key(c));
    if (c == data_name && !dn_truthy)
      b.Put("\"-1\"");
    else
      RenderValue(b, c, c == stat[0], &collapsed);
  }
  if (data_name == kJNone) {
    name("data_name");
    b.Put("\"-1\"");
  }
  if (rg == kJNone) {
    name("requires_grad");
    b.Put("\"null\"");
  }
  static const char* const kStats[] = {"Max", "Min", "Mean", "Norm"};
  for (int i = 0; i < 4; ++i) {
    if (stat[i] != kJNone) continue;
    name(kStats[i]);
    b.Put("\"null\"");
    if (i == 0) collapsed = true;
  }
  ref.text_len = static_cast<uint32_t>(b.size() - ref.text_off);
  b.Done();
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
    for (int i = 0; i < 4; ++i)
      if (stat[i] != kJNone) CaptureMember(stat[i], &ci.stats[i]);
    if (md5 != kJNone) CaptureMember(md5, &ci.md5);
  }
  Place(ref, is_output, key);
  ++one_pass_leaves;
  return true;
}

}  // namespace items_internal

uint64_t OnePassLeavesOfThisThread() { return items_internal::one_pass_leaves; }

}  // namespace visprobe
