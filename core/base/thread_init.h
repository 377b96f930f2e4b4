// A function each engine thread runs first. The native CLI sets one for merged runs (all threads
// allocate from one jemalloc arena there); by default it does nothing. No allocator names here:
// core stays free of the CLI's allocator.
#pragma once

namespace visprobe {

using ThreadInitFn = void (*)();

// Sets the function (nullptr: none). Call before any engine thread starts.
void SetThreadInit(ThreadInitFn fn);

// Runs the function, if any: the first statement of every thread the engine starts.
void ThreadInit();

}  // namespace visprobe
