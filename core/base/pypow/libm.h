/* The few helpers of musl's internal libm.h that musl's pow.c, pow_data.c and exp_data.c use, so
 * those files (Arm's optimized-routines pow, the code glibc also ships) compile unchanged beside
 * either C library. CMake renames their global symbols (see CMakeLists.txt, vp_musl_pow). */
#ifndef VP_PYPOW_LIBM_H
#define VP_PYPOW_LIBM_H
#include <math.h>
#include <stdint.h>

#ifndef hidden
#define hidden
#endif
#define WANT_ROUNDING 1
#define TOINT_INTRINSICS 0
#define issignaling_inline(x) 0
#define predict_true(x) __builtin_expect(!!(x), 1)
#define predict_false(x) __builtin_expect(x, 0)

static inline uint64_t asuint64(double f) {
  union {
    double f;
    uint64_t i;
  } u = {f};
  return u.i;
}
static inline double asdouble(uint64_t i) {
  union {
    uint64_t i;
    double f;
  } u = {i};
  return u.f;
}
static inline double eval_as_double(double x) {
  double y = x;
  return y;
}
static inline double fp_barrier(double x) {
  volatile double y = x;
  return y;
}
static inline void fp_force_eval(double x) {
  volatile double y;
  y = x;
  (void)y;
}

/* Overflow, underflow and invalid results (Python raises for these; msProbe never gets there). */
static inline double __math_oflow(uint32_t sign) {
  double y = fp_barrier(sign ? -0x1p769 : 0x1p769) * 0x1p769;
  return y;
}
static inline double __math_uflow(uint32_t sign) {
  double y = fp_barrier(sign ? -0x1p-767 : 0x1p-767) * 0x1p-767;
  return y;
}
static inline double __math_invalid(double x) {
  double y = (x - x) / (x - x);
  return y;
}
#endif
