#include "trend/monitor_csv.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <set>
#include <string_view>
#include <tuple>

#include "base/fs.h"
#include "base/strings.h"
#include "trend/csv.h"
#include "trend/dump_import.h"
#include "trend/values.h"

namespace visprobe {

const char* const kMetrics[kMetricCount] = {"actv",         "actv_grad",    "exp_avg",       "exp_avg_sq", "grad_unreduced",
                                            "grad_reduced", "param_origin", "param_updated", "other"};
const char* const kStats[kStatCount] = {"norm",        "min", "max",         "zeros", "nans",     "mean",  "entropy",
                                        "softmax_max", "sr",  "kernel_norm", "std_x", "jacobian", "proxy", "token_similarity"};

namespace {

constexpr int kWarningsPerFile = 5;

bool IsWordOrDash(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c >= 0x80;
}

// `([\w-]{0,20})-rank(\d{1,5})-` matched from the start, greedy with backtracking.
Result<std::string> ReadWholeFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return IoError(Msg<msg::kCannotOpen>(path));
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  bool err = std::ferror(f) != 0;
  std::fclose(f);
  if (err) return IoError(Msg<msg::kCannotRead>(path));
  return text;
}

}  // namespace

bool MatchRankFolder(const std::string& name, std::string* tag, int64_t* rank) {
  size_t limit = 0;
  while (limit < name.size() && limit < 20 && IsWordOrDash(static_cast<unsigned char>(name[limit]))) ++limit;
  for (size_t len = limit + 1; len-- > 0;) {
    if (name.compare(len, 5, "-rank") != 0) continue;
    size_t d = len + 5, e = d;
    while (e < name.size() && name[e] >= '0' && name[e] <= '9') ++e;
    if (e == d || e - d > 5 || e >= name.size() || name[e] != '-') continue;
    *tag = name.substr(0, len);
    *rank = std::stoll(name.substr(d, e - d));
    return true;
  }
  return false;
}

// strptime(tag, "%b%d_%H-%M-%S") as Python does it; the fields as a comparable tuple.
bool ParseTimeTag(const std::string& s, std::array<int, 5>* when) {
  static const char* const kMon[] = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (s.size() < 3) return false;
  int month = -1;
  for (int m = 0; m < 12; ++m) {
    bool eq = true;
    for (int k = 0; k < 3; ++k)
      eq &= static_cast<char>(std::tolower(static_cast<unsigned char>(s[static_cast<size_t>(k)]))) == kMon[m][k];
    if (eq) month = m;
  }
  if (month < 0) return false;
  // Number fields: (max, allow leading space) in order day, hour, minute, second; separators.
  struct Field {
    int lo, hi;
    char sep_after;
    bool space;
  };
  const Field fields[] = {{1, kDays[month], '_', true}, {0, 23, '-', false}, {0, 59, '-', false}, {0, 61, '\0', false}};
  // Backtracking over 2- or 1-character fields.
  std::array<int, 4> vals{};
  std::function<bool(size_t, int)> go = [&](size_t pos, int f) -> bool {
    if (f == 4) return pos == s.size();
    for (int len = 2; len >= 1; --len) {
      if (pos + static_cast<size_t>(len) > s.size()) continue;
      std::string part = s.substr(pos, static_cast<size_t>(len));
      int v;
      if (len == 2 && fields[f].space && part[0] == ' ' && part[1] >= '1' && part[1] <= '9')
        v = part[1] - '0';
      else if (AllDigits(part))
        v = std::stoi(part);
      else
        continue;
      if (v < fields[f].lo || v > fields[f].hi) continue;
      size_t next = pos + static_cast<size_t>(len);
      if (fields[f].sep_after) {
        if (next >= s.size() || s[next] != fields[f].sep_after) continue;
        ++next;
      }
      vals[static_cast<size_t>(f)] = v;
      if (go(next, f + 1)) return true;
    }
    return false;
  };
  if (!go(3, 0)) return false;
  *when = {month, vals[0], vals[1], vals[2], vals[3]};
  return true;
}

// ---- §5.1 file names ---------------------------------------------------------------------

int MetricOfFile(const std::string& name) {
  if (!EndsWith(name, ".csv")) return -1;
  std::string stem = name.substr(0, name.size() - 4);
  size_t us = stem.rfind('_');
  if (us == std::string::npos) return -1;
  std::string range = stem.substr(us + 1);
  size_t dash = range.find('-');
  if (dash == std::string::npos || !AllDigits(range.substr(0, dash)) || !AllDigits(range.substr(dash + 1))) return -1;
  std::string metric = stem.substr(0, us);
  for (size_t m = 0; m < kMetricCount; ++m)
    if (metric == kMetrics[m]) return static_cast<int>(m);
  return -1;
}

namespace {

// The columns of a CSV file's header: -1 for one it lacks.
struct CsvColumns {
  int name = -1, vpp = -1, step = -1, micro = -1;
  std::array<int, kStatCount> stat;
  size_t width = 0;
};

CsvColumns ReadHeader(const std::vector<std::string_view>& f, uint32_t* stat_mask) {
  CsvColumns c;
  c.stat.fill(-1);
  c.width = f.size();
  for (size_t i = 0; i < f.size(); ++i) {
    int k = static_cast<int>(i);
    if (f[i] == "name")
      c.name = k;
    else if (f[i] == "vpp_stage")
      c.vpp = k;
    else if (f[i] == "step")
      c.step = k;
    else if (f[i] == "micro_step")
      c.micro = k;
    for (size_t s = 0; s < kStatCount; ++s)
      if (f[i] == kStats[s]) {
        c.stat[s] = k;
        *stat_mask |= 1u << s;
      }
  }
  return c;
}

// Field `i` of a row, empty when the row is shorter (or the column absent: -1).
std::string_view Cell(const std::vector<std::string_view>& f, int i) {
  return i >= 0 && static_cast<size_t>(i) < f.size() ? f[static_cast<size_t>(i)] : std::string_view();
}

// A row's vpp_stage, step and micro_step (0 without their column), or why the row is skipped.
struct RowKeys {
  int64_t vpp = 0, step = 0, micro = 0;
  std::optional<Message> skip;  // none: the row is valid
};

RowKeys ReadRowKeys(const CsvColumns& c, const std::vector<std::string_view>& f, size_t line) {
  RowKeys k;
  if (f.size() > c.width) {
    k.skip = Msg<msg::kLineFieldsMoreThanHeader>(line, f.size(), c.width);
    return k;
  }
  auto cell = [&f](int i) { return Cell(f, i); };
  if (c.name < 0) return RowKeys{0, 0, 0, Msg<msg::kNoNameColumn>()};
  if (c.vpp < 0) return RowKeys{0, 0, 0, Msg<msg::kNoVppStageColumn>()};
  auto vpp = ParseCsvInt(cell(c.vpp));
  if (!vpp) return RowKeys{0, 0, 0, Msg<msg::kInvalidColumnValue>("vpp_stage", cell(c.vpp))};
  k.vpp = *vpp;
  if (c.step >= 0) {
    auto v = ParseCsvInt(cell(c.step));
    if (!v) return RowKeys{0, 0, 0, Msg<msg::kInvalidColumnValue>("step", cell(c.step))};
    k.step = *v;
  }
  if (c.micro >= 0) {
    auto v = ParseCsvInt(cell(c.micro));
    if (!v) return RowKeys{0, 0, 0, Msg<msg::kInvalidColumnValue>("micro_step", cell(c.micro))};
    k.micro = *v;
  }
  return k;
}

}  // namespace

void ScanCsv(const CsvFile& file, const TrendOptions& opts, bool keep_rows, FileScan& out) {
  auto text = ReadWholeFile(file.path);
  if (!text.ok()) {
    out.status = text.status();
    return;
  }
  CsvReader reader(text.value());
  std::vector<std::string_view> f;
  auto header = reader.Next(f);
  if (!header.ok()) {
    out.status = InvalidInput(Msg<msg::kPathPrefixed>(file.path, header.status()));
    return;
  }
  if (!header.value()) return;  // empty file
  const CsvColumns cols = ReadHeader(f, &out.stat_mask);
  int skipped = 0;
  std::set<std::tuple<std::string, int64_t, int64_t>> seen;
  for (;;) {
    auto more = reader.Next(f);
    if (!more.ok()) {
      out.status = InvalidInput(Msg<msg::kPathPrefixed>(file.path, more.status()));
      return;
    }
    if (!more.value()) break;
    const RowKeys k = ReadRowKeys(cols, f, reader.line());
    if (k.skip) {
      if (++skipped <= kWarningsPerFile) out.warnings.push_back(Msg<msg::kSkipInvalidRow>(file.path, *k.skip));
      continue;
    }
    std::string_view raw_name = Cell(f, cols.name);
    std::string name = IsCsvMissingToken(raw_name) ? std::string("nan") : ApplyNameMapping(opts.mapping, std::string(raw_name));
    int64_t target_micro = opts.micro_step ? 0 : k.micro;
    ++out.valid_rows;
    if (!keep_rows) {
      auto& c = out.step_counts[k.step];
      c = std::max(c, k.micro + 1);
      if (seen.emplace(name, k.vpp, target_micro).second) out.targets.push_back(TrendTarget{name, k.vpp, target_micro});
      continue;
    }
    CsvRow row;
    row.name = std::move(name);
    row.vpp = k.vpp;
    row.step = k.step;
    row.micro = k.micro;
    for (size_t s = 0; s < kStatCount; ++s)
      if (cols.stat[s] >= 0) row.stats[s] = NormalizeCsvStat(Cell(f, cols.stat[s]));
    out.rows.push_back(std::move(row));
  }
  if (skipped > kWarningsPerFile)
    out.warnings.push_back(Msg<msg::kSkipInvalidRow>(file.path, Msg<msg::kMoreRowsSkipped>(skipped - kWarningsPerFile)));
}

std::string JoinStats(uint32_t mask) {
  std::string s;
  for (size_t k = 0; k < kStatCount; ++k)
    if (mask & (1u << k)) s += (s.empty() ? "" : ",") + std::string(kStats[k]);
  return s;
}

}  // namespace visprobe
