// Spec §7 (dump entry -> items) and §12 (node-data formatting), §17 item 32, through
// ParseEntryItems on small entries; the rendered texts are the database's input_data/output_data.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "base/pyfmt.h"
#include "graph/entry_parser.h"
#include "graph/items.h"
#include "graph/value_format.h"
#include "test_util.h"

using namespace visprobe;
using vptest::ItemKeys;
using vptest::ItemsOf;
using Names = std::vector<std::string>;

namespace {

std::string Fmt(const std::string& s) {
  std::string out;
  AppendFormattedString(out, s);
  return out;
}

const char kTensor[] =
    R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false})";
const char kTensorText[] =
    R"("type": "torch.Tensor", "dtype": "torch.float32", "shape": "[2]", "Max": "1.0", "Min": "0.0", "Mean": "0.5", "Norm": "1.0", "requires_grad": "False", "data_name": "-1")";

std::string Nest(int k) { return std::string(k, '[') + "null" + std::string(k, ']'); }

}  // namespace

TEST_CASE("§17.32 formatting of decimal strings (§12 rule 3)") {
  CHECK(Fmt("0.123456789%") == "0.123457%");
  CHECK(Fmt("0.12345678") == "0.123457");
  CHECK(Fmt("-1") == "-1");
  CHECK(Fmt("0.0.25698548%") == "0.0.25698548%");
  CHECK(Fmt("89.99999993823302%") == "90.000000%");
  CHECK(Fmt("<class 'int'>") == "<class int>");
  CHECK(Fmt("<class 'NoneType'>") == "<class nullType>");
  CHECK(Fmt("0.123456") == "0.123456");  // exactly 6 decimals: unchanged
  CHECK(Fmt("-0.12345678") == "-0.12345678");  // signed strings are never rounded
  CHECK(Fmt("1e-05") == "1e-05");
  CHECK(Fmt("12.") == "12.");
  CHECK(Fmt(" ") == " ");
  CHECK(Fmt("inf\t") == "inf\t");
  CHECK(Fmt("None") == "null");
  CHECK(Fmt("it's None or 'None'") == "its null or null");
  CHECK(Fmt("123456789012345678901.1234567") == "123456789012345678901.1234567");  // 21 integer digits
}

TEST_CASE("§12 _format_data example: numbers are printed with pystr, not rounded") {
  auto r = ItemsOf("Torch.x.0.forward", R"({"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32",
      "shape": [10, 3, 64, 64], "Max": 0.123456789, "Min": 1.123123123123e-11, "Mean": Infinity, "Norm": -1,
      "requires_grad": true, "value1": null, "value2": "<class 'str'>", "s": "0.12345678"}]})");
  REQUIRE(r.status.ok());
  CHECK(r.in() ==
        R"({"Torch.x.0.forward.input.0": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": "[10, 3, 64, 64]", )"
        R"("Max": "0.123456789", "Min": "1.123123123123e-11", "Mean": "inf", "Norm": "-1", "requires_grad": "True", )"
        R"("value1": "null", "value2": "<class str>", "s": "0.123457", "data_name": "-1"}})");
  CHECK(r.out() == "{}");
}

TEST_CASE("§12 rule 4: an item whose Max is null collapses to {\"value\": \"null\"}") {
  auto r = ItemsOf("Torch.x.0.forward", R"({"input_args": [null, {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2]},
      {"type": "str"}, {"type": "int", "value": null}]})");
  REQUIRE(r.status.ok());
  CHECK(r.in() == R"({"Torch.x.0.forward.input.0": {"value": "null"}, "Torch.x.0.forward.input.1": {"value": "null"}, )"
                  R"("Torch.x.0.forward.input.2": {"value": "null"}, "Torch.x.0.forward.input.3": {"value": "null"}})");
}

TEST_CASE("§7.3 scalar leaves: dtype <class ...>, shape [], statistics = value") {
  auto r = ItemsOf("Torch.x.0.forward", R"({"input_args": [{"type": "int", "value": 2}, {"type": "bool", "value": false},
      {"type": "float", "value": 0.5}, {"type": "str", "value": "mean"}, {"type": "list", "value": [1, 2]}]})");
  REQUIRE(r.status.ok());
  CHECK(
      r.in() ==
      R"({"Torch.x.0.forward.input.0": {"type": "int", "value": "2", "data_name": "-1", "requires_grad": "null", "Max": "2", "Min": "2", "Mean": "2", "Norm": "2", "dtype": "<class int>", "shape": "[]"}, )"
      R"("Torch.x.0.forward.input.1": {"type": "bool", "value": "False", "data_name": "-1", "requires_grad": "null", "Max": "False", "Min": "False", "Mean": "False", "Norm": "False", "dtype": "<class bool>", "shape": "[]"}, )"
      R"("Torch.x.0.forward.input.2": {"type": "float", "value": "0.5", "data_name": "-1", "requires_grad": "null", "Max": "0.5", "Min": "0.5", "Mean": "0.5", "Norm": "0.5", "dtype": "<class float>", "shape": "[]"}, )"
      R"("Torch.x.0.forward.input.3": {"type": "str", "value": "mean", "data_name": "-1", "requires_grad": "null", "Max": "mean", "Min": "mean", "Mean": "mean", "Norm": "mean", "dtype": "<class str>", "shape": "[]"}, )"
      R"("Torch.x.0.forward.input.4": {"type": "list", "value": "[1, 2]", "data_name": "-1", "requires_grad": "null", "Max": "[1, 2]", "Min": "[1, 2]", "Mean": "[1, 2]", "Norm": "[1, 2]", "dtype": "<class list>", "shape": "[]"}})");
}

TEST_CASE("§7.3 torch.Size and slice items keep dtype/shape but collapse (no statistics)") {
  auto r = ItemsOf("Tensor.view.0.forward",
                   R"({"input_args": [{"type": "torch.Size", "value": [2, 3]}, {"type": "slice", "value": [0, 10, null]}]})");
  REQUIRE(r.status.ok());
  REQUIRE(r.items.inputs.size() == 2);
  CHECK(r.items.inputs[0].collapsed);
  CHECK(r.items.inputs[1].collapsed);
  CHECK_THAT(std::string(r.items.Text(r.items.inputs[0])), Catch::Contains(R"("dtype": "torch.Size", "shape": "[2, 3]")"));
  CHECK_THAT(std::string(r.items.Text(r.items.inputs[1])), Catch::Contains(R"J("dtype": "slice", "shape": "(3,)")J"));
  CHECK(r.in() == R"({"Tensor.view.0.forward.input.0": {"value": "null"}, "Tensor.view.0.forward.input.1": {"value": "null"}})");
}

TEST_CASE("§7.3 ellipsis items: dtype ellipsis, shape [], statistics = value") {
  auto r = ItemsOf("Tensor.__getitem__.0.forward", R"({"input_args": [{"type": "ellipsis", "value": "..."}]})");
  REQUIRE(r.status.ok());
  CHECK(
      r.in() ==
      R"({"Tensor.__getitem__.0.forward.input.0": {"type": "ellipsis", "value": "...", "data_name": "-1", "requires_grad": "null", )"
      R"("Max": "...", "Min": "...", "Mean": "...", "Norm": "...", "dtype": "ellipsis", "shape": "[]"}})");
}

TEST_CASE("§7.3 src/dst items: dtype = type, statistics and md5 from str(value)") {
  auto r = ItemsOf("Distributed.broadcast.0.forward",
                   R"({"input_kwargs": {"src": {"type": "int", "value": 0}, "group_dst": {"type": "int", "value": 3}}})");
  REQUIRE(r.status.ok());
  CHECK(
      r.in() ==
      R"({"Distributed.broadcast.0.forward.input.src": {"type": "int", "value": "0", "data_name": "-1", "requires_grad": "null", "Max": "0", "Min": "0", "Mean": "0", "Norm": "0", "dtype": "int", "shape": "[]"}, )"
      R"("Distributed.broadcast.0.forward.input.group_dst": {"type": "int", "value": "3", "data_name": "-1", "requires_grad": "null", "Max": "3", "Min": "3", "Mean": "3", "Norm": "3", "dtype": "int", "shape": "[]"}})");
  auto m = ItemsOf("Distributed.broadcast.0.forward", R"({"input_kwargs": {"src": {"type": "int", "value": 0}}})", true);
  REQUIRE(m.status.ok());
  CHECK_THAT(m.in(), Catch::EndsWith(R"("dtype": "int", "shape": "[]", "md5": "f4dbdf21"}})"));
}

TEST_CASE("§7.3/§12 rule 2: a torch.ProcessGroup keeps type, group_ranks, group_id, data_name") {
  auto r = ItemsOf("Distributed.all_reduce.0.forward",
                   R"({"input_kwargs": {"group": {"type": "torch.ProcessGroup", "group_ranks": [0, 1], "group_id": "123"}}})");
  REQUIRE(r.status.ok());
  CHECK(
      r.in() ==
      R"({"Distributed.all_reduce.0.forward.input.group": {"type": "torch.ProcessGroup", "group_ranks": "[0, 1]", "group_id": "123", "data_name": "-1"}})");
  auto m =
      ItemsOf("Distributed.all_reduce.0.forward",
              R"({"input_kwargs": {"group": {"type": "torch.ProcessGroup", "group_ranks": [0, 1], "group_id": "123"}}})", true);
  CHECK(m.in() == r.in());
}

TEST_CASE("§7.1/§18.5 md5 mode keeps md5: CRC-32 of str(value), 00000000 without value, the file's own md5 otherwise") {
  auto r = ItemsOf(
      "Functional.relu.0.forward",
      std::string(R"({"input_args": [{"type": "bool", "value": false}, {"type": "int", "value": 1},
      {"type": "float", "value": 0.5}, {"type": "torch.dtype", "value": "torch.float32"}, )") +
          kTensor +
          R"(, {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false, "md5": "aabbccdd"}]})",
      true);
  REQUIRE(r.status.ok());
  REQUIRE(r.items.inputs.size() == 6);
  auto text = [&](size_t i) { return std::string(r.items.Text(r.items.inputs[i])); };
  CHECK_THAT(text(0), Catch::EndsWith(R"("dtype": "<class bool>", "shape": "[]", "md5": "ea0c4734")"));
  CHECK_THAT(text(1), Catch::EndsWith(R"("md5": "83dcefb7")"));
  CHECK_THAT(text(2), Catch::EndsWith(R"("md5": "869ef18d")"));
  CHECK_THAT(text(3), Catch::EndsWith(R"("md5": "d8ca9648")"));
  CHECK(text(4) == std::string(kTensorText) + R"(, "md5": "00000000")");
  CHECK(
      text(5) ==
      R"("type": "torch.Tensor", "dtype": "torch.float32", "shape": "[2]", "Max": "1.0", "Min": "0.0", "Mean": "0.5", "Norm": "1.0", "requires_grad": "False", "md5": "aabbccdd", "data_name": "-1")");
  // Outside md5 mode md5 is removed (§12 rule 1).
  auto b = ItemsOf("Functional.relu.0.forward", std::string(R"({"input_args": [{"type": "bool", "value": false}]})"));
  CHECK_THAT(b.in(), !Catch::Contains("md5"));
}

TEST_CASE("§7.2 item names: list indexes, nested lists, kwargs keys, parameters") {
  auto r = ItemsOf("Module.fc.Linear.forward.0",
                   std::string(R"({"parameters": {"weight": )") + kTensor + R"(}, "output": [)" + kTensor +
                       R"(], "input_args": [)" + kTensor + ", [null, " + kTensor +
                       R"(]], "input_kwargs": {"dtype": {"type": "torch.dtype", "value": "torch.float32"}}})");
  REQUIRE(r.status.ok());
  // input_args, input_kwargs, input, output, parameters: parameters after the inputs whatever the file order.
  CHECK(ItemKeys(r.items, false) == Names{"Module.fc.Linear.forward.0.input.0", "Module.fc.Linear.forward.0.input.1.0",
                                          "Module.fc.Linear.forward.0.input.1.1", "Module.fc.Linear.forward.0.input.dtype",
                                          "Module.fc.Linear.forward.0.parameters.weight"});
  CHECK(ItemKeys(r.items, true) == Names{"Module.fc.Linear.forward.0.output.0"});
}

TEST_CASE("§7.2 bare scalars and empty containers contribute nothing") {
  auto r =
      ItemsOf("Torch.x.0.forward", R"({"input_args": [1, "s", true, 0, "", [], {}], "input_kwargs": {"k": 3}, "output": 5})");
  REQUIRE(r.status.ok());
  CHECK(r.items.empty());
}

TEST_CASE("§7.2 parameters_grad: list indexes are not appended, the later tensor wins") {
  auto r = ItemsOf(
      "Module.a.A.parameters_grad.0",
      std::string(R"({"weight": [)") + kTensor +
          R"(, {"type": "torch.Tensor", "dtype": "torch.float16", "shape": [3], "Max": 2.0, "Min": 1.0, "Mean": 1.5, "Norm": 3.0, "requires_grad": false}], "bias": [)" +
          kTensor + "]}");
  REQUIRE(r.status.ok());
  CHECK(ItemKeys(r.items, false) == Names{"Module.a.A.parameters_grad.0.weight", "Module.a.A.parameters_grad.0.bias"});
  CHECK_THAT(std::string(r.items.Text(r.items.inputs[0])), Catch::Contains(R"("dtype": "torch.float16")"));
  CHECK(r.items.outputs.empty());
  auto old = ItemsOf("Module.a.A.parameters_grad", std::string(R"({"weight": [)") + kTensor + "]}");
  CHECK(ItemKeys(old.items, false) == Names{"Module.a.A.parameters_grad.weight"});
}

TEST_CASE("§7.2 debug entries are walked as a whole") {
  auto r = ItemsOf("Torch.x.debug", R"({"val": {"type": "int", "value": 1}})");
  REQUIRE(r.status.ok());
  CHECK(ItemKeys(r.items, false) == Names{"Torch.x.debug.val"});
}

TEST_CASE("§7.4 split: .output. goes to output_data, everything else to input_data") {
  auto r = ItemsOf("Distributed.broadcast.0.forward",
                   std::string(R"({"input_args": [)") + kTensor +
                       R"(, {"type": "int", "value": 0}], "input_kwargs": {"group": null}, "output": [)" + kTensor +
                       R"(, {"type": "int", "value": 0}, null]})");
  REQUIRE(r.status.ok());
  CHECK(ItemKeys(r.items, false) == Names{"Distributed.broadcast.0.forward.input.0", "Distributed.broadcast.0.forward.input.1",
                                          "Distributed.broadcast.0.forward.input.group"});
  CHECK(ItemKeys(r.items, true) == Names{"Distributed.broadcast.0.forward.output.0", "Distributed.broadcast.0.forward.output.1",
                                         "Distributed.broadcast.0.forward.output.2"});
}

TEST_CASE("§7.4 quirk: a module path containing .input. sends its outputs to input_data") {
  auto r =
      ItemsOf("Module.input.X.forward.0", std::string(R"({"input_args": [)") + kTensor + R"(], "output": [)" + kTensor + "]}");
  REQUIRE(r.status.ok());
  CHECK(r.items.outputs.empty());
  CHECK(ItemKeys(r.items, false) == Names{"Module.input.X.forward.0.input.0", "Module.input.X.forward.0.output.0"});
}

TEST_CASE("§7.4 data_name gives the key (without extension) and full_op_name") {
  auto r = ItemsOf(
      "Torch.a.0.forward",
      R"({"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "data_name": "Torch.a.0.forward.input.0.pt"}],
      "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "data_name": "Torch.a.0.forward.output.0.npy"},
                 {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "data_name": "renamed.npy"}]})");
  REQUIRE(r.status.ok());
  CHECK(ItemKeys(r.items, false) == Names{"Torch.a.0.forward.input.0", "renamed"});
  CHECK(ItemKeys(r.items, true) == Names{"Torch.a.0.forward.output.0"});
  CHECK(
      std::string(r.items.Text(r.items.inputs[0])) ==
      R"("type": "torch.Tensor", "dtype": "torch.float32", "shape": "[2]", "Max": "1.0", "Min": "0.0", "Mean": "0.5", "Norm": "1.0", "data_name": "Torch.a.0.forward.input.0.pt", "requires_grad": "null")");
}

TEST_CASE("§7.4 a later item with the same key replaces the earlier one at the first position") {
  auto r = ItemsOf("Torch.x.0.forward", std::string(R"({"input_args": [)") + kTensor + ", " + kTensor +
                                            R"(], "input": [{"type": "int", "value": 7}]})");
  REQUIRE(r.status.ok());
  CHECK(ItemKeys(r.items, false) == Names{"Torch.x.0.forward.input.0", "Torch.x.0.forward.input.1"});
  CHECK_THAT(std::string(r.items.Text(r.items.inputs[0])), Catch::Contains(R"("value": "7")"));
  CHECK(std::string(r.items.Text(r.items.inputs[1])) == kTensorText);
}

TEST_CASE("§7.2 P2POp objects: the tensor item plus class_type, op, peer, tag, group_id") {
  const std::string p2p =
      std::string(
          R"({"input_args": [[{"class_type": "torch.distributed.P2POp", "op": "isend", "peer": 1, "tag": 0, "group_id": "g", "tensor": )") +
      kTensor + "}]]}";
  auto r = ItemsOf("Distributed.isend.0.forward", p2p);
  REQUIRE(r.status.ok());
  CHECK(r.in() == std::string(R"({"Distributed.isend.0.forward.input.0.0": {)") + kTensorText +
                      R"(, "class_type": "torch.distributed.P2POp", "op": "isend", "peer": "1", "tag": "0", "group_id": "g"}})");
  // §12 rule 1: batch_isend_irecv nodes drop op, peer, tag and group_id.
  auto b = ItemsOf("Distributed.batch_isend_irecv.0.forward", p2p);
  REQUIRE(b.status.ok());
  CHECK(b.in() == std::string(R"({"Distributed.batch_isend_irecv.0.forward.input.0.0": {)") + kTensorText +
                      R"(, "class_type": "torch.distributed.P2POp"}})");
  // Without a tensor object: a default (collapsed) item.
  auto d =
      ItemsOf("Distributed.isend.0.forward", R"({"input_args": [{"class_type": "torch.distributed.P2POp", "op": "isend"}]})");
  REQUIRE(d.status.ok());
  CHECK(d.in() == R"({"Distributed.isend.0.forward.input.0": {"value": "null"}})");
}

TEST_CASE("§7.2 nesting deeper than 400 levels fails with the recursion-limit error") {
  auto ok = ItemsOf("Torch.x.0.forward", "{\"input_args\": " + Nest(400) + "}");
  CHECK(ok.status.ok());
  CHECK(ok.items.inputs.size() == 1);
  auto bad = ItemsOf("Torch.x.0.forward", "{\"input_args\": " + Nest(401) + "}");
  REQUIRE_FALSE(bad.status.ok());
  CHECK_THAT(bad.status.message(), Catch::Contains("exceeds the recursion limit"));
}

TEST_CASE("§12 rule 3: the error_key field is not formatted") {
  auto r = ItemsOf("Torch.x.0.forward",
                   R"({"input_args": [{"type": "torch.Tensor", "dtype": "x", "Max": 1, "error_key": "it's None 0.12345678"}]})");
  REQUIRE(r.status.ok());
  CHECK_THAT(r.in(), Catch::Contains(R"("error_key": "it's None 0.12345678")"));
}

TEST_CASE("§12 non-ASCII and control characters in values are written with json.dumps escapes") {
  auto r = ItemsOf("Torch.x.0.forward", R"({"input_args": [{"type": "str", "value": "caf\u00e9\n"}]})");
  REQUIRE(r.status.ok());
  CHECK_THAT(r.in(), Catch::Contains(R"("value": "caf\u00e9\n")"));
}

TEST_CASE("§12 rule 3: the decimal rule on repr(v) + '%' without reading v back equals the rule on the text") {
  auto via_text = [](double v) {
    std::string s;
    AppendFormattedString(s, PyFloat(v) + "%");
    return s;
  };
  auto direct = [](double v, std::string_view suffix) {
    std::string s = "prefix:";  // appends after what is there
    AppendFormattedRepr(s, v, suffix);
    return s.substr(7);
  };
  // Ties in the text (7 decimals, the last a 5), carries through the integer part, short forms,
  // exponent forms, non-finite values and negatives.
  for (double v : {0.1234565,
                   1.0000005,
                   9.9999995,
                   0.0001235,
                   2.5000005,
                   99.9999995,
                   0.9999996,
                   9.99999951,
                   999999.9999999,
                   0.0,
                   1.5,
                   12.125,
                   1e-05,
                   3.3e-07,
                   1e16,
                   1.2345678e+20,
                   -0.12345678,
                   std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(),
                   0.000123456789}) {
    INFO(PyFloat(v));
    CHECK(direct(v, "%") == via_text(v));
    std::string plain;
    AppendFormattedString(plain, PyFloat(v));
    CHECK(direct(v, "") == plain);
  }
  // Many values with 7 to 17 decimals: relative errors of statistics look like these.
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double mant = static_cast<double>(x >> 11) / 9007199254740992.0;  // [0, 1)
    double v = mant * std::pow(10.0, static_cast<int>(x % 9) - 3);  // 1e-3 .. 1e5
    if (i % 4 == 0) v = std::round(v * 1e7) / 1e7;  // 7 decimals: ties are common
    REQUIRE(direct(v, "%") == via_text(v));
  }
}

namespace {

std::string CmpText(const CmpValue& v) {
  return std::to_string(v.kind) + "|" + std::to_string(v.b) + "|" + std::to_string(v.i) + "|" +
         (std::isnan(v.d) ? std::string("nan") : std::to_string(v.d)) + "|" + v.s;
}

// Everything ParseEntryItems hands on, as one text: keys, texts, flags, captured values.
std::string Everything(const NodeItems& it) {
  std::string s;
  for (const auto* list : {&it.inputs, &it.outputs}) {
    s += "[";
    for (const ItemRef& r : *list) {
      s += std::string(it.Key(r)) + " => " + std::string(it.Text(r)) + " c" + std::to_string(r.collapsed) + " g" +
           std::to_string(r.process_group);
      if (r.cmp != UINT32_MAX) {
        const CmpItem& c = it.cmp[r.cmp];
        s += " {" + c.name + "," + std::to_string(static_cast<int>(c.state)) + "," + c.data_name + "," + CmpText(c.dtype) + "," +
             CmpText(c.shape) + "," + CmpText(c.requires_grad) + "," + CmpText(c.md5);
        for (const CmpValue& v : c.stats) s += "," + CmpText(v);
        s += "}";
      }
      s += "\n";
    }
    s += "]";
  }
  return s;
}

}  // namespace

TEST_CASE("the one-pass way for common tensor leaves gives exactly the general way's items") {
  // Leaves that take the one-pass way and leaves that must not (each falls back by itself), under
  // every option, in entries whose names send items to input_data and to output_data.
  const std::vector<std::string> leaves = {
      kTensor,
      R"({"type": "torch.Tensor", "dtype": "torch.bfloat16", "shape": [1024, 1, 1024], "Max": 6.1875, "Min": -4.375, "Mean": -0.025634765625, "Norm": 964.0, "requires_grad": true, "data_name": "Module.a.forward.0.input.0.pt"})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": null, "Min": null, "Mean": null, "Norm": null})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": "None", "Min": "null", "Mean": "0.12345678", "Norm": "it's"})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": "null", "data_name": ""})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "data_name": null, "md5": "0a1b2c3d"})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "data_name": true, "requires_grad": false})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "data_name": false})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "data_name": 12.5})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "data_name": "no_dot"})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "data_name": ".output.x.pt"})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 123456789012345678901234567890, "Min": NaN, "Mean": -Infinity, "Norm": 1e-05})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [], "Max": [1, [2.5, null]], "Min": {"a": "b"}, "Mean": true, "Norm": false})",
      R"({"type": "torch.Tensor", "dtype": "t\u00e9\"\\\n", "k\"ey": "v\u0001", "Max": 1, "md5": ""})",
      R"({"requires_grad": true, "Norm": 2, "type": "torch.Tensor", "Mean": 1, "dtype": "x", "Min": 0, "Max": 3, "shape": [1]})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "Max": 2})",
      R"({"type": "torch.Tensor", "dtype": "torch.float32", "Max": 1, "error_key": ["a"]})",
      R"({"type": "torch.ProcessGroup", "dtype": "x", "group_ranks": [0, 1], "group_id": 7})",
      R"({"type": "torch.Tensor", "dtype": "", "Max": 1})",
      R"({"type": "torch.Tensor", "Max": 1})",
      R"({"type": "float", "value": 1e-05})",
      R"({"type": "torch.Size", "value": [2, 3]})",
  };
  const std::vector<std::string> names = {"Torch.x.0.forward", "Module.m.input.blk.forward.0",
                                          "Distributed.batch_isend_irecv.0.forward"};
  const uint64_t one_pass_before = OnePassLeavesOfThisThread();
  for (const std::string& leaf : leaves) {
    const std::string entry =
        "{\"input_args\": [" + leaf + ", " + leaf + "], \"output\": [" + leaf + "], \"parameters\": {\"w\": " + leaf + "}}";
    auto p = vptest::ParseObject("{\"e\": " + entry + "}");
    REQUIRE(p->status.ok());
    for (const std::string& name : names) {
      for (int mode = 0; mode < 4; ++mode) {
        ItemOptions o;
        o.keep_md5 = (mode & 1) != 0;
        o.capture = (mode & 2) != 0;
        NodeItems fast, general;
        Status a = ParseEntryItems(p->tree, p->Get("e"), name, o, fast);
        o.general_only = true;
        Status b = ParseEntryItems(p->tree, p->Get("e"), name, o, general);
        INFO(leaf << " / " << name << " / mode " << mode);
        REQUIRE(a.ok() == b.ok());
        CHECK(Everything(fast) == Everything(general));
        CHECK_FALSE(fast.empty());
      }
    }
  }
  // The one-pass way was taken (14 of the leaves qualify in some mode), so both ways were compared.
  CHECK(OnePassLeavesOfThisThread() - one_pass_before >= 14 * 4);
}

TEST_CASE("items: an output is a name with \".output.\" and without \".input.\", decided in one pass") {
  // Against the rule written with two searches, on names made of the pieces that could confuse it.
  static const char* const kPieces[] = {".input.", ".output.", "input", "output",       ".", "outputs.", "x",
                                        ".inpu",   ".outpu",   "t.",    "Module.layer", ".0"};
  std::mt19937 gen(11);
  int outputs = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    const int n = std::uniform_int_distribution<int>(0, 7)(gen);
    for (int k = 0; k < n; ++k) s += kPieces[std::uniform_int_distribution<int>(0, 11)(gen)];
    const bool want = s.find(".output.") != std::string::npos && s.find(".input.") == std::string::npos;
    INFO(s);
    REQUIRE(items_internal::IsOutputName(s) == want);
    outputs += want;
  }
  CHECK(outputs > 1000);
  CHECK(items_internal::IsOutputName("Module.a.forward.0.output.0"));
  CHECK_FALSE(items_internal::IsOutputName("Module.a.forward.0.input.0.output.1"));
  CHECK_FALSE(items_internal::IsOutputName(".output"));
  CHECK(items_internal::IsOutputName(".output."));
  CHECK_FALSE(items_internal::IsOutputName(".output..input."));
}
