#include "loader/json_reader.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/fs.h"
#include "loader/json_convert.h"
#include "loader/json_reader_internal.h"
#include "loader/record_splitter.h"
#include "loader/simd_stage1.h"
#include "simdjson.h"

namespace visprobe {
using namespace json_internal;

namespace {

// memmem for the md5 probe, which reads all of dump.json on the key-scan thread: glibc's memmem
// took about 3 instructions a byte there. With SSE2, 16 candidate starts at a time are filtered on
// two inner bytes of the needle at their distance (not its first and last: a quoted needle would
// stop at every short key) and only those are compared whole.
const char* FindBytes(const char* h, size_t hn, const char* nd, size_t nn) {
  size_t i = 0;
#if defined(__SSE2__)
  if (nn >= 3) {
    const size_t a = 1, b = nn - 2;
    const __m128i fa = _mm_set1_epi8(nd[a]), fb = _mm_set1_epi8(nd[b]);
    // Every start below i has been checked; the loads read up to h[i + b + 15] < hn.
    for (; i + 15 + nn <= hn; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i + a));
      const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(h + i + b));
      unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, fa), _mm_cmpeq_epi8(y, fb))));
      while (m != 0) {
        const unsigned k = static_cast<unsigned>(__builtin_ctz(m));
        if (std::memcmp(h + i + k, nd, nn) == 0) return h + i + k;
        m &= m - 1;
      }
    }
  }
#endif
  if (i >= hn) return nullptr;
  return static_cast<const char*>(::memmem(h + i, hn - i, nd, nn));
}

// The splitter's "@ byte N: what" (JsonErrorAtByte) with the file's path: "path @ byte N: what".
Status AtPath(const std::string& path, const Status& st) {
  const Message& m = st.detail();
  return InvalidInput(Msg<msg::kJsonErrorAt>(path, m.args()[0], m.args()[1]));
}

}  // namespace

namespace json_internal {

JsonLimits LimitsOf(const JsonReadOptions& o) {
  JsonLimits l;
  l.max_string_bytes = o.max_string_bytes;
  l.max_record_values = o.max_record_values;
  return l;
}

Status WindowParser::Parse(std::string& window, const std::vector<RecordOrigin>& origins) {
  const size_t len = window.size();
  window.reserve(len + simdjson::SIMDJSON_PADDING);
  od::document doc;
  simdjson::padded_string_view view(window.data(), len, window.capacity());
  UseSse2Stage1WhereScalar();
  if (auto e = parser_.iterate(view).get(doc)) return Error(e, origins, 0);
  od::object obj;
  if (auto e = doc.get_object().get(obj)) return Error(e, origins, 0);
  size_t rec = 0;
  for (auto fr : obj) {
    od::field f;
    if (auto e = std::move(fr).get(f)) return Error(e, origins, rec);
    std::string_view k;
    if (auto e = f.unescaped_key(false).get(k)) return Error(e, origins, rec);
    if (k.size() > limits_.max_string_bytes) return Error(StringLimitText(limits_.max_string_bytes), origins, rec);
    key_.assign(k.data(), k.size());
    tree_.Clear();
    JIdx root = tree_.Add(JKind::kNull);
    Converter conv(tree_, limits_);
    if (!conv.Value(f.value(), root, 1)) return Error(conv.Text(), origins, rec);
    RETURN_IF_ERROR(fn_(key_, rec < origins.size() ? origins[rec].file_pos : 0, tree_, root));
    ++rec;
  }
  if (!doc.at_end()) return Error(simdjson::TRAILING_CONTENT, origins, rec ? rec - 1 : 0);
  return Status::Ok();
}

Status WindowParser::Error(simdjson::error_code e, const std::vector<RecordOrigin>& origins, size_t rec) {
  return Error(ErrorText(e), origins, rec);
}
Status WindowParser::Error(const Message& what, const std::vector<RecordOrigin>& origins, size_t rec) {
  uint64_t pos = origins.empty() ? 0 : origins[rec < origins.size() ? rec : origins.size() - 1].file_pos;
  if (rec < origins.size()) return InvalidInput(Msg<msg::kJsonErrorInMember>(path_, pos, what, pos));
  return InvalidInput(Msg<msg::kJsonErrorAt>(path_, pos, what));
}

}  // namespace json_internal

bool DecodeJsonString(std::string_view raw, std::string* out) {
  out->clear();
  auto hex4 = [&](size_t i, uint32_t* v) {
    if (i + 4 > raw.size()) return false;
    *v = 0;
    for (size_t k = i; k < i + 4; ++k) {
      char c = raw[k];
      *v <<= 4;
      if (c >= '0' && c <= '9')
        *v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        *v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        *v |= static_cast<uint32_t>(c - 'A' + 10);
      else
        return false;
    }
    return true;
  };
  auto put_utf8 = [&](uint32_t cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xC0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xE0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (++i >= raw.size()) return false;
    switch (raw[i]) {
      case '"': *out += '"'; break;
      case '\\': *out += '\\'; break;
      case '/': *out += '/'; break;
      case 'b': *out += '\b'; break;
      case 'f': *out += '\f'; break;
      case 'n': *out += '\n'; break;
      case 'r': *out += '\r'; break;
      case 't': *out += '\t'; break;
      case 'u': {
        uint32_t cp;
        if (!hex4(i + 1, &cp)) return false;
        i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < raw.size() + 0 && raw[i + 1] == '\\' && raw[i + 2] == 'u') {
          uint32_t lo;
          if (hex4(i + 3, &lo) && lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
          }
        }
        put_utf8(cp);
        break;
      }
      default: return false;
    }
  }
  return true;
}

namespace json_internal {

Result<uint64_t> FeedFile(const std::string& path, const JsonReadOptions& opts, RecordSplitter& splitter, bool* found) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return IoError(Msg<msg::kPathCannotOpen>(path, ErrnoMessage(errno)));
  uint64_t total = 0;
  if (fseeko(f.get(), 0, SEEK_END) == 0) {
    total = static_cast<uint64_t>(ftello(f.get()));
    fseeko(f.get(), 0, SEEK_SET);
  }
  // Never more than the file: small files (construct.json of a tiny rank) read with a small buffer.
  std::vector<char> block(static_cast<size_t>(std::max<uint64_t>(1, std::min<uint64_t>(opts.block_bytes, total + 1))));
  uint64_t done = 0;
  std::string tail;
  for (;;) {
    size_t n = std::fread(block.data(), 1, block.size(), f.get());
    if (n == 0) {
      if (std::ferror(f.get())) {
        const int err = errno;
        return IoError(Msg<msg::kJsonErrorAt>(path, done, Msg<msg::kReadErrorWhy>(ErrnoMessage(err))));
      }
      break;
    }
    if (found && !*found && !opts.find_text.empty()) {
      // Search the block, and the seam between the previous block and this one.
      const std::string& needle = opts.find_text;
      std::string_view blk(block.data(), n);
      // Not string_view::find: find stops at every '"' of the JSON (the needle's first byte).
      if (FindBytes(blk.data(), blk.size(), needle.data(), needle.size()) != nullptr) *found = true;
      std::string seam = tail + std::string(blk.substr(0, std::min(n, needle.size())));
      if (seam.find(needle) != std::string::npos) *found = true;
      tail.assign(blk.substr(n > needle.size() ? n - needle.size() : 0));
    }
    Status st = splitter.Feed(block.data(), n);
    if (!st.ok()) {
      if (st.detail().id() == msg::kJsonErrorAtByte) return AtPath(path, st);
      return st;
    }
    done += n;
    if (opts.progress) opts.progress(done, total);
  }
  Status st = splitter.Finish();
  if (!st.ok()) return AtPath(path, st);
  return done;
}

Status ParseMeta(const std::string& path, const RecordSplitter& splitter, const JsonReadOptions& opts, JsonReadResult& out) {
  if (opts.container_key.empty()) return Status::Ok();
  Status ms = ParseJsonText(splitter.meta(), out.meta, &out.meta_root);
  if (!ms.ok()) return InvalidInput(Msg<msg::kPathPrefixed>(path, ms));
  return Status::Ok();
}

}  // namespace json_internal

Result<JsonReadResult> ReadJsonRecords(const std::string& path, const JsonReadOptions& opts, const RecordFn& on_record) {
  WindowParser wp(
      path, [&on_record](std::string_view k, uint64_t, const JTree& t, JIdx v) { return on_record(k, t, v); }, LimitsOf(opts));
  RecordSplitter splitter(opts.container_key, opts.window_bytes,
                          [&wp](std::string& w, const std::vector<RecordOrigin>& o) { return wp.Parse(w, o); });
  splitter.SetLimits(opts.max_record_bytes, opts.max_string_bytes);
  ASSIGN_OR_RETURN(uint64_t done, FeedFile(path, opts, splitter));
  JsonReadResult out;
  out.records = splitter.records();
  out.bytes = done;
  out.largest_window = splitter.largest_window();
  RETURN_IF_ERROR(ParseMeta(path, splitter, opts, out));
  return out;
}

std::string FrameworkField(const JsonReadResult& r) {
  if (r.meta_root == kJNone) return std::string();
  JIdx fw = r.meta.Find(r.meta_root, "framework");
  if (fw == kJNone || r.meta.Kind(fw) != JKind::kString) return std::string();
  std::string_view v = r.meta.Str(fw);
  return (v == "pytorch" || v == "mindspore") ? std::string(v) : std::string();
}

Result<JsonReadResult> ScanJsonKeys(const std::string& path, const JsonReadOptions& opts, const KeyOnlyFn& on_key) {
  RecordSplitter splitter(opts.container_key, opts.window_bytes, nullptr);
  splitter.SetLimits(opts.max_record_bytes, opts.max_string_bytes);
  std::string decoded;
  splitter.SetKeysOnly([&](std::string_view raw, uint64_t pos) -> Status {
    std::string_view key = raw;
    if (raw.find('\\') != std::string_view::npos) {
      if (!DecodeJsonString(raw, &decoded))
        return InvalidInput(Msg<msg::kJsonErrorAt>(path, pos, Msg<msg::kInvalidStringEscape>()));
      key = decoded;
    }
    if (key.size() > opts.max_string_bytes)
      return InvalidInput(Msg<msg::kJsonErrorAt>(path, pos, StringLimitText(opts.max_string_bytes)));
    return on_key(key, pos);
  });
  bool found = false;
  ASSIGN_OR_RETURN(uint64_t done, FeedFile(path, opts, splitter, &found));
  JsonReadResult out;
  out.records = splitter.records();
  out.bytes = done;
  out.found_text = found;
  out.container_end = splitter.container_end();
  RETURN_IF_ERROR(ParseMeta(path, splitter, opts, out));
  return out;
}

Status ParseJsonText(std::string_view text, JTree& tree, JIdx* root) {
  std::string buf(text);
  buf.reserve(buf.size() + simdjson::SIMDJSON_PADDING);
  UseSse2Stage1WhereScalar();
  od::parser parser;
  od::document doc;
  simdjson::padded_string_view view(buf.data(), buf.size(), buf.capacity());
  if (auto e = parser.iterate(view).get(doc)) return InvalidInput(ErrorText(e));
  tree.Clear();
  *root = tree.Add(JKind::kNull);
  // A scalar document cannot be read as a value in on-demand mode; the callers only need objects.
  od::object obj;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) return InvalidInput(Msg<msg::kTopLevelValueNot>());
  tree.at(*root).kind = JKind::kObject;
  JIdx prev = kJNone;
  uint32_t count = 0;
  for (auto fr : obj) {
    od::field f;
    if (auto e = std::move(fr).get(f)) return InvalidInput(ErrorText(e));
    std::string_view k;
    if (auto e = f.unescaped_key(false).get(k)) return InvalidInput(ErrorText(e));
    if (k.size() > kMaxJsonStringBytes) return InvalidInput(StringLimitText(kMaxJsonStringBytes));
    JIdx c = tree.Add(JKind::kNull);
    tree.SetKey(c, k);
    if (prev == kJNone)
      tree.at(*root).first = c;
    else
      tree.at(prev).next = c;
    prev = c;
    ++count;
    Converter conv(tree);
    if (!conv.Value(f.value(), c, 1)) return InvalidInput(conv.Text());
  }
  tree.at(*root).count = count;
  if (!doc.at_end()) return InvalidInput(ErrorText(simdjson::TRAILING_CONTENT));
  return Status::Ok();
}

}  // namespace visprobe
