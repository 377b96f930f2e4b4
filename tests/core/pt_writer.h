// Writes torch.save-format files without torch, for the .pt reader's tests: the pickle torch 1.13
// writes for a tensor (protocol 2: GLOBAL, BINPERSID, _rebuild_tensor_v2, OrderedDict hooks) or the
// protocol-4 forms, inside a stored zip (local headers, central directory, optional ZIP64 forms).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace vptest {

inline void PutLe(std::string& s, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

inline uint32_t Crc32(const std::string& s) {
  uint32_t c = 0xffffffffu;
  for (unsigned char b : s) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

struct PtTensorSpec {
  std::string storage_class = "FloatStorage";  // torch.<class>
  std::string key = "0";
  uint64_t numel = 0;
  uint64_t offset = 0;
  std::vector<uint64_t> size;
  std::vector<int64_t> stride;  // empty: C-contiguous
  bool requires_grad = false;
  bool parameter = false;  // wrapped in torch._utils._rebuild_parameter
  bool protocol4 = false;  // FRAME / SHORT_BINUNICODE / STACK_GLOBAL / MEMOIZE forms
};

class PickleWriter {
 public:
  explicit PickleWriter(bool p4) : p4_(p4) {}
  std::string& out() { return s_; }
  void Global(const std::string& module, const std::string& name) {
    if (p4_) {
      Str(module);
      Str(name);
      s_ += '\x93';
      s_ += '\x94';
    } else {
      s_ += 'c' + module + '\n' + name + '\n';
    }
  }
  void Str(const std::string& v) {
    if (p4_ && v.size() < 256) {
      s_ += '\x8c';
      s_ += static_cast<char>(v.size());
    } else {
      s_ += 'X';
      PutLe(s_, v.size(), 4);
    }
    s_ += v;
  }
  void Int(int64_t v) {
    if (v >= 0 && v < 256) {
      s_ += 'K';
      PutLe(s_, static_cast<uint64_t>(v), 1);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      s_ += 'J';
      PutLe(s_, static_cast<uint64_t>(v), 4);
    } else {
      s_ += '\x8a';
      s_ += '\x08';
      PutLe(s_, static_cast<uint64_t>(v), 8);
    }
  }
  void IntTuple(const std::vector<int64_t>& v) {
    s_ += '(';
    for (int64_t x : v) Int(x);
    s_ += 't';
  }

 private:
  bool p4_;
  std::string s_;
};

inline std::string TensorPickle(const PtTensorSpec& t) {
  PickleWriter w(t.protocol4);
  std::string& s = w.out();
  s += "\x80";
  s += t.protocol4 ? '\x04' : '\x02';
  if (t.parameter) w.Global("torch._utils", "_rebuild_parameter");
  if (t.parameter) s += '(';
  w.Global("torch._utils", "_rebuild_tensor_v2");
  s += std::string("q\x00", 2);
  s += '(';
  s += '(';
  w.Str("storage");
  w.Global("torch", t.storage_class);
  w.Str(t.key);
  w.Str("cpu");
  w.Int(static_cast<int64_t>(t.numel));
  s += 't';
  s += 'Q';
  w.Int(static_cast<int64_t>(t.offset));
  std::vector<int64_t> size(t.size.begin(), t.size.end()), stride = t.stride;
  if (stride.empty()) {
    stride.assign(size.size(), 1);
    for (size_t k = size.size(); k-- > 1;) stride[k - 1] = stride[k] * std::max<int64_t>(size[k], 1);
  }
  w.IntTuple(size);
  w.IntTuple(stride);
  s += t.requires_grad ? '\x88' : '\x89';
  w.Global("collections", "OrderedDict");
  s += ")R";
  s += 't';
  s += 'R';
  if (t.parameter) {
    s += t.requires_grad ? '\x88' : '\x89';
    w.Global("collections", "OrderedDict");
    s += ")R";
    s += "tR";
  }
  s += '.';
  return s;
}

// A stored (method 0) zip of `records`; `zip64` writes the ZIP64 end records and extra fields.
inline std::string StoredZipBytes(const std::vector<std::pair<std::string, std::string>>& records, bool zip64 = false) {
  std::string out, cd;
  for (const auto& r : records) {
    const uint64_t local = out.size();
    const uint32_t crc = Crc32(r.second);
    out += "PK\x03\x04";
    PutLe(out, 20, 2);
    PutLe(out, 0, 2);  // flags
    PutLe(out, 0, 2);  // stored
    PutLe(out, 0, 4);  // time, date
    PutLe(out, crc, 4);
    PutLe(out, r.second.size(), 4);
    PutLe(out, r.second.size(), 4);
    PutLe(out, r.first.size(), 2);
    PutLe(out, 0, 2);
    out += r.first + r.second;
    cd += "PK\x01\x02";
    PutLe(cd, 45, 2);
    PutLe(cd, 45, 2);
    PutLe(cd, 0, 2);
    PutLe(cd, 0, 2);
    PutLe(cd, 0, 4);
    PutLe(cd, crc, 4);
    std::string extra;
    if (zip64) {
      PutLe(cd, 0xffffffffu, 4);
      PutLe(cd, 0xffffffffu, 4);
      PutLe(extra, 1, 2);
      PutLe(extra, 24, 2);
      PutLe(extra, r.second.size(), 8);
      PutLe(extra, r.second.size(), 8);
      PutLe(extra, local, 8);
    } else {
      PutLe(cd, r.second.size(), 4);
      PutLe(cd, r.second.size(), 4);
    }
    PutLe(cd, r.first.size(), 2);
    PutLe(cd, extra.size(), 2);
    PutLe(cd, 0, 2);  // comment
    PutLe(cd, 0, 2);  // disk
    PutLe(cd, 0, 2);  // internal attributes
    PutLe(cd, 0, 4);  // external attributes
    PutLe(cd, zip64 ? 0xffffffffu : local, 4);
    cd += r.first + extra;
  }
  const uint64_t cd_offset = out.size();
  out += cd;
  if (zip64) {
    const uint64_t end64 = out.size();
    out += "PK\x06\x06";
    PutLe(out, 44, 8);
    PutLe(out, 45, 2);
    PutLe(out, 45, 2);
    PutLe(out, 0, 8);
    PutLe(out, records.size(), 8);
    PutLe(out, records.size(), 8);
    PutLe(out, cd.size(), 8);
    PutLe(out, cd_offset, 8);
    out += "PK\x06\x07";
    PutLe(out, 0, 4);
    PutLe(out, end64, 8);
    PutLe(out, 1, 4);
  }
  out += "PK\x05\x06";
  PutLe(out, 0, 4);
  PutLe(out, zip64 ? 0xffff : records.size(), 2);
  PutLe(out, zip64 ? 0xffff : records.size(), 2);
  PutLe(out, zip64 ? 0xffffffffu : cd.size(), 4);
  PutLe(out, zip64 ? 0xffffffffu : cd_offset, 4);
  PutLe(out, 0, 2);
  return out;
}

// A whole .pt file: archive/data.pkl, archive/data/<key>, archive/version (and byteorder if given).
inline std::string PtFileBytes(const PtTensorSpec& t, const std::string& storage_bytes, const std::string& byteorder = "",
                               bool zip64 = false, const std::string& archive = "archive") {
  std::vector<std::pair<std::string, std::string>> r = {{archive + "/data.pkl", TensorPickle(t)}};
  if (!byteorder.empty()) r.push_back({archive + "/byteorder", byteorder});
  r.push_back({archive + "/data/" + t.key, storage_bytes});
  r.push_back({archive + "/version", "3\n"});
  return StoredZipBytes(r, zip64);
}

}  // namespace vptest
