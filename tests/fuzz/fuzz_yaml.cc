// Layer-mapping YAML (§8.4.3).
#include <cstdint>
#include <string_view>

#include "match/yaml_subset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = visprobe::ParseLayerMappingYaml(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  (void)r;
  return 0;
}
