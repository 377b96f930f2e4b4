// NumPy .npy reader for tensor-mode comparison (spec §4.5): format versions 1.0, 2.0 and 3.0,
// numeric and bool dtypes in either byte order, Fortran order converted to C order, then numpy
// `squeeze`. Plain fopen/fread (works natively, under NODERAWFS and on WORKERFS mounts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/status.h"

namespace visprobe {

// A numpy dtype limited to what §4.5 supports: kind 'f' (float16/32/64), 'i' (int8..int64),
// 'u' (uint8..uint64) or 'b' (bool), item size in bytes, and byte order ('<', '>', or '|' for
// one-byte types). numpy's dtype equality includes the byte order ('<f4' != '>f4').
struct NpyDtype {
  char kind = 'f';
  int size = 8;
  char order = '<';

  bool is_float() const { return kind == 'f'; }
  bool operator==(const NpyDtype& o) const { return kind == o.kind && size == o.size && order == o.order; }
  bool operator!=(const NpyDtype& o) const { return !(*this == o); }
  std::string name() const;  // numpy name: "float32", "int8", "uint16", "bool"
  std::string descr() const;  // the header form: "<f4", ">i8", "|b1"
};

// An allocator whose value-initialisation leaves doubles uninitialised: ReadNpy sizes the element
// buffer and decodes into it, so zero-filling it first would be a second pass over the memory.
template <class T>
struct UninitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitAllocator<U>;
  };
  UninitAllocator() = default;
  template <class U>
  UninitAllocator(const UninitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using NpyElements = std::vector<double, UninitAllocator<double>>;

struct NpyArray {
  NpyDtype dtype;
  // Shape after squeeze (every length-1 axis dropped); empty = 0-d.
  std::vector<uint64_t> shape;
  // Elements in C order, widened to double. Exact for float16/32/64 and for integers up to 2^53;
  // larger int64/uint64 values are rounded to nearest, exactly like numpy's `astype(float)`.
  NpyElements data;
  // Set by ReadNpy when it saw that every element is finite (no NaN, no +-inf); false means "not
  // known", and CompareTensors then scans for them. Code that changes `data` must reset it.
  bool all_finite = false;
  // 0-d arrays of kind 'i'/'u'/'b' only: the element's exact integer value (sign-extended for
  // 'i'). numpy computes the 0-d MaxAbsErr in the dtype's own (wrapping) integer arithmetic.
  uint64_t scalar_bits = 0;

  bool is_scalar() const { return shape.empty(); }  // 0-d
  uint64_t size() const { return data.size(); }  // number of elements
  std::string shape_string() const;  // Python tuple text: "()", "(3,)", "(2, 3)"
};

// Reads one .npy file. Truncated files, bad headers, object/structured/unsupported dtypes give an
// error Status naming the file; every read is bounded by the file size.
Result<NpyArray> ReadNpy(const std::string& path);

// n consecutive elements of `dt` at p, widened to double into out (the .npy and .pt readers'
// one decoder). Returns whether every element is finite.
bool DecodeElements(const unsigned char* p, size_t n, const NpyDtype& dt, double* out);
// The exact integer value of one 'i' / 'u' / 'b' element (sign-extended for 'i'): NpyArray::scalar_bits.
uint64_t ElementBits(const unsigned char* p, const NpyDtype& dt);

// Python's repr of a shape tuple: "()", "(3,)", "(2, 3)" (the readers' messages, shape_string).
std::string PyShapeText(const std::vector<uint64_t>& shape);

// float16 bits -> double, exact (subnormals, ±inf, NaN).
double HalfToDouble(uint16_t h);
// Rounds a double to the nearest float16 value (ties to even, overflow to ±inf), result widened.
double RoundToHalf(double x);

}  // namespace visprobe
