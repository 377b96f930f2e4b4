// memcmp as the engine and SQLite see it: natively glibc's, in the wasm builds the 16-bytes-at-a-time
// one of wasm/memcmp_simd.c. Both must order bytes as unsigned char, report the first difference
// and read no further than n bytes (checked here at the end of a buffer by the sanitizer build).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

namespace {
int Sign(int v) { return (v > 0) - (v < 0); }
int Reference(const unsigned char* a, const unsigned char* b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
}  // namespace

TEST_CASE("memcmp: the sign of the first differing byte (as unsigned), at every offset and length") {
  std::mt19937 gen(7);
  int checked = 0;
  for (size_t n = 0; n <= 70; ++n) {
    for (size_t diff = 0; diff <= n; ++diff) {  // diff == n: equal buffers
      // Exactly n bytes each, at the end of their allocation: a read past n would be out of bounds.
      std::vector<unsigned char> a(n), b(n);
      for (size_t i = 0; i < n; ++i) a[i] = b[i] = static_cast<unsigned char>(gen());
      if (diff < n) {
        b[diff] = static_cast<unsigned char>(a[diff] ^ (1u << (gen() % 8)));  // high bit too: 0x80+ > 0x7F
        for (size_t i = diff + 1; i < n; ++i) b[i] = static_cast<unsigned char>(gen());
      }
      const int got = Sign(std::memcmp(a.data(), b.data(), n));
      const int want = Reference(a.data(), b.data(), n);
      INFO("n " << n << " first difference at " << diff);
      CHECK(got == want);
      CHECK(Sign(std::memcmp(b.data(), a.data(), n)) == -want);
      ++checked;
    }
  }
  CHECK(checked == 2556);
  const unsigned char hi[] = {0x80}, lo[] = {0x7F};
  CHECK(std::memcmp(hi, lo, 1) > 0);
  CHECK(std::memcmp("Module.a.forward.0", "Module.a.forward.1", 18) < 0);
  CHECK(std::memcmp("Module.a.forward.0", "Module.a.forward.1", 17) == 0);
}
