// A whole rank folder: the input is split at "\n---\n" into construct.json, stack.json and the
// data of dump.json; the graph is built with every rule (§6), items kept, and paged (§10).
#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "graph/builder.h"
#include "graph/paging.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  std::string parts[3];
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    size_t cut = i < 2 ? in.find("\n---\n", start) : std::string::npos;
    parts[i] = in.substr(start, cut == std::string::npos ? std::string::npos : cut - start);
    if (cut == std::string::npos) { start = in.size(); } else { start = cut + 5; }
  }
  vpfuzz::WriteFile("construct.json", reinterpret_cast<const uint8_t*>(parts[0].data()), parts[0].size());
  vpfuzz::WriteFile("stack.json", reinterpret_cast<const uint8_t*>(parts[1].data()), parts[1].size());
  std::string dump = "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": " +
                     (parts[2].empty() ? std::string("{}") : parts[2]) + "}";
  vpfuzz::WriteFile("dump.json", reinterpret_cast<const uint8_t*>(dump.data()), dump.size());
  visprobe::BuildOptions o;
  o.overflow_check = true;
  o.window_bytes = 64;
  auto g = visprobe::BuildGraph(vpfuzz::Dir(), o);
  if (g.ok()) (void)visprobe::PageMicroSteps(*g.value());
  return 0;
}
