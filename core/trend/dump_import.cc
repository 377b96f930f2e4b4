// Dump importer: §2.2 scan, §3.2/§3.3 steps and micro steps, §4 entries, §6 values, §8 writing.
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <unordered_map>

#include "base/fs.h"
#include "base/strings.h"
#include "loader/json_reader.h"
#include "trend/tags.h"
#include "trend/trend_db.h"
#include "trend/trend_import.h"
#include "trend/values.h"

namespace visprobe {

namespace {
constexpr double kMaxMappingGrowth = 1024;
}  // namespace

Result<NameMapping> LoadNameMapping(const std::string& path) {
  const std::string fail = "Load json file " + path + " failed.";
  Status c = CheckPath(path, PathKind::kFile, PathAccess::kRead, ".json");
  if (!c.ok()) return InvalidInput(fail + " " + c.message());
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return InvalidInput(fail + " It cannot be opened.");
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  JTree t;
  JIdx root = kJNone;
  Status p = ParseJsonText(text, t, &root);
  if (!p.ok()) return InvalidInput(fail + " " + p.message());
  if (t.Kind(root) != JKind::kObject) return InvalidInput(fail + " The mapping must be a JSON object of strings.");
  NameMapping m;
  for (JIdx c2 = t.at(root).first; c2 != kJNone; c2 = t.at(c2).next) {
    JIdx v = t.DictMember(root, c2);
    if (v == kJNone) continue;
    if (t.Kind(v) != JKind::kString)
      return InvalidInput(fail + " The value of \"" + std::string(t.Key(c2)) + "\" is not a string.");
    if (t.Key(c2).empty()) return InvalidInput(fail + " The mapping has an empty key.");
    m.emplace_back(std::string(t.Key(c2)), std::string(t.Str(v)));
  }
  // Replacements run one after another, so each can multiply a name's length by |to| / |from|:
  // refuse mappings that could blow a name up more than kMaxMappingGrowth times (a list of
  // "a": "aa" pairs would otherwise double it per pair).
  double growth = 1;
  for (const auto& kv : m) growth *= std::max(1.0, static_cast<double>(kv.second.size()) / static_cast<double>(kv.first.size()));
  if (growth > kMaxMappingGrowth)
    return InvalidInput(fail + " Its replacements could make names more than " +
                        std::to_string(static_cast<int>(kMaxMappingGrowth)) + " times longer.");
  return m;
}

std::string ApplyNameMapping(const NameMapping& m, std::string name) {
  for (const auto& kv : m) name = ReplaceAll(name, kv.first, kv.second);
  return name;
}

namespace {

constexpr int kForward = 1, kBackward = 2, kRecompute = 3, kParamsGrad = 4;

bool ParseFolderNumber(std::string_view digits, int64_t* out) {
  if (!AllDigits(digits) || digits.size() > 18) return false;
  *out = std::stoll(std::string(digits));
  return true;
}

struct RankFolder {
  int64_t rank;
  std::string path;
};

struct StepFolder {
  int64_t step;
  std::vector<RankFolder> ranks;
};

struct DumpScan {
  bool step_seen = false;
  std::vector<StepFolder> steps;
};

std::string PyList(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

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
        rep.Log(LogLevel::kWarning, "No 'dump.json' file found in: " + folder);
        continue;
      }
      (is_rank ? ranks : procs).emplace_back(n, folder);
    }
    if (!any_candidate) {
      rep.Log(LogLevel::kWarning, "No valid 'rank*' or 'proc*' directories found in: " + step_path +
                                      ". Expected directory names like 'rank0' or 'proc0'. Skipped entries: " +
                                      (any_named ? PyList(skipped) : std::string("(none — no rank*/proc* entries at all)")));
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
      rep.Log(LogLevel::kInfo, "Step " + std::to_string(step) + ": proc to rank mapping - {" + map + "}");
    }
    if (!sf.ranks.empty()) scan.steps.push_back(std::move(sf));
  }
  if (!scan.step_seen)
    rep.Log(LogLevel::kWarning, "No valid 'step*' directories found in: " + data + ", Expected directory names like 'step0'.");
  return scan;
}

// §3.3: slots and renumbered names of one rank's construct.json.
struct MicroPlan {
  bool any_placed = false;
  int64_t count = 1;
  std::unordered_map<std::string, std::pair<int64_t, std::string>> placed;  // key -> (slot, renumbered key)
};

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

Result<MicroPlan> PlanMicroSteps(const std::string& path, Reporter& rep) {
  std::vector<std::pair<std::string, ConstructValue>> entries;
  std::vector<char> is_list;
  std::vector<size_t> list_len;
  JsonReadOptions ro;
  auto r = ReadJsonRecords(path, ro, [&](std::string_view key, const JTree& t, JIdx v) -> Status {
    if (t.Kind(v) == JKind::kArray) {
      JIdx first = t.at(v).first;
      entries.emplace_back(std::string(key),
                           first == kJNone ? ConstructValue{ConstructValue::kOther, "", 0} : ToConstructValue(t, first));
      is_list.push_back(1);
      list_len.push_back(t.at(v).count);
    } else {
      entries.emplace_back(std::string(key), ToConstructValue(t, v));
      is_list.push_back(0);
      list_len.push_back(0);
    }
    return Status::Ok();
  });
  if (!r.ok()) return r.status();
  bool megatron = false;
  for (const auto& e : entries) megatron |= e.first == "megatron_micro_step_number";
  std::unordered_map<std::string, ConstructValue> remembered;
  std::vector<size_t> keys;  // entry indexes that are real construct keys
  int64_t counter = 0;
  for (size_t k = 0; k < entries.size(); ++k) {
    const std::string& key = entries[k].first;
    if (megatron && key == "megatron_micro_step_number") continue;
    if (megatron && is_list[k] && list_len[k] != 2)
      return InvalidInput(path + ": the value of \"" + key + "\" is a list of " + std::to_string(list_len[k]) +
                          " elements, expected [parent, micro_step]");
    keys.push_back(k);
    const ConstructValue& v = entries[k].second;
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
  MicroPlan plan;
  struct Placed {
    size_t entry;
    int64_t slot;
    CallNumber call;
  };
  std::vector<Placed> placed;
  bool warned_cycle = false;
  for (size_t k : keys) {
    std::string item = entries[k].first;
    std::optional<int64_t> slot;
    for (size_t hops = 0;; ++hops) {
      if (hops > remembered.size() + 1) {
        if (!warned_cycle)
          rep.Log(LogLevel::kWarning,
                  "Cycle in the parent chain of " + entries[k].first + " in " + path + "; such nodes are not placed");
        warned_cycle = true;
        break;
      }
      std::string probe = ReplaceAll(ReplaceAll(item, ".backward", ".forward"), ".parameters_grad", ".forward");
      auto it = remembered.find(probe);
      if (it == remembered.end()) break;
      if (it->second.kind == ConstructValue::kInt) {
        slot = it->second.i;
        break;
      }
      if (it->second.kind != ConstructValue::kString) break;
      item = it->second.s;
    }
    if (!slot || *slot < 0) continue;
    placed.push_back({k, *slot, SplitCallNumber(entries[k].first)});
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
  for (auto& g : groups) {
    std::vector<size_t>& idx = g.second;
    std::vector<size_t> order = idx;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return placed[a].call.number < placed[b].call.number; });
    for (size_t n = 0; n < order.size(); ++n) {
      const Placed& pl = placed[order[n]];
      const std::string& key = entries[pl.entry].first;
      std::string renamed = pl.call.part < 0 ? key : Renumber(key, pl.call.part, n);
      plan.placed.emplace(key, std::make_pair(pl.slot, std::move(renamed)));
    }
  }
  return plan;
}

// §4.3: metric and transformed key; 0 = skipped.
int Classify(const std::string& key, bool recompute, std::string* out) {
  auto contains_token = [&](const char* mid, const char* end) {
    return key.find(mid) != std::string::npos || EndsWith(key, end);
  };
  if (contains_token(".forward.", ".forward")) {
    *out = ReplaceAll(ReplaceAll(key, ".forward.", "."), ".forward", "");
    return recompute ? kRecompute : kForward;
  }
  if (contains_token(".backward.", ".backward")) {
    *out = ReplaceAll(ReplaceAll(key, ".backward.", "."), ".backward", "");
    return kBackward;
  }
  if (EndsWith(key, "parameters_grad")) {
    *out = ReplaceAll(key, ".parameters_grad", "");
    return kParamsGrad;
  }
  std::vector<std::string_view> parts = Split(key, '.');
  if (parts.size() >= 3 && parts[parts.size() - 2] == "parameters_grad") {
    *out = Join(parts, 0, parts.size() - 2);
    return kParamsGrad;
  }
  return 0;
}

bool EligibleTensor(const JTree& t, JIdx v) {
  if (v == kJNone || t.Kind(v) != JKind::kObject) return false;
  JIdx ty = t.Find(v, "type"), dt = t.Find(v, "dtype");
  if (ty == kJNone || dt == kJNone || t.Kind(ty) != JKind::kString || t.Kind(dt) != JKind::kString) return false;
  std::string_view type = t.Str(ty), dtype = t.Str(dt);
  if (type != "torch.Tensor" && type != "mindspore.Tensor" && type != "mindtorch.Tensor") return false;
  return dtype == "Float16" || dtype == "Float32" || dtype == "BFloat16" || dtype == "torch.float16" ||
         dtype == "torch.float32" || dtype == "torch.bfloat16";
}

// A non-empty list whose first element is an object: that element.
JIdx FirstObjectOfList(const JTree& t, JIdx v) {
  if (v == kJNone || t.Kind(v) != JKind::kArray || t.at(v).first == kJNone) return kJNone;
  JIdx f = t.at(v).first;
  return t.Kind(f) == JKind::kObject ? f : kJNone;
}

class DumpFileImporter {
 public:
  DumpFileImporter(TrendDbWriter& w, const NameMapping& mapping) : w_(w), mapping_(mapping) {}

  Status Entry(std::string key, const JTree& t, JIdx value, int64_t rank, int64_t step) {
    key = ApplyNameMapping(mapping_, std::move(key));
    JIdx rc = t.Find(value, "is_recompute");
    std::string k;
    int metric = Classify(key, rc != kJNone && t.Truthy(rc), &k);
    if (!metric) return Status::Ok();
    std::vector<std::string_view> parts = Split(k, '.');
    int64_t call = 0;
    std::string prefix = k;
    if (AllDigits(parts.back())) {
      const std::string_view d = parts.back();
      call = d.size() > 18 ? INT64_MAX : std::stoll(std::string(d));
      prefix = Join(parts, 0, parts.size() - 1);
    }
    auto tensor = [&](JIdx rec, const std::string& suffix) -> Status {
      if (!EligibleTensor(t, rec)) return Status::Ok();
      std::optional<double> stats[4] = {NormalizeJsonStat(t, t.Find(rec, "Norm")), NormalizeJsonStat(t, t.Find(rec, "Max")),
                                        NormalizeJsonStat(t, t.Find(rec, "Min")), NormalizeJsonStat(t, t.Find(rec, "Mean"))};
      int64_t id = w_.Target(prefix + suffix, 0, call);
      return w_.AddRow(rank, step, id, metric, stats);
    };
    auto list = [&](const char* member, const char* label) -> Status {
      JIdx arr = t.Find(value, member);
      if (arr == kJNone || t.Kind(arr) != JKind::kArray) return Status::Ok();
      size_t i = 0;
      for (JIdx c = t.at(arr).first; c != kJNone; c = t.at(c).next, ++i)
        RETURN_IF_ERROR(tensor(c, std::string(".") + label + "." + std::to_string(i)));
      return Status::Ok();
    };
    if (metric == kForward || metric == kRecompute) {
      RETURN_IF_ERROR(list("input_args", "input"));
      RETURN_IF_ERROR(list("output", "output"));
      JIdx params = t.Find(value, "parameters");
      if (params != kJNone && t.Kind(params) == JKind::kObject) {
        for (JIdx c = t.at(params).first; c != kJNone; c = t.at(c).next) {
          JIdx v = t.DictMember(params, c);
          if (v == kJNone) continue;
          RETURN_IF_ERROR(tensor(FirstObjectOfList(t, v), ".parameters." + std::string(t.Key(c))));
        }
      }
    } else if (metric == kBackward) {
      RETURN_IF_ERROR(list("input", "input"));
      RETURN_IF_ERROR(list("output", "output"));
    } else {
      for (JIdx c = t.at(value).first; c != kJNone; c = t.at(c).next) {
        JIdx v = t.DictMember(value, c);
        if (v == kJNone) continue;
        RETURN_IF_ERROR(tensor(FirstObjectOfList(t, v), "." + std::string(t.Key(c))));
      }
    }
    return Status::Ok();
  }

 private:
  TrendDbWriter& w_;
  const NameMapping& mapping_;
};

}  // namespace

RunPlan TrendRunPlan(const std::string& format, const TrendOptions& opts, const std::string& units, size_t unit_count,
                     size_t targets_pre) {
  RunPlan m;
  m.kind = "trend";
  m.describe = "data2db --format " + format + " --data " + RealPath(opts.data_dir) + " --micro_step " +
               (opts.micro_step ? "true" : "false") + (opts.mapping_file.empty() ? "" : " --mapping " + opts.mapping_file);
  std::string mapping;
  for (const auto& kv : opts.mapping) mapping += kv.first + '\0' + kv.second + '\0';
  m.key_extra = "|" + mapping;
  m.units_text = units;
  m.shard = opts.shard;
  m.units = unit_count;
  m.extra = {{"format", format}, {"targets_pre", std::to_string(targets_pre)}};
  return m;
}

namespace {

// data2db --format dump as a plan and its stages: the step*/rank* folders (one unit each, in scan
// order), the output, then step by step every rank folder's micro-step plan (construct.json: the
// slots of all ranks place the rows, so a shard reads every one) and this process's units'
// dump.json rows, on the calling thread.
class DumpRun {
 public:
  DumpRun(const TrendOptions& o, Reporter& r) : opts_(o), rep_(r) {}
  Result<TrendImportResult> Run();

 private:
  Status OpenOutput();
  Status ImportStep(const StepFolder& sf);
  // The micro-step plan of a rank folder (one micro step without construct.json).
  Result<MicroPlan> PlanRank(const RankFolder& rf);
  Status ImportRank(const StepFolder& sf, const RankFolder& rf, const MicroPlan& plan, size_t unit);
  Result<TrendImportResult> Finish();

  const TrendOptions& opts_;
  Reporter& rep_;
  DumpScan scan_;
  RunPlan plan_;
  std::unique_ptr<TrendDbWriter> w_;
  std::unique_ptr<DumpFileImporter> importer_;
  TrendSummary sum_;
  size_t unit_ = 0;
  uint64_t total_bytes_ = 0, done_bytes_ = 0, files_ = 0;
  int64_t offset_ = 0, max_rank_ = 0, min_step_ = INT64_MAX, max_step_ = 0;
  bool step_map_ok_ = true;
};

Status DumpRun::OpenOutput() {
  ASSIGN_OR_RETURN(std::string db_path, ClaimOutput(opts_.db_dir, PartStem("dump_data", opts_.shard), ".trend.db", rep_));
  for (const auto& st : scan_.steps)
    for (const auto& r : st.ranks) total_bytes_ += FileSize(JoinPath(r.path, "dump.json"));
  ASSIGN_OR_RETURN(w_, TrendDbWriter::Create(db_path, {"forward", "backward", "recompute", "parameters_grad"},
                                             {"norm", "max", "min", "mean"}));
  importer_ = std::make_unique<DumpFileImporter>(*w_, opts_.mapping);
  // Unit u is the u-th rank folder in scan order.
  std::string units_text;
  size_t units = 0;
  for (const auto& sf : scan_.steps)
    for (const auto& rf : sf.ranks) {
      if (opts_.shard.active()) units_text += "|" + std::to_string(sf.step) + ":" + std::to_string(rf.rank) + ":" + rf.path;
      ++units;
    }
  plan_ = TrendRunPlan("dump", opts_, units_text, units, 0);
  if (plan_.sharded()) RETURN_IF_ERROR(WritePartMeta(w_->handle(), plan_.Part()));
  return Status::Ok();
}

Result<MicroPlan> DumpRun::PlanRank(const RankFolder& rf) {
  MicroPlan plan;
  std::string construct = JoinPath(rf.path, "construct.json");
  if (!IsRegularFile(construct)) {
    rep_.Log(LogLevel::kWarning, "No 'construct.json' file found in: " + rf.path + "; its entries are counted as one micro step");
    return plan;
  }
  RETURN_IF_ERROR(CheckPath(construct, PathKind::kFile, PathAccess::kRead, ".json"));
  return PlanMicroSteps(construct, rep_);
}

Status DumpRun::ImportRank(const StepFolder& sf, const RankFolder& rf, const MicroPlan& plan, size_t unit) {
  const std::string dump = JoinPath(rf.path, "dump.json");
  if (plan_.sharded()) w_->BeginUnit();
  JsonReadOptions ro;
  ro.container_key = "data";
  const uint64_t base = done_bytes_;
  ro.progress = [&](uint64_t d, uint64_t) {
    if (total_bytes_) rep_.Progress(99.0 * static_cast<double>(base + d) / static_cast<double>(total_bytes_), true);
  };
  DumpFileImporter& importer = *importer_;
  const int64_t offset = offset_;
  auto read = ReadJsonRecords(dump, ro, [&](std::string_view key, const JTree& t, JIdx v) -> Status {
    if (t.Kind(v) != JKind::kObject) return Status::Ok();
    if (!opts_.micro_step) return importer.Entry(std::string(key), t, v, rf.rank, sf.step);
    if (!plan.any_placed) return importer.Entry(std::string(key), t, v, rf.rank, offset);
    auto it = plan.placed.find(std::string(key));
    if (it == plan.placed.end()) return Status::Ok();
    return importer.Entry(it->second.second, t, v, rf.rank, offset + it->second.first);
  });
  if (!read.ok()) return read.status();
  if (plan_.sharded()) {
    int64_t lo = !opts_.micro_step ? sf.step : offset,
            hi = !opts_.micro_step ? sf.step : offset + std::max<int64_t>(1, plan.count) - 1;
    RETURN_IF_ERROR(w_->EndUnit(static_cast<int64_t>(unit), rf.rank, lo, hi));
  }
  done_bytes_ += read->bytes;
  ++files_;
  if (read->meta_root == kJNone || read->meta.Find(read->meta_root, "data") == kJNone)
    rep_.Log(LogLevel::kWarning, dump + " has no \"data\" object; it contributes no rows");
  return Status::Ok();
}

Status DumpRun::ImportStep(const StepFolder& sf) {
  std::vector<std::string> counts;
  int64_t step_count = 0;
  for (const auto& rf : sf.ranks) {
    RETURN_IF_ERROR(CheckPath(JoinPath(rf.path, "dump.json"), PathKind::kFile, PathAccess::kRead, ".json"));
    MicroPlan plan;
    if (opts_.micro_step) {
      ASSIGN_OR_RETURN(plan, PlanRank(rf));
      counts.push_back(std::to_string(plan.count));
      step_count = std::max(step_count, plan.count);
    }
    max_rank_ = std::max(max_rank_, rf.rank);
    const size_t unit = unit_++;
    if (plan_.Takes(unit)) RETURN_IF_ERROR(ImportRank(sf, rf, plan, unit));
  }
  min_step_ = std::min(min_step_, sf.step);
  max_step_ = std::max(max_step_, sf.step);
  if (opts_.micro_step) {
    rep_.Log(LogLevel::kInfo,
             "Step " + std::to_string(sf.step) + " processing completed. Total micro steps identified: [" + PyList(counts) + "]");
    if (step_count > 1000000 || sum_.step_map.size() > 10000000) step_map_ok_ = false;
    for (int64_t j = 0; step_map_ok_ && j < step_count; ++j) sum_.step_map.push_back({offset_ + j, {sf.step, j}});
    offset_ += step_count;
  }
  return Status::Ok();
}

Result<TrendImportResult> DumpRun::Finish() {
  if (!step_map_ok_) sum_.step_map.clear();
  if (opts_.micro_step) {
    min_step_ = 0;
    max_step_ = offset_ - 1;
  }
  sum_.int_columns = {{"max_rank", max_rank_}, {"min_step", min_step_}, {"max_step", max_step_}};
  for (const char* m : {"forward", "backward", "recompute", "parameters_grad"})
    sum_.text_columns.push_back({m, "norm,max,min,mean"});
  sum_.tags = &DumpTargetTags;
  sum_.meta = {{"source_format", "dump"},
               {"micro_step", opts_.micro_step ? "true" : "false"},
               {"mapping_file", opts_.mapping_file},
               {"tool_version", "visprobe 0.1"}};
  if (!opts_.created_utc.empty()) sum_.meta.push_back({"created_utc", opts_.created_utc});
  TrendImportResult res;
  res.files = files_;
  res.rows = w_->rows_offered();
  res.targets = w_->target_count();
  res.input_bytes = done_bytes_;
  ASSIGN_OR_RETURN(res.db_path, w_->Commit(sum_));
  res.written = true;
  rep_.Log(LogLevel::kInfo, "Dump data import completed. DB: " + res.db_path);
  return res;
}

Result<TrendImportResult> DumpRun::Run() {
  rep_.Log(LogLevel::kInfo, "Starting dump data import...");
  rep_.Log(LogLevel::kInfo, "Scanning data directory...");
  ASSIGN_OR_RETURN(scan_, ScanDumpFolders(opts_.data_dir, rep_));
  if (scan_.steps.empty()) {
    rep_.Log(opts_.format == "dump" || scan_.step_seen ? LogLevel::kError : LogLevel::kInfo,
             "No valid dump data discovered in: " + opts_.data_dir +
                 ", dump import skipped. See preceding scan warnings for the exact reason.");
    return TrendImportResult();
  }
  RETURN_IF_ERROR(OpenOutput());
  for (const auto& sf : scan_.steps) RETURN_IF_ERROR(ImportStep(sf));
  return Finish();
}

}  // namespace

Result<TrendImportResult> ImportDumpTrend(const TrendOptions& opts, Reporter& rep) {
  DumpRun run(opts, rep);
  return run.Run();
}

}  // namespace visprobe
