// The one executor every run goes through (issue 47): graph_visualize streamed (app/graph_run.cc)
// and merged (app/merge_run.cc), data2db's dump and monitor importers (trend/), gather's two
// joins (app/gather.cc, trend/trend_gather.cc). A mode writes a RunPlanner: its plan (the run key's
// units and how many loop items it has), what opening the run does, what preparing an item does (on
// a worker thread, ahead), what consuming it does (on the calling thread, in item order), what an
// item another shard does costs here, and how the run finishes. The executor owns the rest:
//   - the plan: the RunPlan (run key, --shard I/N) and which items this process takes;
//   - the output file: its name claimed as a temporary file (ClaimOutput), removed if the run fails
//     (the writer renames it into place when the planner's Finish commits it);
//   - the threads: taken items prepared up to `ahead` beyond the consumer (base/parallel.h RunInOrder);
//   - the progress: one StageProgress over the stages the planner declares.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "base/progress.h"
#include "base/reporter.h"
#include "base/status.h"
#include "db/run_plan.h"

namespace visprobe {

class RunExecutor;

// A mode's stages over its ordered items (a graph run's (step, rank) graphs, a merge's steps, a
// dump import's rank folders, a monitor import's CSV files, a gather's units).
class RunPlanner {
 public:
  virtual ~RunPlanner() = default;
  // The run's plan (ex.SetPlan) and, when it needs them before the items, its progress stages;
  // false: there is nothing to run (the planner said why).
  virtual Result<bool> Plan(RunExecutor& ex) = 0;
  // How many items the run has, in order (known once Plan has returned).
  virtual size_t Items() const = 0;
  // Whether this process does item `item` (default: the plan's unit `item`).
  virtual bool Takes(const RunPlan& plan, size_t item) const { return plan.Takes(item); }
  // Before the first item, with ex.taken() known: the output (ex.ClaimOutput), the progress.
  virtual Status Open(RunExecutor& ex) = 0;
  // Item `nth` of ex.taken() (whole-run item ex.taken()[nth]): prepared on a worker thread (with
  // threads > 1) ahead of its consume, which runs on the calling thread in order.
  virtual Status Prepare(size_t nth) { return ((void)nth, Status::Ok()); }
  virtual Status Consume(size_t nth) = 0;
  // An item another shard does, in its turn among the items this process takes.
  virtual Status Skip(size_t item) { return ((void)item, Status::Ok()); }
  // After the last item: the output committed (renamed into place).
  virtual Status Finish(RunExecutor& ex) = 0;
  // The run failed: the planner lets go of its output (its writer closes) before the executor
  // removes the temporary file.
  virtual void Abandon() {}
  // Worker threads preparing items (<= 1: each item is prepared just before its consume, on the
  // calling thread) and how many items beyond the consumer's may be prepared.
  virtual int Threads() const { return 1; }
  virtual size_t Ahead() const { return 1; }
};

class RunExecutor {
 public:
  explicit RunExecutor(Reporter& rep) : rep_(rep) {}
  ~RunExecutor();
  RunExecutor(const RunExecutor&) = delete;
  RunExecutor& operator=(const RunExecutor&) = delete;

  // Plan, Open, the taken items (prepared ahead, consumed in order, the others skipped in their
  // turn), Finish. Ok with ran() false when the planner found nothing to run.
  Status Run(RunPlanner& planner);
  bool ran() const { return ran_; }

  Reporter& reporter() { return rep_; }
  void SetPlan(RunPlan plan) { plan_ = std::move(plan); }
  const RunPlan& plan() const { return plan_; }
  bool sharded() const { return plan_.sharded(); }
  // The whole-run items this process takes, in order.
  const std::vector<size_t>& taken() const { return taken_; }

  // DIR/<stem><ext> or the first free name (db/run_plan.h ClaimOutput), claimed as its temporary
  // file; that file is removed if the run fails.
  Result<std::string> ClaimOutput(const std::string& dir, const std::string& stem, const std::string& ext);

  // The run's progress: `stages` equal stages, `reserve` percent kept for what follows them; or
  // stages of the given weights (percent each; they and the reserve make 100).
  StageProgress& StartProgress(size_t stages, double reserve);
  StageProgress& StartProgress(std::vector<double> weights);
  StageProgress& progress() { return *progress_; }

 private:
  Status RunItems(RunPlanner& planner);
  Status SkipUpTo(RunPlanner& planner, size_t item);

  Reporter& rep_;
  RunPlan plan_;
  std::vector<size_t> taken_;
  size_t next_item_ = 0;  // the first item not yet consumed or skipped
  std::unique_ptr<StageProgress> progress_;
  std::string claimed_;  // the output's final path; its temporary file is claimed_ + ".tmp"
  bool ran_ = false, done_ = false;
};

}  // namespace visprobe
