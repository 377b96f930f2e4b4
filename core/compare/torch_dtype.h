// torch's tensor dtypes as a torch.save archive names them: by the storage class in a tensor's
// persistent id (torch.FloatStorage -> kFloat32, ...), with their element sizes and torch names.
#pragma once

#include <cstdint>
#include <string>

namespace visprobe {

enum class TorchDtype : uint8_t {
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kFloat8E4M3,
  kFloat8E5M2,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kBool
};
int TorchDtypeSize(TorchDtype d);
const char* TorchDtypeName(TorchDtype d);  // "torch.float32", ...

// The dtype of a storage class ("torch.FloatStorage"; UntypedStorage counts bytes), or null for
// a name that is not one.
const TorchDtype* StorageClassDtype(const std::string& name);

}  // namespace visprobe
