// memcmp for the WebAssembly builds. Emscripten's libc (musl) compares one byte at a time; SQLite's
// index upkeep and the engine's name comparisons spend 6 % of the wasm engine's time there (Node
// CPU profile, medium build). This one compares 16 bytes at a time with wasm SIMD (-msimd128) and
// is linked into every wasm executable in place of libc's (an executable's own definition wins
// over the archive member). Compiled with -fno-builtin so its loops are not turned back into calls.
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

int memcmp(const void* a, const void* b, size_t n) {
  const unsigned char* x = (const unsigned char*)a;
  const unsigned char* y = (const unsigned char*)b;
  while (n >= 16) {
    const v128_t eq = wasm_i8x16_eq(wasm_v128_load(x), wasm_v128_load(y));
    const uint32_t m = (uint32_t)wasm_i8x16_bitmask(eq);
    if (m != 0xFFFFu) {
      const int i = __builtin_ctz(~m);
      return (int)x[i] - (int)y[i];
    }
    x += 16;
    y += 16;
    n -= 16;
  }
  for (; n != 0; --n, ++x, ++y)
    if (*x != *y) return (int)*x - (int)*y;
  return 0;
}
