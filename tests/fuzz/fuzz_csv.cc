// The monitor CSV reader (trend-analyzer.md §5.2) and the §6 cell parsers, in memory.
#include <cstdint>
#include <string>
#include <vector>

#include "trend/csv.h"
#include "trend/values.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  visprobe::CsvReader reader(text);
  std::vector<std::string_view> fields;
  for (;;) {
    auto more = reader.Next(fields);
    if (!more.ok() || !more.value()) break;
    for (auto f : fields) {
      (void)visprobe::NormalizeCsvStat(f);
      (void)visprobe::ParseCsvInt(f);
      (void)visprobe::ParsePyFloat(f);
    }
  }
  return 0;
}
