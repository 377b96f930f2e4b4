// Spec §11: overflow levels of dump entries (scenes, numerical mutation, ignore rules).
#include <catch2/catch.hpp>

#include "graph/overflow.h"
#include "test_util.h"

using namespace visprobe;

namespace {

// A tensor leaf with the given statistics texts (JSON tokens).
std::string T(const std::string& max, const std::string& min = "0.0", const std::string& mean = "0.5",
              const std::string& norm = "1.0", const std::string& type = "torch.Tensor") {
  return "{\"type\": \"" + type + "\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": " + max + ", \"Min\": " + min +
         ", \"Mean\": " + mean + ", \"Norm\": " + norm + "}";
}
const std::string kOk = T("1.0");
const std::string kInf = T("Infinity");

Overflow Level(const std::string& name, const std::string& entry) {
  auto p = vptest::ParseObject("{\"e\": " + entry + "}");
  REQUIRE(p->status.ok());
  return CheckOverflow(p->tree, p->Get("e"), name);
}

std::string Entry(const std::string& args, const std::string& outs, const std::string& kwargs = "{}") {
  return "{\"input_args\": [" + args + "], \"input_kwargs\": " + kwargs + ", \"output\": [" + outs + "]}";
}

}  // namespace

TEST_CASE("§11.1 scenes: critical, high, medium, normal") {
  CHECK(Level("Torch.sum.0.forward", Entry(kOk, kInf)) == Overflow::kCritical);
  CHECK(Level("Torch.sum.0.forward", Entry(kInf, kInf)) == Overflow::kHigh);
  CHECK(Level("Torch.sum.0.forward", Entry(kInf, kOk)) == Overflow::kMedium);
  CHECK(Level("Torch.sum.0.forward", Entry(kOk, kOk)) == Overflow::kNone);
  CHECK(Level("Torch.sum.0.forward", Entry(kOk, kOk, "{\"x\": " + kInf + "}")) == Overflow::kMedium);
  CHECK(Level("Torch.sum.0.forward", "{}") == Overflow::kNone);
}

TEST_CASE("§11.1 backward entries use `input` when there are no input_args") {
  CHECK(Level("Torch.sum.0.backward", "{\"input\": [" + kInf + "], \"output\": [" + kOk + "]}") == Overflow::kMedium);
  CHECK(Level("Torch.sum.0.backward", "{\"input\": [" + kOk + "], \"output\": [" + kOk + ", null]}") == Overflow::kNone);
}

TEST_CASE("§11.1 Max, Min and Mean are examined: floats and strings inf / -inf / nan in any case") {
  CHECK(Level("Torch.a.0.forward", Entry(kOk, T("1.0", "-Infinity"))) == Overflow::kCritical);
  CHECK(Level("Torch.a.0.forward", Entry(kOk, T("1.0", "0.0", "NaN"))) == Overflow::kCritical);
  CHECK(Level("Torch.a.0.forward", Entry(kOk, T("\"inf\""))) == Overflow::kCritical);
  CHECK(Level("Torch.a.0.forward", Entry(kOk, T("\"NaN\""))) == Overflow::kCritical);
  CHECK(Level("Torch.a.0.forward", Entry(kOk, T("\"-INF\""))) == Overflow::kCritical);
  CHECK(Level("Torch.a.0.forward", Entry(kOk, T("\"infinity\""))) == Overflow::kNone);
  CHECK(Level("Torch.a.0.forward", Entry(kOk, T("\"1.0\""))) == Overflow::kNone);
}

TEST_CASE("§11.1 nested lists are examined recursively") {
  CHECK(Level("Torch.a.0.forward", Entry(kOk, "[[" + kInf + "]]")) == Overflow::kCritical);
  CHECK(Level("Torch.a.0.forward", Entry("[" + kInf + "]", kOk)) == Overflow::kMedium);
}

TEST_CASE("§11.1 Norm is not examined for the inf/nan check") {
  // A non-finite input Norm is neither an input anomaly nor a mutation (mo / inf = 0).
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "Infinity"), kOk)) == Overflow::kNone);
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "NaN"), T("1.0", "0.0", "0.5", "NaN"))) == Overflow::kNone);
}

TEST_CASE("§11.1 numerical mutation: output/input max Norm ratio above 100") {
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "1.0"), T("1.0", "0.0", "0.5", "100.5"))) == Overflow::kHigh);
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "1.0"), T("1.0", "0.0", "0.5", "100.0"))) == Overflow::kNone);
  // max over all inputs (args and kwargs) and all outputs
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "0.5") + ", " + T("1.0", "0.0", "0.5", "2.0"),
                                         T("1.0", "0.0", "0.5", "150.0"))) == Overflow::kNone);
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "0.5"), T("1.0", "0.0", "0.5", "60.0"),
                                         "{\"w\": " + T("1.0", "0.0", "0.5", "0.1") + "}")) == Overflow::kHigh);
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "0.5"), T("1.0", "0.0", "0.5", "60.0"),
                                         "{\"w\": " + T("1.0", "0.0", "0.5", "1.0") + "}")) == Overflow::kNone);
}

TEST_CASE("§11.1 numerical mutation with mi == 0: output max Norm above 100") {
  CHECK(Level("Torch.a.0.forward", Entry(T("0.0", "0.0", "0.0", "0.0"), T("1.0", "0.0", "0.5", "101"))) == Overflow::kHigh);
  CHECK(Level("Torch.a.0.forward", Entry(T("0.0", "0.0", "0.0", "0"), T("1.0", "0.0", "0.5", "100"))) == Overflow::kNone);
}

TEST_CASE("§11.1 numerical mutation only counts torch.Tensor objects with a numeric, non-NaN Norm") {
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "1.0", "mindspore.Tensor"), T("1.0", "0.0", "0.5", "1000.0"))) ==
        Overflow::kNone);
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "null"), T("1.0", "0.0", "0.5", "1000.0"))) == Overflow::kNone);
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "\"1.0\""), T("1.0", "0.0", "0.5", "1000.0"))) ==
        Overflow::kNone);
  CHECK(Level("Torch.a.0.forward", Entry(T("1.0", "0.0", "0.5", "1"), "")) == Overflow::kNone);
  // tensors nested in a list argument do not count (only direct args / kwarg values / outputs)
  CHECK(Level("Torch.a.0.forward", Entry("[" + T("1.0", "0.0", "0.5", "1.0") + "]", T("1.0", "0.0", "0.5", "1000.0"))) ==
        Overflow::kNone);
}

TEST_CASE("§11.2 ignore rule torch.empty*: output 0 only") {
  CHECK(Level("Torch.empty.0.forward", Entry(kOk, kInf)) == Overflow::kNone);
  CHECK(Level("Torch.empty_like.0.forward", Entry(kOk, kInf)) == Overflow::kNone);
  CHECK(Level("Torch.empty_strided.3.forward", Entry(kOk, kInf)) == Overflow::kNone);
  CHECK(Level("Torch.empty.0.forward", Entry(kOk, kOk + ", " + kInf)) == Overflow::kCritical);
  CHECK(Level("Torch.empty.0.forward", Entry(kOk, kInf + ", " + kInf)) == Overflow::kCritical);
  // the rule defines no input check: an abnormal input does not prevent the ignore
  CHECK(Level("Torch.empty.0.forward", Entry(kInf, kInf)) == Overflow::kNone);
  // other APIs with the same anomaly are kept
  CHECK(Level("Torch.zeros.0.forward", Entry(kOk, kInf)) == Overflow::kCritical);
}

TEST_CASE("§11.2 ignore rule distributed.recv: input 0 and kwarg tensor") {
  CHECK(Level("Distributed.recv.0.forward", Entry(kInf, kOk)) == Overflow::kNone);
  CHECK(Level("Distributed.recv.0.forward", Entry(kOk, kOk, "{\"tensor\": " + kInf + "}")) == Overflow::kNone);
  CHECK(Level("Distributed.recv.0.forward", Entry(kOk + ", " + kInf, kOk)) == Overflow::kMedium);
  CHECK(Level("Distributed.recv.0.forward", Entry(kOk, kOk, "{\"src\": " + kInf + "}")) == Overflow::kMedium);
  // no output indices in the rule: output anomalies are not checked by it
  CHECK(Level("Distributed.recv.0.forward", Entry(kOk, kInf)) == Overflow::kNone);
}

TEST_CASE("§11.2 ignore rules of the gather / reduce-scatter family and masked_fill_") {
  CHECK(Level("Distributed.all_gather.0.forward", Entry(kInf, kOk)) == Overflow::kNone);
  CHECK(Level("Distributed._reduce_scatter_base.0.forward", Entry(kInf, kOk)) == Overflow::kNone);
  CHECK(Level("Distributed.all_gather_into_tensor.0.forward", Entry(kInf, kOk)) == Overflow::kNone);
  CHECK(Level("Distributed.reduce_scatter_tensor.0.forward", Entry(kInf, kOk)) == Overflow::kNone);
  CHECK(Level("Tensor.masked_fill_.0.forward", Entry(kInf, kOk)) == Overflow::kNone);
  CHECK(Level("Tensor.masked_fill_.0.forward", Entry(kOk + ", " + kInf, kOk)) == Overflow::kMedium);
  CHECK(Level("Distributed.reduce_scatter.0.forward", Entry(kOk, kOk, "{\"output\": " + kInf + "}")) == Overflow::kNone);
  CHECK(Level("Distributed.reduce_scatter.0.forward", Entry(kOk, kOk, "{\"input\": " + kInf + "}")) == Overflow::kMedium);
  // all_gather has no kwarg names: a bad kwarg does not prevent the ignore
  CHECK(Level("Distributed.all_gather.0.forward", Entry(kInf, kOk, "{\"group\": " + kInf + "}")) == Overflow::kNone);
}

TEST_CASE("§11.3 parameters_grad entries never qualify") {
  CHECK(Level("Module.a.A.parameters_grad.0", "{\"weight\": [" + kInf + "]}") == Overflow::kNone);
}

TEST_CASE("§11.3/§18.4 the worked example's Torch.sum.0.forward is critical when built with -oc") {
  vptest::TempDir t;
  vptest::CopyRankFolder(vptest::WorkedExampleDir(), t.path());
  BuildOptions o;
  o.overflow_check = true;
  auto r = BuildGraph(t.path(), o);
  REQUIRE(r.ok());
  const Graph& g = *r.value();
  for (NodeId id = 0; id < g.size(); ++id) {
    INFO(g.node(id).name);
    CHECK(g.node(id).overflow == (g.node(id).name == "Torch.sum.0.forward" ? Overflow::kCritical : Overflow::kNone));
  }
  auto plain = BuildGraph(t.path(), BuildOptions());
  REQUIRE(plain.ok());
  CHECK(plain.value()->node(plain.value()->Find("Torch.sum.0.forward")).overflow == Overflow::kNone);
}
