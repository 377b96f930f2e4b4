// The engine's two ways of using threads, in one place (issue 47): a loop whose iterations run on
// a pool (ParallelFor), and units prepared on threads ahead of a consumer that takes them in order
// (RunInOrder: a run's graphs are built ahead of the writer, its files parsed ahead of the inserts).
// With threads <= 1 both run everything on the calling thread (the browser build has no threads).
#pragma once

#include <cstddef>
#include <functional>

#include "base/status.h"

namespace visprobe {

// Runs fn(i) for i in [0, n) on up to `threads` threads; the first error wins and stops the
// iterations not yet started.
Status ParallelFor(size_t n, int threads, const std::function<Status(size_t)>& fn);

// Runs prepare(i) for i in [0, n) on up to `threads` threads, at most `ahead` units beyond the one
// being consumed, and consume(i) on the calling thread in order 0, 1, ..., each after its
// prepare(i) has returned. The first error (of either) is returned once every started prepare has
// ended; no consume runs after an error. ahead >= 1.
Status RunInOrder(size_t n, int threads, size_t ahead, const std::function<Status(size_t)>& prepare,
                  const std::function<Status(size_t)>& consume);

}  // namespace visprobe
