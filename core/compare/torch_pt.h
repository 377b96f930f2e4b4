// PyTorch .pt tensor files (torch.save's zip format, torch 1.6 and later: what msProbe's dumper
// writes with save_pt), read into the same NpyArray the .npy reader gives, as msProbe's
// read_pt_data does with torch: torch.load(weights_only=True), bfloat16 and float8 upcast to
// float32, .numpy(), np.squeeze. The pickle is read by a restricted unpickler (torch_pickle.h) and
// only the bytes of the tensor's own view are read from the storage record, in chunks.
#pragma once

#include <string>

#include "base/status.h"
#include "compare/npy.h"
#include "compare/torch_pickle.h"

namespace visprobe {

// What a .pt file holds, without reading its elements (for tests and diagnostics).
struct PtInfo {
  TensorRef tensor;
  std::string archive;  // the records' folder name inside the zip
  bool big_endian = false;
};
Result<PtInfo> InspectPt(const std::string& path);

// Reads the tensor of one .pt file. Errors name the file and the problem: not a zip, truncated,
// a foreign global in the pickle, a storage shorter than the tensor claims, an unknown dtype,
// or a file that holds something other than a tensor.
Result<NpyArray> ReadPt(const std::string& path);

// The NpyArray dtype msProbe's compare sees for a torch dtype (after its float32 upcasts).
NpyDtype NumpyDtypeOf(TorchDtype d);

}  // namespace visprobe
