// A bounded FIFO between threads: Push blocks while the queue is full, Pop while it is empty.
// Close() ends the input: Pop hands out what is queued, then returns false. Cancel() stops both
// sides at once: queued items are dropped and every Push and Pop, waiting or not, returns false.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <utility>

namespace visprobe {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // False (and `v` dropped) once the queue is cancelled.
  bool Push(T v) {
    std::unique_lock<std::mutex> lk(mu_);
    not_full_.wait(lk, [&] { return q_.size() < capacity_ || cancelled_; });
    if (cancelled_) return false;
    q_.push_back(std::move(v));
    not_empty_.notify_one();
    return true;
  }
  // False when the queue is closed and drained, or cancelled.
  bool Pop(T* out) {
    std::unique_lock<std::mutex> lk(mu_);
    not_empty_.wait(lk, [&] { return !q_.empty() || closed_ || cancelled_; });
    if (cancelled_ || q_.empty()) return false;
    *out = std::move(q_.front());
    q_.pop_front();
    not_full_.notify_one();
    return true;
  }
  void Close() {
    std::lock_guard<std::mutex> g(mu_);
    closed_ = true;
    not_empty_.notify_all();
  }
  void Cancel() {
    std::lock_guard<std::mutex> g(mu_);
    cancelled_ = true;
    q_.clear();
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> q_;
  const size_t capacity_;
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace visprobe
