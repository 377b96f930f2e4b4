// Stable storage for many short strings (node names, construct.json's keys): bytes are copied into
// large chunks, so a million names cost a million copies, not a million heap blocks with their
// std::string headers (about 180 MB less at the peak of a 1.1 GB dump's structure pass).
#pragma once

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace visprobe {

class TextArena {
 public:
  TextArena() = default;
  TextArena(TextArena&&) = default;
  TextArena& operator=(TextArena&&) = default;

  // A copy of `s` that stays valid (and unmoved) as long as the arena.
  std::string_view Copy(std::string_view s) {
    if (s.size() > kChunk / 8) {  // a long text gets a block of its own; the current chunk stays
      chunks_.emplace_back(new char[s.size()]);
      std::memcpy(chunks_.back().get(), s.data(), s.size());
      bytes_ += s.size();
      return std::string_view(chunks_.back().get(), s.size());
    }
    if (s.size() > left_) {
      chunks_.emplace_back(new char[kChunk]);
      cur_ = chunks_.back().get();
      left_ = kChunk;
      bytes_ += kChunk;
    }
    char* p = cur_;
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    cur_ += s.size();
    left_ -= s.size();
    return std::string_view(p, s.size());
  }
  // Gives back the latest copy when it is `last` (its bytes go to the next copy).
  void DropLast(std::string_view last) {
    if (!last.empty() && last.data() + last.size() == cur_) {
      cur_ -= last.size();
      left_ += last.size();
    }
  }
  size_t bytes() const { return bytes_; }

 private:
  static constexpr size_t kChunk = 256u << 10;
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* cur_ = nullptr;
  size_t left_ = 0, bytes_ = 0;
};

}  // namespace visprobe
