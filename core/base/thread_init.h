// A function each engine thread runs first. The native CLI sets one for merged runs (all threads
// allocate from one jemalloc arena there); by default it does nothing. No allocator names here:
// core stays free of the CLI's allocator.
#pragma once

// Per-thread scratch buffers: thread_local where the engine has threads. The wasm engine has none
// (no pthreads), and there thread_local stops the link once bulk memory is on (TLS then needs
// atomics): plain statics, which is the same thing on one thread.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define VP_THREAD_LOCAL
#else
#define VP_THREAD_LOCAL thread_local
#endif

namespace visprobe {

using ThreadInitFn = void (*)();

// Sets the function (nullptr: none). Call before any engine thread starts.
void SetThreadInit(ThreadInitFn fn);

// Runs the function, if any: the first statement of every thread the engine starts.
void ThreadInit();

}  // namespace visprobe
