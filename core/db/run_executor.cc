#include "db/run_executor.h"

#include <cstdio>

#include "base/fs.h"
#include "base/parallel.h"

namespace visprobe {

RunExecutor::~RunExecutor() {
  if (!claimed_.empty() && !done_) std::remove((claimed_ + ".tmp").c_str());
}

Result<std::string> RunExecutor::ClaimOutput(const std::string& dir, const std::string& stem, const std::string& ext) {
  ASSIGN_OR_RETURN(claimed_, visprobe::ClaimOutput(dir, stem, ext, rep_));
  return claimed_;
}

StageProgress& RunExecutor::StartProgress(size_t stages, double reserve) {
  progress_ = std::make_unique<StageProgress>(rep_, stages, reserve);
  return *progress_;
}

StageProgress& RunExecutor::StartProgress(std::vector<double> weights) {
  progress_ = std::make_unique<StageProgress>(rep_, std::move(weights));
  return *progress_;
}

Status RunExecutor::SkipUpTo(RunPlanner& planner, size_t item) {
  for (; next_item_ < item; ++next_item_) RETURN_IF_ERROR(planner.Skip(next_item_));
  return Status::Ok();
}

// The taken items through RunInOrder; every item another shard does is skipped in its turn: before
// the next taken item's prepare when items are prepared on the calling thread, before its consume
// when they are prepared ahead on threads.
Status RunExecutor::RunItems(RunPlanner& planner) {
  const int threads = planner.Threads() > 1 ? planner.Threads() : 1;
  const bool inline_prepare = threads <= 1;
  RETURN_IF_ERROR(RunInOrder(
      taken_.size(), threads, planner.Ahead(),
      [&](size_t k) -> Status {
        if (inline_prepare) RETURN_IF_ERROR(SkipUpTo(planner, taken_[k]));
        return planner.Prepare(k);
      },
      [&](size_t k) -> Status {
        RETURN_IF_ERROR(SkipUpTo(planner, taken_[k]));
        next_item_ = taken_[k] + 1;
        return planner.Consume(k);
      }));
  return SkipUpTo(planner, planner.Items());
}

Status RunExecutor::Run(RunPlanner& planner) {
  Status s = [&]() -> Status {
    ASSIGN_OR_RETURN(ran_, planner.Plan(*this));
    if (!ran_) return Status::Ok();
    taken_.clear();
    for (size_t i = 0; i < planner.Items(); ++i)
      if (planner.Takes(plan_, i)) taken_.push_back(i);
    RETURN_IF_ERROR(planner.Open(*this));
    RETURN_IF_ERROR(RunItems(planner));
    return planner.Finish(*this);
  }();
  if (s.ok()) {
    done_ = true;
    return s;
  }
  planner.Abandon();
  if (!claimed_.empty()) std::remove((claimed_ + ".tmp").c_str());
  claimed_.clear();
  return s;
}

}  // namespace visprobe
