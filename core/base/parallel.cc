#include "base/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "base/thread_init.h"

namespace visprobe {

Status ParallelFor(size_t n, int threads, const std::function<Status(size_t)>& fn) {
  size_t workers = std::min<size_t>(n, threads > 1 ? static_cast<size_t>(threads) : 1);
  if (workers <= 1) {
    for (size_t i = 0; i < n; ++i) RETURN_IF_ERROR(fn(i));
    return Status::Ok();
  }
  std::atomic<size_t> next{0};
  std::mutex mu;
  Status first;
  std::vector<std::thread> pool;
  for (size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      ThreadInit();
      for (size_t i = next++; i < n; i = next++) {
        Status s = fn(i);
        if (s.ok()) continue;
        std::lock_guard<std::mutex> g(mu);
        if (first.ok()) first = s;
        next = n;
      }
    });
  for (auto& t : pool) t.join();
  return first;
}

Status RunInOrder(size_t n, int threads, size_t ahead, const std::function<Status(size_t)>& prepare,
                  const std::function<Status(size_t)>& consume) {
  if (threads <= 1) {
    for (size_t i = 0; i < n; ++i) {
      RETURN_IF_ERROR(prepare(i));
      RETURN_IF_ERROR(consume(i));
    }
    return Status::Ok();
  }
  // Unit i is prepared on a thread of its own, started when unit i - ahead is being consumed: at
  // most `ahead` units are in memory beyond the consumer's, whatever the workers' speeds.
  struct Slot {
    Status status;
    bool ready = false;
  };
  std::vector<Slot> slots(n);
  std::vector<std::thread> pool(n);
  std::mutex mu;
  std::condition_variable cv;
  size_t launched = 0;
  auto launch_upto = [&](size_t limit) {
    for (; launched < n && launched < limit; ++launched)
      pool[launched] = std::thread([&, i = launched] {
        ThreadInit();
        Status s = prepare(i);
        std::lock_guard<std::mutex> g(mu);
        slots[i].status = std::move(s);
        slots[i].ready = true;
        cv.notify_all();
      });
  };
  auto join_all = [&] {
    for (auto& t : pool)
      if (t.joinable()) t.join();
  };
  for (size_t i = 0; i < n; ++i) {
    launch_upto(i + std::max<size_t>(1, ahead));
    Status s;
    {
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return slots[i].ready; });
      s = slots[i].status;
    }
    if (s.ok()) s = consume(i);
    if (!s.ok()) {
      join_all();
      return s;
    }
  }
  join_all();
  return Status::Ok();
}

}  // namespace visprobe
