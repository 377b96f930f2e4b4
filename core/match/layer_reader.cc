// Reading one side for the layer mapping (spec §8.4.1): the dump.json keys in order, the frame
// scope of each API stack in stack.json, each parent in construct.json, then the backward and
// layer renumbering passes.
#include "match/layer_reader.h"

#include <cstdio>
#include <deque>
#include <memory>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "base/fs.h"
#include "base/strings.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"
#include "match/framework.h"
#include "match/layer_mapping_internal.h"

namespace visprobe {

using match_detail::FileCloser;
using match_detail::FrameScopeOf;
using match_detail::kTopLayer;
using match_detail::LoadFailed;
using match_detail::PySpaceLen;
using match_detail::SearchFrameworkLines;
using match_detail::Utf8Len;

namespace {

constexpr std::string_view kParamsGrad = "parameters_grad";
constexpr std::string_view kMegatronKey = "megatron_micro_step_number";

// A construct.json parent as Python sees it in the reference's checks.
enum class ParentKind : uint8_t {
  kNone,  // missing or falsy (null, "", 0, false, [], {})
  kString,
  kScalar,  // a truthy number or bool: `"." in value` raises
  kDotContainer,  // a list holding "." / an object with key ".": `"." in value` is true, split raises
  kContainer,  // another truthy list/object: ignored for modules, split raises for APIs
};

struct ParentInfo {
  ParentKind kind = ParentKind::kNone;
  std::string text;
};

ParentInfo ClassifyParent(const JTree& t, JIdx v) {
  ParentInfo p;
  if (v == kJNone || !t.Truthy(v)) return p;
  switch (t.Kind(v)) {
    case JKind::kString:
      p.kind = ParentKind::kString;
      p.text = std::string(t.Str(v));
      return p;
    case JKind::kArray:
    case JKind::kObject: {
      bool object = t.Kind(v) == JKind::kObject;
      p.kind = ParentKind::kContainer;
      for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next) {
        bool dot = object ? t.Key(c) == "." : (t.Kind(c) == JKind::kString && t.Str(c) == ".");
        if (dot) p.kind = ParentKind::kDotContainer;
      }
      return p;
    }
    default: p.kind = ParentKind::kScalar; return p;
  }
}

struct Work {
  LayerDataItem item;
  bool name_ok = false;
  bool needs_stack = false;
  bool has_parent = false;
  ParentInfo parent_raw;  // construct value as is
  ParentInfo parent_megatron;  // the same, with a 2-element list resolved to its first element
  Message stack_error;  // set (a text) when the (last) raw stack entry makes the reference fail
};

void ParseName(Work& w) {
  const std::string& name = w.item.data_name;
  std::vector<std::string_view> parts = Split(name, '.');
  size_t n = parts.size();
  if (n < 4) return;
  w.name_ok = true;
  LayerDataItem& it = w.item;
  if (parts[n - 1] == kParamsGrad) {
    it.api_type = std::string(kParamsGrad);
    it.api_name = std::string(parts[n - 3]);
    it.type_name = std::string(parts[n - 2]);
    it.state = std::string(kParamsGrad);
    it.layer_scope = Join(parts, 0, n - 3);
  } else if (parts[n - 2] == kParamsGrad && AllDigits(parts[n - 1])) {
    it.api_type = std::string(kParamsGrad);
    it.api_name = std::string(parts[n - 4]);
    it.type_name = std::string(parts[n - 3]);
    it.state = std::string(kParamsGrad);
    it.layer_scope = Join(parts, 0, n - 3);
  } else {
    it.api_type = std::string(parts[0]);
    it.type_name = std::string(parts[n - 3]);
    if (it.api_type == "Module" || it.api_type == "Cell") {
      it.api_name = std::string(parts[n - 4]);
      it.state = std::string(parts[n - 2]);
      it.layer_scope = Join(parts, 0, n - 4);
    } else {
      it.api_name = it.type_name;
      it.state = std::string(parts[n - 1]);
    }
  }
  w.needs_stack = !(it.api_type == "Module" || it.api_type == "Cell" || it.api_type == "Primitive" || it.api_type == "Jit");
}

bool IsModuleType(const std::string& t) { return t == "Module" || t == "Cell"; }

// Reads a file that failed as a top-level object: its value when it is small, valid JSON of
// another kind; else the original error.
Result<bool> NonObjectTruthy(const std::string& path, const Status& original, JKind* kind) {
  if (FileSize(path) > (1u << 20)) return original;
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return original;
  std::string text = "{\"v\": ";
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  text += "\n}";
  JTree t;
  JIdx root;
  if (!ParseJsonText(text, t, &root).ok()) return original;
  JIdx v = t.Find(root, "v");
  if (v == kJNone || t.Kind(v) == JKind::kObject) return original;
  *kind = t.Kind(v);
  return t.Truthy(v);
}

// The non-negative decimal `a - b` of two digit strings without leading zeros (Python ints).
std::string SubtractDecimal(const std::string& a, const std::string& b) {
  bool neg = a.size() < b.size() || (a.size() == b.size() && a < b);
  const std::string& x = neg ? b : a;
  const std::string& y = neg ? a : b;
  std::string r(x.size(), '0');
  int borrow = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    int dx = x[x.size() - 1 - k] - '0';
    int dy = k < y.size() ? y[y.size() - 1 - k] - '0' : 0;
    int d = dx - dy - borrow;
    borrow = d < 0;
    if (d < 0) d += 10;
    r[r.size() - 1 - k] = static_cast<char>('0' + d);
  }
  size_t nz = r.find_first_not_of('0');
  r = nz == std::string::npos ? "0" : r.substr(nz);
  return (neg && r != "0") ? "-" + r : r;
}

// re.search(rf"^{re.escape(prefix)}\.(\S+?)(?:\.|$)", s): the length of the group, or npos.
size_t NextItemLength(std::string_view s, std::string_view prefix) {
  if (s.size() <= prefix.size() || s.compare(0, prefix.size(), prefix) != 0 || s[prefix.size()] != '.')
    return std::string_view::npos;
  std::string_view rest = s.substr(prefix.size() + 1);
  size_t k = 0;
  while (k < rest.size()) {
    if (PySpaceLen(rest, k) != 0) return std::string_view::npos;
    k += Utf8Len(rest, k);
    if (k == rest.size() || rest[k] == '.' || (k + 1 == rest.size() && rest[k] == '\n')) return k;
  }
  return std::string_view::npos;
}

// extract_next_item_last_number: the last run of digits of that group as a Python int (decimal
// text without leading zeros), or "" for infinity.
std::string NextItemLastNumber(std::string_view s, std::string_view prefix) {
  size_t len = NextItemLength(s, prefix);
  if (len == std::string_view::npos) return std::string();
  std::string_view item = s.substr(prefix.size() + 1, len);
  std::string_view last;
  for (size_t i = 0; i < item.size();) {
    if (item[i] >= '0' && item[i] <= '9') {
      size_t b = i;
      while (i < item.size() && item[i] >= '0' && item[i] <= '9') ++i;
      last = item.substr(b, i - b);
    } else {
      ++i;
    }
  }
  if (last.empty()) return std::string();
  size_t nz = last.find_first_not_of('0');
  return nz == std::string_view::npos ? std::string("0") : std::string(last.substr(nz));
}

bool DecimalLess(const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; }

// postprocess_pass: backward items borrow their forward item's scopes, then the layer indices
// under every ParallelTransformer are made relative to their minimum.
void PostProcess(std::deque<Work>& items, const std::unordered_map<std::string_view, uint32_t>& index) {
  for (Work& w : items) {
    std::vector<std::string_view> parts = Split(w.item.data_name, '.');
    size_t n = parts.size();
    if (parts[n - 2] != "backward" && parts[n - 1] != "backward") continue;
    std::string forward = Join(parts, 0, n - 2) + "." + ReplaceAll(parts[n - 2], "backward", "forward") + "." +
                          ReplaceAll(parts[n - 1], "backward", "forward");
    auto it = index.find(forward);
    if (it == index.end()) continue;
    const LayerDataItem& f = items[it->second].item;
    w.item.full_scope = f.full_scope;
    w.item.layer_scope = f.layer_scope;
  }

  std::vector<std::string> prefixes;
  std::unordered_set<std::string> seen;
  for (const Work& w : items)
    if (w.item.type_name == "ParallelTransformer") {
      std::string p = w.item.full_scope + ".layers";
      if (seen.insert(p).second) prefixes.push_back(std::move(p));
    }
  if (prefixes.empty()) return;
  std::vector<std::string> minimum(prefixes.size());  // "" = infinity
  for (size_t k = 0; k < prefixes.size(); ++k)
    for (const Work& w : items) {
      std::string v = NextItemLastNumber(w.item.full_scope, prefixes[k]);
      if (!v.empty() && (minimum[k].empty() || DecimalLess(v, minimum[k]))) minimum[k] = v;
    }
  for (size_t k = 0; k < prefixes.size(); ++k)
    for (Work& w : items) {
      std::string& fs = w.item.full_scope;
      size_t len = NextItemLength(fs, prefixes[k]);
      if (len == std::string_view::npos) continue;  // no match: nothing is replaced
      std::string abs = NextItemLastNumber(fs, prefixes[k]);
      std::string rel;
      if (!abs.empty() && !minimum[k].empty())
        rel = SubtractDecimal(abs, minimum[k]);
      else if (abs.empty() && minimum[k].empty())
        rel = "nan";  // inf - inf in the reference
      else
        continue;  // +-inf: left as is
      fs = prefixes[k] + "." + rel + fs.substr(prefixes[k].size() + 1 + len);
    }
}

// One side's items in dump.json's order, and each key's position among them.
struct SideItems {
  std::deque<Work> items;
  std::unordered_map<std::string_view, uint32_t> index;
};

// dump.json: keys in file order (a repeated key keeps its first position) and the meta members.
// True when the framework is MindSpore.
Result<bool> ReadDumpKeys(const std::string& dump_json_path, SideItems& side) {
  std::deque<Work>& items = side.items;
  auto& index = side.index;
  JsonReadOptions dump_opts;
  dump_opts.container_key = "data";
  auto scan = ScanJsonKeys(dump_json_path, dump_opts, [&](std::string_view key, uint64_t) {
    if (index.count(key)) return Status::Ok();
    items.emplace_back();
    items.back().item.data_name = std::string(key);
    index.emplace(items.back().item.data_name, static_cast<uint32_t>(items.size() - 1));
    return Status::Ok();
  });
  if (!scan.ok()) return LoadFailed(dump_json_path, scan.status());
  std::string framework = FrameworkField(scan.value());
  if (framework.empty()) { ASSIGN_OR_RETURN(framework, SearchFrameworkLines(dump_json_path)); }
  // A "data" member that is not an object stays in the meta (an object is replaced by 0 there).
  if (scan->meta_root != kJNone) {
    const JTree& meta = scan->meta;
    JIdx data = meta.Find(scan->meta_root, "data");
    if (data != kJNone && !(meta.Kind(data) == JKind::kInt && meta.at(data).i == 0)) {
      bool empty_iterable = (meta.Kind(data) == JKind::kString || meta.Kind(data) == JKind::kArray) && !meta.Truthy(data);
      if (!empty_iterable) return InvalidInput(Msg<msg::kDataMemberNotObject>(dump_json_path));
      items.clear();
      index.clear();
    }
  }
  return framework == "mindspore";
}

// One stack.json entry, raw: the frame scope of the item it belongs to, when that item looks at
// its stack (the last entry wins), or the error the reference would raise on it.
void ReadStackEntry(SideItems& side, bool mindspore, std::string_view key, const JTree& t, JIdx v) {
  auto it = side.index.find(key);
  if (it == side.index.end()) return;
  Work& w = side.items[it->second];
  if (!w.name_ok || !w.needs_stack) return;
  w.item.frame_scope.clear();
  w.stack_error = Message();
  if (!t.Truthy(v)) return;
  std::vector<std::string_view> lines;
  bool valid = t.Kind(v) == JKind::kArray;
  for (JIdx c = valid ? t.at(v).first : kJNone; c != kJNone; c = t.at(c).next) {
    if (t.Kind(c) != JKind::kString) {
      valid = false;
      break;
    }
    lines.push_back(t.Str(c));
  }
  if (!valid) {
    w.stack_error = Msg<msg::kStackJsonEntryOf>(Msg<msg::kStackInvalidList>(), w.item.data_name);
    return;
  }
  auto fs = FrameScopeOf(lines, mindspore);
  if (fs.ok())
    w.item.frame_scope = std::move(fs.value());
  else
    w.stack_error = Msg<msg::kStackJsonEntryOf>(fs.status(), w.item.data_name);
}

// What reading stack.json or construct.json found: any entry, a truthy top-level value that is
// not an object (the reference fails on it once it looks an item up), Megatron's marker key.
struct SideFile {
  bool nonempty = false, invalid = false, megatron = false;
};

// stack.json, raw: the frame scope of every item that looks at its stack.
Status ReadStacks(const std::string& stack_path, bool mindspore, SideItems& side, SideFile* found) {
  JsonReadOptions top;  // top-level members
  auto stack_read = ReadJsonRecords(stack_path, top, [&](std::string_view key, const JTree& t, JIdx v) {
    found->nonempty = true;
    ReadStackEntry(side, mindspore, key, t, v);
    return Status::Ok();
  });
  if (!stack_read.ok()) {
    JKind kind;
    auto truthy = NonObjectTruthy(stack_path, stack_read.status(), &kind);
    if (!truthy.ok()) return LoadFailed(stack_path, truthy.status());
    found->invalid = truthy.value();  // `stack.get` fails on a truthy non-dict
    found->nonempty = truthy.value();
  }
  return Status::Ok();
}

// construct.json, raw: each item's parent (Megatron 2-element lists resolved to their parent).
Status ReadParents(const std::string& construct_path, SideItems& side, SideFile* found) {
  std::unordered_set<std::string> bad_lists;  // keys whose last value is a list of another length
  JsonReadOptions top;  // top-level members
  auto construct_read = ReadJsonRecords(construct_path, top, [&](std::string_view key, const JTree& t, JIdx v) {
    if (key == kMegatronKey) {
      found->megatron = true;
      return Status::Ok();
    }
    found->nonempty = true;
    bool is_list = t.Kind(v) == JKind::kArray;
    if (is_list && t.at(v).count != 2)
      bad_lists.insert(std::string(key));
    else if (!bad_lists.empty())
      bad_lists.erase(std::string(key));
    auto it = side.index.find(key);
    if (it == side.index.end()) return Status::Ok();
    Work& w = side.items[it->second];
    w.has_parent = true;
    w.parent_raw = ClassifyParent(t, v);
    w.parent_megatron = (is_list && t.at(v).count == 2) ? ClassifyParent(t, t.at(v).first) : w.parent_raw;
    return Status::Ok();
  });
  if (!construct_read.ok()) {
    JKind kind;
    auto truthy = NonObjectTruthy(construct_path, construct_read.status(), &kind);
    if (!truthy.ok()) return LoadFailed(construct_path, truthy.status());
    // The reference's `"megatron_micro_step_number" in construct` fails on a number, bool or null;
    // a string or list passes and fails later at `construct.get` (only if there is a key to look up).
    if (kind != JKind::kString && kind != JKind::kArray)
      return LoadFailed(construct_path, InvalidInput(Msg<msg::kTopLevelValueNotObject>()));
    found->invalid = found->nonempty = truthy.value();
  }
  if (found->megatron && !bad_lists.empty()) return InvalidInput(Msg<msg::kParseConstructJsonFile>("construct.json"));
  return Status::Ok();
}

// An item's layer scope (from its parent, for an API) and full scope; the reference's errors on
// its name, its parent or its stack.
Status ResolveScopes(Work& w, bool megatron) {
  LayerDataItem& it = w.item;
  if (!w.name_ok) return InvalidInput(Msg<msg::kDumpDataTooFewFields>(it.data_name));
  ParentInfo none;
  const ParentInfo& p = !w.has_parent ? none : megatron ? w.parent_megatron : w.parent_raw;
  bool module = IsModuleType(it.api_type), params = it.api_type == kParamsGrad;
  if (!module && !params) {
    if (p.kind == ParentKind::kString) {
      std::vector<std::string_view> pp = Split(p.text, '.');
      it.layer_scope = Join(pp, 0, pp.size() >= 3 ? pp.size() - 3 : 0);
    } else if (p.kind == ParentKind::kNone)
      it.layer_scope = std::string(kTopLayer);
    else
      return InvalidInput(Msg<msg::kPathPrefixed>("construct.json", Msg<msg::kParentNotString>(it.data_name)));
  }
  if (p.kind == ParentKind::kString && p.text.find('.') != std::string::npos && Split(p.text, '.').size() < 4)
    return InvalidInput(Msg<msg::kConstructDataTooFewFields>(p.text));
  if (p.kind == ParentKind::kScalar || p.kind == ParentKind::kDotContainer)
    return InvalidInput(Msg<msg::kPathPrefixed>("construct.json", Msg<msg::kParentNotString>(it.data_name)));
  if (!w.stack_error.text().empty()) return InvalidInput(w.stack_error);
  it.full_scope = it.layer_scope;
  if (!it.frame_scope.empty()) it.full_scope += "." + it.frame_scope;
  it.full_scope += "." + it.api_name;
  return Status::Ok();
}

}  // namespace

Result<std::vector<LayerDataItem>> ReadLayerDataItems(const std::string& dump_json_path) {
  SideItems side;
  ASSIGN_OR_RETURN(const bool mindspore, ReadDumpKeys(dump_json_path, side));

  const std::string dir = DirName(dump_json_path);
  const std::string stack_path = JoinPath(dir, "stack.json");
  const std::string construct_path = JoinPath(dir, "construct.json");
  bool have_stack = PathExists(stack_path), have_construct = PathExists(construct_path);
  if (!have_stack && !have_construct) return std::vector<LayerDataItem>();
  if (!have_stack || !have_construct) return InvalidInput(Msg<msg::kStackJsonConstructJson>());

  for (Work& w : side.items) ParseName(w);
  SideFile stack, construct;
  RETURN_IF_ERROR(ReadStacks(stack_path, mindspore, side, &stack));
  RETURN_IF_ERROR(ReadParents(construct_path, side, &construct));
  if (!stack.nonempty || !construct.nonempty) return std::vector<LayerDataItem>();
  if ((stack.invalid || construct.invalid) && !side.items.empty())
    return InvalidInput(
        Msg<msg::kPathPrefixed>(stack.invalid ? stack_path : construct_path, Msg<msg::kTopLevelValueNotObject>()));

  // Items in dump order; the first failing item decides the error, as in the reference.
  for (Work& w : side.items) RETURN_IF_ERROR(ResolveScopes(w, construct.megatron));
  PostProcess(side.items, side.index);

  std::vector<LayerDataItem> out;
  out.reserve(side.items.size());
  for (Work& w : side.items) out.push_back(std::move(w.item));
  return out;
}

}  // namespace visprobe
