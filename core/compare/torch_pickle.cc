#include "compare/torch_pickle.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace visprobe {
namespace {

constexpr const char* kRebuildTensor = "torch._utils._rebuild_tensor_v2";
constexpr const char* kRebuildParameter = "torch._utils._rebuild_parameter";
constexpr const char* kRebuildParameterState = "torch._utils._rebuild_parameter_with_state";
constexpr const char* kOrderedDict = "collections.OrderedDict";
constexpr size_t kMaxDims = 64;

bool AllowedGlobal(const std::string& name) {
  return name == kRebuildTensor || name == kRebuildParameter || name == kRebuildParameterState || name == kOrderedDict ||
         StorageClassDtype(name) != nullptr;
}

// A value on the unpickler's stack. Containers hold indices into the value arena.
struct Value {
  enum Kind : uint8_t { kNone, kBool, kInt, kFloat, kStr, kTuple, kList, kDict, kGlobal, kStorage, kTensor };
  Kind kind = kNone;
  int64_t i = 0;
  std::string s;  // kStr text, kGlobal "module.name"
  std::vector<uint32_t> items;  // kTuple / kList elements; kDict keys and values in turn
  uint32_t ref = 0;  // kStorage / kTensor: index into the unpickler's lists
};

const char* KindName(Value::Kind k) {
  static const char* const kNames[] = {"None", "bool", "int",    "float",   "str",   "tuple",
                                       "list", "dict", "global", "storage", "tensor"};
  return kNames[k];
}

class Unpickler {
 public:
  Unpickler(std::string_view pkl, const std::string& where) : p_(pkl), where_(where) {}

  Result<TensorRef> Run() {
    for (;;) {
      if (pos_ >= p_.size()) return Bad("truncated pickle (no STOP)");
      const unsigned char op = static_cast<unsigned char>(p_[pos_++]);
      if (op == '.') break;
      RETURN_IF_ERROR(Step(op));
    }
    if (stack_.size() != 1 || !marks_.empty()) return Bad("the pickle does not leave one object");
    const Value& top = values_[stack_.back()];
    if (top.kind != Value::kTensor) return Bad(std::string("holds a ") + KindName(top.kind) + ", not a tensor");
    return tensors_[top.ref];
  }

 private:
  Status Bad(const std::string& what) const { return InvalidInput(Msg<msg::kNotReadableTorchFile>(where_, what)); }

  Status Need(size_t n) const { return p_.size() - pos_ >= n ? Status::Ok() : Bad("truncated pickle"); }
  uint64_t Le(size_t n) {
    uint64_t v = 0;
    for (size_t k = n; k-- > 0;) v = (v << 8) | static_cast<unsigned char>(p_[pos_ + k]);
    pos_ += n;
    return v;
  }
  uint32_t Push(Value v) {
    values_.push_back(std::move(v));
    stack_.push_back(static_cast<uint32_t>(values_.size() - 1));
    return stack_.back();
  }
  Status Pop(uint32_t* out) {
    if (stack_.empty() || (!marks_.empty() && stack_.size() <= marks_.back())) return Bad("stack underflow");
    *out = stack_.back();
    stack_.pop_back();
    return Status::Ok();
  }
  // The values above the last MARK, removed from the stack.
  Status PopMark(std::vector<uint32_t>* out) {
    if (marks_.empty()) return Bad("no MARK");
    const size_t m = marks_.back();
    marks_.pop_back();
    out->assign(stack_.begin() + static_cast<std::ptrdiff_t>(m), stack_.end());
    stack_.resize(m);
    return Status::Ok();
  }
  Status PushTuple(size_t n) {
    if (stack_.size() < n || (!marks_.empty() && stack_.size() - n < marks_.back())) return Bad("stack underflow");
    Value t;
    t.kind = Value::kTuple;
    t.items.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
    stack_.resize(stack_.size() - n);
    Push(std::move(t));
    return Status::Ok();
  }
  Status Str(size_t len_bytes) {
    RETURN_IF_ERROR(Need(len_bytes));
    const uint64_t n = Le(len_bytes);
    RETURN_IF_ERROR(Need(n));
    Value v;
    v.kind = Value::kStr;
    v.s.assign(p_.data() + pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    Push(std::move(v));
    return Status::Ok();
  }
  Status Int(int64_t i) {
    Value v;
    v.kind = Value::kInt;
    v.i = i;
    Push(std::move(v));
    return Status::Ok();
  }
  Status Global(std::string name) {
    const bool storage =
        name.size() > 13 && name.compare(0, 6, "torch.") == 0 && name.compare(name.size() - 7, 7, "Storage") == 0;
    if (storage && !StorageClassDtype(name))
      return Bad("unsupported tensor dtype: storage class '" + name +
                 "' (float, bfloat16, float8, integer and bool tensors are read)");
    if (!AllowedGlobal(name)) return InvalidInput(Msg<msg::kPickleGlobalRefused>(where_, name));
    Value v;
    v.kind = Value::kGlobal;
    v.s = std::move(name);
    Push(std::move(v));
    return Status::Ok();
  }
  Status Line(std::string* out) {
    const size_t nl = p_.find('\n', pos_);
    if (nl == std::string_view::npos) return Bad("truncated GLOBAL");
    out->assign(p_.data() + pos_, nl - pos_);
    pos_ = nl + 1;
    return Status::Ok();
  }
  Status Memo(uint64_t key) {
    if (stack_.empty()) return Bad("memo of an empty stack");
    memo_[key] = stack_.back();
    return Status::Ok();
  }
  Status Get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return Bad("memo key " + std::to_string(key) + " was never stored");
    stack_.push_back(it->second);
    return Status::Ok();
  }
  Status Append(uint32_t list, const std::vector<uint32_t>& items, bool pairs) {
    Value& l = values_[list];
    if (pairs ? l.kind != Value::kDict : l.kind != Value::kList)
      return Bad(pairs ? "SETITEMS on a non-dict" : "APPENDS on a non-list");
    if (pairs && items.size() % 2) return Bad("odd SETITEMS");
    l.items.insert(l.items.end(), items.begin(), items.end());
    return Status::Ok();
  }

  Status Step(unsigned char op);
  // Step's opcode families.
  Status ContainerOp(unsigned char op);
  Status ScalarOp(unsigned char op);
  Status MemoOp(unsigned char op);
  Status ObjectOp(unsigned char op);
  Status UnknownOpcode(unsigned char op) const;
  Status PersistentId();
  Status Reduce();
  Result<TensorRef> RebuildTensor(const std::vector<uint32_t>& args);
  Result<std::vector<int64_t>> Ints(uint32_t tuple, const char* what) const;

  std::string_view p_;
  const std::string& where_;
  size_t pos_ = 0;
  std::vector<Value> values_;
  std::vector<uint32_t> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, uint32_t> memo_;
  std::vector<TensorRef> storages_;  // storage refs keep dtype, key and numel in a TensorRef
  std::vector<TensorRef> tensors_;
};

Status Unpickler::UnknownOpcode(unsigned char op) const {
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", op);
  return Bad(std::string("pickle opcode ") + hex + " at byte " + std::to_string(pos_ - 1) +
             " is not one torch.save writes for a tensor");
}

// The opcodes of each family Step hands on.
constexpr unsigned char kContainerOps[] = {'(', ')', 0x85, 0x86, 0x87, 't', ']', '}', 'a', 's', 'e', 'u'};
constexpr unsigned char kScalarOps[] = {'N', 0x88, 0x89, 'K', 'M', 'J', 0x8a, 'G', 'X', 0x8c, 0x8d};
constexpr unsigned char kMemoOps[] = {'q', 'r', 0x94, 'h', 'j'};
constexpr unsigned char kObjectOps[] = {'c', 0x93, 'Q', 'R', 'b'};
template <size_t N>
bool OneOf(unsigned char op, const unsigned char (&ops)[N]) {
  return std::find(ops, ops + N, op) != ops + N;
}

// One opcode: the protocol and frame markers here, the others by family.
Status Unpickler::Step(unsigned char op) {
  if (op == 0x80) {  // PROTO
    RETURN_IF_ERROR(Need(1));
    if (Le(1) > 5) return Bad("unknown pickle protocol");
    return Status::Ok();
  }
  if (op == 0x95) {  // FRAME: a length hint
    RETURN_IF_ERROR(Need(8));
    pos_ += 8;
    return Status::Ok();
  }
  if (OneOf(op, kContainerOps)) return ContainerOp(op);
  if (OneOf(op, kScalarOps)) return ScalarOp(op);
  if (OneOf(op, kMemoOps)) return MemoOp(op);
  if (OneOf(op, kObjectOps)) return ObjectOp(op);
  return UnknownOpcode(op);
}

// MARK, tuples, lists and dicts, and the appends and item sets that fill them.
Status Unpickler::ContainerOp(unsigned char op) {
  switch (op) {
    case '(': marks_.push_back(stack_.size()); return Status::Ok();  // MARK
    case ')': return PushTuple(0);
    case 0x85: return PushTuple(1);
    case 0x86: return PushTuple(2);
    case 0x87: return PushTuple(3);
    case 't': {
      std::vector<uint32_t> items;
      RETURN_IF_ERROR(PopMark(&items));
      Value t;
      t.kind = Value::kTuple;
      t.items = std::move(items);
      Push(std::move(t));
      return Status::Ok();
    }
    case ']': {
      Value v;
      v.kind = Value::kList;
      Push(std::move(v));
      return Status::Ok();
    }
    case '}': {
      Value v;
      v.kind = Value::kDict;
      Push(std::move(v));
      return Status::Ok();
    }
    case 'a':
    case 's': {  // APPEND, SETITEM
      const size_t n = op == 'a' ? 1 : 2;
      if (stack_.size() < n + 1 || (!marks_.empty() && stack_.size() - n - 1 < marks_.back())) return Bad("stack underflow");
      std::vector<uint32_t> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
      stack_.resize(stack_.size() - n);
      return Append(stack_.back(), items, op == 's');
    }
    case 'e':
    case 'u': {  // APPENDS, SETITEMS
      std::vector<uint32_t> items;
      RETURN_IF_ERROR(PopMark(&items));
      if (stack_.empty()) return Bad("stack underflow");
      return Append(stack_.back(), items, op == 'u');
    }
    default: return UnknownOpcode(op);
  }
}

// None, booleans, integers, floats and strings.
Status Unpickler::ScalarOp(unsigned char op) {
  switch (op) {
    case 'N': {
      Push(Value());
      return Status::Ok();
    }
    case 0x88:
    case 0x89: {
      Value v;
      v.kind = Value::kBool;
      v.i = op == 0x88;
      Push(std::move(v));
      return Status::Ok();
    }
    case 'K': RETURN_IF_ERROR(Need(1)); return Int(static_cast<int64_t>(Le(1)));
    case 'M': RETURN_IF_ERROR(Need(2)); return Int(static_cast<int64_t>(Le(2)));
    case 'J': RETURN_IF_ERROR(Need(4)); return Int(static_cast<int32_t>(static_cast<uint32_t>(Le(4))));
    case 0x8a: {  // LONG1: little-endian two's complement of n bytes
      RETURN_IF_ERROR(Need(1));
      const size_t n = static_cast<size_t>(Le(1));
      if (n > 8) return Bad("integer wider than 64 bits");
      RETURN_IF_ERROR(Need(n));
      uint64_t v = Le(n);
      if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);
      return Int(static_cast<int64_t>(v));
    }
    case 'G': {  // BINFLOAT: big-endian double (kept only as a placeholder value)
      RETURN_IF_ERROR(Need(8));
      pos_ += 8;
      Value v;
      v.kind = Value::kFloat;
      Push(std::move(v));
      return Status::Ok();
    }
    case 'X': return Str(4);
    case 0x8c: return Str(1);
    case 0x8d: return Str(8);
    default: return UnknownOpcode(op);
  }
}

// The memo: PUT / MEMOIZE and GET.
Status Unpickler::MemoOp(unsigned char op) {
  switch (op) {
    case 'q': RETURN_IF_ERROR(Need(1)); return Memo(Le(1));
    case 'r': RETURN_IF_ERROR(Need(4)); return Memo(Le(4));
    case 0x94: return Memo(memo_.size());  // MEMOIZE
    case 'h': RETURN_IF_ERROR(Need(1)); return Get(Le(1));
    case 'j': RETURN_IF_ERROR(Need(4)); return Get(Le(4));
    default: return UnknownOpcode(op);
  }
}

// Globals, persistent ids (storages), REDUCE (the rebuild calls) and BUILD.
Status Unpickler::ObjectOp(unsigned char op) {
  switch (op) {
    case 'c': {  // GLOBAL "module\nname\n"
      std::string module, name;
      RETURN_IF_ERROR(Line(&module));
      RETURN_IF_ERROR(Line(&name));
      return Global(module + "." + name);
    }
    case 0x93: {  // STACK_GLOBAL
      uint32_t name = 0, module = 0;
      RETURN_IF_ERROR(Pop(&name));
      RETURN_IF_ERROR(Pop(&module));
      if (values_[name].kind != Value::kStr || values_[module].kind != Value::kStr) return Bad("STACK_GLOBAL of non-strings");
      return Global(values_[module].s + "." + values_[name].s);
    }
    case 'Q': return PersistentId();
    case 'R': return Reduce();
    case 'b': {  // BUILD: state for a tensor or a dict (backward hooks, Parameter state) is dropped
      uint32_t state = 0, obj = 0;
      RETURN_IF_ERROR(Pop(&state));
      RETURN_IF_ERROR(Pop(&obj));
      const Value::Kind k = values_[obj].kind;
      if (k != Value::kTensor && k != Value::kDict) return Bad(std::string("BUILD on a ") + KindName(k));
      stack_.push_back(obj);
      return Status::Ok();
    }
    default: return UnknownOpcode(op);
  }
}

Status Unpickler::PersistentId() {
  uint32_t pid = 0;
  RETURN_IF_ERROR(Pop(&pid));
  const Value& t = values_[pid];
  // ('storage', <storage class>, key, location, numel)
  if (t.kind != Value::kTuple || t.items.size() != 5 || values_[t.items[0]].kind != Value::kStr ||
      values_[t.items[0]].s != "storage")
    return Bad("a persistent id that is not a storage");
  const Value& cls = values_[t.items[1]];
  const Value& key = values_[t.items[2]];
  const Value& numel = values_[t.items[4]];
  if (cls.kind != Value::kGlobal || key.kind != Value::kStr || numel.kind != Value::kInt || numel.i < 0)
    return Bad("a malformed storage id");
  const TorchDtype* dtype = StorageClassDtype(cls.s);
  if (!dtype) return Bad("'" + cls.s + "' is not a storage class");
  TensorRef s;
  s.dtype = *dtype;
  s.storage_key = key.s;
  s.storage_numel = static_cast<uint64_t>(numel.i);
  // An untyped storage counts bytes; the tensor's dtype is not known from it (torch 2.x writes
  // typed names for tensors, so this only reaches here for a bare storage).
  storages_.push_back(std::move(s));
  Value v;
  v.kind = Value::kStorage;
  v.ref = static_cast<uint32_t>(storages_.size() - 1);
  Push(std::move(v));
  return Status::Ok();
}

Result<std::vector<int64_t>> Unpickler::Ints(uint32_t tuple, const char* what) const {
  const Value& t = values_[tuple];
  if (t.kind != Value::kTuple || t.items.size() > kMaxDims) return Bad(std::string("bad tensor ") + what);
  std::vector<int64_t> out;
  for (uint32_t i : t.items) {
    if (values_[i].kind != Value::kInt) return Bad(std::string("bad tensor ") + what);
    out.push_back(values_[i].i);
  }
  return out;
}

Result<TensorRef> Unpickler::RebuildTensor(const std::vector<uint32_t>& a) {
  // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
  if (a.size() != 6 && a.size() != 7) return Bad("_rebuild_tensor_v2 with " + std::to_string(a.size()) + " arguments");
  if (values_[a[0]].kind != Value::kStorage) return Bad("_rebuild_tensor_v2 without a storage");
  if (values_[a[1]].kind != Value::kInt || values_[a[1]].i < 0) return Bad("bad storage offset");
  TensorRef t = storages_[values_[a[0]].ref];
  t.offset = static_cast<uint64_t>(values_[a[1]].i);
  Result<std::vector<int64_t>> size = Ints(a[2], "size");
  if (!size.ok()) return size.status();
  Result<std::vector<int64_t>> stride = Ints(a[3], "stride");
  if (!stride.ok()) return stride.status();
  if (size->size() != stride->size()) return Bad("size and stride of different lengths");
  for (size_t k = 0; k < size->size(); ++k) {
    if ((*size)[k] < 0 || (*stride)[k] < 0) return Bad("negative size or stride");
    t.size.push_back(static_cast<uint64_t>((*size)[k]));
  }
  t.stride = std::move(*stride);
  const Value& rg = values_[a[4]];
  if (rg.kind != Value::kBool && rg.kind != Value::kInt) return Bad("bad requires_grad");
  t.requires_grad = rg.i != 0;
  return t;
}

Status Unpickler::Reduce() {
  uint32_t args = 0, fn = 0;
  RETURN_IF_ERROR(Pop(&args));
  RETURN_IF_ERROR(Pop(&fn));
  const Value& f = values_[fn];
  const Value& a = values_[args];
  if (f.kind != Value::kGlobal) return Bad(std::string("REDUCE of a ") + KindName(f.kind));
  if (a.kind != Value::kTuple) return Bad("REDUCE without an argument tuple");
  const std::vector<uint32_t> items = a.items;
  if (f.s == kOrderedDict) {
    if (!items.empty()) return Bad("OrderedDict with arguments");
    Value d;
    d.kind = Value::kDict;
    Push(std::move(d));
    return Status::Ok();
  }
  if (f.s == kRebuildTensor) {
    Result<TensorRef> t = RebuildTensor(items);
    if (!t.ok()) return t.status();
    tensors_.push_back(std::move(*t));
  } else if (f.s == kRebuildParameter || f.s == kRebuildParameterState) {
    // _rebuild_parameter(data, requires_grad, backward_hooks[, state]): the data's tensor.
    if (items.size() < 3 || values_[items[0]].kind != Value::kTensor) return Bad(f.s + " without a tensor");
    TensorRef t = tensors_[values_[items[0]].ref];
    t.requires_grad = values_[items[1]].i != 0;
    tensors_.push_back(std::move(t));
  } else {
    return Bad("refused: the pickle calls '" + f.s + "'");
  }
  Value v;
  v.kind = Value::kTensor;
  v.ref = static_cast<uint32_t>(tensors_.size() - 1);
  Push(std::move(v));
  return Status::Ok();
}

}  // namespace

Result<TensorRef> UnpickleTensor(std::string_view pkl, const std::string& where) { return Unpickler(pkl, where).Run(); }

}  // namespace visprobe
