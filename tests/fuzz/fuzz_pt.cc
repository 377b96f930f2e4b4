// PyTorch .pt files (torch.save's zip + pickle, core/compare/torch_pt.h) and the tensor metrics of
// the tensor against itself and a shifted copy. Seeds: tests/fuzz/seeds/fuzz_pt and the real
// dumper's .pt files in ../shared/fixtures/msprobe-real-dumper (scripts/fuzz.sh adds them).
#include <cstdint>

#include "compare/tensor_metrics.h"
#include "compare/torch_pt.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = vpfuzz::WriteFile("x.pt", data, size);
  auto a = visprobe::ReadPt(path);
  if (!a.ok()) return 0;
  if (a->data.size() > (1u << 20)) return 0;
  (void)visprobe::CompareTensors(a.value(), a.value());
  visprobe::NpyArray b = a.value();
  for (double& v : b.data) v += 1;
  b.all_finite = false;   // the values changed
  (void)visprobe::CompareTensors(a.value(), b);
  return 0;
}
