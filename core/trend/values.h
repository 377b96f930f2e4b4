// Value normalisation of the trend database (trend-analyzer.md §6) and the text-to-number rules
// shared by the dump and monitor readers.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "loader/json_tree.h"

namespace visprobe {

constexpr double kTrendMax = 1e9;
constexpr double kTrendPosInf = 1e9 + 1;  // +inf sentinel
constexpr double kTrendNegInf = -1e9 - 1;  // -inf sentinel

// Python float(text.strip()): decimal, exponent, inf / infinity / nan in any case, digits
// grouped with single '_'. nullopt when Python would raise.
std::optional<double> ParsePyFloat(std::string_view text);

// §6 applied to a number: NaN -> nullopt, +-inf -> sentinels, clipped to [-1e9, 1e9].
std::optional<double> ClipTrendValue(double v);

// §6 applied to a JSON value (string, bool, number; anything else -> nullopt).
std::optional<double> NormalizeJsonStat(const JTree& t, JIdx v);

// pandas' default missing-value tokens (§5.2): "", "#N/A", "NULL", "nan", ...
bool IsCsvMissingToken(std::string_view cell);

// §6 applied to a CSV cell (missing tokens -> nullopt, text parsed with ParsePyFloat).
std::optional<double> NormalizeCsvStat(std::string_view cell);

// A CSV integer cell (vpp_stage, step, micro_step): "3" or "3.0" (truncated toward zero);
// nullopt when empty, missing, NaN, infinite or not a number.
std::optional<int64_t> ParseCsvInt(std::string_view cell);

}  // namespace visprobe
