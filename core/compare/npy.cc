#include "compare/npy.h"

#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "compare/npy_header.h"

namespace visprobe {

namespace {

// numpy refuses headers longer than this unless allow_pickle is set (format._MAX_HEADER_SIZE).
constexpr uint32_t kMaxHeaderSize = 10000;
constexpr size_t kChunkBytes = 1 << 20;

Status Bad(const std::string& path, const std::string& what) { return InvalidInput(Msg<msg::kNotReadableNpyFile>(path, what)); }

// ---- element decoding ----------------------------------------------------------------------

uint64_t LoadUInt(const unsigned char* p, int size, bool big_endian) {
  uint64_t v = 0;
  if (big_endian) {
    for (int i = 0; i < size; ++i) v = (v << 8) | p[i];
  } else {
    for (int i = size - 1; i >= 0; --i) v = (v << 8) | p[i];
  }
  return v;
}

// The exact integer value of an 'i'/'u'/'b' element, sign-extended for 'i'.
uint64_t IntBits(uint64_t raw, const NpyDtype& dt) {
  if (dt.kind == 'b') return raw != 0 ? 1 : 0;
  if (dt.kind == 'i' && dt.size < 8) {
    uint64_t sign = uint64_t{1} << (dt.size * 8 - 1);
    if (raw & sign) raw |= ~((sign << 1) - 1);
  }
  return raw;
}

double Decode(const unsigned char* p, const NpyDtype& dt) {
  uint64_t raw = LoadUInt(p, dt.size, dt.order == '>');
  switch (dt.kind) {
    case 'f':
      if (dt.size == 2) return HalfToDouble(static_cast<uint16_t>(raw));
      if (dt.size == 4) {
        uint32_t b = static_cast<uint32_t>(raw);
        float f;
        std::memcpy(&f, &b, 4);
        return f;
      } else {
        double d;
        std::memcpy(&d, &raw, 8);
        return d;
      }
    case 'i': return static_cast<double>(static_cast<int64_t>(IntBits(raw, dt)));
    case 'u': return static_cast<double>(raw);
    default:  // 'b': numpy reads any non-zero byte as True
      return raw != 0 ? 1.0 : 0.0;
  }
}

bool HostLittleEndian() {
  const uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

// n elements of a native-order type T at p, widened to double (a loop the compiler vectorizes).
// Returns whether every element is finite; for floats an exponent of all ones is looked for in the
// same loop, so the compare needs no second pass over the data to find NaN or inf.
template <class T>
bool WidenRun(const unsigned char* p, size_t n, double* out) {
  using Bits = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
  constexpr Bits kExp = static_cast<Bits>(sizeof(T) == 4 ? 0x7F800000ull : 0x7FF0000000000000ull);
  Bits bad = 0;
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, p + i * sizeof(T), sizeof(T));
    if constexpr (std::is_floating_point<T>::value) {
      Bits b;
      std::memcpy(&b, &v, sizeof(T));
      bad |= static_cast<Bits>((b & kExp) == kExp);
    }
    out[i] = static_cast<double>(v);
  }
  return bad == 0;
}

// Decode() of n consecutive elements: the dtype is looked at once per run, not per element. The
// common dtypes in the machine's byte order take a typed loop; the rest go element by element.
// Returns whether every element is finite.
bool DecodeRun(const unsigned char* p, size_t n, const NpyDtype& dt, double* out) {
  static const bool host_little = HostLittleEndian();
  const bool native = dt.size == 1 || (dt.order == '<') == host_little;
  if (native) {
    switch (dt.kind) {
      case 'f':
        if (dt.size == 4) return WidenRun<float>(p, n, out);
        if (dt.size == 8) return WidenRun<double>(p, n, out);
        break;
      case 'i':
      case 'u': {
        const bool sign = dt.kind == 'i';
        if (dt.size == 1) return sign ? WidenRun<int8_t>(p, n, out) : WidenRun<uint8_t>(p, n, out);
        if (dt.size == 2) return sign ? WidenRun<int16_t>(p, n, out) : WidenRun<uint16_t>(p, n, out);
        if (dt.size == 4) return sign ? WidenRun<int32_t>(p, n, out) : WidenRun<uint32_t>(p, n, out);
        if (dt.size == 8) return sign ? WidenRun<int64_t>(p, n, out) : WidenRun<uint64_t>(p, n, out);
        break;
      }
      default: break;
    }
  }
  const size_t item = static_cast<size_t>(dt.size);
  bool finite = true;
  for (size_t i = 0; i < n; ++i) {
    out[i] = Decode(p + i * item, dt);
    finite = finite && std::isfinite(out[i]);
  }
  return finite;
}

// Reorders Fortran-order `in` (shape `shape`) into C order.
NpyElements FortranToC(const NpyElements& in, const std::vector<uint64_t>& shape) {
  size_t nd = shape.size();
  std::vector<uint64_t> fstride(nd), idx(nd, 0);
  uint64_t s = 1;
  for (size_t k = 0; k < nd; ++k) {
    fstride[k] = s;
    s *= shape[k];
  }
  NpyElements out(in.size());
  uint64_t f = 0;
  for (size_t c = 0; c < out.size(); ++c) {
    out[c] = in[f];
    // Advance the C-order multi-index (last axis fastest), keeping the Fortran offset in step.
    for (size_t k = nd; k-- > 0;) {
      if (++idx[k] < shape[k]) {
        f += fstride[k];
        break;
      }
      f -= fstride[k] * (shape[k] - 1);
      idx[k] = 0;
    }
  }
  return out;
}

// Python repr of a shape tuple.
std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};

}  // namespace

bool DecodeElements(const unsigned char* p, size_t n, const NpyDtype& dt, double* out) { return DecodeRun(p, n, dt, out); }

uint64_t ElementBits(const unsigned char* p, const NpyDtype& dt) { return IntBits(LoadUInt(p, dt.size, dt.order == '>'), dt); }

std::string NpyDtype::name() const {
  if (kind == 'b') return "bool";
  std::string base = kind == 'f' ? "float" : kind == 'i' ? "int" : "uint";
  return base + std::to_string(size * 8);
}

std::string NpyDtype::descr() const { return std::string(1, order) + kind + std::to_string(size); }

std::string NpyArray::shape_string() const { return ShapeText(shape); }

std::string PyShapeText(const std::vector<uint64_t>& shape) { return ShapeText(shape); }

double HalfToDouble(uint16_t h) {
  bool neg = (h & 0x8000) != 0;
  int exp = (h >> 10) & 0x1f;
  int man = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(static_cast<double>(man), -24);  // zero / subnormal
  else if (exp == 31)
    v = man ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(static_cast<double>(man | 0x400), exp - 25);
  return neg ? -v : v;
}

double RoundToHalf(double x) {
  if (!std::isfinite(x) || x == 0) return x;
  double ax = std::fabs(x);
  double r;
  if (ax >= 65520.0) {
    r = std::numeric_limits<double>::infinity();  // 65520 is halfway to 2^16: ties-to-even overflows
  } else {
    int e;
    std::frexp(ax, &e);  // ax = m * 2^e, m in [0.5, 1)
    int q = std::max(e - 11, -24);  // 11 significant bits; subnormal quantum 2^-24
    r = std::ldexp(std::nearbyint(std::ldexp(ax, -q)), q);
  }
  return std::copysign(r, x);
}

namespace {

// The preamble (magic, version, header length: 2 bytes in 1.0, 4 bytes in 2.0/3.0) and the header
// dictionary, read from the start of `file`; *data_start: where the data begins.
Status ReadHeader(FILE* file, const std::string& path, uint64_t file_size, NpyHeader* h, uint64_t* data_start) {
  auto read_exact = [&](void* buf, size_t n) { return std::fread(buf, 1, n, file) == n; };
  unsigned char pre[12];
  if (file_size < 10 || !read_exact(pre, 10)) return Bad(path, "file too short");
  if (std::memcmp(pre, "\x93NUMPY", 6) != 0) return Bad(path, "bad magic");
  int major = pre[6], minor = pre[7];
  if (minor != 0 || major < 1 || major > 3)
    return Bad(path, "unsupported format version " + std::to_string(major) + "." + std::to_string(minor));
  uint64_t header_len, header_start;
  if (major == 1) {
    header_len = LoadUInt(pre + 8, 2, false);
    header_start = 10;
  } else {
    if (file_size < 12 || !read_exact(pre + 10, 2)) return Bad(path, "file too short");
    header_len = LoadUInt(pre + 8, 4, false);
    header_start = 12;
  }
  if (header_len > kMaxHeaderSize) return Bad(path, "header longer than " + std::to_string(kMaxHeaderSize) + " bytes");
  if (header_start + header_len > file_size) return Bad(path, "truncated header");
  // Version 1/2 headers are latin-1, version 3 UTF-8; the accepted grammar is ASCII either way.
  std::string text(static_cast<size_t>(header_len), '\0');
  if (header_len && !read_exact(&text[0], text.size())) return Bad(path, "truncated header");
  std::string err = ParseNpyHeader(text, h);
  if (!err.empty()) return Bad(path, err);
  *data_start = header_start + header_len;
  return Status::Ok();
}

// The element count of `shape`, checked against the data bytes present (numpy fails with "read
// all data" the same way; extra trailing bytes are ignored as numpy does) and against what this
// process can hold.
Result<uint64_t> ElementCount(const std::string& path, const std::vector<uint64_t>& shape, uint64_t data_bytes, uint64_t item) {
  uint64_t count = 1;
  bool zero = false;
  for (uint64_t d : shape) zero = zero || d == 0;
  if (zero) {
    count = 0;
  } else {
    for (uint64_t d : shape) {
      // count * d * item > data_bytes, without overflowing
      if (count > data_bytes / item / d)
        return Bad(path, "truncated data: shape " + ShapeText(shape) + " needs more than the " + std::to_string(data_bytes) +
                             " data bytes present");
      count *= d;
    }
  }
  // Half of the address space at most: 32-bit wasm cannot hold more than that anyway.
  if (count > std::numeric_limits<size_t>::max() / 2 / sizeof(double))
    return Status(Code::kOutOfMemory, Msg<msg::kTooManyElements>(path, count));
  return count;
}

}  // namespace

Result<NpyArray> ReadNpy(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return NotFound(Msg<msg::kCannotOpen>(path));
  if (!S_ISREG(st.st_mode)) return IoError(Msg<msg::kPathNotRegularFile>(path));
  std::unique_ptr<FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) return IoError(Msg<msg::kCannotOpen>(path));
  // The size of the opened file bounds every read below (64-bit offsets, also in wasm).
  if (fseeko(file.get(), 0, SEEK_END) != 0) return IoError(Msg<msg::kCannotSeek>(path));
  const off_t end = ftello(file.get());
  if (end < 0 || fseeko(file.get(), 0, SEEK_SET) != 0) return IoError(Msg<msg::kCannotSeek>(path));
  const uint64_t file_size = static_cast<uint64_t>(end);

  NpyHeader h;
  uint64_t data_start = 0;
  RETURN_IF_ERROR(ReadHeader(file.get(), path, file_size, &h, &data_start));
  if (!h.descr_is_string) return Bad(path, "structured dtypes are not supported");
  NpyArray arr;
  std::string err = ParseNpyDescr(h.descr, arr.dtype);
  if (!err.empty()) return Bad(path, err);
  const uint64_t item = static_cast<uint64_t>(arr.dtype.size);
  ASSIGN_OR_RETURN(const uint64_t count, ElementCount(path, h.shape, file_size - data_start, item));

  for (uint64_t d : h.shape)
    if (d != 1) arr.shape.push_back(d);  // numpy squeeze

  arr.data.resize(static_cast<size_t>(count));
  const uint64_t buf_bytes = std::min<uint64_t>(kChunkBytes, std::max<uint64_t>(count * item, 1));
  std::vector<unsigned char> buf(static_cast<size_t>(buf_bytes));
  const size_t per_chunk = buf.size() / static_cast<size_t>(item);
  bool finite = true;
  for (size_t done = 0; done < arr.data.size();) {
    size_t n = std::min(per_chunk, arr.data.size() - done);
    if (std::fread(buf.data(), 1, n * static_cast<size_t>(item), file.get()) != n * static_cast<size_t>(item))
      return Bad(path, "read error in the data");
    finite = DecodeRun(buf.data(), n, arr.dtype, arr.data.data() + done) && finite;
    done += n;
  }
  arr.all_finite = finite;
  if (arr.shape.empty() && arr.dtype.kind != 'f')  // 0-d: the one element is still in `buf`
    arr.scalar_bits = ElementBits(buf.data(), arr.dtype);
  // Squeezing drops length-1 axes only, so the Fortran layout of the squeezed shape is the same.
  if (h.fortran && arr.shape.size() > 1) arr.data = FortranToC(arr.data, arr.shape);
  return arr;
}

}  // namespace visprobe
