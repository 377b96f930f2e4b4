// Shared by the libFuzzer targets: the engine's readers take paths, so inputs are written to a
// private file first (in /dev/shm when available).
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace vpfuzz {

// The private folder goes when the fuzzer exits (libFuzzer ends with exit()): /dev/shm is memory,
// and every run of scripts/test.sh left one behind (75 of them, 3 GB, on a developer's machine).
inline void RemoveAtExit(const std::string& d) {
  static const std::string* const path = new std::string(d);   // outlives the static destructors
  std::atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(*path, ec);
  });
}

inline const std::string& Dir() {
  static const std::string dir = [] {
    std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string d = base + "/visprobe_fuzz_" + std::to_string(getpid());
    mkdir(d.c_str(), 0700);
    RemoveAtExit(d);
    return d;
  }();
  return dir;
}

inline std::string WriteFile(const std::string& name, const uint8_t* data, size_t size) {
  std::string path = Dir() + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

}  // namespace vpfuzz
