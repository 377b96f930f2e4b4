// PyTorch .pt files (torch.save's zip + pickle, core/compare/torch_pt.h) and the tensor metrics of
// the tensor against itself and a shifted copy. Seeds: tests/fuzz/seeds/fuzz_pt and the real
// dumper's .pt files in ../shared/fixtures/msprobe-real-dumper (scripts/fuzz.sh adds them).
#include <cstdint>

#include "compare/torch_pt.h"
#include "fuzz_tensor.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto a = visprobe::ReadPt(vpfuzz::WriteFile("x.pt", data, size));
  if (a.ok()) vpfuzz::CompareTensorWithItself(a.value());
  return 0;
}
