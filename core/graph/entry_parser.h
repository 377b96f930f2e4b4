// The item walker of items.cc and the one-pass way for common tensor leaves (items_one_pass.cc):
// internal to graph/, not an interface.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/str_writer.h"
#include "graph/items.h"

namespace visprobe {
namespace items_internal {

// One field of an item under construction: a raw JSON value, a literal string, or null.
struct Field {
  std::string_view name;
  enum Kind : uint8_t { kTree, kLit, kNull } kind = kNull;
  JIdx j = kJNone;
  uint32_t lit_off = 0, lit_len = 0;
};

struct ItemBuild {
  std::vector<Field> fields;
  std::string lits;  // literal strings of this item
  std::string full_op_name;
  std::string data_name;  // "-1" when absent
  bool data_name_is_str = false;
};

// The members of a leaf FastLeaf writes: all of them in order, and those it reads by name.
struct LeafMembers {
  static constexpr int kMax = 24;
  JIdx mem[kMax];
  int n = 0;
  JIdx type = kJNone, dtype = kJNone, shape = kJNone, data_name = kJNone, md5 = kJNone, rg = kJNone;
  JIdx stat[4] = {kJNone, kJNone, kJNone, kJNone};  // Max, Min, Mean, Norm
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

 private:
  static Field* FindField(ItemBuild& it, std::string_view name) {
    for (auto& f : it.fields)
      if (f.name == name) return &f;
    return nullptr;
  }
  void SetTree(ItemBuild& it, std::string_view name, JIdx j) {
    Field* f = FindField(it, name);
    if (!f) {
      it.fields.push_back({});
      f = &it.fields.back();
      f->name = name;
    }
    f->kind = Field::kTree;
    f->j = j;
  }
  void SetLit(ItemBuild& it, std::string_view name, std::string_view s) {
    Field* f = FindField(it, name);
    if (!f) {
      it.fields.push_back({});
      f = &it.fields.back();
      f->name = name;
    }
    f->kind = Field::kLit;
    f->lit_off = static_cast<uint32_t>(it.lits.size());
    f->lit_len = static_cast<uint32_t>(s.size());
    it.lits.append(s.data(), s.size());
  }
  void SetNull(ItemBuild& it, std::string_view name) {
    Field* f = FindField(it, name);
    if (!f) {
      it.fields.push_back({});
      f = &it.fields.back();
      f->name = name;
    }
    f->kind = Field::kNull;
  }
  void AddIfAbsent(ItemBuild& it, std::string_view name) {
    if (!FindField(it, name)) SetNull(it, name);
  }

  void SetDataName(ItemBuild& it, JIdx dn, const std::string& nm);
  // The common leaf written straight into the blob: true when it was (or when, as Emit would,
  // it was dropped), false when it needs the general way (GenItem, then Emit).
  bool FastLeaf(JIdx leaf, const std::string& nm);
  // FastLeaf's steps: the item's key and text into the blob, and the values the comparison reads
  // into out_.cmp (their index).
  ItemRef WriteLeaf(const LeafMembers& m, const std::string& key, bool dn_truthy);
  uint32_t CaptureLeaf(const LeafMembers& m, const std::string& fon, const std::string& dn);
  // A JSON value as Render writes a field holding it (a number in quotes, null as "null", a
  // string by §12 rule 3, anything else as Python's str), into `out`; a "null" Max collapses.
  void RenderValue(StrWriter& out, JIdx c, bool is_max, bool* collapsed);
  // CaptureValue of a member as GenItem keeps it (a boolean member becomes "True" / "False").
  void CaptureMember(JIdx c, CmpValue* v) const;
  // Adds an item to the inputs or outputs: a later item with the same key replaces the earlier one.
  void Place(const ItemRef& ref, bool is_output, std::string_view key);
  // Items are built one at a time (never two at once), in one reused ItemBuild per thread.
  static ItemBuild& Fresh();
  ItemBuild& GenItem(JIdx leaf, const std::string& nm);
  // GenItem's rules for a value without a dtype (an argument that is not a tensor: a torch.Size,
  // a slice, a p2p peer, a process group, a Python scalar): its dtype, shape and statistics. True
  // when the md5 to make up is crc32 of *md5_text rather than of the value.
  bool SetUntypedFields(ItemBuild& it, JIdx leaf, const std::string& nm, JIdx type, JIdx value, std::string* md5_text);
  // Max, Min, Mean and Norm all set to the value v (null when there is none), or to the text v.
  void SetStats(ItemBuild& it, JIdx v);
  void SetStatsLit(ItemBuild& it, const std::string& v);
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
  // Scratch texts, kept on this thread from record to record like Fresh()'s ItemBuild (one parser
  // at a time per thread): a parser per record allocated and freed them for every record.
  struct Texts {
    std::string text, key, val, dn, fon, name;
  };
  static Texts& ThreadTexts();
  Texts& texts_ = ThreadTexts();
  std::string& text_ = texts_.text;
  std::string& key_ = texts_.key;
  std::string& val_ = texts_.val;
  std::string& dn_ = texts_.dn;
  std::string& fon_ = texts_.fon;

 public:
  // The item-name buffer Walk extends in place (ParseEntryItems' `nm`), from the same scratch.
  std::string& NameScratch() { return texts_.name; }

 private:
  // key -> index in out_.inputs / out_.outputs (for "later replaces earlier, first position").
  std::unordered_map<std::string, uint32_t> in_pos_, out_pos_;
};

// An item of the outputs (Emit's rule): its full name contains ".output." and not ".input.". One
// pass over the name, looking past each dot (two std::string::find calls stopped at every dot).
inline bool IsOutputName(std::string_view s) {
  bool output = false;
  const size_t n = s.size();
  for (size_t i = 0; i + 7 <= n; ++i) {
    if (s[i] != '.') continue;
    const char c = s[i + 1];
    if (c == 'i' && s.compare(i + 1, 6, "input.") == 0) return false;
    if (c == 'o' && i + 8 <= n && s.compare(i + 1, 7, "output.") == 0) output = true;
  }
  return output;
}

}  // namespace items_internal
}  // namespace visprobe
