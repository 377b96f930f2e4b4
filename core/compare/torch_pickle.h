// A restricted unpickler for the data.pkl record of a torch.save archive holding one tensor. It
// knows only the opcodes pickle protocols 2-5 use for that and the globals torch.save emits for a
// tensor (torch._utils._rebuild_tensor_v2, _rebuild_parameter, _rebuild_parameter_with_state,
// collections.OrderedDict and the typed / untyped storage classes); any other global is refused
// with its name. Nothing is called or imported: the stack holds plain values, and a "call" is a
// match on the global's name that builds a TensorRef.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "compare/torch_dtype.h"

namespace visprobe {

// What _rebuild_tensor_v2 would have built: a view of one storage record.
struct TensorRef {
  TorchDtype dtype = TorchDtype::kFloat32;
  std::string storage_key;  // the record data/<key>
  uint64_t storage_numel = 0;  // elements the pickle says the storage holds
  uint64_t offset = 0;  // storage_offset, in elements
  std::vector<uint64_t> size;
  std::vector<int64_t> stride;
  bool requires_grad = false;
};

// Unpickles `pkl`; the result must be a tensor (or a Parameter). `where` names the file in errors.
Result<TensorRef> UnpickleTensor(std::string_view pkl, const std::string& where);

}  // namespace visprobe
