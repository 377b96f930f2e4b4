// .npy files (§4.5) and the tensor metrics of an array against itself and a shifted copy.
#include <cstdint>

#include "compare/npy.h"
#include "compare/tensor_metrics.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = vpfuzz::WriteFile("x.npy", data, size);
  auto a = visprobe::ReadNpy(path);
  if (!a.ok()) return 0;
  if (a->data.size() > (1u << 20)) return 0;
  (void)visprobe::CompareTensors(a.value(), a.value());
  visprobe::NpyArray b = a.value();
  for (double& v : b.data) v += 1;
  b.all_finite = false;   // the values changed
  (void)visprobe::CompareTensors(a.value(), b);
  return 0;
}
