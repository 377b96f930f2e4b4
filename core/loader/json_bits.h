// Bit tricks over 64-byte blocks of JSON text, one bit per byte (bit i = byte i), shared by the
// record splitter and the SIMD stage 1. Both follow simdjson's stage 1 (Langdale and Lemire, 2019).
#pragma once

#include <cstdint>

namespace visprobe {
namespace json_bits {

// Bit i of the result is the parity of bits 0..i of x (what simdjson computes with a carry-less
// multiply): with the unescaped quotes of a block in x, set from an opening quote up to (not
// including) its closing quote.
inline uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The bytes escaped by a backslash (the second of each pair in a run of backslashes), given the
// backslashes of a block and whether its first byte is escaped (*carry, updated for the next
// block): the odd/even run technique of simdjson's json_escape_scanner.
inline uint64_t Escaped(uint64_t backslash, uint64_t* carry) {
  if (backslash == 0) {
    const uint64_t e = *carry;
    *carry = 0;
    return e;
  }
  constexpr uint64_t kOdd = 0xAAAAAAAAAAAAAAAAull;
  const uint64_t potential = backslash & ~*carry;
  const uint64_t code = (((potential << 1) | kOdd) - potential) ^ kOdd;
  const uint64_t escaped = code ^ (backslash | *carry);
  *carry = (code & backslash) >> 63;
  return escaped;
}

}  // namespace json_bits
}  // namespace visprobe
