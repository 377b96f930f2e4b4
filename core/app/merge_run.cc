#include "app/merge_run.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "app/run_stages.h"
#include "base/fs.h"
#include "base/parallel.h"
#include "base/progress.h"
#include "base/strings.h"
#include "base/thread_init.h"
#include "compare/compare.h"
#include "compare/tensor_metrics.h"
#include "db/vis_db.h"
#include "graph/builder.h"
#include "graph/node_records.h"
#include "graph/overflow.h"
#include "graph/paging.h"
#include "match/layer_mapping.h"
#include "match/match.h"
#include "merge/graph_merger.h"
#include "merge/merge_json.h"

namespace visprobe {
namespace {

struct StepPlan {
  int step = 0;
  std::string target_dir, golden_dir;  // folders of rank folders
};

// One rank folder to build: which side, its folder and rank id.
struct RankJob {
  bool golden = false;
  std::string dir;
  int rank = 0;
};

// The merged pipeline's planner (db/run_executor.h): its items are the steps, each covering its
// (step, DP replica) units; a taken step is built and merged (Prepare, on the calling thread: a
// step's ranks are built side by side on the pool instead) and its taken replicas written (Consume).
class MergeRun : public RunPlanner {
 public:
  MergeRun(const GraphVisualizeArgs& a, const std::vector<ParallelParam>& p, LayoutKind k, const RunOptions& o)
      : args_(a), params_(p), kind_(k), opts_(o) {}
  const RunSummary& summary() const { return sum_; }

  Result<bool> Plan(RunExecutor& ex) override;
  size_t Items() const override { return steps_.size(); }
  bool Takes(const RunPlan& plan, size_t si) const override;
  Status Open(RunExecutor& ex) override;
  Status Prepare(size_t nth) override;
  Status Consume(size_t nth) override;
  // Another shard's step counts as done.
  Status Skip(size_t si) override { return (Progress(si, 1.0), Status::Ok()); }
  Status Finish(RunExecutor& ex) override;
  void Abandon() override { out_.reset(); }

 private:
  bool compare() const { return args_.has_golden; }
  bool json() const { return args_.file_type == "json"; }
  void Log(LogLevel l, const Message& m) { progress_->Log(l, m); }
  // Overall progress: step `i` of `n`, `f` (0..1) of the way through it; the last 1 % is kept
  // for the indexes (§16.5). A step is, per side, its rank builds (two passes each) and its merge
  // stages, then its outputs.
  static constexpr double kSidesShare = 0.75, kBuildPart = 0.8;
  void SideProgress(size_t si, size_t side, double f) {
    double sides = compare() ? 2.0 : 1.0;
    Progress(si, kSidesShare * (static_cast<double>(side) + f) / sides);
  }
  // One progress stage per step (the last 1 % is kept for the indexes).
  void Progress(size_t step, double f) { progress_->Stage(step, f); }
  struct MergedStep {
    std::vector<RankGraph> target, golden;  // one merged graph per DP replica
  };
  Result<std::vector<StepPlan>> Steps();
  RunPlan MakePlan() const;
  Status OpenOutput(RunExecutor& ex);
  Result<MergedStep> MergeStep(size_t si);
  Status WriteReplica(size_t si, size_t i, MergedStep& m, const std::vector<int>& rank_list);
  Result<std::vector<RankJob>> RankJobs(const std::string& dir, bool golden);
  Status PlanStep(const StepPlan& sp, std::vector<RankJob>* target, std::vector<RankJob>* golden);
  Result<bool> KeepMd5(const std::vector<RankJob>& target, const std::vector<RankJob>& golden);
  // Builds one side's ranks (structure and items, paged, overflow-checked).
  Status BuildSide(const StepPlan& sp, size_t si, size_t side, const std::vector<RankJob>& jobs, bool keep_md5,
                   std::vector<RankGraph>* out);
  Result<std::vector<RankGraph>> Merge(std::vector<RankGraph> ranks, bool golden, size_t si);
  Status WriteBuild(RankGraph& r, VisDbWriter& db, RunSummary& sum);
  // `part(f)` reports the fraction of the pair's work done.
  Status ComparePair(RankGraph& n, RankGraph& b, VisDbWriter& db, RunSummary& sum, CompareMode* mode, int* micro,
                     const std::function<void(double)>& part);
  BuildOptions BuildOpts() const {
    BuildOptions bo;
    bo.overflow_check = args_.overflow_check;
    bo.window_bytes = opts_.window_bytes;
    bo.threads = 1;  // ranks are built side by side instead
    bo.keep_items = false;
    bo.items.capture = true;
    return bo;
  }

  const GraphVisualizeArgs& args_;
  const std::vector<ParallelParam>& params_;
  LayoutKind kind_;
  const RunOptions& opts_;
  RunExecutor* ex_ = nullptr;
  StageProgress* progress_ = nullptr;  // the executor's
  std::string file_, where_;
  std::vector<StepPlan> steps_;
  std::vector<int> step_list_;
  size_t dp_ = 1;
  std::unique_ptr<RunOutput> out_;
  MergedStep merged_;  // the step being written
  RunSummary sum_;
  size_t written_units_ = 0;
};

Result<std::vector<StepPlan>> MergeRun::Steps() {
  std::vector<StepPlan> out;
  if (kind_ == LayoutKind::kRanks) {
    StepPlan sp;
    sp.target_dir = args_.target_path;
    sp.golden_dir = compare() ? args_.golden_path : "";
    // A build of a "step<N>" folder keeps N as its step (the reference's graph_service does).
    std::string base = BaseName(args_.target_path);
    if (!compare() && base.size() > 4 && base.compare(0, 4, "step") == 0 && AllDigits(base.substr(4)) && base.size() < 14)
      sp.step = std::atoi(base.c_str() + 4);
    out.push_back(sp);
    return out;
  }
  ASSIGN_OR_RETURN(auto tsteps, ListNamed(args_.target_path, "step", !compare()));
  std::vector<std::string> steps = tsteps;
  if (compare()) {
    ASSIGN_OR_RETURN(auto gsteps, ListNamed(args_.golden_path, "step", false));
    if (tsteps.empty()) {
      ASSIGN_OR_RETURN(auto proc, FindProcDir(args_.target_path));
      steps = {proc};
    } else if (tsteps != gsteps) {
      std::set<std::string> g(gsteps.begin(), gsteps.end());
      steps.clear();
      for (const auto& s : tsteps)
        if (g.count(s)) steps.push_back(s);
      if (steps.empty()) return InvalidInput(Msg<msg::kTwoStepsCannotObtain>());
    }
  }
  for (const auto& s : steps) {
    StepPlan sp;
    ASSIGN_OR_RETURN(sp.step, IdOf(s, false));
    sp.target_dir = JoinPath(args_.target_path, s);
    if (compare()) sp.golden_dir = JoinPath(args_.golden_path, s);
    out.push_back(sp);
  }
  std::stable_sort(out.begin(), out.end(), [](const StepPlan& a, const StepPlan& b) { return a.step < b.step; });
  return out;
}

Result<std::vector<RankJob>> MergeRun::RankJobs(const std::string& dir, bool golden) {
  ASSIGN_OR_RETURN(auto names, ListNamed(dir, "rank", false));
  if (names.empty()) {
    ASSIGN_OR_RETURN(auto proc, FindProcDir(dir));
    names.push_back(proc);
  }
  std::vector<RankJob> out;
  for (const auto& n : names) {
    RankJob j;
    j.golden = golden;
    j.dir = JoinPath(dir, n);
    ASSIGN_OR_RETURN(j.rank, IdOf(n, true));
    for (const char* f : {"construct.json", "dump.json", "stack.json"})
      RETURN_IF_ERROR(CheckPath(JoinPath(j.dir, f), PathKind::kFile, PathAccess::kRead, ".json"));
    out.push_back(std::move(j));
  }
  return out;
}

Status MergeRun::PlanStep(const StepPlan& sp, std::vector<RankJob>* target, std::vector<RankJob>* golden) {
  RETURN_IF_ERROR(ValidateParallelParam(params_[0], sp.target_dir, "[NPU]"));
  if (compare()) RETURN_IF_ERROR(ValidateParallelParam(params_[1], sp.golden_dir, "[Bench]"));
  ASSIGN_OR_RETURN(*target, RankJobs(sp.target_dir, false));
  if (compare()) { ASSIGN_OR_RETURN(*golden, RankJobs(sp.golden_dir, true)); }
  return Status::Ok();
}

Result<bool> MergeRun::KeepMd5(const std::vector<RankJob>& target, const std::vector<RankJob>& golden) {
  if (!compare() || target.empty() || golden.empty()) return false;
  // md5-mode items (§12) depend on both sides' dumps: the structure pass of each side's first rank.
  BuildOptions bo = BuildOpts();
  bo.keep_items = false;
  bo.overflow_check = false;
  ASSIGN_OR_RETURN(auto tn, BuildGraph(target[0].dir, bo));
  ASSIGN_OR_RETURN(auto gn, BuildGraph(golden[0].dir, bo));
  return tn->task == "statistics" && tn->has_md5 && gn->has_md5;
}

Status MergeRun::BuildSide(const StepPlan& sp, size_t si, size_t side, const std::vector<RankJob>& jobs, bool keep_md5,
                           std::vector<RankGraph>* out) {
  std::vector<RankGraph> built(jobs.size());
  std::atomic<size_t> done{0};
  auto report = [&] {
    SideProgress(si, side, kBuildPart * static_cast<double>(++done) / (2.0 * static_cast<double>(jobs.size())));
  };
  BuildOptions bo = BuildOpts();
  bo.items.keep_md5 = keep_md5;
  auto in_dir = [](const Status& st, const std::string& dir) {
    return st.message().find(dir) == std::string::npos ? Status(st.code(), Msg<msg::kInFolder>(st, dir)) : st;
  };
  // Both passes of a rank run back to back: its structure is small, its items are what count.
  Status s = ParallelFor(jobs.size(), opts_.threads, [&](size_t i) -> Status {
    const RankJob& j = jobs[i];
    Log(LogLevel::kInfo, lines::StartBuildingGraph(BaseName(j.dir)));
    auto r = BuildGraph(j.dir, bo);
    if (!r.ok()) return in_dir(r.status(), j.dir);
    built[i].graph = std::move(r.value());
    built[i].rank = j.rank;
    built[i].step = sp.step;
    built[i].dir = j.dir;
    report();
    Graph& g = *built[i].graph;
    Status st = StreamNodeRecords(g, bo, [&g](NodeId id, const NodeItems& items) {
      g.node(id).items = items;
      return Status::Ok();
    });
    if (!st.ok()) return in_dir(st, j.dir);
    // Per-rank graphs are paged (and overflow-checked, above) before they are merged (§15.2).
    built[i].micro_steps = PageMicroSteps(g);
    Log(LogLevel::kInfo, lines::GraphBuilt(sp.step, BaseName(j.dir)));
    report();
    return Status::Ok();
  });
  RETURN_IF_ERROR(s);
  for (auto& b : built) out->push_back(std::move(b));
  return Status::Ok();
}

Result<std::vector<RankGraph>> MergeRun::Merge(std::vector<RankGraph> ranks, bool golden, size_t si) {
  const size_t side = golden ? 1 : 0;
  auto progress = [this, si, side](size_t done, size_t total) {
    double f = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    SideProgress(si, side, kBuildPart + (1.0 - kBuildPart) * std::min(1.0, f));
  };
  return MergeRankGraphs(
      std::move(ranks), params_[golden ? 1 : 0], golden, [this](LogLevel l, const Message& m) { Log(l, m); }, progress);
}

Status MergeRun::WriteBuild(RankGraph& r, VisDbWriter& db, RunSummary& sum) {
  Log(LogLevel::kInfo, lines::StartExportingBuild(file_));
  GraphRowsInfo info;
  info.step = r.step;
  info.rank = r.rank;
  auto rows = db.WriteGraph(*r.graph, info);
  if (!rows.ok()) return Status(rows.status().code(), lines::ExportFailed(false, file_, rows.status()));
  Log(LogLevel::kInfo, lines::Exported(false, where_));
  sum.rows += rows.value();
  ++sum.graphs;
  return Status::Ok();
}

Status MergeRun::ComparePair(RankGraph& n, RankGraph& b, VisDbWriter& db, RunSummary& sum, CompareMode* mode_out, int* micro_out,
                             const std::function<void(double)>& part) {
  Graph& gn = *n.graph;
  Graph& gb = *b.graph;
  const std::string rank_name = "rank" + std::to_string(n.rank);
  Log(LogLevel::kInfo, lines::StartComparing(rank_name));
  // A parallel-merge comparison always matches fuzzily (§8.2), whatever -lm says.
  ASSIGN_OR_RETURN(ComparePlan cp,
                   PlanCompare(gn, gb, args_, true, n.dir, b.dir, [this](LogLevel l, const Message& m) { Log(l, m); }));
  const CompareMode mode = cp.mode;
  *mode_out = mode;
  const auto& pairs = cp.pairs;
  const CompareSettings& settings = cp.settings;
  std::vector<NodeComparison> results(pairs.size());
  RETURN_IF_ERROR(ParallelFor(pairs.size(), std::min(opts_.threads, 8), [&](size_t k) -> Status {
    const auto& [ni, bi] = pairs[k];
    results[k] = CompareNode(settings, gn.node(ni).name, gn.node(ni).items, gb.node(bi).items.cmp);
    return Status::Ok();
  }));
  std::vector<int32_t> result_of(gn.size(), -1);
  for (size_t k = 0; k < pairs.size(); ++k) {
    gn.node(pairs[k].first).precision_index = results[k].precision_index;
    result_of[pairs[k].first] = static_cast<int32_t>(k);
  }
  ApplyCollectionRule(gn, mode);  // §9.7, the _Rank<r> collections inside an _All_Ranks one first
  *micro_out = PageMicroStepsPair(gn, gb);
  // §15.2: the overflow check runs again on the merged pair, over each main rank's dump.
  if (args_.overflow_check) {
    for (Graph* g : {&gn, &gb}) {
      Status os = ApplyOverflowCheck(*g, g->dump_path, opts_.window_bytes);
      if (!os.ok()) return os;
    }
  }
  Log(LogLevel::kInfo, lines::Compared(rank_name));
  part(1.0 / 3.0);

  Log(LogLevel::kInfo, lines::StartExportingCompare(file_));
  auto failed = [&](const Status& s) { return Status(s.code(), lines::ExportFailed(true, file_, s)); };
  GraphRowsInfo ninfo;
  ninfo.step = n.step;
  ninfo.rank = n.rank;
  ninfo.compare = true;
  // The compared rows are handed over in post-order, the order they go in (§13.3).
  RowPlan plan;
  plan.given.resize(gn.size(), 0);
  for (NodeId id = 0; id < gn.size(); ++id) plan.given[id] = result_of[id] >= 0;
  Status ws = db.BeginGraph(gn, ninfo, std::move(plan));
  std::string in, out;
  for (NodeId id : PostOrder(gn)) {
    if (!ws.ok()) break;
    if (result_of[id] < 0) continue;
    const NodeComparison& c = results[static_cast<size_t>(result_of[id])];
    VisDbWriter::RenderItems(gn.node(id).items, c.input_extra, c.output_extra, &in, &out);
    ws = db.WriteRenderedRow(id, in, out);
  }
  Result<size_t> nrows = ws.ok() ? db.EndGraph() : Result<size_t>(ws);
  if (!nrows.ok()) return failed(nrows.status());
  part(2.0 / 3.0);
  GraphRowsInfo binfo = ninfo;
  binfo.data_source = "Bench";
  auto brows = db.WriteGraph(gb, binfo);
  if (!brows.ok()) return failed(brows.status());
  Log(LogLevel::kInfo, lines::Exported(true, where_));
  sum.rows += nrows.value() + brows.value();
  sum.graphs += 2;
  return Status::Ok();
}

// The run's plan: its units are (step, DP replica), unit = step index * dp + replica, with
// dp = rank_size / (tp * pp) from the command line, so every shard knows the plan before building.
// The TP groups and PP chains are traced from all ranks of a step (§15.5): a shard with a replica
// of a step builds and merges the whole step and writes only its replicas' rows.
RunPlan MergeRun::MakePlan() const {
  std::string settings, units;
  if (args_.shard.active()) {
    for (const ParallelParam& p : params_)
      settings += " --rank_size " + std::to_string(p.rank_size) + " --tp " + std::to_string(p.tp) + " --pp " +
                  std::to_string(p.pp) + " --vpp " + std::to_string(p.vpp) + " --order " + p.order;
    for (const auto& sp : steps_) units += "|" + std::to_string(sp.step) + ":" + sp.target_dir + ":" + sp.golden_dir;
  }
  return VisRunPlan(args_, settings, units, steps_.size() * dp_, false);
}

bool MergeRun::Takes(const RunPlan& plan, size_t si) const {
  for (size_t r = 0; r < dp_; ++r)
    if (plan.Takes(si * dp_ + r)) return true;
  return false;
}

Status MergeRun::OpenOutput(RunExecutor& ex) {
  // The writer's page cache follows the largest rank dump.json (app/run_stages.h); rows are
  // written from memory on this thread, with nothing parsing beside them.
  uint64_t largest = 0;
  for (const auto& sp : steps_)
    for (const std::string& dir : {sp.target_dir, sp.golden_dir}) {
      if (dir.empty()) continue;
      auto ranks = ListNamed(dir, "rank", false);  // a listing error is reported later, in its order
      if (ranks.ok())
        for (const auto& r : ranks.value())
          largest = std::max<uint64_t>(largest, FileSize(JoinPath(JoinPath(dir, r), "dump.json")));
    }
  ASSIGN_OR_RETURN(out_, RunOutput::Open(args_, opts_, ex, largest, /*streamed=*/false));
  file_ = out_->file();
  where_ = out_->where();
  return Status::Ok();
}

// Builds and merges both sides of step `si` (§15.2): the two sides merge independently, one after
// the other, so a side's rank graphs are released as its groups merge, before the other side's
// are built.
Result<MergeRun::MergedStep> MergeRun::MergeStep(size_t si) {
  const StepPlan& sp = steps_[si];
  if (kind_ == LayoutKind::kSteps) Log(LogLevel::kInfo, lines::StartProcessing(BaseName(sp.target_dir)));
  std::vector<RankJob> tjobs, gjobs;
  RETURN_IF_ERROR(PlanStep(sp, &tjobs, &gjobs));
  ASSIGN_OR_RETURN(bool keep_md5, KeepMd5(tjobs, gjobs));
  MergedStep m;
  for (size_t side = 0; side < (compare() ? 2u : 1u); ++side) {
    std::vector<RankGraph> ranks;
    RETURN_IF_ERROR(BuildSide(sp, si, side, side ? gjobs : tjobs, keep_md5, &ranks));
    for (const RankGraph& r : ranks) sum_.dump_bytes += r.graph->dump_bytes;
    ASSIGN_OR_RETURN((side ? m.golden : m.target), Merge(std::move(ranks), side == 1, si));
  }
  Progress(si, kSidesShare);
  if (compare() && m.target.size() != m.golden.size())
    return InvalidInput(Msg<msg::kParallelMergeFailedBecause>(m.target.size(), m.golden.size()));
  if (ex_->sharded() && m.target.size() != dp_)
    return InvalidInput(Msg<msg::kShardPlansDpReplicas>(dp_, sp.target_dir, m.target.size()));
  return m;
}

// Writes replica `i` of step `si` (a unit of the run): merged json folders, a merged graph's rows,
// or a compared pair's.
Status MergeRun::WriteReplica(size_t si, size_t i, MergedStep& m, const std::vector<int>& rank_list) {
  RankGraph& r = m.target[i];
  CompareMode mode = CompareMode::kSummary;
  int micro = r.micro_steps;
  const double out_start = kSidesShare;
  if (json()) {
    Log(LogLevel::kInfo, Msg<msg::kStartExportingGraphJson>());
    RETURN_IF_ERROR(WriteMergedJson(r, args_.output_path, [this](const Message& msg) { Log(LogLevel::kInfo, msg); }));
    Log(LogLevel::kInfo, Msg<msg::kModelGraphExportedSuccessfullyJson>(args_.output_path));
    ++sum_.graphs;
  } else if (compare()) {
    const size_t n = m.target.size();
    auto part = [this, si, i, n, out_start](double f) {
      Progress(si, out_start + (1.0 - out_start) * (static_cast<double>(i) + f) / static_cast<double>(n));
    };
    RETURN_IF_ERROR(ComparePair(r, m.golden[i], out_->db(), sum_, &mode, &micro, part));
  } else {
    RETURN_IF_ERROR(WriteBuild(r, out_->db(), sum_));
  }
  if (!json()) RETURN_IF_ERROR(out_->Config(MakeConfigRow(compare(), mode, micro, args_.overflow_check, rank_list, step_list_)));
  Progress(si, out_start + (1.0 - out_start) * static_cast<double>(i + 1) / static_cast<double>(m.target.size()));
  if (ex_->sharded()) {
    RETURN_IF_ERROR(out_->UnitDone(static_cast<int64_t>(si * dp_ + i)));
    ++written_units_;
  }
  return Status::Ok();
}

Result<bool> MergeRun::Plan(RunExecutor& ex) {
  ex_ = &ex;
  if (compare()) {
    ASSIGN_OR_RETURN(LayoutKind gk, Classify(args_.golden_path));
    if (gk != kind_) return InvalidInput(Msg<msg::kDirectoryStructuresNpuPath>());
  }
  ASSIGN_OR_RETURN(steps_, Steps());
  progress_ = &ex.StartProgress(steps_.size(), 1.0);
  for (const auto& s : steps_) step_list_.push_back(s.step);
  const ParallelParam& p0 = params_[0];
  dp_ = static_cast<size_t>(std::max(1, p0.rank_size / std::max(1, p0.tp * p0.pp)));
  ex.SetPlan(MakePlan());
  return true;
}

Status MergeRun::Open(RunExecutor& ex) {
  if (!json()) {
    RETURN_IF_ERROR(OpenOutput(ex));
    sum_.db_path = JoinPath(args_.output_path, file_);
  }
  Log(LogLevel::kInfo, lines::StartBuildingGraphs());
  return Status::Ok();
}

Status MergeRun::Prepare(size_t nth) {
  ASSIGN_OR_RETURN(merged_, MergeStep(ex_->taken()[nth]));
  return Status::Ok();
}

Status MergeRun::Consume(size_t nth) {
  const size_t si = ex_->taken()[nth];
  MergedStep m = std::move(merged_);
  std::vector<int> rank_list;
  for (const RankGraph& r : m.target) rank_list.push_back(r.rank);
  if (compare() && si == 0) Log(LogLevel::kInfo, lines::GraphsBuilt());
  for (size_t i = 0; i < m.target.size(); ++i)
    if (ex_->plan().Takes(si * dp_ + i)) RETURN_IF_ERROR(WriteReplica(si, i, m, rank_list));
  return Status::Ok();
}

Status MergeRun::Finish(RunExecutor& ex) {
  if (json()) return Status::Ok();
  if (ex.sharded()) {
    ASSIGN_OR_RETURN(sum_.db_path, out_->FinishPart(written_units_, ex.plan().units, true));
    return Status::Ok();
  }
  Log(LogLevel::kInfo, lines::AllExported(compare()));
  // Merged graphs get no cross-rank links (§15).
  ASSIGN_OR_RETURN(sum_.db_path, out_->Finish(false, args_.overflow_check, [this](LogLevel l, const Message& m) { Log(l, m); }));
  return Status::Ok();
}

}  // namespace

Result<RunSummary> RunMergedGraphVisualize(const GraphVisualizeArgs& args, const std::vector<ParallelParam>& params,
                                           LayoutKind kind, const RunOptions& opts, Reporter& rep) {
  MergeRun run(args, params, kind, opts);
  RunExecutor ex(rep);
  RETURN_IF_ERROR(ex.Run(run));
  return run.summary();
}

}  // namespace visprobe
