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

#include "base/pyfmt.h"
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

std::string_view TrimToken(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

// Python's json accepts NaN, Infinity and -Infinity; simdjson does not.
bool NonFinite(std::string_view tok, double* out) {
  tok = TrimToken(tok);
  if (tok == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (tok == "Infinity") {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (tok == "-Infinity") {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  return false;
}

std::string StringLimitText(size_t limit) {
  return "a string longer than the limit of " + std::to_string(limit) + " bytes for one string";
}

struct Converter {
  explicit Converter(JTree& t, JsonLimits l = {}) : tree(t), limits(l) {}
  JTree& tree;
  JsonLimits limits;
  simdjson::error_code error = simdjson::SUCCESS;
  std::string what;  // set for a limit; replaces the simdjson error text

  bool Fail(simdjson::error_code e) {
    error = e;
    return false;
  }
  bool FailLimit(std::string w) {
    what = std::move(w);
    return false;
  }
  std::string Text() const;
  bool Add(JIdx* out) {
    if (tree.size() >= limits.max_record_values)
      return FailLimit("the member holds more than the limit of " + std::to_string(limits.max_record_values) + " values");
    *out = tree.Add(JKind::kNull);
    return true;
  }

  bool Scalar(od::value& v, JIdx idx) {
    JNode* n = &tree.at(idx);
    od::json_type t;
    auto te = v.type().get(t);
    if (te) {
      std::string_view tok;
      double d;
      tok = v.raw_json_token();
      if (NonFinite(tok, &d)) {
        n->kind = JKind::kFloat;
        n->d = d;
        return true;
      }
      return Fail(te);
    }
    switch (t) {
      case od::json_type::null: {
        bool is_null = false;
        if (auto e = v.is_null().get(is_null)) return Fail(e);
        if (!is_null) return Fail(simdjson::N_ATOM_ERROR);
        n->kind = JKind::kNull;
        return true;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto e = v.get_bool().get(b)) return Fail(e);
        n->kind = JKind::kBool;
        n->b = b;
        return true;
      }
      case od::json_type::string: {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return Fail(e);
        if (s.size() > limits.max_string_bytes) return FailLimit(StringLimitText(limits.max_string_bytes));
        n->kind = JKind::kString;
        tree.SetStr(idx, s);
        return true;
      }
      case od::json_type::number: {
        // One scan of the number gives its type and value (get_number_type then get_double
        // scanned it twice). The token is kept for big integers, and for a float whose text is
        // already repr(d): printing it is then a copy (pyfmt.h).
        const std::string_view tok = TrimToken(v.raw_json_token());
        od::number num;
        if (v.get_number().get(num)) {
          double d;
          if (NonFinite(tok, &d)) {
            n->kind = JKind::kFloat;
            n->d = d;
            return true;
          }
          // Integers beyond 64 bits fail get_number (as BIGINT_ERROR or NUMBER_ERROR, by length);
          // the classifying scan tells them from malformed numbers, with its own error.
          od::number_type nt;
          if (auto e = v.get_number_type().get(nt)) return Fail(e);
          if (nt != od::number_type::big_integer) return Fail(simdjson::NUMBER_ERROR);
          n->kind = JKind::kBigInt;
          tree.SetStr(idx, tok);
          return true;
        }
        const od::number_type nt = num.get_number_type();
        if (nt == od::number_type::signed_integer) {
          n->kind = JKind::kInt;
          n->i = num.get_int64();
        } else if (nt == od::number_type::floating_point_number) {
          n->kind = JKind::kFloat;
          n->d = num.get_double();
          if (IsPyFloatRepr(tok)) tree.SetStr(idx, tok);
        } else {  // an unsigned integer beyond int64
          n->kind = JKind::kBigInt;
          tree.SetStr(idx, tok);
        }
        return true;
      }
      default: return Fail(simdjson::INCORRECT_TYPE);
    }
  }

  // Recursion depth is bounded by kMaxJsonDepth (a few hundred bytes per frame).
  bool Value(od::value v, JIdx idx, int depth) {
    if (depth > kMaxJsonDepth) return Fail(simdjson::DEPTH_ERROR);
    od::json_type t;
    if (v.type().get(t)) return Scalar(v, idx);
    if (t == od::json_type::array) {
      od::array arr;
      if (auto e = v.get_array().get(arr)) return Fail(e);
      tree.at(idx).kind = JKind::kArray;
      JIdx prev = kJNone;
      uint32_t count = 0;
      for (auto el : arr) {
        od::value ev;
        if (auto e = el.get(ev)) return Fail(e);
        JIdx c;
        if (!Add(&c)) return false;
        if (prev == kJNone)
          tree.at(idx).first = c;
        else
          tree.at(prev).next = c;
        prev = c;
        ++count;
        if (!Value(ev, c, depth + 1)) return false;
      }
      tree.at(idx).count = count;
      return true;
    }
    if (t == od::json_type::object) {
      od::object obj;
      if (auto e = v.get_object().get(obj)) return Fail(e);
      tree.at(idx).kind = JKind::kObject;
      JIdx prev = kJNone;
      uint32_t count = 0;
      for (auto fr : obj) {
        od::field f;
        if (auto e = std::move(fr).get(f)) return Fail(e);
        std::string_view k;
        if (auto e = f.unescaped_key(false).get(k)) return Fail(e);
        if (k.size() > limits.max_string_bytes) return FailLimit(StringLimitText(limits.max_string_bytes));
        JIdx c;
        if (!Add(&c)) return false;
        tree.SetKey(c, k);
        if (prev == kJNone)
          tree.at(idx).first = c;
        else
          tree.at(prev).next = c;
        prev = c;
        ++count;
        if (!Value(f.value(), c, depth + 1)) return false;
      }
      tree.at(idx).count = count;
      return true;
    }
    return Scalar(v, idx);
  }
};

std::string ErrorText(simdjson::error_code e) {
  switch (e) {
    case simdjson::TAPE_ERROR: return "invalid JSON syntax";
    case simdjson::INCORRECT_TYPE: return "unexpected value type";
    case simdjson::N_ATOM_ERROR: return "invalid literal (expected null)";
    case simdjson::T_ATOM_ERROR: return "invalid literal (expected true)";
    case simdjson::F_ATOM_ERROR: return "invalid literal (expected false)";
    case simdjson::NUMBER_ERROR: return "invalid number";
    case simdjson::UTF8_ERROR: return "invalid UTF-8 in a string";
    case simdjson::UNCLOSED_STRING: return "unclosed string";
    case simdjson::STRING_ERROR: return "invalid string escape";
    case simdjson::DEPTH_ERROR: return "JSON nesting deeper than the limit of " + std::to_string(kMaxJsonDepth) + " levels";
    case simdjson::TRAILING_CONTENT: return "unexpected content after a value";
    default: return simdjson::error_message(e);
  }
}

std::string Converter::Text() const { return what.empty() ? ErrorText(error) : what; }

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
Status WindowParser::Error(const std::string& text, const std::vector<RecordOrigin>& origins, size_t rec) {
  uint64_t pos = origins.empty() ? 0 : origins[rec < origins.size() ? rec : origins.size() - 1].file_pos;
  std::string where = rec < origins.size() ? " (in the member starting at byte " + std::to_string(pos) + ")" : "";
  return InvalidInput(path_ + " @ byte " + std::to_string(pos) + ": " + text + where);
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
  if (!f) return IoError(path + ": cannot open (" + std::strerror(errno) + ")");
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
      if (std::ferror(f.get()))
        return IoError(path + " @ byte " + std::to_string(done) + ": read error (" + std::strerror(errno) + ")");
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
      if (st.message().rfind("@ byte", 0) == 0) return InvalidInput(path + " " + st.message());
      return st;
    }
    done += n;
    if (opts.progress) opts.progress(done, total);
  }
  Status st = splitter.Finish();
  if (!st.ok()) return InvalidInput(path + " " + st.message());
  return done;
}

Status ParseMeta(const std::string& path, const RecordSplitter& splitter, const JsonReadOptions& opts, JsonReadResult& out) {
  if (opts.container_key.empty()) return Status::Ok();
  Status ms = ParseJsonText(splitter.meta(), out.meta, &out.meta_root);
  if (!ms.ok()) return InvalidInput(path + ": " + ms.message());
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
        return InvalidInput(path + " @ byte " + std::to_string(pos) + ": invalid string escape");
      key = decoded;
    }
    if (key.size() > opts.max_string_bytes)
      return InvalidInput(path + " @ byte " + std::to_string(pos) + ": " + StringLimitText(opts.max_string_bytes));
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
  if (doc.get_object().get(obj) != simdjson::SUCCESS) return InvalidInput("the top-level value is not a JSON object");
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
