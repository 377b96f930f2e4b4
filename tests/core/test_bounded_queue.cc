#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "base/bounded_queue.h"

using visprobe::BoundedQueue;

TEST_CASE("bounded queue: Close hands out what is queued in order, then Pop is false") {
  BoundedQueue<int> q(3);
  CHECK(q.Push(1));
  CHECK(q.Push(2));
  CHECK(q.Push(3));
  q.Close();
  int v = 0;
  std::vector<int> got;
  while (q.Pop(&v)) got.push_back(v);
  CHECK(got == std::vector<int>{1, 2, 3});
  CHECK_FALSE(q.Pop(&v));
}

TEST_CASE("bounded queue: Cancel drops the queued items and refuses pushes") {
  BoundedQueue<std::string> q(2);
  CHECK(q.Push("a"));
  q.Cancel();
  std::string v;
  CHECK_FALSE(q.Pop(&v));
  CHECK_FALSE(q.Push("b"));
  CHECK(v.empty());
}

#ifndef __EMSCRIPTEN__  // the browser build has no threads
TEST_CASE("bounded queue: a full queue blocks the producer, Cancel wakes it; an empty one blocks the consumer") {
  BoundedQueue<int> q(1);
  REQUIRE(q.Push(1));
  bool pushed = true;
  std::thread producer([&] { pushed = q.Push(2); });  // blocks: the queue is full
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  q.Cancel();
  producer.join();
  CHECK_FALSE(pushed);

  // An empty queue blocks the consumer until an item arrives; Cancel wakes one that still waits.
  BoundedQueue<int> e(1);
  int got = 0;
  bool popped = false;
  std::thread consumer([&] { popped = e.Pop(&got); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(e.Push(7));
  consumer.join();
  CHECK(popped);
  CHECK(got == 7);
  popped = true;
  std::thread waiter([&] {
    int v;
    popped = e.Pop(&v);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  e.Cancel();
  waiter.join();
  CHECK_FALSE(popped);
}

TEST_CASE("bounded queue: one producer, two consumers, every item once, capacity never exceeded") {
  BoundedQueue<int> q(4);
  std::vector<int> seen(10000, 0);
  std::atomic<int> pushed{0}, popped{0}, most{0};
  bool all_pushed = true;
  std::thread producer([&] {
    for (int i = 0; i < 10000; ++i) {
      all_pushed = q.Push(i) && all_pushed;
      ++pushed;
    }
    q.Close();
  });
  std::vector<std::thread> consumers;
  for (int c = 0; c < 2; ++c)
    consumers.emplace_back([&] {
      int v;
      while (q.Pop(&v)) {
        // Items pushed and not yet taken: at most the capacity, plus the one this Pop just took
        // (counted out below) and one whose Push returned but was not counted in yet.
        int queued = pushed.load() - popped.load();
        int m = most.load();
        while (queued > m && !most.compare_exchange_weak(m, queued)) {}
        ++popped;
        ++seen[static_cast<size_t>(v)];  // distinct indices: no race on one element
      }
    });
  producer.join();
  for (auto& t : consumers) t.join();
  CHECK(all_pushed);
  CHECK(popped.load() == 10000);
  CHECK(most.load() <= 4 + 2);
  for (int n : seen) REQUIRE(n == 1);
}
#endif
