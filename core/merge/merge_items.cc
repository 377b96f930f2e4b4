#include "merge/merge_items.h"

#include "base/pyfmt.h"
#include "base/strings.h"
#include "graph/items.h"
#include "graph/value_format.h"

namespace visprobe {
namespace {

constexpr const char* kStatNames[4] = {"Max", "Min", "Mean", "Norm"};

// One "key": value member of an item's text; both parts as JSON text.
struct Member {
  std::string_view key, value;
};

// Length of the JSON string token starting at s[i] (a quote), including both quotes.
size_t StringTokenEnd(std::string_view s, size_t i) {
  for (size_t k = i + 1; k < s.size(); ++k) {
    if (s[k] == '\\') {
      ++k;
      continue;
    }
    if (s[k] == '"') return k + 1;
  }
  return s.size();
}

// Splits `"k": v, "k2": v2` (the item text format of NodeItems) into members.
std::vector<Member> Members(std::string_view t) {
  std::vector<Member> out;
  size_t i = 0;
  while (i < t.size()) {
    while (i < t.size() && (t[i] == ' ' || t[i] == ',')) ++i;
    if (i >= t.size() || t[i] != '"') break;
    size_t ke = StringTokenEnd(t, i);
    Member m;
    m.key = t.substr(i, ke - i);
    i = ke;
    while (i < t.size() && (t[i] == ':' || t[i] == ' ')) ++i;
    size_t vs = i;
    if (i < t.size() && t[i] == '"') {
      i = StringTokenEnd(t, i);
    } else {
      int depth = 0;
      for (; i < t.size(); ++i) {
        char c = t[i];
        if (c == '"') {
          i = StringTokenEnd(t, i) - 1;
          continue;
        }
        if (c == '[' || c == '{')
          ++depth;
        else if (c == ']' || c == '}')
          --depth;
        else if (c == ',' && depth == 0)
          break;
      }
    }
    m.value = t.substr(vs, i - vs);
    out.push_back(m);
  }
  return out;
}

bool KeyIs(std::string_view json_key, std::string_view name) {
  return json_key.size() == name.size() + 2 && json_key.substr(1, name.size()) == name;
}

// §12 printed text of a statistic's raw value, as a JSON string.
std::string PrintedStat(const CmpValue& v) {
  std::string raw;
  switch (v.kind) {
    case CmpValue::kNull: raw = "null"; break;
    case CmpValue::kBool: raw = v.b ? "True" : "False"; break;
    case CmpValue::kInt: raw = std::to_string(v.i); break;
    case CmpValue::kFloat: AppendPyFloat(raw, v.d); break;
    case CmpValue::kString: AppendFormattedString(raw, v.s); break;
    case CmpValue::kJson: raw = v.s; break;
  }
  std::string out;
  AppendJsonString(out, raw);
  return out;
}

// Gives item `i` the text `text`. The blob is written anew, without the old text: merged items are
// rewritten once per statistic, and every rank's items stay in memory until the merge ends.
void ReplaceText(NodeItems& it, ItemSide side, size_t i, const std::string& text) {
  std::string blob;
  size_t size = it.blob.size() + text.size() - Refs(it, side)[i].text_len;
  blob.reserve(size);
  for (ItemSide s : {ItemSide::kInput, ItemSide::kOutput}) {
    auto& refs = Refs(it, s);
    for (size_t k = 0; k < refs.size(); ++k) {
      ItemRef& r = refs[k];
      std::string_view key = it.Key(r);
      std::string_view t = (s == side && k == i) ? std::string_view(text) : it.Text(r);
      r.key_off = static_cast<uint32_t>(blob.size());
      blob.append(key.data(), key.size());
      r.text_off = static_cast<uint32_t>(blob.size());
      r.text_len = static_cast<uint32_t>(t.size());
      blob.append(t.data(), t.size());
    }
  }
  it.blob = std::move(blob);
}

// Rewrites item `i`'s text with `values[k]` (JSON texts) for the fields named in `names`.
void RewriteFields(NodeItems& it, ItemSide s, size_t i, const std::vector<std::pair<std::string, std::string>>& fields) {
  ItemRef& r = Refs(it, s)[i];
  std::string text(it.Text(r));
  auto members = Members(text);
  std::string out;
  std::vector<bool> used(fields.size(), false);
  for (const Member& m : members) {
    if (!out.empty()) out += ", ";
    out.append(m.key);
    out += ": ";
    bool replaced = false;
    for (size_t f = 0; f < fields.size(); ++f) {
      if (!KeyIs(m.key, fields[f].first)) continue;
      out += fields[f].second;
      used[f] = replaced = true;
      break;
    }
    if (!replaced) out.append(m.value);
  }
  for (size_t f = 0; f < fields.size(); ++f) {
    if (used[f]) continue;
    if (!out.empty()) out += ", ";
    AppendJsonString(out, fields[f].first);
    out += ": ";
    out += fields[f].second;
  }
  ReplaceText(it, s, i, out);
  // §12 rule 4: an item whose Max prints as "null" is shown as {"value": "null"}.
  for (const Member& m : Members(it.Text(r)))
    if (KeyIs(m.key, "Max")) r.collapsed = m.value == "\"null\"";
}

ItemRef CopyRef(NodeItems& dst, const NodeItems& src, const ItemRef& r) {
  ItemRef out = r;
  out.key_off = static_cast<uint32_t>(dst.blob.size());
  dst.blob.append(src.Key(r));
  out.text_off = static_cast<uint32_t>(dst.blob.size());
  dst.blob.append(src.Text(r));
  if (r.cmp != UINT32_MAX && r.cmp < src.cmp.size()) {
    out.cmp = static_cast<uint32_t>(dst.cmp.size());
    dst.cmp.push_back(src.cmp[r.cmp]);
  } else {
    out.cmp = UINT32_MAX;
  }
  return out;
}

}  // namespace

int FindItem(const NodeItems& it, ItemSide s, std::string_view key) {
  const auto& refs = Refs(it, s);
  for (size_t i = 0; i < refs.size(); ++i)
    if (it.Key(refs[i]) == key) return static_cast<int>(i);
  return -1;
}

const CmpItem* ItemValues(const NodeItems& it, ItemSide s, size_t i) {
  const ItemRef& r = Refs(it, s)[i];
  return r.cmp < it.cmp.size() ? &it.cmp[r.cmp] : nullptr;
}

void SetItemStat(NodeItems& it, ItemSide s, size_t i, int k, const CmpValue& v) {
  ItemRef& r = Refs(it, s)[i];
  if (r.cmp < it.cmp.size()) it.cmp[r.cmp].stats[k] = v;
  RewriteFields(it, s, i, {{kStatNames[k], PrintedStat(v)}});
}

void CopyItemStats(NodeItems& dst, ItemSide ds, size_t di, const NodeItems& src, ItemSide ss, size_t si) {
  std::vector<std::pair<std::string, std::string>> fields;
  auto members = Members(src.Text(Refs(src, ss)[si]));
  for (int k = 0; k < 4; ++k) {
    std::string text = "\"null\"";  // a statistic the source lacks reads as None
    for (const Member& m : members)
      if (KeyIs(m.key, kStatNames[k])) text = std::string(m.value);
    fields.emplace_back(kStatNames[k], text);
  }
  const CmpItem* sv = ItemValues(src, ss, si);
  ItemRef& r = Refs(dst, ds)[di];
  if (r.cmp < dst.cmp.size())
    for (int k = 0; k < 4; ++k) dst.cmp[r.cmp].stats[k] = sv ? sv->stats[k] : CmpValue();
  RewriteFields(dst, ds, di, fields);
}

void RenameItemKeys(NodeItems& it, std::string_view old_id, std::string_view new_id) {
  if (old_id == new_id || old_id.empty()) return;
  NodeItems out;
  out.cmp = it.cmp;
  for (ItemSide s : {ItemSide::kInput, ItemSide::kOutput}) {
    for (const ItemRef& r : Refs(it, s)) {
      ItemRef n = r;
      std::string key = ReplaceAll(it.Key(r), old_id, new_id);
      n.key_off = static_cast<uint32_t>(out.blob.size());
      n.key_len = static_cast<uint32_t>(key.size());
      out.blob += key;
      n.text_off = static_cast<uint32_t>(out.blob.size());
      out.blob.append(it.Text(r));
      Refs(out, s).push_back(n);
    }
  }
  for (CmpItem& c : out.cmp) c.name = ReplaceAll(c.name, old_id, new_id);
  it = std::move(out);
}

NodeItems WithItemsOf(const NodeItems& base, ItemSide s, const NodeItems& from) {
  NodeItems out;
  for (ItemSide side : {ItemSide::kInput, ItemSide::kOutput}) {
    const NodeItems& src = side == s ? from : base;
    for (const ItemRef& r : Refs(src, side)) Refs(out, side).push_back(CopyRef(out, src, r));
  }
  return out;
}

std::string ItemFieldText(const NodeItems& it, ItemSide s, size_t i, std::string_view field) {
  for (const Member& m : Members(it.Text(Refs(it, s)[i])))
    if (KeyIs(m.key, field)) return std::string(m.value);
  return std::string();
}

}  // namespace visprobe
