// What the tensor-file fuzz targets (fuzz_npy, fuzz_pt) do with an array their reader accepted:
// the metrics of the array against itself and against a shifted copy.
#pragma once

#include "compare/npy.h"
#include "compare/tensor_metrics.h"

namespace vpfuzz {

inline void CompareTensorWithItself(const visprobe::NpyArray& a) {
  if (a.data.size() > (1u << 20)) return;
  (void)visprobe::CompareTensors(a, a);
  visprobe::NpyArray b = a;
  for (double& v : b.data) v += 1;
  b.all_finite = false;   // the values changed
  (void)visprobe::CompareTensors(a, b);
}

}  // namespace vpfuzz
