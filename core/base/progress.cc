#include "base/progress.h"

#include <utility>

namespace visprobe {

StageProgress::StageProgress(Reporter& r, size_t stages, double reserve)
    : rep_(r), stages_(stages ? stages : 1), reserve_(reserve) {
  frac_.assign(stages_, 0.0);
}

StageProgress::StageProgress(Reporter& r, std::vector<double> weights)
    : rep_(r), stages_(weights.size()), reserve_(0), weights_(std::move(weights)) {
  frac_.assign(stages_, 0.0);
}

void StageProgress::Log(LogLevel l, const Message& m) {
  std::lock_guard<std::mutex> g(mu_);
  rep_.Log(l, m);
}

void StageProgress::Stage(size_t stage, double fraction) {
  std::lock_guard<std::mutex> g(mu_);
  if (stage >= stages_ || fraction <= frac_[stage]) return;
  frac_[stage] = fraction;
  double sum = 0, pct = 0;
  if (weights_.empty()) {
    for (double f : frac_) sum += f;
    pct = sum / static_cast<double>(stages_) * (100.0 - reserve_);
  } else {
    for (size_t i = 0; i < stages_; ++i) pct += weights_[i] * frac_[i];
  }
  pct = static_cast<double>(static_cast<int>(pct));  // advance in whole percent
  if (pct > last_) {
    last_ = pct;
    rep_.Progress(pct, true);
  }
}

}  // namespace visprobe
