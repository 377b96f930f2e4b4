// Dump importer: §2.2 scan, §3.2/§3.3 steps and micro steps, §4 entries, §6 values, §8 writing.
#include "trend/dump_import.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <unordered_map>

#include "base/fs.h"
#include "base/strings.h"
#include "db/run_executor.h"
#include "loader/json_reader.h"
#include "trend/dump_scan.h"
#include "trend/tags.h"
#include "trend/trend_db.h"
#include "trend/trend_import.h"
#include "trend/values.h"

namespace visprobe {

namespace {
constexpr double kMaxMappingGrowth = 1024;
}  // namespace

Result<NameMapping> LoadNameMapping(const std::string& path) {
  auto fail = [&path](const MessageArg& why) { return InvalidInput(Msg<msg::kLoadJsonFailedPath>(path, why)); };
  Status c = CheckPath(path, PathKind::kFile, PathAccess::kRead, ".json");
  if (!c.ok()) return fail(c);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return fail(Msg<msg::kCannotBeOpened>());
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  JTree t;
  JIdx root = kJNone;
  Status p = ParseJsonText(text, t, &root);
  if (!p.ok()) return fail(p);
  if (t.Kind(root) != JKind::kObject) return fail(Msg<msg::kMappingMustJsonObject>());
  NameMapping m;
  for (JIdx c2 = t.at(root).first; c2 != kJNone; c2 = t.at(c2).next) {
    JIdx v = t.DictMember(root, c2);
    if (v == kJNone) continue;
    if (t.Kind(v) != JKind::kString) return fail(Msg<msg::kValueNotString>(t.Key(c2)));
    if (t.Key(c2).empty()) return fail(Msg<msg::kMappingHasEmptyKey>());
    m.emplace_back(std::string(t.Key(c2)), std::string(t.Str(v)));
  }
  // Replacements run one after another, so each can multiply a name's length by |to| / |from|:
  // refuse mappings that could blow a name up more than kMaxMappingGrowth times (a list of
  // "a": "aa" pairs would otherwise double it per pair).
  double growth = 1;
  for (const auto& kv : m) growth *= std::max(1.0, static_cast<double>(kv.second.size()) / static_cast<double>(kv.first.size()));
  if (growth > kMaxMappingGrowth) return fail(Msg<msg::kReplacementsCouldMakeNames>(static_cast<int>(kMaxMappingGrowth)));
  return m;
}

std::string ApplyNameMapping(const NameMapping& m, std::string name) {
  for (const auto& kv : m) name = ReplaceAll(name, kv.first, kv.second);
  return name;
}

namespace {

constexpr int kForward = 1, kBackward = 2, kRecompute = 3, kParamsGrad = 4;

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

// data2db --format dump as a planner (db/run_executor.h): its items are the step*/rank* folders
// (one unit each, in scan order); step by step, every rank folder's micro-step plan is read
// (construct.json: the slots of all ranks place the rows, so a shard reads every one, Skip included)
// and this process's units' dump.json rows go in, on the calling thread.
class DumpRun : public RunPlanner {
 public:
  DumpRun(const TrendOptions& o, Reporter& r) : opts_(o), rep_(r) {}
  const TrendImportResult& result() const { return res_; }

  Result<bool> Plan(RunExecutor& ex) override;
  size_t Items() const override { return units_.size(); }
  Status Open(RunExecutor& ex) override;
  Status Consume(size_t nth) override { return RankUnit(ex_->taken()[nth], true); }
  Status Skip(size_t unit) override { return RankUnit(unit, false); }
  Status Finish(RunExecutor& ex) override;
  void Abandon() override {
    importer_.reset();
    w_.reset();
  }

 private:
  // Unit `unit`'s rank folder: its micro-step plan, its rows when `take`, and the end of its step
  // after its step's last rank folder.
  Status RankUnit(size_t unit, bool take);
  void EndStep(const StepFolder& sf);
  // The micro-step plan of a rank folder (one micro step without construct.json).
  Result<MicroPlan> PlanRank(const RankFolder& rf);
  Status ImportRank(const StepFolder& sf, const RankFolder& rf, const MicroPlan& plan, size_t unit);

  const TrendOptions& opts_;
  Reporter& rep_;
  RunExecutor* ex_ = nullptr;
  StageProgress* progress_ = nullptr;  // the executor's
  DumpScan scan_;
  std::vector<std::pair<size_t, size_t>> units_;  // unit -> (step, rank folder) of scan_
  std::unique_ptr<TrendDbWriter> w_;
  std::unique_ptr<DumpFileImporter> importer_;
  TrendSummary sum_;
  TrendImportResult res_;
  std::vector<std::string> counts_;  // the micro-step counts of the step's rank folders
  int64_t step_count_ = 0;
  uint64_t total_bytes_ = 0, done_bytes_ = 0, files_ = 0;
  int64_t offset_ = 0, max_rank_ = 0, min_step_ = INT64_MAX, max_step_ = 0;
  bool step_map_ok_ = true;
};

// Unit u is the u-th rank folder in scan order.
Result<bool> DumpRun::Plan(RunExecutor& ex) {
  ex_ = &ex;
  rep_.Log(LogLevel::kInfo, Msg<msg::kStartingDumpDataImport>());
  rep_.Log(LogLevel::kInfo, Msg<msg::kScanningDataDirectory>());
  ASSIGN_OR_RETURN(scan_, ScanDumpFolders(opts_.data_dir, rep_));
  if (scan_.steps.empty()) {
    rep_.Log(opts_.format == "dump" || scan_.step_seen ? LogLevel::kError : LogLevel::kInfo,
             Msg<msg::kNoValidDumpData>(opts_.data_dir));
    return false;
  }
  std::string units_text;
  for (size_t s = 0; s < scan_.steps.size(); ++s)
    for (size_t r = 0; r < scan_.steps[s].ranks.size(); ++r) {
      const StepFolder& sf = scan_.steps[s];
      const RankFolder& rf = sf.ranks[r];
      if (opts_.shard.active()) units_text += "|" + std::to_string(sf.step) + ":" + std::to_string(rf.rank) + ":" + rf.path;
      units_.push_back({s, r});
    }
  ex.SetPlan(TrendRunPlan("dump", opts_, units_text, units_.size(), 0));
  return true;
}

Status DumpRun::Open(RunExecutor& ex) {
  ASSIGN_OR_RETURN(std::string db_path, ex.ClaimOutput(opts_.db_dir, PartStem("dump_data", opts_.shard), ".trend.db"));
  for (const auto& st : scan_.steps)
    for (const auto& r : st.ranks) total_bytes_ += FileSize(JoinPath(r.path, "dump.json"));
  ASSIGN_OR_RETURN(w_, TrendDbWriter::Create(db_path, {"forward", "backward", "recompute", "parameters_grad"},
                                             {"norm", "max", "min", "mean"}));
  importer_ = std::make_unique<DumpFileImporter>(*w_, opts_.mapping);
  if (ex.sharded()) RETURN_IF_ERROR(WritePartMeta(w_->handle(), ex.plan().Part()));
  // One stage, the dump.json bytes read; the last 1 % is the commit's.
  progress_ = &ex.StartProgress(1, 1.0);
  return Status::Ok();
}

Result<MicroPlan> DumpRun::PlanRank(const RankFolder& rf) {
  MicroPlan plan;
  std::string construct = JoinPath(rf.path, "construct.json");
  if (!IsRegularFile(construct)) {
    rep_.Log(LogLevel::kWarning, Msg<msg::kNoConstructJsonFile>(rf.path));
    return plan;
  }
  RETURN_IF_ERROR(CheckPath(construct, PathKind::kFile, PathAccess::kRead, ".json"));
  return PlanMicroSteps(construct, rep_);
}

Status DumpRun::ImportRank(const StepFolder& sf, const RankFolder& rf, const MicroPlan& plan, size_t unit) {
  const std::string dump = JoinPath(rf.path, "dump.json");
  if (ex_->sharded()) w_->BeginUnit();
  JsonReadOptions ro;
  ro.container_key = "data";
  const uint64_t base = done_bytes_;
  ro.progress = [&](uint64_t d, uint64_t) {
    if (total_bytes_) progress_->Stage(0, static_cast<double>(base + d) / static_cast<double>(total_bytes_));
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
  if (ex_->sharded()) {
    int64_t lo = !opts_.micro_step ? sf.step : offset,
            hi = !opts_.micro_step ? sf.step : offset + std::max<int64_t>(1, plan.count) - 1;
    RETURN_IF_ERROR(w_->EndUnit(static_cast<int64_t>(unit), rf.rank, lo, hi));
  }
  done_bytes_ += read->bytes;
  ++files_;
  if (read->meta_root == kJNone || read->meta.Find(read->meta_root, "data") == kJNone)
    rep_.Log(LogLevel::kWarning, Msg<msg::kHasNoDataObject>(dump));
  return Status::Ok();
}

Status DumpRun::RankUnit(size_t unit, bool take) {
  const StepFolder& sf = scan_.steps[units_[unit].first];
  const RankFolder& rf = sf.ranks[units_[unit].second];
  RETURN_IF_ERROR(CheckPath(JoinPath(rf.path, "dump.json"), PathKind::kFile, PathAccess::kRead, ".json"));
  MicroPlan plan;
  if (opts_.micro_step) {
    ASSIGN_OR_RETURN(plan, PlanRank(rf));
    counts_.push_back(std::to_string(plan.count));
    step_count_ = std::max(step_count_, plan.count);
  }
  max_rank_ = std::max(max_rank_, rf.rank);
  if (take) RETURN_IF_ERROR(ImportRank(sf, rf, plan, unit));
  if (units_[unit].second + 1 == sf.ranks.size()) EndStep(sf);
  return Status::Ok();
}

void DumpRun::EndStep(const StepFolder& sf) {
  min_step_ = std::min(min_step_, sf.step);
  max_step_ = std::max(max_step_, sf.step);
  if (opts_.micro_step) {
    rep_.Log(LogLevel::kInfo, Msg<msg::kStepProcessingCompletedTotal>(sf.step, PyList(counts_)));
    if (step_count_ > 1000000 || sum_.step_map.size() > 10000000) step_map_ok_ = false;
    for (int64_t j = 0; step_map_ok_ && j < step_count_; ++j) sum_.step_map.push_back({offset_ + j, {sf.step, j}});
    offset_ += step_count_;
  }
  counts_.clear();
  step_count_ = 0;
}

Status DumpRun::Finish(RunExecutor&) {
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
  res_.files = files_;
  res_.rows = w_->rows_offered();
  res_.targets = w_->target_count();
  res_.input_bytes = done_bytes_;
  ASSIGN_OR_RETURN(res_.db_path, w_->Commit(sum_));
  res_.written = true;
  rep_.Log(LogLevel::kInfo, Msg<msg::kDumpDataImportCompleted>(res_.db_path));
  return Status::Ok();
}

}  // namespace

Result<TrendImportResult> ImportDumpTrend(const TrendOptions& opts, Reporter& rep) {
  DumpRun run(opts, rep);
  RunExecutor ex(rep);
  RETURN_IF_ERROR(ex.Run(run));
  return run.result();
}

}  // namespace visprobe
