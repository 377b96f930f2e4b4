// The data2db name mapping (trend-analyzer.md §4.2): any file as mapping.json, then applied to a
// few names.
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "trend/dump_import.h"
#include "trend/trend_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = vpfuzz::WriteFile("mapping.json", data, size);
  auto m = visprobe::LoadNameMapping(path);
  if (!m.ok()) return 0;
  for (const char* name : {"Module.model.layers.0.Layer.forward.0", "Tensor.add.0.forward", "", "aaaaaaaaaaaaaaaa"})
    (void)visprobe::ApplyNameMapping(m.value(), name);
  return 0;
}
