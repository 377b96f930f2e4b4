// A run's progress as one non-decreasing percentage (graph-engine §16.5), shared by every run
// (db/run_executor.h starts it): the run is cut into equal stages (a graph's build, its rows; a step
// of a merge; a unit of a gather), each reports the fraction of it that is done, and `reserve`
// percent at the end is kept for what follows them (the indexes, the cross-rank links); or into
// stages of given weights (a monitor import: its first pass 30 %, its rows 69 %). Reporter calls
// from worker threads are serialised here.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "base/reporter.h"

namespace visprobe {

class StageProgress {
 public:
  StageProgress(Reporter& r, size_t stages, double reserve);
  // Stage i weighs weights[i] percent; what the weights leave of 100 is the reserve.
  StageProgress(Reporter& r, std::vector<double> weights);
  void Log(LogLevel l, const Message& m);
  // Stage `stage` is `fraction` (0..1) done; a smaller fraction than before is ignored. The
  // percentage advances in whole percent.
  void Stage(size_t stage, double fraction);

 private:
  std::mutex mu_;
  Reporter& rep_;
  size_t stages_;
  double reserve_;
  std::vector<double> frac_;
  std::vector<double> weights_;  // empty: equal stages
  double last_ = 0;
};

}  // namespace visprobe
