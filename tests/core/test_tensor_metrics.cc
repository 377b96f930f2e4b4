// Spec §4.5 (.npy reading) and §9.6 / §18.6 (tensor-mode metrics): real .npy files written by a
// small writer below (both byte orders, Fortran order, format 1.0/2.0/3.0), read back and compared.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "base/pyfmt.h"
#include "compare/npy.h"
#include "compare/tensor_metrics.h"
#include "test_util.h"

using namespace visprobe;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// ---- a minimal .npy writer -----------------------------------------------------------------

struct Npy {
  std::string descr = "<f4";
  std::vector<uint64_t> shape;  // as written in the header (before squeeze)
  std::vector<double> values;  // C order
  std::vector<int64_t> ints;  // integer kinds: exact values (override `values` when given)
  bool fortran = false;
  int major = 1;
  std::string header;  // raw header dict text override (malformed-file tests)
};

Npy Vec(const std::string& descr, std::vector<double> v) {
  Npy n;
  n.descr = descr;
  n.shape = {v.size()};
  n.values = std::move(v);
  return n;
}

Npy Shaped(const std::string& descr, std::vector<uint64_t> shape, std::vector<double> v) {
  Npy n;
  n.descr = descr;
  n.shape = std::move(shape);
  n.values = std::move(v);
  return n;
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// Exact float16 bits of a value representable in float16 (the test only writes such values).
uint16_t HalfBits(double v) {
  if (std::isnan(v)) return 0x7e00;
  uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int field = e - 1 + 15;
  if (field >= 1) {
    double mant = (std::ldexp(a, -(e - 1)) - 1) * 1024;
    if (mant != std::floor(mant) || field >= 31) throw std::runtime_error("not a float16 value");
    return static_cast<uint16_t>(sign | (field << 10) | static_cast<int>(mant));
  }
  double sub = std::ldexp(a, 24);
  if (sub != std::floor(sub)) throw std::runtime_error("not a float16 value");
  return static_cast<uint16_t>(sign | static_cast<int>(sub));
}

void PutBytes(std::string& out, uint64_t raw, int size, bool big) {
  for (int i = 0; i < size; ++i) {
    int shift = big ? (size - 1 - i) * 8 : i * 8;
    out += static_cast<char>((raw >> shift) & 0xff);
  }
}

std::string Encode(const Npy& n) {
  const char order = n.descr[0];
  const char kind = n.descr[1];
  const int size = std::atoi(n.descr.c_str() + 2);
  const bool big = order == '>';
  size_t count = 1;
  for (uint64_t d : n.shape) count *= d;
  size_t given = n.ints.empty() ? n.values.size() : n.ints.size();
  if (given != count) throw std::runtime_error("value count does not match the shape");

  // Element order in the file: C order, or first axis fastest for Fortran order.
  std::vector<size_t> order_idx(count);
  if (!n.fortran) {
    for (size_t i = 0; i < count; ++i) order_idx[i] = i;
  } else {
    size_t nd = n.shape.size();
    std::vector<size_t> cstride(nd, 1);
    for (size_t k = nd; k-- > 1;) cstride[k - 1] = cstride[k] * n.shape[k];
    for (size_t f = 0; f < count; ++f) {
      size_t rest = f, c = 0;
      for (size_t k = 0; k < nd; ++k) {
        c += (rest % n.shape[k]) * cstride[k];
        rest /= n.shape[k];
      }
      order_idx[f] = c;
    }
  }

  std::string data;
  for (size_t i : order_idx) {
    double v = n.ints.empty() ? n.values[i] : static_cast<double>(n.ints[i]);
    uint64_t raw = 0;
    if (kind == 'f' && size == 2)
      raw = HalfBits(v);
    else if (kind == 'f' && size == 4) {
      float f = static_cast<float>(v);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      raw = b;
    } else if (kind == 'f')
      std::memcpy(&raw, &v, 8);
    else if (kind == 'b')
      raw = v != 0 ? 1 : 0;
    else if (!n.ints.empty())
      raw = static_cast<uint64_t>(n.ints[i]);
    else if (kind == 'i')
      raw = static_cast<uint64_t>(static_cast<int64_t>(v));
    else
      raw = static_cast<uint64_t>(v);
    PutBytes(data, raw, size, big);
  }

  std::string dict = n.header.empty() ? "{'descr': '" + n.descr + "', 'fortran_order': " + (n.fortran ? "True" : "False") +
                                            ", 'shape': " + ShapeText(n.shape) + ", }"
                                      : n.header;
  const size_t pre = n.major == 1 ? 10 : 12;
  size_t total = pre + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(n.major);
  out += '\0';
  PutBytes(out, dict.size(), n.major == 1 ? 2 : 4, false);
  return out + dict + data;
}

void WriteNpy(const std::string& path, const Npy& n) { vptest::WriteFile(path, Encode(n)); }

NpyArray Load(const vptest::TempDir& dir, const Npy& n, const std::string& name = "a.npy") {
  WriteNpy(dir / name, n);
  auto r = ReadNpy(dir / name);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return r.value();
}

// ---- metric expectations -------------------------------------------------------------------

// Expected pystr of each metric: a float literal is compared with relative tolerance 1e-9 (§9.6.6)
// and, since these small inputs are summed exactly like numpy, also as text; anything else is a
// text metric compared exactly.
void CheckMetrics(const TensorMetrics& m, const std::vector<std::string>& expected) {
  REQUIRE(expected.size() == kTensorMetricCount);
  for (int i = 0; i < kTensorMetricCount; ++i) {
    INFO(kTensorMetricNames[i] << ": got " << MetricString(m.values[i]) << ", expected " << expected[i]
                               << " (message: " << m.message << ")");
    const std::string& e = expected[i];
    char* end = nullptr;
    double v = std::strtod(e.c_str(), &end);
    bool numeric = !e.empty() && *end == '\0' && e != "Nan" && e != "N/A";
    if (numeric) {
      REQUIRE_FALSE(m.values[i].is_text);
      if (v == 0)
        CHECK(m.values[i].value == 0);
      else
        CHECK(m.values[i].value == Approx(v).epsilon(1e-9));
      CHECK(MetricString(m.values[i]) == e);
    } else {
      REQUIRE(m.values[i].is_text);
      CHECK(m.values[i].text == e);
    }
  }
}

std::vector<std::string> Six(const std::string& s) { return std::vector<std::string>(6, s); }

// Writes both arrays into <tmp>/npu/dump_tensor_data and <tmp>/bench/dump_tensor_data and runs
// the locating + comparing entry point, as the comparator does.
TensorMetrics CompareFiles(const vptest::TempDir& dir, const Npy& npu, const Npy& bench) {
  WriteNpy(dir / "npu/dump_tensor_data/x.npy", npu);
  WriteNpy(dir / "bench/dump_tensor_data/x.npy", bench);
  TensorMetrics m = CompareTensorFiles(dir / "npu/dump_tensor_data", "x.npy", dir / "bench/dump_tensor_data", "x.npy");
  INFO(m.read_error);
  REQUIRE(m.read_error.empty());
  return m;
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The elements as a plain vector (NpyArray keeps them with an allocator that skips zero-filling).
std::vector<double> Vals(const NpyArray& a) { return std::vector<double>(a.data.begin(), a.data.end()); }

Result<NpyArray> ReadRaw(const vptest::TempDir& dir, const std::string& bytes) {
  vptest::WriteFile(dir / "bad.npy", bytes);
  return ReadNpy(dir / "bad.npy");
}

}  // namespace

// ---- §4.5 reading ----------------------------------------------------------------------------

TEST_CASE("npy: every supported dtype in both byte orders", "[tensor]") {
  vptest::TempDir dir;
  struct Case {
    const char* type;
    std::vector<double> values;
    const char* name;
  };
  const std::vector<Case> cases = {
      {"f2", {1.5, -2.25, 0.0, 65504.0}, "float16"},
      {"f4", {1.5, -2.25, 0.1f, 3.4e38f}, "float32"},
      {"f8", {1.5, -2.25, 0.1, 1e300}, "float64"},
      {"i1", {1, -2, 127, -128}, "int8"},
      {"i2", {1, -2, 32767, -32768}, "int16"},
      {"i4", {1, -2, 2147483647.0, -2147483648.0}, "int32"},
      {"i8", {1, -2, 4e15, -4e15}, "int64"},
      {"u1", {1, 2, 255, 0}, "uint8"},
      {"u2", {1, 2, 65535, 0}, "uint16"},
      {"u4", {1, 2, 4294967295.0, 0}, "uint32"},
      {"u8", {1, 2, 4e15, 0}, "uint64"},
      {"b1", {1, 0, 1, 1}, "bool"},
  };
  for (const Case& c : cases) {
    for (char order : std::string(c.type[1] == '1' ? "|<>" : "<>")) {
      std::string descr = std::string(1, order) + c.type;
      CAPTURE(descr);
      NpyArray a = Load(dir, Vec(descr, c.values));
      CHECK(a.dtype.name() == c.name);
      CHECK(a.dtype.kind == c.type[0]);
      CHECK(a.dtype.size == c.type[1] - '0');
      CHECK(a.dtype.descr() == (c.type[1] == '1' ? std::string("|") + c.type : descr));
      CHECK(a.shape == std::vector<uint64_t>{4});
      CHECK(Vals(a) == c.values);
    }
  }
}

TEST_CASE("npy: format versions 1.0, 2.0 and 3.0 read the same array", "[tensor]") {
  vptest::TempDir dir;
  for (int major : {1, 2, 3}) {
    CAPTURE(major);
    Npy n = Shaped("<f8", {2, 2}, {1, 2, 3, 4});
    n.major = major;
    NpyArray a = Load(dir, n);
    CHECK(a.shape == std::vector<uint64_t>{2, 2});
    CHECK(Vals(a) == std::vector<double>{1, 2, 3, 4});
  }
}

TEST_CASE("npy: fortran_order True is converted to C order", "[tensor]") {
  vptest::TempDir dir;
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  for (const std::string descr : {"<f4", ">f8", "<i4", ">i2"}) {
    CAPTURE(descr);
    Npy n = Shaped(descr, {2, 3, 4}, v);
    n.fortran = true;
    NpyArray a = Load(dir, n);
    CHECK(a.shape == std::vector<uint64_t>{2, 3, 4});
    CHECK(Vals(a) == v);  // the writer stored them first-axis-fastest

    Npy m = Shaped(descr, {2, 1, 3}, {0, 1, 2, 3, 4, 5});
    m.fortran = true;
    NpyArray b = Load(dir, m);
    CHECK(b.shape == std::vector<uint64_t>{2, 3});
    CHECK(Vals(b) == std::vector<double>{0, 1, 2, 3, 4, 5});
  }
  // The raw file bytes really are in Fortran order: reading them as C order gives the transpose.
  Npy t = Shaped("<f8", {2, 3}, {0, 1, 2, 3, 4, 5});
  t.fortran = true;
  std::string bytes = Encode(t);
  std::string c_header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  Npy as_c = Shaped("<f8", {2, 3}, {0, 3, 1, 4, 2, 5});
  as_c.header = c_header;
  CHECK(bytes.substr(bytes.size() - 48) == Encode(as_c).substr(Encode(as_c).size() - 48));
}

TEST_CASE("npy: squeeze drops every length-1 axis", "[tensor]") {
  vptest::TempDir dir;
  struct Case {
    std::vector<uint64_t> shape;
    std::vector<uint64_t> squeezed;
    std::string text;
  };
  const std::vector<Case> cases = {
      {{1, 3, 1}, {3}, "(3,)"},
      {{1}, {}, "()"},
      {{1, 1}, {}, "()"},
      {{}, {}, "()"},
      {{0}, {0}, "(0,)"},
      {{2, 0, 1}, {2, 0}, "(2, 0)"},
      {{2, 1, 2}, {2, 2}, "(2, 2)"},
  };
  for (const Case& c : cases) {
    CAPTURE(ShapeText(c.shape));
    size_t count = 1;
    for (uint64_t d : c.shape) count *= d;
    std::vector<double> v(count, 7.0);
    NpyArray a = Load(dir, Shaped("<f4", c.shape, v));
    CHECK(a.shape == c.squeezed);
    CHECK(a.shape_string() == c.text);
    CHECK(a.is_scalar() == c.squeezed.empty());
    CHECK(a.size() == count);
  }
  // Integer 0-d arrays keep their exact value (beyond 2^53) for the 0-d MaxAbsErr.
  Npy big;
  big.descr = ">i8";
  big.shape = {1, 1};
  big.ints = {(int64_t{1} << 62) + 1};
  NpyArray a = Load(dir, big);
  CHECK(a.is_scalar());
  CHECK(a.scalar_bits == (uint64_t{1} << 62) + 1);
  CHECK(a.data[0] == std::ldexp(1.0, 62));
  Npy neg;
  neg.descr = "|i1";
  neg.shape = {};
  neg.ints = {-5};
  CHECK(static_cast<int64_t>(Load(dir, neg).scalar_bits) == -5);
}

TEST_CASE("npy: ReadNpy sees whether every element is finite", "[tensor]") {
  vptest::TempDir dir;
  // Every float dtype and byte order (the typed loops and the element-by-element path), a NaN or an
  // infinity at the start, the middle or the end; past the 1 MiB read chunk for the last one.
  for (const char* d : {"<f4", ">f4", "<f8", ">f8", "<f2", ">f2"}) {
    INFO(d);
    std::vector<double> v(300000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 1000) - 500.5;
    CHECK(Load(dir, Vec(d, v)).all_finite);
    for (double bad : {kNaN, kInf, -kInf}) {
      for (size_t at : {size_t{0}, v.size() / 2, v.size() - 1}) {
        INFO("value " << bad << " at " << at);
        std::vector<double> w = v;
        w[at] = bad;
        NpyArray a = Load(dir, Vec(d, w));
        CHECK_FALSE(a.all_finite);
        CHECK(std::isnan(a.data[at]) == std::isnan(bad));
      }
    }
    // The largest finite values are finite (an exponent one below all ones).
    double big = d[2] == '2' ? 65504.0 : d[2] == '4' ? 3.4028234663852886e38 : 1.7976931348623157e308;
    CHECK(Load(dir, Vec(d, {big, -big, 0.0})).all_finite);
  }
  for (const char* d : {"<i4", ">i8", "|u1", "<u2", "|b1"}) {
    INFO(d);
    CHECK(Load(dir, Vec(d, {0, 1, 2, 3})).all_finite);
  }
  // An array made without ReadNpy says nothing about its elements, and the compare scans it: NaN at
  // the same position on both sides is zeroed, at different positions the metrics are N/A.
  NpyArray x, y;
  x.dtype = y.dtype = NpyDtype{'f', 8, '<'};
  x.shape = y.shape = {3};
  x.data = {kNaN, 1, 2};
  y.data = {kNaN, 1, 3};
  CHECK_FALSE(x.all_finite);
  TensorMetrics zeroed = CompareTensors(x, y);
  CHECK_FALSE(zeroed.values[kCosine].is_text);
  CHECK(zeroed.values[kMaxAbsErr].value == 1);
  y.data = {1, kNaN, 3};
  CHECK(CompareTensors(x, y).values[kCosine].text == "N/A");
}

TEST_CASE("npy: float16 is decoded exactly", "[tensor]") {
  CHECK(HalfToDouble(0x0001) == std::ldexp(1.0, -24));
  CHECK(HalfToDouble(0x03ff) == 1023 * std::ldexp(1.0, -24));
  CHECK(HalfToDouble(0x0400) == std::ldexp(1.0, -14));
  CHECK(HalfToDouble(0x3c00) == 1.0);
  CHECK(HalfToDouble(0x3555) == 0.333251953125);
  CHECK(HalfToDouble(0x7bff) == 65504.0);
  CHECK(HalfToDouble(0xfc00) == -kInf);
  CHECK(std::isnan(HalfToDouble(0x7e00)));
  CHECK(std::isnan(HalfToDouble(0xfc01)));
  CHECK(HalfToDouble(0x8000) == 0.0);
  CHECK(std::signbit(HalfToDouble(0x8000)));

  CHECK(RoundToHalf(4095.0) == 4096.0);  // tie -> even mantissa
  CHECK(RoundToHalf(4093.0) == 4092.0);
  CHECK(RoundToHalf(1 + std::ldexp(1.0, -11)) == 1.0);
  CHECK(RoundToHalf(1 + 3 * std::ldexp(1.0, -11)) == 1 + std::ldexp(1.0, -9));
  CHECK(RoundToHalf(65519.0) == 65504.0);
  CHECK(RoundToHalf(65520.0) == kInf);
  CHECK(RoundToHalf(-1e6) == -kInf);
  CHECK(RoundToHalf(std::ldexp(1.0, -25)) == 0.0);  // half of the smallest subnormal: tie -> 0
  CHECK(RoundToHalf(3 * std::ldexp(1.0, -26)) == std::ldexp(1.0, -24));
  CHECK(RoundToHalf(0.1) == HalfToDouble(0x2e66));

  vptest::TempDir dir;
  std::vector<double> v = {std::ldexp(1.0, -24), 65504.0, -kInf, 0.333251953125, -0.0};
  for (const char* d : {"<f2", ">f2"}) {
    NpyArray a = Load(dir, Vec(d, v));
    CHECK(Vals(a) == v);
  }
  NpyArray nan = Load(dir, Vec("<f2", {kNaN, 1.0}));
  CHECK(std::isnan(nan.data[0]));
}

TEST_CASE("npy: header spellings numpy accepts", "[tensor]") {
  vptest::TempDir dir;
  auto with_header = [&](const std::string& header) {
    Npy n = Shaped("<f4", {2}, {1, 2});
    n.header = header;
    return ReadRaw(dir, Encode(n));
  };
  for (const std::string h : {
           "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
           "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}",
           "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2L,)}",
           "  {'descr':'<f4','fortran_order':False,'shape':( 2 , )}  ",
       }) {
    CAPTURE(h);
    auto r = with_header(h);
    INFO(r.status().message());
    REQUIRE(r.ok());
    CHECK(Vals(*r) == std::vector<double>{1, 2});
  }
  // Extra bytes after the data are ignored, as numpy reads only the elements of the shape.
  auto r = ReadRaw(dir, Encode(Vec("<f4", {1, 2})) + "garbage");
  REQUIRE(r.ok());
  CHECK(Vals(*r) == std::vector<double>{1, 2});
}

TEST_CASE("npy: malformed files are errors, never crashes", "[tensor]") {
  vptest::TempDir dir;
  const std::string good = Encode(Vec("<f4", {1, 2, 3, 4}));
  auto header_file = [](const std::string& header, const std::string& data = std::string(16, '\0')) {
    Npy n = Vec("<f4", {0, 0, 0, 0});
    n.header = header;
    std::string b = Encode(n);
    return b.substr(0, b.size() - 16) + data;
  };
  struct Case {
    const char* what;
    std::string bytes;
    const char* message_part;
  };
  // A valid dict padded to 20000 bytes in a version 2.0 header: numpy refuses headers over 10000.
  std::string huge_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  huge_dict.resize(20000, ' ');
  std::string huge_v2 = good.substr(0, 6) + std::string("\x02\x00", 2);
  PutBytes(huge_v2, huge_dict.size(), 4, false);
  huge_v2 += huge_dict + std::string(4, '\0');
  std::string lying_len = good.substr(0, 8);
  PutBytes(lying_len, 5000, 2, false);
  const std::vector<Case> cases = {
      {"empty file", "", "too short"},
      {"shorter than the preamble", good.substr(0, 7), "too short"},
      {"bad magic", "\x93NUMPX" + good.substr(6), "bad magic"},
      {"zip (a .pt file renamed)", "PK\x03\x04" + std::string(200, 'x'), "bad magic"},
      {"version 4.0", good.substr(0, 6) + "\x04" + good.substr(7), "version"},
      {"version 1.1", good.substr(0, 7) + "\x01" + good.substr(8), "version"},
      {"header length beyond the file", lying_len + "{'descr'", "truncated header"},
      {"header over 10000 bytes", huge_v2, "header longer"},
      {"truncated header", good.substr(0, 40), "truncated header"},
      {"truncated data", good.substr(0, good.size() - 1), "truncated data"},
      {"header lies about the shape", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }"), "truncated data"},
      {"shape far beyond the file", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4000000000, 4000000000), }"),
       "truncated data"},
      {"shape overflowing 64 bits", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (18446744073709551615, 3), }"),
       "truncated data"},
      {"shape overflowing the parser",
       header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }"), "shape"},
      {"object dtype", header_file("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }"), "object"},
      {"structured dtype", header_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }"), "structured"},
      {"complex dtype", header_file("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }"), "unsupported dtype"},
      {"unicode dtype", header_file("{'descr': '<U1', 'fortran_order': False, 'shape': (4,), }"), "unsupported dtype"},
      {"bool of 2 bytes", header_file("{'descr': '<b2', 'fortran_order': False, 'shape': (4,), }"), "unsupported dtype"},
      {"float128", header_file("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }"), "unsupported dtype"},
      {"missing key", header_file("{'descr': '<f4', 'shape': (4,), }"), "keys"},
      {"extra key", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1}"), "unexpected key"},
      {"not a dict", header_file("['<f4', False, (4,)]"), "not a dict"},
      {"unterminated dict", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)"), "expected"},
      {"trailing text", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} x"), "trailing"},
      {"fortran_order not a bool", header_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (4,), }"), "fortran_order"},
      {"shape is a list", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': [4], }"), "shape"},
      {"shape is an int in parentheses", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4), }"), "shape"},
      {"negative shape", header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }"), "shape"},
      {"unterminated string", header_file("{'descr': '<f4, 'fortran_order': False, 'shape': (4,), }"), ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    auto r = ReadRaw(dir, c.bytes);
    REQUIRE_FALSE(r.ok());
    CHECK(Contains(r.status().message(), c.message_part));
    CHECK(Contains(r.status().message(), "bad.npy"));
  }
  // A file cut at every possible length fails cleanly.
  for (size_t len = 0; len < good.size(); ++len) {
    CAPTURE(len);
    CHECK_FALSE(ReadRaw(dir, good.substr(0, len)).ok());
  }
  // Every header byte replaced by characters that matter to the parser: an error or a consistent
  // array, never a crash (run under ASan/UBSan as well).
  const std::string fortran = [] {
    Npy n = Shaped(">f8", {2, 1, 3}, {1, 2, 3, 4, 5, 6});
    n.fortran = true;
    return Encode(n);
  }();
  static const char kParserChars[] =
      "\x00\xff"
      "0159(),:'\"{}[] LTFn-";
  for (const std::string& base : {good, fortran}) {
    for (size_t pos = 0; pos < base.size() - 16; ++pos) {
      for (char c : std::string(kParserChars, sizeof(kParserChars) - 1)) {
        std::string bytes = base;
        bytes[pos] = c;
        auto r = ReadRaw(dir, bytes);
        if (r.ok()) {
          uint64_t count = 1;
          for (uint64_t d : r->shape) count *= d;
          CHECK(r->size() == count);
        }
      }
    }
  }
  CHECK_FALSE(ReadNpy(dir / "missing.npy").ok());
  CHECK_FALSE(ReadNpy(dir.path()).ok());  // a folder
}

// ---- §18.6 check values ----------------------------------------------------------------------

TEST_CASE("§18.6 tensor-mode check values", "[tensor]") {
  vptest::TempDir dir;

  SECTION("f32 [1, 2, 3, 4] vs [1, 2, 3, 5]") {
    Npy bench = Vec(">f4", {1, 2, 3, 5});  // byte order of the golden file does not matter
    TensorMetrics m = CompareFiles(dir, Vec("<f4", {1, 2, 3, 4}), bench);
    CheckMetrics(m, {"0.993999088548", "1.0", "1.0", "0.20000000298", "0.75", "0.75"});
  }
  SECTION("f32 [1, 0, 2] vs [1, 0, 2.001]: zero positions contribute relative error 0") {
    TensorMetrics m = CompareFiles(dir, Vec("<f4", {1, 0, 2}), Vec("<f4", {1, 0, 2.001}));
    CheckMetrics(m, {"1.0", "0.0009999275207519531", "0.000999927521", "0.000499713933", "1.0", "1.0"});
    CHECK(m.message.empty());
  }
  SECTION("f64 [0.1, 0.2, 0.3] vs [0.1, 0.2, 0.30000001]: EucDist not rounded, MaxAbsErr rounded") {
    Npy npu = Vec("<f8", {0.1, 0.2, 0.3});
    npu.major = 2;
    Npy bench = Vec("<f8", {0.1, 0.2, 0.30000001});
    bench.major = 3;
    TensorMetrics m = CompareFiles(dir, npu, bench);
    CheckMetrics(m, {"1.0", "9.999999994736442e-09", "1e-08", "3.3333e-08", "1.0", "1.0"});
  }
  SECTION("f32 [[1.5]] vs [[1.0]]: 0-d after squeeze") {
    TensorMetrics m = CompareFiles(dir, Shaped("<f4", {1, 1}, {1.5}), Shaped("<f4", {1, 1}, {1.0}));
    CheckMetrics(m, {"unsupported", "unsupported", "0.5", "0.5", "unsupported", "unsupported"});
    CHECK(m.message ==
          "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and "
          "'Five Thousandths Err Ratio'. ");
  }
  SECTION("f32 [nan, 1, 2] vs [nan, 1, 3]: NaN positions zeroed first") {
    TensorMetrics m = CompareFiles(dir, Vec("<f4", {kNaN, 1, 2}), Vec("<f4", {kNaN, 1, 3}));
    CheckMetrics(m, {"0.989949493661", "1.0", "1.0", "0.333333343267", "0.666666666667", "0.666666666667"});
  }
  SECTION("f32 [nan, 1] vs [1, nan]: N/A") {
    TensorMetrics m = CompareFiles(dir, Vec("<f4", {kNaN, 1}), Vec("<f4", {1, kNaN}));
    CheckMetrics(m, Six("N/A"));
    CHECK(m.message == "The position of inf or nan in NPU and bench Tensor do not match.");
  }
  SECTION("f32 [0, 0, 0] vs [0, 0, 1]: NPU all zero") {
    TensorMetrics m = CompareFiles(dir, Vec("<f4", {0, 0, 0}), Vec("<f4", {0, 0, 1}));
    CheckMetrics(m, {"Nan", "1.0", "1.0", "1.0", "0.666666666667", "0.666666666667"});
    CHECK(Contains(m.message, "All the data is Zero in npu dump data."));
  }
  SECTION("f32 shape [2, 3] vs [3, 2]") {
    Npy npu = Shaped("<f4", {2, 3}, {1, 2, 3, 4, 5, 6});
    npu.fortran = true;
    TensorMetrics m = CompareFiles(dir, npu, Shaped("<f4", {3, 2}, {1, 2, 3, 4, 5, 6}));
    CheckMetrics(m, Six("shape unmatched"));
    CHECK(m.message == "Shape of NPU and bench tensor do not match. Skipped.");
  }
  SECTION("f32 shape [0] vs [0]") {
    TensorMetrics m = CompareFiles(dir, Vec("<f4", {}), Vec("<f4", {}));
    CheckMetrics(m, Six("unsupported"));
    CHECK(m.message == "This is empty data, can not compare.");
  }
  SECTION("i32 [1, 2, 3] vs [1, 2, 4]") {
    TensorMetrics m = CompareFiles(dir, Vec("<i4", {1, 2, 3}), Vec(">i4", {1, 2, 4}));
    CheckMetrics(m, {"0.991460133984", "1.0", "1.0", "0.25", "0.666666666667", "0.666666666667"});
  }
  SECTION("f16 [1, 2] vs f32 [1, 2.5]: float32 precision, dtype message") {
    TensorMetrics m = CompareFiles(dir, Vec("<f2", {1, 2}), Vec("<f4", {1, 2.5}));
    CheckMetrics(m, {"0.996545758245", "0.5", "0.5", "0.20000000298", "0.5", "0.5"});
    CHECK(m.message == "Dtype of NPU and bench tensor do not match.");
  }
}

TEST_CASE("§18.6 MindSpore example: identical input and weight give 1.0, 0.0, 0.0, 0.0, 1.0, 1.0", "[tensor]") {
  // The output tensor of the example carries random noise that the spec does not give, so only
  // the identical input [4, 8] and weight [3, 8] rows can be reproduced.
  vptest::TempDir dir;
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return (static_cast<double>(seed >> 8) / (1 << 24)) * 2 - 1;
  };
  for (uint64_t rows : {4u, 3u}) {
    std::vector<double> v(rows * 8);
    for (double& d : v) d = static_cast<float>(next());
    TensorMetrics m = CompareFiles(dir, Shaped("<f4", {rows, 8}, v), Shaped("<f4", {rows, 8}, v));
    CheckMetrics(m, {"1.0", "0.0", "0.0", "0.0", "1.0", "1.0"});
  }
}

// ---- further §9.6 rules ------------------------------------------------------------------------

TEST_CASE("§9.6.5 cosine: 12 decimals, then 6 decimals above 0.9999", "[tensor]") {
  vptest::TempDir dir;
  TensorMetrics m = CompareFiles(dir, Vec("<f8", {1, 2, 3, 4, 5}), Vec("<f8", {1, 2, 3, 4, 5.1}));
  CHECK(MetricString(m[kCosine]) == "0.999951");
  m = CompareFiles(dir, Vec("<f8", {1, 2, 3, 4, 5}), Vec("<f8", {1, 2, 3, 4, 5.5}));
  CHECK(MetricString(m[kCosine]) == "0.998867710526");
  m = CompareFiles(dir, Vec("<f4", {1, 2, 3}), Vec("<f4", {0, 0, 0}));
  CHECK(MetricString(m[kCosine]) == "Nan");
  CHECK(Contains(m.message, "All the data is Zero in Bench dump data."));
  m = CompareFiles(dir, Vec("<f4", {0, 0}), Vec("<f4", {0, 0}));
  CheckMetrics(m, {"1.0", "0.0", "0.0", "0.0", "1.0", "1.0"});
}

TEST_CASE("§9.6.2 NaN/inf: identical masks are zeroed, different masks give N/A", "[tensor]") {
  vptest::TempDir dir;
  TensorMetrics m = CompareFiles(dir, Vec("<f4", {kInf, 1, -kInf, 2}), Vec("<f4", {kInf, 1, kInf, 2}));
  CheckMetrics(m, {"1.0", "0.0", "0.0", "0.0", "1.0", "1.0"});  // inf vs -inf: same inf mask
  m = CompareFiles(dir, Vec("<f4", {kNaN, 1}), Vec("<f4", {kInf, 1}));
  CheckMetrics(m, Six("N/A"));
  m = CompareFiles(dir, Vec("<f8", {1, 2}), Vec("<f8", {1, kInf}));
  CheckMetrics(m, Six("N/A"));
  // Empty NPU data wins over a shape mismatch; a shape mismatch wins over NaN positions.
  m = CompareFiles(dir, Vec("<f4", {}), Vec("<f4", {1}));
  CheckMetrics(m, Six("unsupported"));
  m = CompareFiles(dir, Vec("<f4", {kNaN, 1}), Vec("<f4", {1, 2, 3}));
  CheckMetrics(m, Six("shape unmatched"));
  // '<f4' and '>f4' are different numpy dtypes: computed, with the dtype message.
  m = CompareFiles(dir, Vec("<f4", {1, 2}), Vec(">f4", {1, 2}));
  CHECK(m.message == "Dtype of NPU and bench tensor do not match.");
}

TEST_CASE("§9.6.5 0-d tensors: MaxAbsErr in the arrays' own dtype, no NaN handling", "[tensor]") {
  vptest::TempDir dir;
  auto scalar = [](const std::string& descr, double v) { return Shaped(descr, {}, {v}); };
  auto int_scalar = [](const std::string& descr, int64_t v) {
    Npy n;
    n.descr = descr;
    n.shape = {1};
    n.ints = {v};
    return n;
  };
  auto max_abs_rel = [&](const Npy& a, const Npy& b) {
    TensorMetrics m = CompareFiles(dir, a, b);
    CHECK(m[kCosine].text == "unsupported");
    CHECK(m[kEucDist].text == "unsupported");
    CHECK(m[kOneThousandthErrRatio].text == "unsupported");
    CHECK(m[kFiveThousandthsErrRatio].text == "unsupported");
    return std::make_pair(MetricString(m[kMaxAbsErr]), MetricString(m[kMaxRelativeErr]));
  };
  // int8 100 - (-100) wraps to -56.
  CHECK(max_abs_rel(int_scalar("|i1", 100), int_scalar("|i1", -100)) == std::make_pair(std::string("56.0"), std::string("2.0")));
  // uint8 1 - 2 wraps to 255.
  CHECK(max_abs_rel(int_scalar("|u1", 1), int_scalar("|u1", 2)).first == "255.0");
  // abs(int8 -128) stays -128; the relative error divides by eps(float64).
  auto r = max_abs_rel(int_scalar("|i1", -128), int_scalar("|i1", 0));
  CHECK(r.first == "-128.0");
  CHECK(std::strtod(r.second.c_str(), nullptr) == Approx(128 / 2.220446049250313e-16).epsilon(1e-12));
  // int8 with uint8 promotes to int16: -1 - 255 = -256.
  CHECK(max_abs_rel(int_scalar("|i1", -1), int_scalar("|u1", 255)).first == "256.0");
  // int32 with bool stays int32.
  CHECK(max_abs_rel(int_scalar("<i4", 5), int_scalar("|b1", 1)).first == "4.0");
  // A bool NPU array is converted to float64 (with the golden one) first.
  CHECK(max_abs_rel(int_scalar("|b1", 0), int_scalar("|b1", 1)).first == "1.0");
  // int64 arithmetic is exact beyond 2^53.
  CHECK(max_abs_rel(int_scalar("<i8", (int64_t{1} << 62) + 1), int_scalar(">i8", int64_t{1} << 62)).first == "1.0");
  // int64 with uint64 goes to float64.
  CHECK(max_abs_rel(int_scalar("<i8", (int64_t{1} << 62) + 1), int_scalar("<u8", int64_t{1} << 62)).first == "0.0");
  // float16 arithmetic rounds 4096 - 1 to 4096; the relative error is in float32.
  CHECK(max_abs_rel(scalar("<f2", 4096), scalar("<f2", 1)) == std::make_pair(std::string("4096.0"), std::string("4095.0")));
  // float32: 0.1f - 0.2f in float32.
  CHECK(max_abs_rel(scalar("<f4", 0.1), scalar("<f4", 0.2)).first ==
        PyFloat(RoundDecimals(std::fabs(static_cast<double>(0.1f - 0.2f)), 12)));
  // NaN is not zeroed for 0-d arrays.
  TensorMetrics m = CompareFiles(dir, scalar("<f4", kNaN), scalar("<f4", 1));
  CheckMetrics(m, {"unsupported", "unsupported", "Nan", "Nan", "unsupported", "unsupported"});
  CHECK(Contains(m.message, "Cannot compare by MaxAbsError"));
  CHECK(Contains(m.message, "Cannot compare by MaxRelativeError"));
  // 0-d NPU against a non-0-d golden array: shape unmatched.
  m = CompareFiles(dir, scalar("<f4", 1), Vec("<f4", {1, 2}));
  CheckMetrics(m, Six("shape unmatched"));
}

TEST_CASE("§9.6.6 large arrays: the sums match a long double reference", "[tensor]") {
  vptest::TempDir dir;
  const size_t n = 100003;
  std::vector<double> x(n), y(n);
  long double dot = 0, nx = 0, ny = 0, dd = 0;
  for (size_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(std::sin(i * 0.37) * 3);
    y[i] = static_cast<float>(x[i] + std::cos(i * 1.3) * 1e-3);
    dot += static_cast<long double>(x[i]) * y[i];
    nx += static_cast<long double>(x[i]) * x[i];
    ny += static_cast<long double>(y[i]) * y[i];
    dd += static_cast<long double>(x[i] - y[i]) * (x[i] - y[i]);
  }
  TensorMetrics m = CompareFiles(dir, Vec("<f4", x), Vec("<f4", y));
  double cos = static_cast<double>(dot / std::sqrt(nx * ny));
  CHECK(m[kCosine].value == Approx(RoundDecimals(RoundDecimals(cos, 12), 6)).epsilon(1e-12));
  CHECK(m[kEucDist].value == Approx(static_cast<double>(std::sqrt(dd))).epsilon(1e-12));
}

// ---- §9.6.1 locating -----------------------------------------------------------------------------

// The reference BLAS ddot's order (what numpy's dot and linalg.norm call for float64 vectors with
// Debian's libblas.so.3), written out plainly: the first n % 5 terms one by one, then groups of five
// added left to right to the running sum.
double NetlibDotOrderSum(const std::vector<double>& v) {
  const size_t n = v.size(), m = n % 5;
  double t = 0;
  for (size_t i = 0; i < m; ++i) t += v[i];
  for (size_t i = m; i < n; i += 5) t = t + v[i] + v[i + 1] + v[i + 2] + v[i + 3] + v[i + 4];
  return t;
}

// The relative-error figures of §9.6.3 by a plain loop in precision T (eps added where the golden
// value is 0; thresholds cast to T): max, and the counts below 0.001 and 0.005.
template <class T>
void RelReference(const std::vector<double>& x, const std::vector<double>& y, double* max, double* r1, double* r5) {
  const T eps = std::numeric_limits<T>::epsilon();
  T m = 0;
  uint64_t c1 = 0, c5 = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    T nv = static_cast<T>(x[i]), bv = static_cast<T>(y[i]);
    if (y[i] == 0) {
      nv += eps;
      bv += eps;
    }
    T r = std::fabs((nv - bv) / bv);
    if (r > m) m = r;
    if (r < static_cast<T>(0.001)) ++c1;
    if (r < static_cast<T>(0.005)) ++c5;
  }
  *max = static_cast<double>(m);
  *r1 = static_cast<double>(c1) / static_cast<double>(x.size());
  *r5 = static_cast<double>(c5) / static_cast<double>(x.size());
}

TEST_CASE("§9.6.6 the one-pass metrics: BLAS ddot's sums bit for bit, and every lane of the maxima and counts", "[tensor]") {
  vptest::TempDir dir;
  std::vector<size_t> sizes;
  for (size_t n = 2; n <= 300; ++n) sizes.push_back(n);
  for (size_t n : {1000, 1031, 4096, 4097, 65536, 100003}) sizes.push_back(n);
  for (size_t n : sizes) {
    for (bool f32 : {false, true}) {
      for (bool close : {true, false}) {
        CAPTURE(n, f32, close);
        std::vector<double> x(n), y(n), xy(n), xx(n), yy(n), dd(n);
        double max_abs = 0;
        for (size_t i = 0; i < n; ++i) {
          const double fi = static_cast<double>(i), fn = static_cast<double>(n);
          // Full 53-bit mantissas for float64, so products and sums round and the order of additions
          // shows. `close` pairs have relative errors around the two thresholds and some golden zeros;
          // the others a cosine far from 1, which keeps all 12 decimals.
          x[i] = std::sin(fi * 0.71 + fn) * 5;
          y[i] = close ? (i % 37 == 5 ? 0.0 : x[i] * (1 + std::cos(fi * 2.3) * 6e-3)) : std::sin(fi * 1.3 + fn) * 5;
          if (f32) {
            x[i] = static_cast<float>(x[i]);
            y[i] = static_cast<float>(y[i]);
          }
          xy[i] = x[i] * y[i];
          xx[i] = x[i] * x[i];
          yy[i] = y[i] * y[i];
          dd[i] = (x[i] - y[i]) * (x[i] - y[i]);
          max_abs = std::max(max_abs, std::fabs(x[i] - y[i]));
        }
        const char* descr = f32 ? "<f4" : "<f8";
        TensorMetrics m = CompareFiles(dir, Vec(descr, x), Vec(descr, y));
        REQUIRE_FALSE(m[kEucDist].is_text);
        CHECK(m[kEucDist].value == std::sqrt(NetlibDotOrderSum(dd)));  // bit for bit
        double cos = NetlibDotOrderSum(xy) / (std::sqrt(NetlibDotOrderSum(xx)) * std::sqrt(NetlibDotOrderSum(yy)));
        cos = RoundDecimals(cos, 12);
        if (cos > 0.9999) cos = RoundDecimals(cos, 6);
        if (!close) CHECK(cos < 0.9999);  // the 12-decimal value is compared, not a rounded one
        CHECK(m[kCosine].value == cos);
        CHECK(m[kMaxAbsErr].value == RoundDecimals(max_abs, 12));
        double rel_max, r1, r5;
        if (f32)
          RelReference<float>(x, y, &rel_max, &r1, &r5);
        else
          RelReference<double>(x, y, &rel_max, &r1, &r5);
        REQUIRE_FALSE(m[kMaxRelativeErr].is_text);
        CHECK(m[kMaxRelativeErr].value == RoundDecimals(rel_max, 12));
        CHECK(m[kOneThousandthErrRatio].value == RoundDecimals(r1, 12));
        CHECK(m[kFiveThousandthsErrRatio].value == RoundDecimals(r5, 12));
      }
    }
  }
}

TEST_CASE("§9.6.1 locating: no data file, unmatched, unreadable", "[tensor]") {
  vptest::TempDir dir;
  const std::string nd = dir / "npu/dump_tensor_data", bd = dir / "bench/dump_tensor_data";
  WriteNpy(nd + "/a.npy", Vec("<f4", {1, 2}));
  WriteNpy(bd + "/a.npy", Vec("<f4", {1, 2}));

  auto check_row = [](const TensorMetrics& m, const std::string& message, bool no_data) {
    CheckMetrics(m, Six("unsupported"));
    CHECK(m.message == message);
    CHECK(m.no_data == no_data);
  };
  check_row(CompareTensorFiles(nd, "-1", bd, "a.npy"), "NPU does not have data file.", true);
  check_row(CompareTensorFiles(nd, "-1", bd, "-1"), "NPU does not have data file.", true);
  check_row(CompareTensorFiles(nd, "a.npy", bd, "-1"), "Bench does not have data file.", true);
  check_row(CompareTensorFiles(nd, "a.npy", bd, "N/A"), "Bench api/module unmatched.", true);
  check_row(CompareTensorFiles(nd, "N/A", bd, "a.npy"), "Bench api/module unmatched.", true);
  check_row(CompareTensorFiles(nd, "N/A", bd, "N/A"), "Dump file: N/A or N/A not found or read failed.", false);

  TensorMetrics m = CompareTensorFiles(nd, "b.npy", bd, "a.npy");
  check_row(m, "Dump file: b.npy or a.npy not found or read failed.", false);
  CHECK(Contains(m.read_error, "does not exist"));
  m = CompareTensorFiles(nd, "a.npy", bd, "b.npy");
  check_row(m, "Dump file: a.npy or b.npy not found or read failed.", false);

  // A .pt file that is no zip: the read-failed row, the reader's message naming the file.
  vptest::WriteFile(nd + "/t.pt", "PK\x03\x04 not really a zip");
  vptest::WriteFile(bd + "/t.pt", "PK\x03\x04 not really a zip");
  m = CompareTensorFiles(nd, "t.pt", bd, "t.pt");
  check_row(m, "Dump file: t.pt or t.pt not found or read failed.", false);
  CHECK(Contains(m.read_error, "t.pt: not a readable torch.save archive: not a zip archive"));
  // Neither .pt nor .npy: the path check wants .npy, as msProbe's MindSpore reader does.
  vptest::WriteFile(nd + "/t.bin", "x");
  vptest::WriteFile(bd + "/t.bin", "x");
  m = CompareTensorFiles(nd, "t.bin", bd, "t.bin");
  CHECK(Contains(m.read_error, "should be one of the following types of files: [.npy]"));

  // A corrupt golden file: the reference aborts, the engine gives the read-failed row.
  vptest::WriteFile(bd + "/c.npy", "\x93NUMPY\x01");
  WriteNpy(nd + "/c.npy", Vec("<f4", {1, 2}));
  m = CompareTensorFiles(nd, "c.npy", bd, "c.npy");
  check_row(m, "Dump file: c.npy or c.npy not found or read failed.", false);
  CHECK(Contains(m.read_error, "too short"));

  // Special characters fail the path check (§16.3).
  WriteNpy(nd + "/a b.npy", Vec("<f4", {1, 2}));
  m = CompareTensorFiles(nd, "a b.npy", bd, "a.npy");
  CHECK(Contains(m.read_error, "special characters"));

  // The good pair compares.
  m = CompareTensorFiles(nd, "a.npy", bd, "a.npy");
  CheckMetrics(m, {"1.0", "0.0", "0.0", "0.0", "1.0", "1.0"});
  CHECK_FALSE(m.no_data);
}

// ---- §9.6.7 logging and rendering -------------------------------------------------------------

TEST_CASE("§9.6.7 -tensor_log lines and metric rendering", "[tensor]") {
  vptest::TempDir dir;
  TensorMetrics m = CompareFiles(dir, Vec("<f4", {1, 2, 3, 4}), Vec("<f4", {1, 2, 3, 5}));
  CHECK(TensorCompareLogLine("Cell.fc.Dense.forward.0.output.0", m).text() ==
        "[Cell.fc.Dense.forward.0.output.0] Compare result: cosine 0.993999088548, euc_dist 1.0, max_abs_err 1.0, "
        "max_relative_err 0.20000000298, one_thousand_err_ratio 0.75, five_thousand_err_ratio 0.75, ");
  m = CompareTensorFiles(dir.path(), "-1", dir.path(), "x.npy");
  CHECK(TensorCompareLogLine("a.b", m).text() == "[a.b] Compare result: NPU does not have data file. ");
  m = CompareTensorFiles(dir.path(), "x.npy", dir.path(), "N/A");
  CHECK(TensorCompareLogLine("a.b", m).text() == "[a.b] Compare result: Bench api/module unmatched. ");
  m = CompareTensorFiles(dir.path(), "y.npy", dir.path(), "z.npy");
  CHECK(TensorCompareLogLine("a.b", m).text() ==
        "[a.b] Compare result: cosine unsupported, euc_dist unsupported, max_abs_err unsupported, max_relative_err "
        "unsupported, one_thousand_err_ratio unsupported, five_thousand_err_ratio unsupported, Dump file: y.npy or "
        "z.npy not found or read failed.");

  CHECK(MetricString(MetricValue::Number(1e-08)) == "1e-08");
  CHECK(MetricString(MetricValue::Number(1.0)) == "1.0");
  CHECK(MetricString(MetricValue::Number(0.000999927521)) == "0.000999927521");
  CHECK(MetricString(MetricValue::Text("shape unmatched")) == "shape unmatched");
  CHECK(std::string(kTensorMetricNames[kOneThousandthErrRatio]) == "One Thousandth Err Ratio");
  CHECK(std::string(kTensorMetricNames[kFiveThousandthsErrRatio]) == "Five Thousandths Err Ratio");
  CHECK(MetricValue::Number(kNaN) == MetricValue::Number(kNaN));
  CHECK_FALSE(MetricValue::Number(1.0) == MetricValue::Text("1.0"));
}
