// The viewer's manual matching reads item texts from a database that may come from anywhere.
#include <cstdint>
#include <string>

#include "compare/manual_match.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  size_t cut = in.find('\n');
  std::string a = in.substr(0, cut);
  std::string b = cut == std::string::npos ? std::string("{}") : in.substr(cut + 1);
  for (const char* task : {"summary", "md5"}) (void)visprobe::CompareStoredItems(task, "Node.x.0.forward", a, "{}", b, a);
  (void)visprobe::StripComparisonFields(a);
  return 0;
}
