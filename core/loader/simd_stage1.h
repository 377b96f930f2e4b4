// simdjson's stage 1 (finding the structural characters) 16 bytes at a time where simdjson itself
// has only its scalar fallback: the WebAssembly build. simdjson 3.9.4 has no wasm SIMD kernel (its
// maintainers declined one), and its fallback stage 1 reads one byte at a time: 8 % of the wasm
// engine's time (Node CPU profile, medium build) against 1 % for the SIMD kernel natively.
//
// This stage 1 follows simdjson's SIMD kernels (generic/stage1: escape scanner, string scanner,
// character classes, the same error order) with SSE2 intrinsics, which Emscripten compiles to
// wasm SIMD. It is installed through simdjson's public extension point (an `implementation` whose
// parsers run it); everything after stage 1 stays simdjson's. Natively simdjson's own SIMD kernel
// stays in use, and the tests compare this one with it on valid and invalid inputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simdjson.h"

namespace visprobe {
namespace json_internal {

// Writes the positions of buf[0, len)'s structural characters to out (room for len + 3), then the
// sentinels simdjson expects (len, len, 0), and sets *n to their count. Returns what simdjson's
// SIMD stage 1 returns for the same bytes in regular (non-streaming) mode.
simdjson::error_code Sse2Stage1(const uint8_t* buf, size_t len, uint32_t* out, uint32_t* n);

// The simdjson implementation whose parsers run Sse2Stage1 (strings, minify and UTF-8 checks are
// the kernel's simdjson chose); nullptr in a build without SSE2 (x86-64 and the wasm builds, compiled
// with -msse2, have it). For the tests to run it natively.
const simdjson::implementation* Sse2Stage1Implementation();

// Makes simdjson's parsers use Sse2Stage1 when the kernel simdjson chose is its scalar fallback.
// Call before the first parser allocates; thread-safe and idempotent. Returns whether it is in use.
bool UseSse2Stage1WhereScalar();

}  // namespace json_internal
}  // namespace visprobe
