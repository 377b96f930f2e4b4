#include "compare/torch_pt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "compare/stored_zip.h"

namespace visprobe {
namespace {

// A tensor pickle is a few hundred bytes; this bounds what a hostile archive can make us hold.
constexpr uint64_t kMaxPickleBytes = 16u << 20;
constexpr size_t kChunkBytes = 1 << 20;

Status Bad(const std::string& path, const std::string& what) { return InvalidInput(Msg<msg::kNotReadableTorchFile>(path, what)); }

double Float8E4M3ToDouble(uint8_t b) {
  const int exp = (b >> 3) & 0xf, man = b & 7;
  double v;
  if (exp == 15 && man == 7)
    v = std::numeric_limits<double>::quiet_NaN();  // e4m3fn has no inf
  else if (exp == 0)
    v = std::ldexp(man, -9);
  else
    v = std::ldexp(8 + man, exp - 10);
  return (b & 0x80) ? -v : v;
}

// n elements of dtype d at p (storage byte order `big`) widened to double; whether all are finite.
bool DecodeTorch(const unsigned char* p, size_t n, TorchDtype d, bool big, double* out) {
  bool finite = true;
  switch (d) {
    case TorchDtype::kBFloat16:  // the upper half of a float32: exact
      for (size_t i = 0; i < n; ++i) {
        const uint32_t bits = big ? (uint32_t{p[2 * i]} << 24 | uint32_t{p[2 * i + 1]} << 16)
                                  : (uint32_t{p[2 * i + 1]} << 24 | uint32_t{p[2 * i]} << 16);
        float f;
        std::memcpy(&f, &bits, 4);
        out[i] = f;
        finite = finite && std::isfinite(f);
      }
      return finite;
    case TorchDtype::kFloat8E4M3:
      for (size_t i = 0; i < n; ++i) finite = std::isfinite(out[i] = Float8E4M3ToDouble(p[i])) && finite;
      return finite;
    case TorchDtype::kFloat8E5M2:  // the upper byte of a float16
      for (size_t i = 0; i < n; ++i) finite = std::isfinite(out[i] = HalfToDouble(static_cast<uint16_t>(p[i] << 8))) && finite;
      return finite;
    default: {
      NpyDtype dt = NumpyDtypeOf(d);
      if (dt.size > 1) dt.order = big ? '>' : '<';
      return DecodeElements(p, n, dt, out);
    }
  }
}

// Reads elements of one tensor view from the storage record, in C order.
class ViewReader {
 public:
  ViewReader(const StoredZip& zip, const ZipMember& storage, const PtInfo& info)
      : zip_(zip), storage_(storage), t_(info.tensor), big_(info.big_endian), item_(TorchDtypeSize(t_.dtype)) {}

  // Reads `count` elements starting at storage element `first`, `step` apart, into out.
  Status Run(uint64_t first, int64_t step, uint64_t count, double* out, bool* finite) {
    std::vector<unsigned char> buf;
    if (step == 0 && count > 0) {  // an expanded axis: one element repeated
      buf.resize(static_cast<size_t>(item_));
      RETURN_IF_ERROR(zip_.ReadAt(storage_.data_offset + first * item_, buf.data(), buf.size()));
      *finite = DecodeTorch(buf.data(), 1, t_.dtype, big_, out) && *finite;
      std::fill(out + 1, out + count, out[0]);
      return Status::Ok();
    }
    while (count > 0) {
      if (step == 1) {
        const uint64_t n = std::min<uint64_t>(count, kChunkBytes / item_);
        buf.resize(static_cast<size_t>(n * item_));
        RETURN_IF_ERROR(zip_.ReadAt(storage_.data_offset + first * item_, buf.data(), buf.size()));
        *finite = DecodeTorch(buf.data(), static_cast<size_t>(n), t_.dtype, big_, out) && *finite;
        first += n;
        out += n;
        count -= n;
        continue;
      }
      // Strided: read the span the next elements cover (at most a chunk) and pick them out.
      const uint64_t span_elems = std::max<uint64_t>(1, kChunkBytes / item_);
      const uint64_t n = std::min<uint64_t>(count, (span_elems - 1) / static_cast<uint64_t>(step) + 1);
      const uint64_t span = (n - 1) * static_cast<uint64_t>(step) + 1;
      buf.resize(static_cast<size_t>(span * item_));
      RETURN_IF_ERROR(zip_.ReadAt(storage_.data_offset + first * item_, buf.data(), buf.size()));
      for (uint64_t k = 0; k < n; ++k)
        *finite = DecodeTorch(buf.data() + k * static_cast<uint64_t>(step) * item_, 1, t_.dtype, big_, out + k) && *finite;
      first += n * static_cast<uint64_t>(step);
      out += n;
      count -= n;
    }
    return Status::Ok();
  }

 private:
  const StoredZip& zip_;
  const ZipMember& storage_;
  const TensorRef& t_;
  bool big_;
  uint64_t item_;
};

Result<PtInfo> Inspect(const StoredZip& zip) {
  const std::string& path = zip.path();
  if (zip.members().empty()) return Bad(path, "an empty archive");
  PtInfo info;
  const std::string& first = zip.members().front().name;
  info.archive = first.substr(0, first.find('/'));
  const ZipMember* pkl = zip.Find(info.archive + "/data.pkl");
  if (!pkl) return Bad(path, "no " + info.archive + "/data.pkl record");
  if (const ZipMember* order = zip.Find(info.archive + "/byteorder")) {
    Result<std::string> text = zip.ReadMember(*order, 16);
    if (!text.ok()) return text.status();
    if (*text != "little" && *text != "big") return Bad(path, "unknown byteorder '" + *text + "'");
    info.big_endian = *text == "big";
  }
  Result<std::string> bytes = zip.ReadMember(*pkl, kMaxPickleBytes);
  if (!bytes.ok()) return bytes.status();
  Result<TensorRef> t = UnpickleTensor(*bytes, path);
  if (!t.ok()) return t.status();
  info.tensor = std::move(*t);
  return info;
}

}  // namespace

NpyDtype NumpyDtypeOf(TorchDtype d) {
  NpyDtype dt;
  dt.order = '<';
  switch (d) {
    case TorchDtype::kFloat64:
      dt.kind = 'f';
      dt.size = 8;
      break;
    case TorchDtype::kFloat16:
      dt.kind = 'f';
      dt.size = 2;
      break;
    case TorchDtype::kFloat32:
    case TorchDtype::kBFloat16:
    case TorchDtype::kFloat8E4M3:
    case TorchDtype::kFloat8E5M2:
      dt.kind = 'f';
      dt.size = 4;
      break;  // msProbe: bfloat16 and float8 go to float32 before .numpy()
    case TorchDtype::kInt8:
      dt.kind = 'i';
      dt.size = 1;
      break;
    case TorchDtype::kInt16:
      dt.kind = 'i';
      dt.size = 2;
      break;
    case TorchDtype::kInt32:
      dt.kind = 'i';
      dt.size = 4;
      break;
    case TorchDtype::kInt64:
      dt.kind = 'i';
      dt.size = 8;
      break;
    case TorchDtype::kUInt8:
      dt.kind = 'u';
      dt.size = 1;
      break;
    case TorchDtype::kUInt16:
      dt.kind = 'u';
      dt.size = 2;
      break;
    case TorchDtype::kUInt32:
      dt.kind = 'u';
      dt.size = 4;
      break;
    case TorchDtype::kUInt64:
      dt.kind = 'u';
      dt.size = 8;
      break;
    case TorchDtype::kBool:
      dt.kind = 'b';
      dt.size = 1;
      break;
  }
  if (dt.size == 1) dt.order = '|';
  return dt;
}

namespace {

// torch.save's zip container; a file of the format before it (torch <= 1.5, or
// _use_new_zipfile_serialization=False) is named as such: a pickle (protocol 2) of torch's magic number.
Result<StoredZip> OpenArchive(const std::string& path) {
  Result<StoredZip> zip = StoredZip::Open(path);
  if (zip.ok() || zip.status().code() != Code::kInvalidInput) return zip;
  unsigned char head[4] = {0, 0, 0, 0};
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    const size_t n = std::fread(head, 1, sizeof head, f);
    std::fclose(f);
    // PROTO 2, LONG1 of 10 bytes: the legacy format's magic number 0x1950a86a20f9469cfc6c.
    if (n == 4 && head[0] == 0x80 && head[1] == 0x02 && head[2] == 0x8a && head[3] == 0x0a)
      return Bad(path,
                 "the legacy torch.save format (torch 1.5 and older, or _use_new_zipfile_serialization=False); "
                 "msProbe's dumper writes the zip format: load and save it again with torch 1.6 or later");
  }
  return zip;
}

}  // namespace

Result<PtInfo> InspectPt(const std::string& path) {
  Result<StoredZip> zip = OpenArchive(path);
  if (!zip.ok()) return zip.status();
  return Inspect(*zip);
}

Result<NpyArray> ReadPt(const std::string& path) {
  Result<StoredZip> zip = OpenArchive(path);
  if (!zip.ok()) return zip.status();
  Result<PtInfo> info = Inspect(*zip);
  if (!info.ok()) return info.status();
  const TensorRef& t = info->tensor;
  const ZipMember* storage = zip->Find(info->archive + "/data/" + t.storage_key);
  if (!storage) return Bad(path, "no storage record data/" + t.storage_key);
  const uint64_t item = static_cast<uint64_t>(TorchDtypeSize(t.dtype));
  if (t.storage_numel > storage->size / item)
    return Bad(path, "storage data/" + t.storage_key + " holds " + std::to_string(storage->size) + " bytes, less than its " +
                         std::to_string(t.storage_numel) + " " + TorchDtypeName(t.dtype) + " elements");
  // Elements of the view and the furthest one it reaches, checked against the storage.
  uint64_t count = 1, last = t.offset;
  const uint64_t limit = std::numeric_limits<uint64_t>::max() / 2;
  for (size_t k = 0; k < t.size.size(); ++k) {
    if (t.size[k] == 0) {
      count = 0;
      break;
    }
    if (count > limit / t.size[k]) return Bad(path, "tensor size " + PyShapeText(t.size) + " overflows");
    count *= t.size[k];
    const uint64_t reach = (t.size[k] - 1) * static_cast<uint64_t>(t.stride[k]);
    if (t.stride[k] != 0 && (t.size[k] - 1 > limit / static_cast<uint64_t>(t.stride[k]) || last > limit - reach))
      return Bad(path, "tensor strides overflow");
    last += reach;
  }
  if (count > 0 && last >= t.storage_numel)
    return Bad(path, "tensor of size " + PyShapeText(t.size) + " at offset " + std::to_string(t.offset) + " reaches element " +
                         std::to_string(last) + " of a storage of " + std::to_string(t.storage_numel));
  if (count > std::numeric_limits<size_t>::max() / 2 / sizeof(double))
    return Status(Code::kOutOfMemory, Msg<msg::kTooManyElements>(path, count));

  NpyArray arr;
  arr.dtype = NumpyDtypeOf(t.dtype);
  for (uint64_t d : t.size)
    if (d != 1) arr.shape.push_back(d);  // numpy squeeze
  arr.data.resize(static_cast<size_t>(count));
  bool finite = true;
  if (count > 0) {
    // Iterate the view as rows along its last axis of more than one element (C order); a
    // contiguous view is one row.
    std::vector<size_t> dims;
    for (size_t k = 0; k < t.size.size(); ++k)
      if (t.size[k] != 1) dims.push_back(k);
    bool contiguous = true;
    uint64_t expect = 1;
    for (size_t j = dims.size(); j-- > 0;) {
      contiguous = contiguous && static_cast<uint64_t>(t.stride[dims[j]]) == expect;
      expect *= t.size[dims[j]];
    }
    ViewReader reader(*zip, *storage, *info);
    if (contiguous || dims.empty()) {
      RETURN_IF_ERROR(reader.Run(t.offset, 1, count, arr.data.data(), &finite));
    } else {
      const size_t inner = dims.back();
      const uint64_t row = t.size[inner];
      std::vector<uint64_t> idx(dims.size() - 1, 0);
      for (uint64_t done = 0; done < count; done += row) {
        uint64_t start = t.offset;
        for (size_t j = 0; j + 1 < dims.size(); ++j) start += idx[j] * static_cast<uint64_t>(t.stride[dims[j]]);
        RETURN_IF_ERROR(reader.Run(start, t.stride[inner], row, arr.data.data() + done, &finite));
        for (size_t j = idx.size(); j-- > 0;) {
          if (++idx[j] < t.size[dims[j]]) break;
          idx[j] = 0;
        }
      }
    }
  }
  arr.all_finite = finite;
  if (arr.shape.empty() && count == 1 && arr.dtype.kind != 'f') {
    unsigned char b[8] = {0};
    RETURN_IF_ERROR(zip->ReadAt(storage->data_offset + t.offset * item, b, static_cast<size_t>(item)));
    NpyDtype raw = arr.dtype;
    if (raw.size > 1) raw.order = info->big_endian ? '>' : '<';
    arr.scalar_bits = ElementBits(b, raw);
  }
  return arr;
}

}  // namespace visprobe
