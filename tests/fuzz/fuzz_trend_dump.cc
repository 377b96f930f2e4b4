// data2db on one dump rank folder (trend-analyzer.md §3.3, §4): the input is split at "\n---\n"
// into construct.json and the "data" object of dump.json; imported with micro steps on and off.
#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "trend/dump_import.h"
#include "trend/trend_import.h"

namespace {
class Quiet : public visprobe::Reporter {
 public:
  void Log(visprobe::LogLevel, const visprobe::Message&) override {}
  void Progress(double, bool) override {}
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  size_t cut = in.find("\n---\n");
  std::string construct = in.substr(0, cut);
  std::string body = cut == std::string::npos ? std::string("{}") : in.substr(cut + 5);
  std::string root = vpfuzz::Dir() + "/trend";
  for (const char* d : {"", "/step0", "/step0/rank0", "/db"}) mkdir((root + d).c_str(), 0700);
  vpfuzz::WriteFile("trend/step0/rank0/construct.json", reinterpret_cast<const uint8_t*>(construct.data()), construct.size());
  std::string dump = "{\"task\": \"statistics\", \"level\": \"mix\", \"data\": " + body + "}";
  vpfuzz::WriteFile("trend/step0/rank0/dump.json", reinterpret_cast<const uint8_t*>(dump.data()), dump.size());
  Quiet q;
  for (bool micro : {true, false}) {
    visprobe::TrendOptions o;
    o.data_dir = root;
    o.db_dir = root + "/db";
    o.format = "dump";
    o.micro_step = micro;
    o.mapping = {{".forward", ".fwd"}, {"Module.", ""}};
    (void)visprobe::ImportDumpTrend(o, q);
  }
  return 0;
}
