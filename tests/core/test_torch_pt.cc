// The .pt reader (core/compare/torch_pt.h): real files from msProbe's dumper, every dtype and view
// form torch.save writes, and hostile inputs (each refused with one message naming the file).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "compare/tensor_metrics.h"
#include "compare/torch_pt.h"
#include "pt_writer.h"
#include "test_util.h"

using namespace visprobe;
using Catch::Matchers::Contains;

namespace {

std::string RealDir(const std::string& side) {
  return std::string(VP_SHARED_DIR) + "/fixtures/msprobe-real-dumper/" + side + "/step0/rank0/dump_tensor_data/";
}

template <class T>
std::string Bytes(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(&s[0], v.data(), s.size());
  return s;
}

std::string Write(vptest::TempDir& dir, const std::string& name, const std::string& bytes) {
  const std::string path = dir / name;
  vptest::WriteFile(path, bytes);
  return path;
}

vptest::PtTensorSpec Spec(const std::string& cls, uint64_t numel, std::vector<uint64_t> size) {
  vptest::PtTensorSpec t;
  t.storage_class = cls;
  t.numel = numel;
  t.size = std::move(size);
  return t;
}

NpyArray MustRead(const std::string& path) {
  Result<NpyArray> a = ReadPt(path);
  INFO(a.status().message());
  REQUIRE(a.ok());
  return *a;
}

std::string ErrorOf(const std::string& path) {
  Result<NpyArray> a = ReadPt(path);
  REQUIRE_FALSE(a.ok());
  return a.status().message();
}

}  // namespace

TEST_CASE("pt: msProbe's dumper's own files (torch 1.13 zip format), values as torch.load gives them", "[pt]") {
  // bfloat16, upcast to float32 as msProbe's read_pt_data does: values from torch.load(...).float().
  NpyArray g = MustRead(RealDir("pt_tensor_golden") + "Functional.gelu.0.backward.input.0.pt");
  CHECK(g.dtype.name() == "float32");
  CHECK(g.shape == std::vector<uint64_t>{2, 12, 128});
  REQUIRE(g.size() == 3072);
  CHECK(g.data[0] == 0.00179290771484375);
  CHECK(g.data[1] == 0.0006561279296875);
  CHECK(g.data[3071] == 0.00128936767578125);
  double sum = 0;
  for (double v : g.data) sum += v;
  CHECK(std::fabs(sum - -0.02110147476196289) < 1e-12);
  CHECK(g.all_finite);

  NpyArray ids = MustRead(RealDir("pt_tensor_golden") + "Functional.embedding.0.forward.input.0.pt");
  CHECK(ids.dtype.name() == "int64");
  CHECK(ids.shape == std::vector<uint64_t>{2, 12});
  CHECK(std::vector<double>(ids.data.begin(), ids.data.begin() + 5) == std::vector<double>{31, 11, 17, 6, 63});

  NpyArray scalar = MustRead(RealDir("pt_tensor_golden") + "Functional.cross_entropy.0.backward.input.0.pt");
  CHECK(scalar.is_scalar());
  CHECK(scalar.data[0] == 1.0);

  Result<PtInfo> info = InspectPt(RealDir("pt_tensor_target") + "Functional.cross_entropy.0.backward.output.0.pt");
  REQUIRE(info.ok());
  CHECK(info->archive == "Functional.cross_entropy.0.backward.output.0");
  CHECK(info->tensor.dtype == TorchDtype::kFloat32);
  CHECK(info->tensor.storage_numel == 1536);
  CHECK(info->tensor.size == std::vector<uint64_t>{24, 64});
  CHECK(info->tensor.stride == std::vector<int64_t>{64, 1});
  CHECK(info->tensor.requires_grad == false);
}

TEST_CASE("pt: every dtype msProbe's compare reads, with msProbe's upcasts", "[pt]") {
  vptest::TempDir dir;
  struct Case {
    std::string cls, bytes, numpy;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {
      {"FloatStorage", Bytes(std::vector<float>{1.5f, -2.25f, 3}), "float32", {1.5, -2.25, 3}},
      {"DoubleStorage", Bytes(std::vector<double>{0.1, -1e300, 7}), "float64", {0.1, -1e300, 7}},
      {"HalfStorage", Bytes(std::vector<uint16_t>{0x3c00, 0xc000, 0x0001}), "float16", {1, -2, std::ldexp(1.0, -24)}},
      {"BFloat16Storage", Bytes(std::vector<uint16_t>{0x3f80, 0xc040, 0x3e80}), "float32", {1, -3, 0.25}},
      {"Float8_e4m3fnStorage", std::string("\x38\xc0\x01", 3), "float32", {1, -2, std::ldexp(1.0, -9)}},
      {"Float8_e5m2Storage", std::string("\x3c\xc0\x01", 3), "float32", {1, -2, std::ldexp(1.0, -16)}},
      {"CharStorage", std::string("\x01\xff\x80", 3), "int8", {1, -1, -128}},
      {"ShortStorage", Bytes(std::vector<int16_t>{-300, 2, 32767}), "int16", {-300, 2, 32767}},
      {"IntStorage", Bytes(std::vector<int32_t>{-70000, 0, 5}), "int32", {-70000, 0, 5}},
      {"LongStorage", Bytes(std::vector<int64_t>{-1, 1LL << 40, 3}), "int64", {-1, 1099511627776.0, 3}},
      {"ByteStorage", std::string("\x00\xff\x07", 3), "uint8", {0, 255, 7}},
      {"BoolStorage", std::string("\x01\x00\x01", 3), "bool", {1, 0, 1}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.cls);
    const std::string path = Write(dir, c.cls + ".pt", vptest::PtFileBytes(Spec(c.cls, 3, {3}), c.bytes));
    NpyArray a = MustRead(path);
    CHECK(a.dtype.name() == c.numpy);
    CHECK(a.shape == std::vector<uint64_t>{3});
    CHECK(std::vector<double>(a.data.begin(), a.data.end()) == c.want);
  }
  // Not read (msProbe's compare has no numpy form for them, or torch 1.x/2.x names we do not know):
  // refused with the class named.
  const std::string complex = Write(dir, "c.pt", vptest::PtFileBytes(Spec("ComplexFloatStorage", 1, {1}), std::string(8, '\0')));
  CHECK_THAT(ErrorOf(complex), Contains("c.pt") && Contains("torch.ComplexFloatStorage"));
}

TEST_CASE("pt: views: strides, storage offsets, shared storages, expanded axes, squeeze, 0-d and empty", "[pt]") {
  vptest::TempDir dir;
  std::vector<float> base(24);
  for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<float>(i);

  // x.t() of a 4 x 6 tensor: size (6, 4), stride (1, 6).
  vptest::PtTensorSpec t = Spec("FloatStorage", 24, {6, 4});
  t.stride = {1, 6};
  NpyArray a = MustRead(Write(dir, "t.pt", vptest::PtFileBytes(t, Bytes(base))));
  REQUIRE(a.size() == 24);
  CHECK(a.data[0] == 0);
  CHECK(a.data[1] == 6);
  CHECK(a.data[4] == 1);
  CHECK(a.data[23] == 23);

  // x[1:3, 2:5] of a 4 x 6 tensor (what msProbe's slicing saves): offset 8, size (2, 3), stride (6, 1).
  t = Spec("FloatStorage", 24, {2, 3});
  t.offset = 8;
  t.stride = {6, 1};
  a = MustRead(Write(dir, "s.pt", vptest::PtFileBytes(t, Bytes(base))));
  CHECK(std::vector<double>(a.data.begin(), a.data.end()) == std::vector<double>{8, 9, 10, 14, 15, 16});

  // A contiguous view at an offset into a larger shared storage; length-1 axes squeezed away.
  t = Spec("FloatStorage", 24, {1, 5, 1});
  t.offset = 19;
  a = MustRead(Write(dir, "o.pt", vptest::PtFileBytes(t, Bytes(base))));
  CHECK(a.shape == std::vector<uint64_t>{5});
  CHECK(std::vector<double>(a.data.begin(), a.data.end()) == std::vector<double>{19, 20, 21, 22, 23});

  // x.expand(3, 2) of a (1, 2) tensor: stride 0 on the first axis.
  t = Spec("FloatStorage", 24, {3, 2});
  t.stride = {0, 1};
  t.offset = 4;
  a = MustRead(Write(dir, "e.pt", vptest::PtFileBytes(t, Bytes(base))));
  CHECK(std::vector<double>(a.data.begin(), a.data.end()) == std::vector<double>{4, 5, 4, 5, 4, 5});
  // ... and x.expand(2, 3) of a (2, 1): stride 0 on the last axis.
  t.size = {2, 3};
  t.stride = {1, 0};
  a = MustRead(Write(dir, "e2.pt", vptest::PtFileBytes(t, Bytes(base))));
  CHECK(std::vector<double>(a.data.begin(), a.data.end()) == std::vector<double>{4, 4, 4, 5, 5, 5});

  // 0-d integer tensor: its exact bits for the 0-d MaxAbsErr.
  a = MustRead(Write(dir, "z.pt", vptest::PtFileBytes(Spec("LongStorage", 1, {}), Bytes(std::vector<int64_t>{-5}))));
  CHECK(a.is_scalar());
  CHECK(a.data[0] == -5);
  CHECK(static_cast<int64_t>(a.scalar_bits) == -5);

  // Zero-size tensor of an empty storage: msProbe's "This is empty data" row.
  a = MustRead(Write(dir, "n.pt", vptest::PtFileBytes(Spec("FloatStorage", 0, {0, 3}), "")));
  CHECK(a.size() == 0);
  CHECK(a.shape == std::vector<uint64_t>{0, 3});

  // A long row read in several chunks (the reader never holds the whole storage as bytes).
  std::vector<float> big(700000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 1000) * 0.5f;
  t = Spec("FloatStorage", big.size(), {350000});
  t.stride = {2};
  t.offset = 1;
  a = MustRead(Write(dir, "big.pt", vptest::PtFileBytes(t, Bytes(big))));
  REQUIRE(a.size() == 350000);
  bool all = true;
  for (size_t i = 0; i < a.size(); ++i) all = all && a.data[i] == big[1 + 2 * i];
  CHECK(all);
}

TEST_CASE("pt: the forms of other torch versions: Parameter, protocol 4, byteorder, ZIP64, archive names", "[pt]") {
  vptest::TempDir dir;
  const std::string bytes = Bytes(std::vector<float>{1, 2, 3, 4});
  vptest::PtTensorSpec t = Spec("FloatStorage", 4, {2, 2});
  t.parameter = true;
  t.requires_grad = true;
  Result<PtInfo> info = InspectPt(Write(dir, "p.pt", vptest::PtFileBytes(t, bytes)));
  REQUIRE(info.ok());
  CHECK(info->tensor.requires_grad);
  CHECK(MustRead(dir / "p.pt").size() == 4);

  t = Spec("FloatStorage", 4, {4});
  t.protocol4 = true;
  CHECK(MustRead(Write(dir, "p4.pt", vptest::PtFileBytes(t, bytes))).data[3] == 4);

  // torch >= 2.1 writes a byteorder record; a big-endian file is read in its order.
  std::string be;
  for (float f : {1.0f, -2.0f}) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int k = 3; k >= 0; --k) be += static_cast<char>((u >> (8 * k)) & 0xff);
  }
  NpyArray a = MustRead(Write(dir, "be.pt", vptest::PtFileBytes(Spec("FloatStorage", 2, {2}), be, "big")));
  CHECK(std::vector<double>(a.data.begin(), a.data.end()) == std::vector<double>{1, -2});
  a = MustRead(Write(dir, "le.pt", vptest::PtFileBytes(Spec("FloatStorage", 4, {4}), bytes, "little")));
  CHECK(a.data[0] == 1);

  a = MustRead(Write(dir, "z64.pt", vptest::PtFileBytes(Spec("FloatStorage", 4, {4}), bytes, "", true, "my_name")));
  CHECK(a.data[2] == 3);
}

TEST_CASE("pt: hostile and broken files: one message naming the file, nothing run", "[pt]") {
  vptest::TempDir dir;
  const std::string bytes = Bytes(std::vector<float>{1, 2, 3, 4});
  const std::string good = vptest::PtFileBytes(Spec("FloatStorage", 4, {4}), bytes);

  CHECK_THAT(ErrorOf(Write(dir, "text.pt", "just text, no zip")),
             Contains("text.pt: not a readable torch.save archive: not a zip"));
  CHECK_THAT(ErrorOf(Write(dir, "empty.pt", "")), Contains("empty.pt") && Contains("too short"));
  // The format before torch 1.6 (what torch.save(..., _use_new_zipfile_serialization=False) writes):
  // named, not read.
  const std::string legacy("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.\x80\x02M\xe9\x03.", 22);
  CHECK_THAT(ErrorOf(Write(dir, "legacy.pt", legacy)), Contains("legacy.pt") && Contains("the legacy torch.save format"));
  // Truncated at every length: never a crash, always a message naming the file.
  for (size_t n = 0; n < good.size(); n += 7) {
    CAPTURE(n);
    Result<NpyArray> r = ReadPt(Write(dir, "cut.pt", good.substr(0, n)));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Contains("cut.pt"));
  }
  // The storage record cut short of what the pickle claims.
  CHECK_THAT(ErrorOf(Write(dir, "short.pt", vptest::PtFileBytes(Spec("FloatStorage", 4, {4}), bytes.substr(0, 12)))),
             Contains("short.pt") && Contains("less than its 4 torch.float32 elements"));
  // A view that reaches past its storage.
  vptest::PtTensorSpec past = Spec("FloatStorage", 4, {3});
  past.offset = 2;
  CHECK_THAT(ErrorOf(Write(dir, "past.pt", vptest::PtFileBytes(past, bytes))), Contains("reaches element 4 of a storage of 4"));

  // A pickle naming a foreign global: refused by name, before anything else happens.
  for (const std::string g : {"cos\nsystem\n", "cbuiltins\neval\n", "cposix\nsystem\n", "ctorch\nload\n"}) {
    std::string pkl = std::string("\x80\x02", 2) + g + "X\x02\x00\x00\x00ls\x85R.";
    const std::string path =
        Write(dir, "evil.pt", vptest::StoredZipBytes({{"archive/data.pkl", pkl}, {"archive/version", "3\n"}}));
    const std::string msg = ErrorOf(path);
    CHECK_THAT(msg, Contains("evil.pt: refused: the pickle names the global"));
    std::string dotted = g.substr(1);
    dotted[dotted.find('\n')] = '.';
    dotted.pop_back();
    CHECK_THAT(msg, Contains("'" + dotted + "'"));
  }
  // A REDUCE of an allowed global that is not a tensor builder (a storage class called).
  std::string pkl = std::string("\x80\x02", 2) + "ctorch\nFloatStorage\n)R.";
  CHECK_THAT(ErrorOf(Write(dir, "call.pt", vptest::StoredZipBytes({{"a/data.pkl", pkl}}))),
             Contains("refused: the pickle calls 'torch.FloatStorage'"));
  // Opcodes torch.save never writes for a tensor (INST, OBJ, BUILD of a string, ...).
  pkl = std::string("\x80\x02", 2) + "ios\nsystem\n.";
  CHECK_THAT(ErrorOf(Write(dir, "inst.pt", vptest::StoredZipBytes({{"a/data.pkl", pkl}}))), Contains("opcode 0x69"));
  // A pickle of something else than a tensor (a dict of tensors: msProbe's detach() fails on it).
  pkl = std::string("\x80\x02}.", 4);
  CHECK_THAT(ErrorOf(Write(dir, "dict.pt", vptest::StoredZipBytes({{"a/data.pkl", pkl}}))),
             Contains("holds a dict, not a tensor"));
  // Malformed pickles: stack underflow, memo miss, no STOP.
  for (const std::string p : {std::string("\x80\x02t.", 4), std::string("\x80\x02h\x05.", 5), std::string("\x80\x02N", 3)}) {
    CHECK_THAT(ErrorOf(Write(dir, "bad.pt", vptest::StoredZipBytes({{"a/data.pkl", p}}))),
               Contains("bad.pt: not a readable torch.save file"));
  }
  // A compressed member: torch never writes one.
  std::string z = good;
  z[8] = 8;  // method of the first local header (the central directory's is what counts)
  const size_t cd = z.find("PK\x01\x02");
  z[cd + 10] = 8;
  CHECK_THAT(ErrorOf(Write(dir, "deflate.pt", z)), Contains("is compressed (method 8)"));
  // No data.pkl record.
  CHECK_THAT(ErrorOf(Write(dir, "nopkl.pt", vptest::StoredZipBytes({{"a/version", "3\n"}}))), Contains("no a/data.pkl record"));
  // The missing storage record.
  CHECK_THAT(ErrorOf(Write(dir, "nostore.pt",
                           vptest::StoredZipBytes({{"archive/data.pkl", vptest::TensorPickle(Spec("FloatStorage", 4, {4}))}}))),
             Contains("no storage record data/0"));
}

TEST_CASE("pt: .pt and .npy pairs give the same metrics through one path", "[pt][tensor]") {
  vptest::TempDir dir;
  std::vector<float> x(1000), y(1000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(std::sin(i * 0.3));
    y[i] = static_cast<float>(x[i] * (1 + 1e-3 * std::cos(i * 1.7)));
  }
  const std::string nd = dir / "npu/dump_tensor_data", bd = dir / "bench/dump_tensor_data";
  vptest::WriteFile(nd + "/a.pt", vptest::PtFileBytes(Spec("FloatStorage", x.size(), {10, 100}), Bytes(x)));
  vptest::WriteFile(bd + "/a.pt", vptest::PtFileBytes(Spec("FloatStorage", y.size(), {10, 100}), Bytes(y)));
  TensorMetrics pt = CompareTensorFiles(nd, "a.pt", bd, "a.pt");
  NpyArray xa = MustRead(nd + "/a.pt"), ya = MustRead(bd + "/a.pt");
  TensorMetrics direct = CompareTensors(xa, ya);
  for (int k = 0; k < kTensorMetricCount; ++k) CHECK(pt.values[k] == direct.values[k]);
  CHECK_FALSE(pt.values[kCosine].is_text);
  CHECK(pt.message.empty());

  // bfloat16 golden against a float32 target: both float32 after msProbe's upcast, so no dtype message.
  std::vector<uint16_t> bf(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &y[i], 4);
    bf[i] = static_cast<uint16_t>(u >> 16);
  }
  vptest::WriteFile(bd + "/b.pt", vptest::PtFileBytes(Spec("BFloat16Storage", bf.size(), {1000}), Bytes(bf)));
  vptest::WriteFile(nd + "/b.pt", vptest::PtFileBytes(Spec("FloatStorage", x.size(), {1000}), Bytes(x)));
  TensorMetrics m = CompareTensorFiles(nd, "b.pt", bd, "b.pt");
  CHECK(m.message.empty());
  CHECK_FALSE(m.values[kCosine].is_text);
  // float16 against float32: numpy dtypes differ, msProbe's informational message.
  std::vector<uint16_t> half(x.size(), 0x3c00);
  vptest::WriteFile(bd + "/h.pt", vptest::PtFileBytes(Spec("HalfStorage", half.size(), {1000}), Bytes(half)));
  m = CompareTensorFiles(nd, "b.pt", bd, "h.pt");
  CHECK(m.message == "Dtype of NPU and bench tensor do not match.");
}
