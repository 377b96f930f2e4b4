#include "compare/torch_dtype.h"

namespace visprobe {
namespace {

struct StorageClass {
  const char* name;
  TorchDtype dtype;
};
// torch.<X>Storage as torch.save names them in a tensor's persistent id (the typed storage
// classes of torch 1.x and 2.x; UntypedStorage is bytes).
constexpr StorageClass kStorages[] = {
    {"torch.FloatStorage", TorchDtype::kFloat32},
    {"torch.DoubleStorage", TorchDtype::kFloat64},
    {"torch.HalfStorage", TorchDtype::kFloat16},
    {"torch.BFloat16Storage", TorchDtype::kBFloat16},
    {"torch.Float8_e4m3fnStorage", TorchDtype::kFloat8E4M3},
    {"torch.Float8_e5m2Storage", TorchDtype::kFloat8E5M2},
    {"torch.CharStorage", TorchDtype::kInt8},
    {"torch.ShortStorage", TorchDtype::kInt16},
    {"torch.IntStorage", TorchDtype::kInt32},
    {"torch.LongStorage", TorchDtype::kInt64},
    {"torch.ByteStorage", TorchDtype::kUInt8},
    {"torch.UInt16Storage", TorchDtype::kUInt16},
    {"torch.UInt32Storage", TorchDtype::kUInt32},
    {"torch.UInt64Storage", TorchDtype::kUInt64},
    {"torch.BoolStorage", TorchDtype::kBool},
    {"torch.UntypedStorage", TorchDtype::kUInt8},
};

}  // namespace

const TorchDtype* StorageClassDtype(const std::string& name) {
  for (const StorageClass& s : kStorages)
    if (name == s.name) return &s.dtype;
  return nullptr;
}

int TorchDtypeSize(TorchDtype d) {
  switch (d) {
    case TorchDtype::kFloat64:
    case TorchDtype::kInt64:
    case TorchDtype::kUInt64: return 8;
    case TorchDtype::kFloat32:
    case TorchDtype::kInt32:
    case TorchDtype::kUInt32: return 4;
    case TorchDtype::kFloat16:
    case TorchDtype::kBFloat16:
    case TorchDtype::kInt16:
    case TorchDtype::kUInt16: return 2;
    default: return 1;
  }
}

const char* TorchDtypeName(TorchDtype d) {
  static const char* const kNames[] = {"torch.float32",       "torch.float64",     "torch.float16", "torch.bfloat16",
                                       "torch.float8_e4m3fn", "torch.float8_e5m2", "torch.int8",    "torch.int16",
                                       "torch.int32",         "torch.int64",       "torch.uint8",   "torch.uint16",
                                       "torch.uint32",        "torch.uint64",      "torch.bool"};
  return kNames[static_cast<int>(d)];
}

}  // namespace visprobe
