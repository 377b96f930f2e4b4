#include "app/graph_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <thread>
#include <vector>

#include "app/run_stages.h"
#include "app/stream_rows.h"
#include "base/fs.h"
#include "base/progress.h"
#include "base/thread_init.h"
#include "compare/cmp_items.h"
#include "compare/compare.h"
#include "compare/tensor_metrics.h"
#include "db/vis_db.h"
#include "graph/builder.h"
#include "graph/paging.h"
#include "layout/layout.h"
#include "match/match.h"

namespace visprobe {
namespace {

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// CPU time of the calling thread (the writer's, for the DEBUG lines of the rows passes).
double ThreadSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The writer thread's CPU seconds, "%.2f".
std::string CpuText(double cpu) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", cpu);
  return buf;
}

// The structure of one unit's graphs (the golden one in a compare), built ahead of the writer.
struct BuiltGraph {
  std::unique_ptr<Graph> graph, golden;
  int micro_steps = 1;
};

Status ExportError(const Status& s, const std::string& file, const std::string& dir, bool compare) {
  if (s.detail().id() == msg::kSqlite3ErrorOccurred) return Status(s.code(), lines::ExportFailed(compare, file, s));  // §13.9
  if (s.message().find(dir) == std::string::npos) return Status(s.code(), Msg<msg::kInFolder>(s, dir));
  return s;
}

// The streamed pipeline's planner (db/run_executor.h): its items are the layout plan's (step, rank)
// jobs, one unit of the run each; a taken unit is built (Prepare, on a worker thread) and then
// written (Consume, on the calling thread, in unit order). A unit's progress stages: its target's
// structure and rows (build), or both structures, the compare plan, the golden rows and the
// target's rows (compare).
class GraphRun : public RunPlanner {
 public:
  GraphRun(const GraphVisualizeArgs& a, const RunOptions& o, Reporter& r) : args_(a), opts_(o), rep_(r) {}
  const RunSummary& summary() const { return sum_; }

  Result<bool> Plan(RunExecutor& ex) override;
  size_t Items() const override { return units_; }
  Status Open(RunExecutor& ex) override;
  Status Prepare(size_t i) override { return BuildOne(i); }
  Status Consume(size_t i) override { return WriteOne(i, *out_, sum_); }
  Status Finish(RunExecutor& ex) override;
  void Abandon() override { out_.reset(); }
  // Up to `threads` graphs are built ahead of the writer; the writer takes them in (step, rank)
  // order, so the file does not depend on scheduling.
  int Threads() const override { return opts_.threads > 1 ? opts_.threads : 1; }
  size_t Ahead() const override { return static_cast<size_t>(Threads()); }

 private:
  bool compare() const { return args_.has_golden; }
  bool batch() const { return plan_.kind != LayoutKind::kFiles; }
  size_t StagesPerJob() const { return compare() ? 5 : 2; }
  BuildOptions BuildOpts(size_t stage) {
    BuildOptions bo;
    bo.overflow_check = args_.overflow_check;
    bo.window_bytes = opts_.window_bytes;
    bo.keep_items = false;
    bo.threads = opts_.threads;
    StageProgress* p = progress_;
    bo.progress = [p, stage](uint64_t done, uint64_t total) {
      if (total) p->Stage(stage, double(done) / double(total));
    };
    return bo;
  }
  int Workers() const { return opts_.threads > 1 ? opts_.threads : 0; }
  StageLog Logger() {
    return [this](LogLevel l, const Message& m) { progress_->Log(l, m); };
  }
  Status BuildOne(size_t i);
  Status WriteOne(size_t i, RunOutput& out, RunSummary& sum);
  Status WriteBuild(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum);
  Status WriteCompare(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum, CompareMode* mode);
  // The golden side's rows of a compare, keeping the matched nodes' captured items for the target's.
  Result<size_t> WriteGolden(size_t i, Graph& gb, CompareMode mode, const std::vector<char>& needed, VisDbWriter& db,
                             std::vector<std::string>* bench_items);

  const GraphVisualizeArgs& args_;
  const RunOptions& opts_;
  Reporter& rep_;
  StageProgress* progress_ = nullptr;  // the executor's
  LayoutPlan plan_;
  size_t units_ = 0;  // the layout's jobs, before a shard keeps its own
  std::vector<BuiltGraph> built_;
  std::unique_ptr<RunOutput> out_;
  RunSummary sum_;
  std::string file_;
  std::vector<size_t> unit_of_;  // plan_.jobs[i] is unit unit_of_[i] of the whole run
  int last_step_ = -1;
  bool said_built_ = false;
};

Status GraphRun::BuildOne(size_t i) {
  const GraphJob& job = plan_.jobs[i];
  if (batch()) progress_->Log(LogLevel::kInfo, lines::StartBuildingGraph(BaseName(job.target_dir)));
  BuiltGraph out;
  auto build = [&](const std::string& dir, size_t stage, std::unique_ptr<Graph>* dst) -> Status {
    auto r = BuildGraph(dir, BuildOpts(stage));
    if (!r.ok()) {
      const Status& s = r.status();
      return s.message().find(dir) == std::string::npos ? Status(s.code(), Msg<msg::kInFolder>(s, dir)) : s;
    }
    *dst = std::move(r.value());
    return Status::Ok();
  };
  Status status;
  if (compare() && opts_.threads > 1) {
    // The two sides are independent: build the golden structure beside the target's.
    Status golden_status;
    std::thread golden([&] {
      ThreadInit();
      golden_status = build(job.golden_dir, StagesPerJob() * i + 1, &out.golden);
    });
    status = build(job.target_dir, StagesPerJob() * i, &out.graph);
    golden.join();
    if (status.ok()) status = golden_status;
  } else {
    status = build(job.target_dir, StagesPerJob() * i, &out.graph);
    if (status.ok() && compare()) status = build(job.golden_dir, StagesPerJob() * i + 1, &out.golden);
  }
  RETURN_IF_ERROR(status);
  for (const Graph* g : {out.graph.get(), out.golden.get()}) {
    if (!g) continue;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%zu nodes; construct.json %.2f s, stack.json %.2f s, nodes %.2f s, key scan %.2f s (its thread %.2f s), "
                  "rules %.2f s",
                  g->size(), g->t_construct, g->t_stack, g->t_nodes, g->t_scan, g->t_scanner, g->t_post);
    progress_->Log(LogLevel::kDebug, Msg<msg::kGraphStructureTimes>(g->dump_path, buf));
  }
  if (!compare()) out.micro_steps = PageMicroSteps(*out.graph);
  if (batch()) progress_->Log(LogLevel::kInfo, lines::GraphBuilt(job.step, BaseName(job.target_dir)));
  built_[i] = std::move(out);
  return Status::Ok();
}

Status GraphRun::WriteBuild(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum) {
  const GraphJob& job = plan_.jobs[i];
  progress_->Log(LogLevel::kInfo, lines::StartExportingBuild(file_));
  GraphRowsInfo info;
  info.step = job.step;
  info.rank = job.rank;
  // Rows go to the database while dump.json's records stream past (second pass).
  double t0 = Seconds(), c0 = ThreadSeconds();
  Status ws = db.BeginGraph(*b.graph, info, StreamedRows(*b.graph));
  if (ws.ok()) ws = StreamRows(*b.graph, BuildOpts(2 * i + 1), db, Workers(), nullptr);
  double t1 = Seconds();
  Result<size_t> rows = ws.ok() ? db.EndGraph() : Result<size_t>(ws);
  progress_->Log(LogLevel::kDebug, Msg<msg::kRowsStreamedTimes>(b.graph->dump_path, std::to_string(t1 - t0),
                                                                std::to_string(Seconds() - t1), CpuText(ThreadSeconds() - c0)));
  if (!rows.ok()) return ExportError(rows.status(), file_, job.target_dir, false);
  sum.rows += rows.value();
  sum.dump_bytes += b.graph->dump_bytes;
  ++sum.graphs;
  return Status::Ok();
}

Result<size_t> GraphRun::WriteGolden(size_t i, Graph& gb, CompareMode mode, const std::vector<char>& needed, VisDbWriter& db,
                                     std::vector<std::string>* bench_items) {
  const GraphJob& job = plan_.jobs[i];
  GraphRowsInfo binfo;
  binfo.data_source = "Bench";
  binfo.step = job.step;
  binfo.rank = job.rank;
  binfo.compare = true;
  BuildOptions bo_b = BuildOpts(5 * i + 4);
  bo_b.items.keep_md5 = mode == CompareMode::kMd5;
  bo_b.items.capture = true;
  Status ws = db.BeginGraph(gb, binfo, StreamedRows(gb));
  if (ws.ok())
    ws = StreamRows(gb, bo_b, db, Workers(),
                    [&](NodeId id, const NodeItems& items, std::vector<std::string>*, std::vector<std::string>*) {
                      if (needed[id]) (*bench_items)[id] = PackCmpItems(items.cmp);
                    });
  Result<size_t> brows = ws.ok() ? db.EndGraph() : Result<size_t>(ws);
  if (!brows.ok()) return ExportError(brows.status(), file_, job.golden_dir, true);
  return brows;
}

Status GraphRun::WriteCompare(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum, CompareMode* mode_out) {
  const GraphJob& job = plan_.jobs[i];
  Graph& gn = *b.graph;
  Graph& gb = *b.golden;
  const std::string rank_name = BaseName(job.target_dir);
  progress_->Log(LogLevel::kInfo, lines::StartComparing(rank_name));
  ASSIGN_OR_RETURN(ComparePlan cp, PlanCompare(gn, gb, args_, false, job.target_dir, job.golden_dir, Logger()));
  const CompareMode mode = cp.mode;
  *mode_out = mode;
  const CompareSettings& settings = cp.settings;
  b.micro_steps = PageMicroStepsPair(gn, gb);
  progress_->Stage(5 * i + 2, 1.0);

  std::vector<NodeId> counterpart(gn.size(), kNoNode);
  std::vector<char> needed(gb.size(), 0);
  for (const auto& [ni, bi] : cp.pairs) {
    counterpart[ni] = bi;
    needed[bi] = 1;
  }
  std::vector<std::string> bench_items(gb.size());  // packed captured items of matched golden nodes

  progress_->Log(LogLevel::kInfo, lines::StartExportingCompare(file_));
  const double t_start = Seconds(), c_start = ThreadSeconds();
  // msProbe writes the target's rows first (§13.3): they take the rowids before the golden's. The
  // golden's go in first all the same: its captured values are what the target's rows compare with.
  const int64_t target_first_rowid = db.ReserveRows(PostOrder(gn).size());
  ASSIGN_OR_RETURN(size_t brows, WriteGolden(i, gb, mode, needed, db, &bench_items));
  double t_golden = Seconds(), c_golden = ThreadSeconds();
  progress_->Log(LogLevel::kDebug,
                 Msg<msg::kRowsWrittenTimes>(gb.dump_path, std::to_string(t_golden - t_start), CpuText(c_golden - c_start)));

  GraphRowsInfo ninfo;
  ninfo.step = job.step;
  ninfo.rank = job.rank;
  ninfo.compare = true;
  ninfo.first_rowid = target_first_rowid;
  BuildOptions bo_n = BuildOpts(5 * i + 3);
  bo_n.items.keep_md5 = mode == CompareMode::kMd5;
  bo_n.items.capture = true;
  // In tensor mode a record costs its .npy files, not its JSON: a tensor dump.json of a few hundred
  // KB would be one window, read by one worker. Small windows share the files among the workers.
  // (Not with -tensor_log, whose lines stay in the order of the file.)
  if (mode == CompareMode::kRealData && !args_.print_compare_log)
    bo_n.window_bytes = std::min<size_t>(bo_n.window_bytes, 16u << 10);
  // §9.7: a collection's row goes in after its children's (post-order), so it takes their
  // precision indices then.
  Status ws = db.BeginGraph(gn, ninfo, StreamedRows(gn, [&gn, mode](NodeId id) { ApplyCollectionRuleTo(gn, id, mode); }));
  if (ws.ok())
    ws = StreamRows(gn, bo_n, db, Workers(),
                    [&](NodeId id, const NodeItems& items, std::vector<std::string>* ie, std::vector<std::string>* oe) {
                      NodeId bi = counterpart[id];
                      if (bi == kNoNode) return;
                      VP_THREAD_LOCAL std::vector<CmpItem> bench;  // reused: the golden items of one node at a time
                      UnpackCmpItems(bench_items[bi], &bench);
                      NodeComparison c = CompareNode(settings, gn.node(id).name, items, bench);
                      gn.node(id).precision_index = c.precision_index;
                      *ie = std::move(c.input_extra);
                      *oe = std::move(c.output_extra);
                    });
  Result<size_t> nrows = ws.ok() ? db.EndGraph() : Result<size_t>(ws);
  if (!nrows.ok()) return ExportError(nrows.status(), file_, job.target_dir, true);
  progress_->Log(LogLevel::kDebug, Msg<msg::kRowsComparedTimes>(gn.dump_path, std::to_string(Seconds() - t_golden),
                                                                CpuText(ThreadSeconds() - c_golden)));
  progress_->Log(LogLevel::kInfo, lines::Compared(rank_name));
  sum.rows += brows + nrows.value();
  sum.dump_bytes += gn.dump_bytes + gb.dump_bytes;
  sum.graphs += 2;
  return Status::Ok();
}

Status GraphRun::WriteOne(size_t i, RunOutput& out, RunSummary& sum) {
  const GraphJob& job = plan_.jobs[i];
  if (plan_.kind == LayoutKind::kSteps && job.step != last_step_) {
    last_step_ = job.step;
    progress_->Log(LogLevel::kInfo, lines::StartProcessing(BaseName(DirName(job.target_dir))));
  }
  BuiltGraph b = std::move(built_[i]);
  if (opts_.release_memory) opts_.release_memory();
  if (compare() && !said_built_) {
    said_built_ = true;
    progress_->Log(LogLevel::kInfo, lines::GraphsBuilt());
  }
  CompareMode mode = CompareMode::kSummary;
  RETURN_IF_ERROR(compare() ? WriteCompare(i, b, out.db(), sum, &mode) : WriteBuild(i, b, out.db(), sum));
  size_t si = 0;
  for (; si < plan_.step_list.size() && plan_.step_list[si] != job.step; ++si) {}
  RETURN_IF_ERROR(
      out.Config(MakeConfigRow(compare(), mode, b.micro_steps, args_.overflow_check,
                               si < plan_.rank_lists.size() ? plan_.rank_lists[si] : std::vector<int>{0}, plan_.step_list)));
  RETURN_IF_ERROR(out.UnitDone(static_cast<int64_t>(unit_of_[i])));
  for (size_t k = 0; k < StagesPerJob(); ++k) progress_->Stage(StagesPerJob() * i + k, 1.0);
  if (!batch()) progress_->Log(LogLevel::kInfo, lines::Exported(compare(), RealPath(args_.output_path) + "/" + file_));
  return Status::Ok();
}

// The run's plan: one unit per (step, rank) job of the layout, in (step, rank) order.
Result<bool> GraphRun::Plan(RunExecutor& ex) {
  ASSIGN_OR_RETURN(plan_, PlanRun(args_.target_path, compare() ? args_.golden_path : ""));
  std::string units;
  if (args_.shard.active())
    for (const GraphJob& j : plan_.jobs)
      units += "|" + std::to_string(j.step) + ":" + std::to_string(j.rank) + ":" + j.target_dir + ":" + j.golden_dir;
  units_ = plan_.jobs.size();
  ex.SetPlan(VisRunPlan(args_, "", units, units_, batch()));
  return true;
}

// A shard keeps the units it takes (and remembers where each stood in the whole run); the output
// is opened with the writer's cache sized for the largest dump.json among them.
Status GraphRun::Open(RunExecutor& ex) {
  unit_of_ = ex.taken();
  std::vector<GraphJob> kept;
  for (size_t u : unit_of_) kept.push_back(plan_.jobs[u]);
  plan_.jobs = std::move(kept);
  progress_ = &ex.StartProgress(StagesPerJob() * plan_.jobs.size(), batch() ? 2.0 : 0.0);

  uint64_t dump_bytes = 0;
  for (const GraphJob& j : plan_.jobs)
    for (const std::string& d : {j.target_dir, j.golden_dir})
      if (!d.empty()) dump_bytes = std::max<uint64_t>(dump_bytes, FileSize(JoinPath(d, "dump.json")));
  ASSIGN_OR_RETURN(out_, RunOutput::Open(args_, opts_, ex, dump_bytes, /*streamed=*/true));
  file_ = out_->file();

  rep_.Log(LogLevel::kInfo, lines::StartBuildingGraphs());
  built_.clear();
  built_.resize(plan_.jobs.size());
  sum_.db_path = JoinPath(args_.output_path, file_);
  return Status::Ok();
}

Status GraphRun::Finish(RunExecutor& ex) {
  if (ex.sharded()) {
    // The part keeps its rows as written: indexes and the cross-rank links are made by the gather.
    ASSIGN_OR_RETURN(sum_.db_path, out_->FinishPart(plan_.jobs.size(), ex.plan().units, false));
    return Status::Ok();
  }
  if (batch()) progress_->Log(LogLevel::kInfo, lines::AllExported(compare()));
  // §14: communication nodes linked across ranks (batch runs only).
  ASSIGN_OR_RETURN(sum_.db_path, out_->Finish(batch(), args_.overflow_check, Logger()));
  return Status::Ok();
}

}  // namespace

Result<RunSummary> RunStreamedGraphVisualize(const GraphVisualizeArgs& args, const RunOptions& opts, Reporter& rep) {
  GraphRun run(args, opts, rep);
  RunExecutor ex(rep);
  RETURN_IF_ERROR(ex.Run(run));
  return run.summary();
}

}  // namespace visprobe
