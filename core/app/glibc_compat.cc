// No header: glibc's own arc4random (declared in <stdlib.h>), linked into release binaries only.
// Release binaries (VISPROBE_STATIC_RUNTIME) link libstdc++ statically; GCC 12's std::random_device
// (cpp-httplib draws multipart boundaries from it) then calls glibc's arc4random, new in glibc
// 2.36, which alone would make the binary refuse every glibc before 2.36 (Ubuntu 22.04 has 2.35,
// openEuler 22.03 and RHEL 9 2.34). This definition, from getrandom (glibc 2.25), is linked
// instead, so the release needs glibc 2.34 (scripts/package.sh prints the figure).
#include <sys/random.h>

#include <cstddef>
#include <cstdint>

extern "C" uint32_t arc4random(void) {
  uint32_t v = 0;
  unsigned char* p = reinterpret_cast<unsigned char*>(&v);
  for (size_t got = 0; got < sizeof v;) {
    const ssize_t n = getrandom(p + got, sizeof v - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  return v;
}
