// CompareNode's checkers on items parsed from small entries (§9.4).
#include <catch2/catch.hpp>

#include <string>

#include "compare/compare.h"
#include "graph/items.h"
#include "test_util.h"

using namespace visprobe;

namespace {

// The captured items of one dump entry whose single input tensor has the given Max (a JSON value).
NodeItems Captured(const std::string& max_json) {
  auto p = vptest::ParseObject(R"({"e": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2],
                                    "Max": )" +
                               max_json + R"(, "Min": 0.0, "Mean": 0.5, "Norm": 1.0,
                                    "requires_grad": false}]}})");
  REQUIRE(p->status.ok());
  ItemOptions o;
  o.capture = true;
  NodeItems items;
  REQUIRE(ParseEntryItems(p->tree, p->Get("e"), "Torch.x.0.forward", o, items).ok());
  REQUIRE(items.inputs.size() == 1);
  return items;
}

}  // namespace

TEST_CASE("§9.4 InfNan: a Max that reads as inf, -inf or nan after lower() and strip() is an error") {
  const NodeItems bench = Captured("1.0");
  CompareSettings s;
  s.mode = CompareMode::kSummary;
  const std::string kMsg = "There is nan/inf/-inf in the maximum or minimum value of NPU.";
  struct Case {
    const char* max;
    bool bad;
  };
  for (const Case& c :
       {Case{"\"inf\"", true}, Case{"\" INF \"", true}, Case{"\"-Inf\\n\"", true}, Case{"\"\\tNaN\"", true},
        Case{"\"nan\"", true}, Case{"\"info\"", false}, Case{"\"in f\"", false}, Case{"\"-nan\"", false}, Case{"\"\"", false},
        Case{"\"  \"", false}, Case{"\"+inf\"", false}, Case{"2.5", false}, Case{"Infinity", true}, Case{"NaN", true}}) {
    INFO("Max " << c.max);
    const NodeItems npu = Captured(c.max);
    const NodeComparison r = CompareNode(s, "Torch.x.0.forward", npu, bench.cmp);
    REQUIRE(r.input_extra.size() == 1);
    CHECK((r.input_extra[0].find(kMsg) != std::string::npos) == c.bad);
  }
}
