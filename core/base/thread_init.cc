#include "base/thread_init.h"

#include <atomic>

namespace visprobe {
namespace {
std::atomic<ThreadInitFn> g_init{nullptr};
}  // namespace

void SetThreadInit(ThreadInitFn fn) { g_init.store(fn, std::memory_order_release); }

void ThreadInit() {
  if (ThreadInitFn fn = g_init.load(std::memory_order_acquire)) fn();
}

}  // namespace visprobe
