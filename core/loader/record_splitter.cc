#include "loader/record_splitter.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/limits.h"
#include "loader/json_bits.h"

namespace visprobe {
namespace {

using json_bits::Escaped;
using json_bits::PrefixXor;

// The next '"', '{', '}', '[' or ']' at or after p, or end (16 bytes at a time where SSE2 is).
const char* SkipToStructural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  const __m128i lower = _mm_set1_epi8(0x20);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i l = _mm_or_si128(v, lower);
    __m128i m = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_or_si128(_mm_cmpeq_epi8(l, open), _mm_cmpeq_epi8(l, close)));
    int mask = _mm_movemask_epi8(m);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end) {
    char c = *p;
    if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') break;
    ++p;
  }
  return p;
}

struct BlockMasks {
  uint64_t quote = 0, backslash = 0, open = 0, close = 0;
};

// Bit i of each mask: byte i of the 64 at p is '"', '\\', '{' or '[', '}' or ']'. One byte at a
// time: the build without SSE2 (e.g. an aarch64 server) uses it, and tests check it against the
// SSE2 one (RecordSplitter::SetScalarBlocks).
inline BlockMasks ClassifyScalar(const char* p) {
  BlockMasks m;
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    switch (p[i]) {
      case '"': m.quote |= bit; break;
      case '\\': m.backslash |= bit; break;
      case '{':
      case '[': m.open |= bit; break;
      case '}':
      case ']': m.close |= bit; break;
      default: break;
    }
  }
  return m;
}

// The same, 16 bytes at a time where SSE2 is.
inline BlockMasks Classify(const char* p) {
#if defined(__SSE2__)
  BlockMasks m;
  const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
  const __m128i lower = _mm_set1_epi8(0x20);  // '[' | 0x20 == '{', ']' | 0x20 == '}'
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i l = _mm_or_si128(v, lower);
    const int sh = 16 * k;
    m.quote |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)))) << sh;
    m.backslash |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bs)))) << sh;
    m.open |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(l, open)))) << sh;
    m.close |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(l, close)))) << sh;
  }
  return m;
#else
  return ClassifyScalar(p);
#endif
}

}  // namespace

const char* RecordSplitter::ScanValueBlocks(const char* p, const char* end, bool* at_bracket) {
  *at_bracket = false;
  const int floor = container_depth_;  // a close to this depth ends the value
  const int ceiling = container_depth_ + kMaxJsonDepth;  // an open past this depth fails
  uint64_t in_string = 0;  // all ones: the block starts in a string
  uint64_t carry = 0;  // the block's first byte is escaped
  while (end - p >= 64) {
    const BlockMasks m = scalar_blocks_ ? ClassifyScalar(p) : Classify(p);
    uint64_t carry_next = carry;
    const uint64_t escaped = Escaped(m.backslash, &carry_next);
    const uint64_t strings = PrefixXor(m.quote & ~escaped) ^ in_string;
    // A backslash outside a string is not JSON: the byte scan decides what it means there.
    if ((m.backslash & ~strings) != 0) break;
    const uint64_t open = m.open & ~strings, close = m.close & ~strings;
    const int opens = __builtin_popcountll(open), closes = __builtin_popcountll(close);
    if (depth_ - closes > floor && depth_ + opens <= ceiling) {
      depth_ += opens - closes;
    } else {
      for (uint64_t br = open | close; br != 0; br &= br - 1) {
        const uint64_t bit = br & (~br + 1);
        if (open & bit) {
          if (depth_ + 1 > ceiling) {
            *at_bracket = true;
            return p + __builtin_ctzll(bit);
          }
          ++depth_;
        } else {
          if (depth_ - 1 <= floor) {
            *at_bracket = true;
            return p + __builtin_ctzll(bit);
          }
          --depth_;
        }
      }
    }
    in_string = static_cast<uint64_t>(static_cast<int64_t>(strings) >> 63);
    carry = carry_next;
    p += 64;
  }
  in_string_ = in_string != 0;
  escape_ = in_string_ && carry != 0;
  return p;
}

RecordSplitter::RecordSplitter(std::string container_key, size_t window_bytes, WindowFn fn)
    : container_key_(std::move(container_key)),
      window_bytes_(window_bytes),
      fn_(std::move(fn)),
      max_record_bytes_(kMaxJsonRecordBytes),
      max_key_bytes_(kMaxJsonStringBytes) {
  container_depth_ = container_key_.empty() ? 1 : 2;
  window_ = "{";
}

Status RecordSplitter::Fail(uint64_t pos, const Message& what) const {
  return InvalidInput(Msg<msg::kJsonErrorAtByte>(pos, what));
}

Message RecordSplitter::KeyLimitText() const { return Msg<msg::kKeyLongerThanLimit>(max_key_bytes_); }

// `at`: the file offset reached inside the current record.
Status RecordSplitter::CheckRecordSize(uint64_t at) const {
  if (in_record_ && at - record_start_ > max_record_bytes_)
    return Fail(record_start_, Msg<msg::kMemberStartingHereLarger>(max_record_bytes_));
  if (meta_.size() > max_record_bytes_) return Fail(at, Msg<msg::kMembersNextLargerThan>(container_key_, max_record_bytes_));
  return Status::Ok();
}

void RecordSplitter::Append(Sink s, const char* b, const char* e) {
  if (b >= e) return;
  if (s == Sink::kMeta)
    meta_.append(b, e - b);
  else if (s == Sink::kWindow && !keys_only_)
    window_.append(b, e - b);
}

Status RecordSplitter::EndRecord(bool container_closed) {
  in_record_ = false;
  if (keys_only_) return Status::Ok();
  if (window_.size() >= window_bytes_ || (container_closed && !origins_.empty())) {
    window_ += '}';
    if (window_.size() > largest_window_) largest_window_ = window_.size();
    RETURN_IF_ERROR(fn_(window_, origins_));
    window_.assign("{");
    origins_.clear();
  } else if (!container_closed) {
    window_ += ',';
  }
  return Status::Ok();
}

inline RecordSplitter::Sink RecordSplitter::SinkNow() const {
  if (in_record_) return Sink::kWindow;
  if (!container_key_.empty() && depth_ >= 1 && !in_container_) return Sink::kMeta;
  return Sink::kNone;
}

inline void RecordSplitter::SwitchSink(FeedScan& s, const char* at) {
  Append(s.sink, s.seg, at);
  s.seg = at;
  s.sink = SinkNow();
}

Status RecordSplitter::TooDeep(uint64_t at) const { return Fail(at, Msg<msg::kJsonNestingDeeperThan>(kMaxJsonDepth)); }

Status RecordSplitter::AfterTopLevel(uint64_t at) const {
  if (top_closed_) return Fail(at, Msg<msg::kUnexpectedCharactersAfterTop>());
  return Fail(at, Msg<msg::kTopLevelValueNot>());
}

// The key text from p to e (and a backslash after it when `escape`), then the key length limit.
Status RecordSplitter::CaptureKeyPart(const FeedScan& s, const char* p, const char* e, bool escape) {
  if (capturing_key_) {
    key_.append(p, e - p);
    if (escape) key_ += '\\';
  }
  if (capturing_record_key_) {
    record_key_.append(p, e - p);
    if (escape) record_key_ += '\\';
  }
  if (KeyTooLong()) return Fail(At(s, p), KeyLimitText());
  return Status::Ok();
}

// The key's last text, from p to its closing quote q: a top-level key is kept for the ':' after
// it, a record's key (keys-only mode) goes to key_fn_.
inline Status RecordSplitter::CloseKey(const FeedScan& s, const char* p, const char* q) {
  if (capturing_key_) {
    key_.append(p, q - p);
    capturing_key_ = false;
    key_done_ = true;
  }
  if (capturing_record_key_) {
    record_key_.append(p, q - p);
    if (KeyTooLong()) return Fail(At(s, p), KeyLimitText());
    capturing_record_key_ = false;
    RETURN_IF_ERROR(key_fn_(record_key_, record_key_pos_));
  }
  return Status::Ok();
}

// The next '"' at or after p, remembered: searching again after every escape made strings dense
// with escapes quadratic in the read size.
inline const char* RecordSplitter::NextQuote(FeedScan& s, const char* p, const char* end) {
  if (!s.quote_known || (s.next_quote && s.next_quote < p)) {
    s.next_quote = static_cast<const char*>(std::memchr(p, '"', end - p));
    s.quote_known = true;
  }
  return s.next_quote;
}

inline const char* RecordSplitter::SkipString(FeedScan& s, const char* p, const char* end) {
  if (escape_) {
    escape_ = false;
    return p + 1;
  }
  // Jump to the next quote or backslash.
  const char* q = NextQuote(s, p, end);
  const char* bs = static_cast<const char*>(std::memchr(p, '\\', (q ? q : end) - p));
  if (bs) {
    escape_ = true;
    return bs + 1;
  }
  if (!q) return end;
  in_string_ = false;
  return q + 1;
}

inline Status RecordSplitter::ScanKeyString(FeedScan& s, const char*& p, const char* end) {
  if (escape_) {
    escape_ = false;
    if (capturing_key_) key_ += *p;
    if (capturing_record_key_) record_key_ += *p;
    ++p;
    return Status::Ok();
  }
  const char* q = NextQuote(s, p, end);
  const char* bs = static_cast<const char*>(std::memchr(p, '\\', (q ? q : end) - p));
  if (bs) {
    RETURN_IF_ERROR(CaptureKeyPart(s, p, bs, true));
    p = bs + 1;
    escape_ = true;
  } else if (!q) {
    RETURN_IF_ERROR(CaptureKeyPart(s, p, end, false));
    p = end;
  } else {
    RETURN_IF_ERROR(CloseKey(s, p, q));
    in_string_ = false;
    p = q + 1;
  }
  return Status::Ok();
}

inline Status RecordSplitter::OpenOuterString(FeedScan& s, const char* p) {
  if (top_closed_ || depth_ == 0) return AfterTopLevel(At(s, p));
  if (depth_ == container_depth_ && in_container_ && !in_record_) {
    // A record's key: the record starts here.
    SwitchSink(s, p);
    in_record_ = true;
    record_start_ = At(s, p);
    ++records_;
    if (keys_only_) {
      capturing_record_key_ = true;
      record_key_.clear();
      record_key_pos_ = At(s, p);
    } else {
      origins_.push_back({window_.size(), At(s, p)});
    }
    s.sink = Sink::kWindow;
  } else if (depth_ == 1 && expect_key_) {
    capturing_key_ = true;
    key_.clear();
    expect_key_ = false;
  }
  return Status::Ok();
}

inline Status RecordSplitter::OpenOuterBracket(FeedScan& s, const char* p, char c) {
  if (top_closed_) return AfterTopLevel(At(s, p));
  if (depth_ == 0) {
    if (c != '{') return AfterTopLevel(At(s, p));
    depth_ = 1;
    if (container_key_.empty()) {
      in_container_ = true;
    } else {
      SwitchSink(s, p);  // keep the '{' in meta
      s.sink = Sink::kMeta;
      expect_key_ = true;
    }
    return Status::Ok();
  }
  if (depth_ == 1 && value_is_container_ && c == '{' && !in_container_) {
    // Entering the container: meta gets a placeholder instead of its content.
    SwitchSink(s, p);
    meta_ += '0';
    ++depth_;
    in_container_ = true;
    value_is_container_ = false;
    s.seg = p + 1;
    s.sink = SinkNow();
    return Status::Ok();
  }
  value_is_container_ = false;
  if (++depth_ > container_depth_ + kMaxJsonDepth) return TooDeep(At(s, p));
  return Status::Ok();
}

inline Status RecordSplitter::CloseOuterBracket(FeedScan& s, const char* p) {
  if (depth_ <= 0) return Fail(At(s, p), Msg<msg::kUnbalancedClosingBracket>());
  if (in_container_ && depth_ == container_depth_) {
    // Closing the container (or the top-level object in top mode).
    container_end_ = At(s, p);
    RETURN_IF_ERROR(CheckRecordSize(container_end_));
    SwitchSink(s, p);
    if (in_record_ || !origins_.empty()) RETURN_IF_ERROR(EndRecord(true));
    in_container_ = false;
    --depth_;
    if (depth_ == 0) top_closed_ = true;
    s.seg = p + 1;
    s.sink = SinkNow();
    return Status::Ok();
  }
  --depth_;
  if (depth_ == 0) {
    top_closed_ = true;
    SwitchSink(s, p + 1);
  }
  return Status::Ok();
}

inline Status RecordSplitter::OuterComma(FeedScan& s, const char* p) {
  if (in_record_ && depth_ == container_depth_) {
    RETURN_IF_ERROR(CheckRecordSize(At(s, p)));
    SwitchSink(s, p);
    RETURN_IF_ERROR(EndRecord(false));
    s.seg = p + 1;
    s.sink = SinkNow();
    return Status::Ok();
  }
  if (depth_ == 1 && !in_container_) expect_key_ = true;
  return Status::Ok();
}

Status RecordSplitter::Feed(const char* data, size_t size) {
  const char* p = data;
  const char* const end = data + size;
  FeedScan s{data, data, SinkNow()};
  while (p < end) {
    if (in_string_) {
      if (capturing_key_ || capturing_record_key_)
        RETURN_IF_ERROR(ScanKeyString(s, p, end));
      else
        p = SkipString(s, p, end);
      continue;
    }
    if (depth_ > container_depth_ && depth_ > 1) {
      // Inside a member's value only strings and brackets change the state: 64 bytes at a time
      // to the bracket that ends it, or else skip to the next string or bracket.
      bool at_bracket = false;
      if (block_scan_ && end - p >= 64) {
        p = ScanValueBlocks(p, end, &at_bracket);
        if (in_string_) continue;
      }
      if (!at_bracket) p = SkipToStructural(p, end);
      if (p == end) break;
    }
    // Inside a record's value a byte only moves depth_ or starts a string; the Outer* steps
    // (records' level and above: records, the container and the top-level object) do the rest.
    const char c = *p;
    switch (c) {
      case '"':
        if (depth_ <= container_depth_) RETURN_IF_ERROR(OpenOuterString(s, p));
        in_string_ = true;
        break;
      case '{':
      case '[':
        if (depth_ <= 1) {
          RETURN_IF_ERROR(OpenOuterBracket(s, p, c));
        } else {
          value_is_container_ = false;
          if (++depth_ > container_depth_ + kMaxJsonDepth) return TooDeep(At(s, p));
        }
        break;
      case '}':
      case ']':
        if (depth_ <= container_depth_)
          RETURN_IF_ERROR(CloseOuterBracket(s, p));
        else
          --depth_;
        break;
      case ',':
        if (depth_ <= container_depth_) RETURN_IF_ERROR(OuterComma(s, p));
        break;
      case ':':
        if (depth_ == 1 && key_done_ && !in_container_) {
          key_done_ = false;
          value_is_container_ = (key_ == container_key_);
        }
        break;
      case ' ':
      case '\n':
      case '\r':
      case '\t': break;
      default:
        if (top_closed_ || depth_ == 0) return AfterTopLevel(At(s, p));
        if (depth_ == 1) value_is_container_ = false;
        break;
    }
    ++p;
  }
  Append(s.sink, s.seg, end);
  pos_ += size;
  return CheckRecordSize(pos_);
}

Status RecordSplitter::Finish() {
  if (depth_ == 0 && !top_closed_) {
    if (pos_ == 0) return Fail(0, Msg<msg::kFileEmpty>());
    return Fail(pos_, Msg<msg::kNoJsonObjectFound>());
  }
  if (!top_closed_ || in_string_) return Fail(pos_, Msg<msg::kFileEndsInsideJson>());
  return Status::Ok();
}

}  // namespace visprobe
