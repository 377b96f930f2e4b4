// .npy files (§4.5) and the tensor metrics of an array against itself and a shifted copy.
#include <cstdint>

#include "compare/npy.h"
#include "fuzz_tensor.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto a = visprobe::ReadNpy(vpfuzz::WriteFile("x.npy", data, size));
  if (a.ok()) vpfuzz::CompareTensorWithItself(a.value());
  return 0;
}
