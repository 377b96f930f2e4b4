// Labels (tags) of trend targets, trend-analyzer.md §7: derived from the final target name.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace visprobe {

struct TrendTag {
  std::string name;
  std::string category;  // default | layer | index | module | function
  bool operator==(const TrendTag& o) const { return name == o.name && category == o.category; }
};

// §7.1 (dump targets); tags in discovery order, without duplicates.
std::vector<TrendTag> DumpTargetTags(std::string_view name);
// §7.2 (monitor targets).
std::vector<TrendTag> MonitorTargetTags(std::string_view name);

}  // namespace visprobe
