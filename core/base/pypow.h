// Python's float ** float, bit for bit as msProbe computes it.
#pragma once

namespace visprobe {

// CPython's x ** y is C pow() of glibc, which on the machines msProbe runs on (x86-64 with FMA,
// AArch64) is Arm's optimized-routines pow on its FMA path. The native libm (called at run time)
// and the compiler (which folds pow(x, 2.0) into x * x) both differ from it in about 1 of 1,200
// results, and Emscripten's musl pow takes the path without FMA. pypow/pow_fma.c is that code (musl's
// copy) with GCC's FMA contractions as explicit fma() calls, so the native CLI, the wasm build and
// msProbe agree: identical to glibc's pow on 1.8e8 random inputs (y = 0.5, 2 and random), where
// sqrt(x) and x * x differ from it in about 1 of 1,200.
double PyPow(double x, double y);

}  // namespace visprobe
