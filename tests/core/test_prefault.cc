// base/prefault.h: the pages inside a range are mapped (mincore says resident) and what they held
// is kept; outside Linux nothing happens and it says so.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "base/prefault.h"

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <sys/mman.h>
#include <unistd.h>

namespace {

size_t ResidentPages(void* p, size_t n) {
  std::vector<unsigned char> v(n / 4096);
  REQUIRE(mincore(p, n, v.data()) == 0);
  size_t k = 0;
  for (unsigned char c : v) k += c & 1;
  return k;
}

}  // namespace

TEST_CASE("prefault: the whole pages inside the range become resident, the bytes already written stay") {
  const size_t n = 64 * 4096;
  void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(m != MAP_FAILED);
  madvise(m, n, MADV_NOHUGEPAGE);  // page by page, so the counts below are exact
  char* p = static_cast<char*>(m);
  std::memset(p + 4096, 'x', 100);  // page 1 holds something
  CHECK(ResidentPages(m, n) == 1);
  // From the middle of page 1 to the middle of page 41: pages 2..40 are whole inside it.
  if (!visprobe::PrefaultWritable(p + 4096 + 50, 40 * 4096)) {
    munmap(m, n);
    WARN("MADV_POPULATE_WRITE is not available on this kernel");
    return;
  }
  std::vector<unsigned char> v(n / 4096);
  REQUIRE(mincore(m, n, v.data()) == 0);
  CHECK((v[1] & 1) == 1);
  for (size_t i = 2; i <= 40; ++i) CHECK((v[i] & 1) == 1);
  CHECK((v[41] & 1) == 0);  // the last page is only partly inside: left alone
  CHECK((v[0] & 1) == 0);
  CHECK(ResidentPages(m, n) == 40);
  CHECK(std::string(p + 4096, 100) == std::string(100, 'x'));
  CHECK(p[2 * 4096] == 0);  // a new page reads as zeros
  munmap(m, n);
}

TEST_CASE("prefault: an empty or too-short range does nothing") {
  char buf[100];
  CHECK_FALSE(visprobe::PrefaultWritable(buf, sizeof buf));
  CHECK_FALSE(visprobe::PrefaultWritable(nullptr, 1 << 20));
}
#else
TEST_CASE("prefault: not available here, and it says so") {
  char buf[8192];
  CHECK_FALSE(visprobe::PrefaultWritable(buf, sizeof buf));
}
#endif
