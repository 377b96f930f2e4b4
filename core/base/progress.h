// A run's progress as one non-decreasing percentage (graph-engine §16.5), shared by every run:
// the run is cut into equal stages (a graph's build, its rows; a step of a merge), each reports the
// fraction of it that is done, and `reserve` percent at the end is kept for what follows them (the
// indexes, the cross-rank links). Reporter calls from worker threads are serialised here.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "base/reporter.h"

namespace visprobe {

class StageProgress {
 public:
  StageProgress(Reporter& r, size_t stages, double reserve);
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
  double last_ = 0;
};

}  // namespace visprobe
