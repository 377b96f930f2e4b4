#include "trend/dump_scan.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <string_view>

#include "base/fs.h"
#include "base/strings.h"
#include "loader/json_reader.h"

namespace visprobe {

std::string PyList(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

namespace {

bool ParseFolderNumber(std::string_view digits, int64_t* out) {
  if (!AllDigits(digits) || digits.size() > 18) return false;
  *out = std::stoll(std::string(digits));
  return true;
}

}  // namespace

Result<DumpScan> ScanDumpFolders(const std::string& data, Reporter& rep) {
  DumpScan scan;
  ASSIGN_OR_RETURN(std::vector<DirEntry> top, ListDir(data));
  std::vector<std::pair<int64_t, std::string>> steps;
  for (const auto& e : top) {
    int64_t n;
    if (e.name.rfind("step", 0) != 0 || !e.is_dir || !ParseFolderNumber(std::string_view(e.name).substr(4), &n)) continue;
    steps.emplace_back(n, JoinPath(data, e.name));
    scan.step_seen = true;
  }
  std::sort(steps.begin(), steps.end());
  for (const auto& [step, step_path] : steps) {
    ASSIGN_OR_RETURN(std::vector<DirEntry> entries, ListDir(step_path));
    std::vector<std::string> skipped;
    std::vector<std::pair<int64_t, std::string>> ranks, procs;
    bool any_candidate = false, any_named = false;
    for (const auto& e : entries) {
      bool is_rank = e.name.rfind("rank", 0) == 0, is_proc = e.name.rfind("proc", 0) == 0;
      if (!is_rank && !is_proc) continue;
      any_named = true;
      int64_t n;
      if (!e.is_dir || !ParseFolderNumber(std::string_view(e.name).substr(4), &n)) {
        skipped.push_back(e.name);
        continue;
      }
      any_candidate = true;
      std::string folder = JoinPath(step_path, e.name);
      if (!IsRegularFile(JoinPath(folder, "dump.json"))) {
        rep.Log(LogLevel::kWarning, Msg<msg::kNoDumpJsonFile>(folder));
        continue;
      }
      (is_rank ? ranks : procs).emplace_back(n, folder);
    }
    if (!any_candidate) {
      rep.Log(LogLevel::kWarning, Msg<msg::kNoValidRankProc>(step_path, any_named ? MessageArg(PyList(skipped))
                                                                                  : MessageArg(Msg<msg::kNoneNoRankProc>())));
    }
    std::sort(ranks.begin(), ranks.end());
    std::sort(procs.begin(), procs.end());
    StepFolder sf{step, {}};
    int64_t next = ranks.empty() ? 0 : ranks.back().first + 1;
    for (const auto& r : ranks) sf.ranks.push_back({r.first, r.second});
    if (!procs.empty()) {
      std::string map;
      for (const auto& p : procs) {
        map += (map.empty() ? "" : ", ") + std::string("'") + BaseName(p.second) + "': " + std::to_string(next);
        sf.ranks.push_back({next++, p.second});
      }
      rep.Log(LogLevel::kInfo, Msg<msg::kStepProcRankMapping>(step, map));
    }
    if (!sf.ranks.empty()) scan.steps.push_back(std::move(sf));
  }
  if (!scan.step_seen) rep.Log(LogLevel::kWarning, Msg<msg::kNoValidStepDirectories>(data));
  return scan;
}

namespace {

struct ConstructValue {
  enum Kind { kNull, kString, kInt, kOther } kind = kNull;
  std::string s;
  int64_t i = 0;
};

ConstructValue ToConstructValue(const JTree& t, JIdx v) {
  ConstructValue out;
  switch (t.Kind(v)) {
    case JKind::kNull: out.kind = ConstructValue::kNull; break;
    case JKind::kString:
      out.kind = ConstructValue::kString;
      out.s = std::string(t.Str(v));
      break;
    case JKind::kInt:
      out.kind = ConstructValue::kInt;
      out.i = t.at(v).i;
      break;
    case JKind::kBool:
      out.kind = ConstructValue::kInt;
      out.i = t.at(v).b ? 1 : 0;
      break;  // Python: bool is int
    default: out.kind = ConstructValue::kOther; break;
  }
  return out;
}

// §3.3.4 group prefix and number of a key.
struct CallNumber {
  std::string prefix;
  uint64_t number = 0;
  int part = -1;  // index of the numbered part, -1 = none
};

CallNumber SplitCallNumber(const std::string& key) {
  std::vector<std::string_view> parts = Split(key, '.');
  CallNumber c;
  auto num = [](std::string_view d) {
    uint64_t n = 0;
    for (char ch : d) n = n > UINT64_MAX / 10 - 10 ? UINT64_MAX : n * 10 + static_cast<uint64_t>(ch - '0');
    return n;
  };
  size_t n = parts.size();
  if (AllDigits(parts[n - 1])) {
    c.part = static_cast<int>(n - 1);
  } else if (n >= 2 && AllDigits(parts[n - 2])) {
    c.part = static_cast<int>(n - 2);
  } else {
    c.prefix = key;
    return c;
  }
  c.number = num(parts[static_cast<size_t>(c.part)]);
  std::vector<std::string_view> rest;
  for (size_t k = 0; k < n; ++k)
    if (static_cast<int>(k) != c.part) rest.push_back(parts[k]);
  c.prefix = Join(rest, 0, rest.size());
  return c;
}

std::string Renumber(const std::string& key, int part, uint64_t n) {
  std::vector<std::string_view> parts = Split(key, '.');
  std::string num = std::to_string(n), out;
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) out += '.';
    if (static_cast<int>(k) == part)
      out += num;
    else
      out.append(parts[k].data(), parts[k].size());
  }
  return out;
}

}  // namespace

namespace {

// construct.json's entries in file order: the key, its value (a list's first element), and for a
// list its length.
struct ConstructEntries {
  std::vector<std::pair<std::string, ConstructValue>> entries;
  std::vector<char> is_list;
  std::vector<size_t> list_len;
};

Result<ConstructEntries> ReadConstructEntries(const std::string& path) {
  ConstructEntries c;
  JsonReadOptions ro;
  auto r = ReadJsonRecords(path, ro, [&](std::string_view key, const JTree& t, JIdx v) -> Status {
    if (t.Kind(v) == JKind::kArray) {
      JIdx first = t.at(v).first;
      c.entries.emplace_back(std::string(key),
                             first == kJNone ? ConstructValue{ConstructValue::kOther, "", 0} : ToConstructValue(t, first));
      c.is_list.push_back(1);
      c.list_len.push_back(t.at(v).count);
    } else {
      c.entries.emplace_back(std::string(key), ToConstructValue(t, v));
      c.is_list.push_back(0);
      c.list_len.push_back(0);
    }
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  return c;
}

// What each key of construct.json points at (its parent, or for a top module a slot counted in
// file order), and the entries that are real construct keys (into `keys`).
Result<std::unordered_map<std::string, ConstructValue>> RememberParents(const std::string& path, const ConstructEntries& c,
                                                                        std::vector<size_t>* keys) {
  bool megatron = false;
  for (const auto& e : c.entries) megatron |= e.first == "megatron_micro_step_number";
  std::unordered_map<std::string, ConstructValue> remembered;
  int64_t counter = 0;
  for (size_t k = 0; k < c.entries.size(); ++k) {
    const std::string& key = c.entries[k].first;
    if (megatron && key == "megatron_micro_step_number") continue;
    if (megatron && c.is_list[k] && c.list_len[k] != 2)
      return InvalidInput(Msg<msg::kValueListElementsExpected>(path, key, c.list_len[k]));
    keys->push_back(k);
    const ConstructValue& v = c.entries[k].second;
    if (v.kind == ConstructValue::kNull) {
      if (key.find(".backward") != std::string::npos) continue;
      if (key.rfind("Module", 0) == 0 || key.rfind("Cell", 0) == 0 || key.rfind("optimizer", 0) == 0) {
        ConstructValue slot;
        slot.kind = ConstructValue::kInt;
        slot.i = counter++;
        remembered[key] = slot;
      }
      continue;
    }
    remembered[key] = v;
  }
  return remembered;
}

// The slot of `key`: the first slot up its parent chain (backward and parameters_grad calls follow
// their forward's); none for a chain without one, or a cycle (`cycle` set).
std::optional<int64_t> SlotOf(std::string item, const std::unordered_map<std::string, ConstructValue>& remembered, bool* cycle) {
  for (size_t hops = 0;; ++hops) {
    if (hops > remembered.size() + 1) {
      *cycle = true;
      return std::nullopt;
    }
    std::string probe = ReplaceAll(ReplaceAll(item, ".backward", ".forward"), ".parameters_grad", ".forward");
    auto it = remembered.find(probe);
    if (it == remembered.end()) return std::nullopt;
    if (it->second.kind == ConstructValue::kInt) return it->second.i;
    if (it->second.kind != ConstructValue::kString) return std::nullopt;
    item = it->second.s;
  }
}

}  // namespace

Result<MicroPlan> PlanMicroSteps(const std::string& path, Reporter& rep) {
  ASSIGN_OR_RETURN(ConstructEntries c, ReadConstructEntries(path));
  std::vector<size_t> keys;
  ASSIGN_OR_RETURN(auto remembered, RememberParents(path, c, &keys));
  MicroPlan plan;
  struct Placed {
    size_t entry;
    int64_t slot;
    CallNumber call;
  };
  std::vector<Placed> placed;
  bool warned_cycle = false;
  for (size_t k : keys) {
    bool cycle = false;
    std::optional<int64_t> slot = SlotOf(c.entries[k].first, remembered, &cycle);
    if (cycle && !warned_cycle) {
      rep.Log(LogLevel::kWarning, Msg<msg::kCycleParentChainSuch>(c.entries[k].first, path));
      warned_cycle = true;
    }
    if (!slot || *slot < 0) continue;
    placed.push_back({k, *slot, SplitCallNumber(c.entries[k].first)});
  }
  if (placed.empty()) return plan;
  plan.any_placed = true;
  int64_t max_slot = 0;
  std::map<std::pair<int64_t, std::string>, std::vector<size_t>> groups;
  for (size_t p = 0; p < placed.size(); ++p) {
    max_slot = std::max(max_slot, placed[p].slot);
    groups[{placed[p].slot, placed[p].call.prefix}].push_back(p);
  }
  plan.count = max_slot + 1;
  // A call's number is renumbered within its slot: the slot's calls of one module count from 0.
  for (auto& g : groups) {
    std::vector<size_t> order = g.second;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return placed[a].call.number < placed[b].call.number; });
    for (size_t n = 0; n < order.size(); ++n) {
      const Placed& pl = placed[order[n]];
      const std::string& key = c.entries[pl.entry].first;
      std::string renamed = pl.call.part < 0 ? key : Renumber(key, pl.call.part, n);
      plan.placed.emplace(key, std::make_pair(pl.slot, std::move(renamed)));
    }
  }
  return plan;
}

}  // namespace visprobe
