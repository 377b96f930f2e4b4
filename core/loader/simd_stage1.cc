#include "loader/simd_stage1.h"

#include <cstring>
#include <memory>
#include <new>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "loader/json_bits.h"

namespace visprobe {
namespace json_internal {

#if defined(__SSE2__)

namespace {

using simdjson::error_code;

// A 64-bit mask from four 16-byte comparison results, byte i of the block in bit i.
inline uint64_t Bits(const __m128i (&m)[4]) {
  const uint32_t lo = static_cast<uint32_t>(_mm_movemask_epi8(m[0])) | (static_cast<uint32_t>(_mm_movemask_epi8(m[1])) << 16);
  const uint32_t hi = static_cast<uint32_t>(_mm_movemask_epi8(m[2])) | (static_cast<uint32_t>(_mm_movemask_epi8(m[3])) << 16);
  return lo | (static_cast<uint64_t>(hi) << 32);
}

// The state simdjson's json_structural_indexer carries from one 64-byte block to the next.
struct Scanner {
  uint64_t next_is_escaped = 0;  // the block ended in an unescaped backslash
  uint64_t prev_in_string = 0;  // all ones when the block ended inside a string
  uint64_t prev_scalar = 0;  // the block ended in a non-quote scalar byte
  uint64_t unescaped_error = 0;  // control characters seen inside strings
  __m128i high = _mm_setzero_si128();  // or of every byte: its top bit says "not all ASCII"
  uint32_t* out;

  explicit Scanner(uint32_t* o) : out(o) {}

  void Block(const uint8_t* p, uint32_t base) {
    const __m128i quote_c = _mm_set1_epi8('"'), slash_c = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    // simdjson's operator lookup compares byte | 0x20 with ',' ':' '{' '}': that also takes [ ] and,
    // as its comments say, the control characters 0x0C and 0x1A (caught later, in stage 2).
    const __m128i lower = _mm_set1_epi8(0x20), comma = _mm_set1_epi8(','), colon = _mm_set1_epi8(':');
    const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'), ctl_max = _mm_set1_epi8(0x1F);
    __m128i q[4], s[4], ws[4], op[4], ctl[4];
    __m128i ctl_any = _mm_setzero_si128();
    for (int i = 0; i < 4; ++i) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
      q[i] = _mm_cmpeq_epi8(v, quote_c);
      s[i] = _mm_cmpeq_epi8(v, slash_c);
      ws[i] = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                           _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
      const __m128i t = _mm_or_si128(v, lower);
      op[i] = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(t, comma), _mm_cmpeq_epi8(t, colon)),
                           _mm_or_si128(_mm_cmpeq_epi8(t, open), _mm_cmpeq_epi8(t, close)));
      ctl[i] = _mm_cmpeq_epi8(_mm_max_epu8(v, ctl_max), ctl_max);  // v <= 0x1F
      ctl_any = _mm_or_si128(ctl_any, ctl[i]);
      high = _mm_or_si128(high, v);
    }
    // Escapes (json_escape_scanner): a backslash escapes the next byte unless it is escaped itself.
    const uint64_t escaped = json_bits::Escaped(Bits(s), &next_is_escaped);
    // Strings (json_string_scanner): in_string covers the opening quote and the content.
    const uint64_t quote = Bits(q) & ~escaped;
    const uint64_t in_string = json_bits::PrefixXor(quote) ^ prev_in_string;
    prev_in_string = static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
    // Structurals (json_scanner, json_block): operators, and the first byte of every scalar
    // (a quote included) outside the strings' tails.
    const uint64_t ops = Bits(op);
    const uint64_t scalar = ~(ops | Bits(ws));
    const uint64_t nonquote_scalar = scalar & ~quote;
    const uint64_t follows = (nonquote_scalar << 1) | prev_scalar;
    prev_scalar = nonquote_scalar >> 63;
    uint64_t structurals = (ops | (scalar & ~follows)) & ~(in_string ^ quote);
    if (_mm_movemask_epi8(ctl_any)) unescaped_error |= Bits(ctl) & in_string;
    while (structurals) {
      *out++ = base + static_cast<uint32_t>(__builtin_ctzll(structurals));
      structurals &= structurals - 1;
    }
  }
};

// One parser's stage 1: Sse2Stage1 into this parser's index array. Strings are unescaped by the
// kernel simdjson chose (a parser of it is kept for that); the DOM API's stages are not offered.
class Sse2Parser final : public simdjson::internal::dom_parser_implementation {
 public:
  explicit Sse2Parser(std::unique_ptr<simdjson::internal::dom_parser_implementation> strings) : strings_(std::move(strings)) {}

  error_code parse(const uint8_t*, size_t, simdjson::dom::document&) noexcept override {
    return simdjson::UNSUPPORTED_ARCHITECTURE;
  }
  error_code stage1(const uint8_t* buf, size_t len, simdjson::stage1_mode mode) noexcept override {
    // Document streams (iterate_many) are not used by the engine: only whole documents.
    if (mode != simdjson::stage1_mode::regular) return simdjson::UNSUPPORTED_ARCHITECTURE;
    if (len > _capacity) return simdjson::CAPACITY;
    next_structural_index = 0;
    return Sse2Stage1(buf, len, structural_indexes.get(), &n_structural_indexes);
  }
  error_code stage2(simdjson::dom::document&) noexcept override { return simdjson::UNSUPPORTED_ARCHITECTURE; }
  error_code stage2_next(simdjson::dom::document&) noexcept override { return simdjson::UNSUPPORTED_ARCHITECTURE; }
  uint8_t* parse_string(const uint8_t* src, uint8_t* dst, bool allow_replacement) const noexcept override {
    return strings_->parse_string(src, dst, allow_replacement);
  }
  uint8_t* parse_wobbly_string(const uint8_t* src, uint8_t* dst) const noexcept override {
    return strings_->parse_wobbly_string(src, dst);
  }
  error_code set_capacity(size_t capacity) noexcept override {
    if (capacity > simdjson::SIMDJSON_MAXSIZE_BYTES) return simdjson::CAPACITY;
    // Every byte a structural at most, and the three sentinels (sized as simdjson sizes its own).
    structural_indexes.reset(new (std::nothrow) uint32_t[SIMDJSON_ROUNDUP_N(capacity, 64) + 2 + 7]);
    if (!structural_indexes) {
      _capacity = 0;
      return simdjson::MEMALLOC;
    }
    structural_indexes[0] = 0;
    n_structural_indexes = 0;
    _capacity = capacity;
    return simdjson::SUCCESS;
  }
  error_code set_max_depth(size_t max_depth) noexcept override {
    _max_depth = max_depth;  // the depth is tracked by the on-demand parser itself
    return simdjson::SUCCESS;
  }

 private:
  std::unique_ptr<simdjson::internal::dom_parser_implementation> strings_;
};

class Sse2Implementation final : public simdjson::implementation {
 public:
  explicit Sse2Implementation(const simdjson::implementation* base)
      : implementation("sse2_stage1", "visprobe's SSE2 / wasm SIMD stage 1 over simdjson's fallback", 0), base_(base) {}

  error_code create_dom_parser_implementation(
      size_t capacity, size_t max_depth,
      std::unique_ptr<simdjson::internal::dom_parser_implementation>& dst) const noexcept override {
    std::unique_ptr<simdjson::internal::dom_parser_implementation> strings;
    if (error_code e = base_->create_dom_parser_implementation(64, 4, strings)) return e;
    std::unique_ptr<Sse2Parser> p(new (std::nothrow) Sse2Parser(std::move(strings)));
    if (!p) return simdjson::MEMALLOC;
    if (error_code e = p->set_capacity(capacity)) return e;
    if (error_code e = p->set_max_depth(max_depth)) return e;
    dst = std::move(p);
    return simdjson::SUCCESS;
  }
  error_code minify(const uint8_t* buf, size_t len, uint8_t* dst, size_t& dst_len) const noexcept override {
    return base_->minify(buf, len, dst, dst_len);
  }
  bool validate_utf8(const char* buf, size_t len) const noexcept override { return base_->validate_utf8(buf, len); }

 private:
  const simdjson::implementation* base_;
};

}  // namespace

simdjson::error_code Sse2Stage1(const uint8_t* buf, size_t len, uint32_t* out, uint32_t* n) {
  *n = 0;
  if (len == 0) return simdjson::EMPTY;
  Scanner sc(out);
  // Full blocks, then the last 1-64 bytes padded with spaces (simdjson's buf_block_reader).
  size_t i = 0;
  for (; len - i > 64; i += 64) sc.Block(buf + i, static_cast<uint32_t>(i));
  alignas(16) uint8_t last[64];
  std::memset(last, ' ', sizeof last);
  std::memcpy(last, buf + i, len - i);
  sc.Block(last, static_cast<uint32_t>(i));
  // simdjson's order: an unclosed string, then control characters in strings, then no structurals,
  // then UTF-8 (which it checks over the whole input, strings or not).
  if (sc.prev_in_string) return simdjson::UNCLOSED_STRING;
  if (sc.unescaped_error) return simdjson::UNESCAPED_CHARS;
  const uint32_t count = static_cast<uint32_t>(sc.out - out);
  *n = count;
  out[count] = static_cast<uint32_t>(len);
  out[count + 1] = static_cast<uint32_t>(len);
  out[count + 2] = 0;
  if (count == 0) return simdjson::EMPTY;
  if (_mm_movemask_epi8(sc.high) &&
      !simdjson::get_active_implementation()->validate_utf8(reinterpret_cast<const char*>(buf), len))
    return simdjson::UTF8_ERROR;
  return simdjson::SUCCESS;
}

const simdjson::implementation* Sse2Stage1Implementation() {
  // Over the kernel simdjson chose (the first call on the active implementation replaces simdjson's
  // detector with its choice), or, once installed, over the one it replaced.
  static const Sse2Implementation impl([] {
    (void)simdjson::get_active_implementation()->name();
    return static_cast<const simdjson::implementation*>(simdjson::get_active_implementation());
  }());
  return &impl;
}

bool UseSse2Stage1WhereScalar() {
  static const bool on = [] {
    if (simdjson::get_active_implementation()->name() != "fallback") return false;
    simdjson::get_active_implementation() = Sse2Stage1Implementation();
    return true;
  }();
  return on;
}

#else  // no SSE2: simdjson's own stage 1 everywhere

simdjson::error_code Sse2Stage1(const uint8_t*, size_t, uint32_t*, uint32_t* n) {
  *n = 0;
  return simdjson::UNSUPPORTED_ARCHITECTURE;
}

const simdjson::implementation* Sse2Stage1Implementation() { return nullptr; }

bool UseSse2Stage1WhereScalar() { return false; }

#endif

}  // namespace json_internal
}  // namespace visprobe
