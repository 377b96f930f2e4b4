// data2db on one monitor rank folder (trend-analyzer.md §5, §6): the input is an actv CSV file
// (header + rows) imported with micro steps on and off, and every cell through the §6 parsers.
#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "fuzz_util.h"
#include "trend/csv.h"
#include "trend/monitor_import.h"
#include "trend/trend_import.h"
#include "trend/values.h"

namespace {
class Quiet : public visprobe::Reporter {
 public:
  void Log(visprobe::LogLevel, const visprobe::Message&) override {}
  void Progress(double, bool) override {}
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  visprobe::CsvReader reader(text);
  std::vector<std::string_view> fields;
  for (int rows = 0; rows < 100000; ++rows) {
    auto more = reader.Next(fields);
    if (!more.ok() || !more.value()) break;
    for (auto f : fields) {
      (void)visprobe::NormalizeCsvStat(f);
      (void)visprobe::ParseCsvInt(f);
    }
  }
  std::string root = vpfuzz::Dir() + "/mon";
  for (const char* d : {"", "/Dec03_21-34-40-rank0-abcd1234", "/db"}) mkdir((root + d).c_str(), 0700);
  vpfuzz::WriteFile("mon/Dec03_21-34-40-rank0-abcd1234/actv_0-1.csv", data, size);
  Quiet q;
  for (bool micro : {true, false}) {
    visprobe::TrendOptions o;
    o.data_dir = root;
    o.db_dir = root + "/db";
    o.format = "monitor";
    o.micro_step = micro;
    (void)visprobe::ImportMonitorTrend(o, q);
  }
  return 0;
}
