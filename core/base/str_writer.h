// Appending to a std::string through a pointer, for the item texts every dump leaf is written
// into: std::string's own append is an out-of-line call per piece (about 10 million of them for a
// 40 MB dump.json, a fifth of the parse threads' instructions). While a writer is open the
// string's size serves as room (grown in chunks, never by less than a piece needs); closing it
// (Done, or the destructor) cuts the string to what was written.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace visprobe {

class StrWriter {
 public:
  explicit StrWriter(std::string& s) : s_(s), n_(s.size()) {}
  ~StrWriter() { Done(); }
  StrWriter(const StrWriter&) = delete;
  StrWriter& operator=(const StrWriter&) = delete;

  // Room for k more bytes: where they go (Advance(k) once written).
  char* Room(size_t k) {
    if (s_.size() - n_ < k) Grow(k);
    return &s_[0] + n_;
  }
  void Advance(size_t k) { n_ += k; }
  void Put(char c) {
    *Room(1) = c;
    ++n_;
  }
  // v must not point into the string being written (a growing room may move it).
  void Put(std::string_view v) {
    std::memcpy(Room(v.size()), v.data(), v.size());
    n_ += v.size();
  }
  void PutInt(int64_t v) {  // decimal, as str() and json.dumps write it (at most 20 characters)
    char* d = Room(20);
    n_ += static_cast<size_t>(std::to_chars(d, d + 20, v).ptr - d);
  }
  size_t size() const { return n_; }
  // The string as written so far, for a std::string& API; Sync() before writing through the
  // writer again.
  std::string& Done() {
    s_.resize(n_);
    return s_;
  }
  void Sync() { n_ = s_.size(); }

 private:
  // Chunks keep the zero-filling resize does to about one per leaf; the string's capacity grows
  // geometrically by itself.
  void Grow(size_t k) { s_.resize(n_ + (k > 1024 ? k : 1024)); }

  std::string& s_;
  size_t n_;
};

// True when json.dumps(s) (ensure_ascii) is s in quotes: no byte below 0x20, none from 0x7F up, no
// '"' or '\\'. Words of 8 bytes (the last one overlapping), two overlapping halves below 8 bytes.
inline bool JsonPlain(const char* p, size_t n) {
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  // (x - 0x20) sets a byte's high bit for x < 0x20; (x + 1) for x >= 0x7F (w's own high bit for
  // x >= 0x80); (x ^ c) - 1 for x == c. Borrows and carries can only add false alarms.
  auto bad = [](uint64_t w) {
    const uint64_t quote = w ^ (kOnes * '"'), slash = w ^ (kOnes * '\\');
    return (((w - kOnes * 0x20) | (w + kOnes) | (quote - kOnes) | (slash - kOnes) | w) & kHigh) != 0;
  };
  if (n >= 8) {
    uint64_t w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::memcpy(&w, p + i, 8);
      if (bad(w)) return false;
    }
    if (i == n) return true;
    std::memcpy(&w, p + n - 8, 8);
    return !bad(w);
  }
  if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    return !bad(a | (static_cast<uint64_t>(b) << 32));
  }
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7F) return false;
  }
  return true;
}

}  // namespace visprobe
