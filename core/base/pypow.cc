#include "base/pypow.h"

extern "C" double vp_musl_pow(double x, double y);

namespace visprobe {

double PyPow(double x, double y) { return vp_musl_pow(x, y); }

}  // namespace visprobe
