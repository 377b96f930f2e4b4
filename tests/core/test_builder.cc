// Spec §4 (input files), §6 (graph building) and §17 items 11-18 through BuildGraph on folders
// written into fresh temporary directories.
#include <catch2/catch.hpp>

#include "base/fs.h"
#include "db/vis_db.h"
#include "graph/builder.h"
#include "graph/paging.h"
#include "graph/recompute.h"
#include "test_util.h"

using namespace visprobe;
using vptest::ChildNames;
using vptest::DumpWithData;
using vptest::ParentName;
using vptest::TempDir;
using Names = std::vector<std::string>;

namespace {

const char kEmptyConstruct[] =
    "The content of 'construct.json' is empty, failed to build graph. When dumping data, it is necessary to select "
    "level L0 or mix in order to collect model structure data, that is, the content of 'construct.json' is not empty.";
const char kNoForward[] = "This backward node cannot find the forward node and cannot retrieve stack information.";
const char kTensor[] =
    R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false})";

std::unique_ptr<Graph> MustBuild(const TempDir& t, const std::string& construct, const std::string& data = "{}",
                                 const std::string& stack = "{}") {
  auto r = vptest::BuildFromTexts(t.path(), construct, DumpWithData(data), stack);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return std::move(r.value());
}

Status BuildError(const TempDir& t, const std::string& construct, const std::string& dump, const std::string& stack) {
  auto r = vptest::BuildFromTexts(t.path(), construct, dump, stack);
  return r.ok() ? Status::Ok() : r.status();
}

std::string Frame(const std::string& file, int line, const std::string& func) {
  return "File " + file + ", line " + std::to_string(line) + ", in " + func + ", \n code()";
}

}  // namespace

TEST_CASE("§17.11 construct {Tensor1: Module1, Module1: null} gives three nodes") {
  auto r = BuildGraph(vptest::SamplesDir("vis_builder"), BuildOptions());
  REQUIRE(r.ok());
  const Graph& g = *r.value();
  CHECK(g.size() == 3);
  NodeId m = g.Find("Module1"), t = g.Find("Tensor1");
  REQUIRE(m != kNoNode);
  REQUIRE(t != kNoNode);
  CHECK(g.node(m).op == NodeOp::kModule);
  CHECK(g.node(t).op == NodeOp::kFunctionApi);
  CHECK(ChildNames(g, g.root()) == Names{"Module1"});
  CHECK(ChildNames(g, m) == Names{"Tensor1"});
  CHECK(g.Find("Apis_Between_Modules.0") == kNoNode);
}

TEST_CASE("§17.12 an empty construct.json refuses to build with the §4.2 message") {
  TempDir t;
  vptest::CopyFileTo(vptest::SamplesDir("vis_builder/construct_empty.json"), t / "construct.json");
  vptest::WriteFile(t / "dump.json", "{}");
  vptest::WriteFile(t / "stack.json", "{}");
  auto r = BuildGraph(t.path(), BuildOptions());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == kEmptyConstruct);
}

TEST_CASE("§4.2/§6.2 a Megatron construct holding only megatron_micro_step_number is empty") {
  // The key is removed before the emptiness check, so nothing is left to build.
  TempDir t;
  Status s = BuildError(t, R"({"megatron_micro_step_number": 1})", DumpWithData("{}"), "{}");
  REQUIRE_FALSE(s.ok());
  CHECK(s.message() == kEmptyConstruct);
}

TEST_CASE("§17.13 a node whose dump entry is {} has empty input and output data") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.a.A.forward.0": null, "Torch.x.0.forward": "Module.a.A.forward.0"})",
                     R"({"Module.a.A.forward.0": {}, "Torch.x.0.forward": {"input_args": [], "output": []}})");
  for (const char* n : {"Module.a.A.forward.0", "Torch.x.0.forward"}) {
    const Node& node = g->node(g->Find(n));
    CHECK(node.items.inputs.empty());
    CHECK(node.items.outputs.empty());
    CHECK(vptest::ItemsJson(node.items, false) == "{}");
  }
}

TEST_CASE("§4.1 a dump.json without data builds nodes without items") {
  TempDir t;
  auto r = vptest::BuildFromTexts(t.path(), R"({"Module.a.A.forward.0": null})", R"({"task": "statistics"})", "{}");
  REQUIRE(r.ok());
  const Graph& g = *r.value();
  CHECK(g.node(g.Find("Module.a.A.forward.0")).items.empty());
  CHECK(g.task == "statistics");
  CHECK(g.framework == "pytorch");  // missing framework -> pytorch
  CHECK_FALSE(g.has_data_key);
}

TEST_CASE("§4.2 duplicate construct keys keep the last parent at the first position") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.a.A.forward.0": null, "Module.b.B.forward.0": null,
                            "Module.a.A.forward.0": "Module.b.B.forward.0"})");
  CHECK(ChildNames(*g, g->root()) == Names{"Module.b.B.forward.0"});
  CHECK(ParentName(*g, "Module.a.A.forward.0") == "Module.b.B.forward.0");
}

TEST_CASE("§4.2 an empty-string parent means top level") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.a.A.forward.0": "", "Module.b.B.forward.0": null})");
  CHECK(ChildNames(*g, g->root()) == Names{"Module.a.A.forward.0", "Module.b.B.forward.0"});
}

TEST_CASE("§6.2 nodes never reachable from the root are not exported") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.x.X.forward.0": "Module.y.Y.forward.0", "Module.z.Z.forward.0": null})");
  REQUIRE(g->Find("Module.y.Y.forward.0") != kNoNode);
  CHECK(g->node(g->Find("Module.y.Y.forward.0")).up == kNoNode);
  std::vector<std::string> written;
  for (NodeId id : PostOrder(*g)) written.push_back(vptest::NameOf(*g, id));
  CHECK(written == Names{"Module.z.Z.forward.0", "DefaultModel"});
}

TEST_CASE("§17.14 backward parent repair with numeric suffixes (§6.4 fix_backward_missing)") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.module.a.forward.0": "Module.root.forward.0",
    "Module.module.a.backward.0": null,
    "Module.root.forward.0": null,
    "Module.root.backward.0": null,
    "Module.module.b.forward.0": "Module.root.forward.0",
    "Module.module.b.backward.0": "Module.root.backward.0",
    "Module.module.c.backward.0": null})");
  CHECK(ParentName(*g, "Module.module.a.backward.0") == "Module.root.backward.0");
  CHECK(ParentName(*g, "Module.module.b.backward.0") == "Module.root.backward.0");
  CHECK(ParentName(*g, "Module.module.c.backward.0") == "DefaultModel");
  CHECK(ChildNames(*g, "Module.root.backward.0") == Names{"Module.module.a.backward.0", "Module.module.b.backward.0"});
  CHECK(ChildNames(*g, g->root()) == Names{"Module.root.forward.0", "Module.root.backward.0", "Module.module.c.backward.0"});
}

TEST_CASE("§17.14 backward parent repair without numeric suffixes (§6.4 rule 2)") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.module.a.forward": "Module.root.forward",
    "Module.module.a.backward": null,
    "Module.root.forward": null,
    "Module.root.backward": null,
    "Module.module.b.forward": "Module.root.forward",
    "Module.module.b.backward": "Module.root.backward",
    "Module.module.c.backward": null})");
  CHECK(ParentName(*g, "Module.module.a.backward") == "Module.root.backward");
  CHECK(ParentName(*g, "Module.module.b.backward") == "Module.root.backward");
  CHECK(ParentName(*g, "Module.module.c.backward") == "DefaultModel");
}

TEST_CASE("§17.14 in-place repair: the child goes under the backward of its forward parent (§6.4)") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.module.Float16Model.forward.0": null,
    "Module.module.layer2.BasicBlock.forward.0": "Module.module.Float16Model.forward.0",
    "Module.module.Float16Model.backward.0": null,
    "Module.module.conv.Conv2d.backward.0": "Module.module.Float16Model.backward.0",
    "Module.module.layer2.BasicBlock.backward.0": "Module.module.conv.Conv2d.backward.0"})");
  CHECK(ParentName(*g, "Module.module.layer2.BasicBlock.backward.0") == "Module.module.Float16Model.backward.0");
  CHECK(ParentName(*g, "Module.module.conv.Conv2d.backward.0") == "Module.module.Float16Model.backward.0");
  CHECK(ChildNames(*g, "Module.module.conv.Conv2d.backward.0").empty());
}

TEST_CASE("§6.4 in-place repair: a top-level forward makes the backward child top level") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.p.P.forward.0": null, "Module.p.P.backward.0": "Module.q.Q.backward.0"})");
  CHECK(ParentName(*g, "Module.p.P.backward.0") == "DefaultModel");
  CHECK(g->Find("Module.q.Q.backward.0") == kNoNode);
}

TEST_CASE("§17.15 API collection: [api, api] becomes Apis_Between_Modules.0 with two children") {
  TempDir t;
  auto g = MustBuild(t, R"({"Torch.a.0.forward": null, "Tensor.b.0.forward": null})");
  CHECK(ChildNames(*g, g->root()) == Names{"Apis_Between_Modules.0"});
  NodeId c = g->Find("Apis_Between_Modules.0");
  REQUIRE(c != kNoNode);
  CHECK(g->node(c).op == NodeOp::kApiCollection);
  CHECK(g->node(c).up == g->root());
  CHECK(ChildNames(*g, c) == Names{"Torch.a.0.forward", "Tensor.b.0.forward"});
  CHECK(ParentName(*g, "Torch.a.0.forward") == "Apis_Between_Modules.0");
}

TEST_CASE("§17.15 API collection: [api, mod, mod, api, api, mod] and [mod, mod, mod]") {
  TempDir t;
  auto g = MustBuild(t, R"({"Torch.a.0.forward": null, "Module.m1.M.forward.0": null, "Module.m2.M.forward.0": null,
    "Torch.b.0.forward": null, "Torch.c.0.forward": null, "Module.m3.M.forward.0": null})");
  CHECK(ChildNames(*g, g->root()) == Names{"Torch.a.0.forward", "Module.m1.M.forward.0", "Module.m2.M.forward.0",
                                           "Apis_Between_Modules.0", "Module.m3.M.forward.0"});
  CHECK(ChildNames(*g, "Apis_Between_Modules.0") == Names{"Torch.b.0.forward", "Torch.c.0.forward"});
  CHECK(g->Find("Apis_Between_Modules.1") == kNoNode);

  TempDir t2;
  auto g2 = MustBuild(t2, R"({"Module.m1.M.forward.0": null, "Module.m2.M.forward.0": null, "Module.m3.M.forward.0": null})");
  CHECK(ChildNames(*g2, g2->root()) == Names{"Module.m1.M.forward.0", "Module.m2.M.forward.0", "Module.m3.M.forward.0"});
  CHECK(g2->size() == 4);
}

TEST_CASE("§6.5 collections are numbered in order; APIs inside modules are not grouped") {
  TempDir t;
  auto g = MustBuild(t, R"({"Torch.a.0.forward": null, "Torch.b.0.forward": null, "Module.m.M.forward.0": null,
    "Torch.c.0.forward": "Module.m.M.forward.0", "Torch.d.0.forward": "Module.m.M.forward.0",
    "Torch.e.0.forward": null, "Torch.f.0.forward": null})");
  CHECK(ChildNames(*g, g->root()) == Names{"Apis_Between_Modules.0", "Module.m.M.forward.0", "Apis_Between_Modules.1"});
  CHECK(ChildNames(*g, "Apis_Between_Modules.1") == Names{"Torch.e.0.forward", "Torch.f.0.forward"});
  CHECK(ChildNames(*g, "Module.m.M.forward.0") == Names{"Torch.c.0.forward", "Torch.d.0.forward"});
}

TEST_CASE("§17.16 parameters_grad attachment (§6.7 example)") {
  TempDir t;
  std::string data = std::string("{\"Module.a.parameters_grad\": {\"weight\": [") + kTensor + "]}, " +
                     "\"Module.aaa.parameters_grad\": {\"bias\": [" + kTensor + "]}, " +
                     "\"Module.b.B.parameters_grad.0\": {\"weight\": [" + kTensor + "]}, " +
                     "\"Module.c.C.parameters_grad\": {\"weight\": [" + kTensor + "]}}";
  auto g = MustBuild(t, R"({"Module.a.backward.0": null, "Torch.x.0.backward": "Module.a.backward.1",
    "Module.a.backward.1": null, "Module.aa.backward.0": null, "Module.aa.backward.1": null,
    "Module.aaa.backward.0": null, "Module.aaa.backward.1": null, "Module.b.B.backward.0": null})",
                     data);
  CHECK(ChildNames(*g, "Module.a.backward.1") == Names{"Torch.x.0.backward", "Module.a.parameters_grad"});
  CHECK(ChildNames(*g, "Module.a.backward.0").empty());
  CHECK(ChildNames(*g, "Module.aa.backward.1").empty());
  CHECK(ChildNames(*g, "Module.aaa.backward.1") == Names{"Module.aaa.parameters_grad"});
  CHECK(ChildNames(*g, "Module.b.B.backward.0") == Names{"Module.b.B.parameters_grad.0"});
  CHECK(g->Find("Module.c.C.parameters_grad") == kNoNode);  // no backward node: dropped
  const Node& pg = g->node(g->Find("Module.a.parameters_grad"));
  CHECK(pg.op == NodeOp::kModule);
  CHECK(pg.stack < 0);
  CHECK(vptest::ItemKeys(pg.items, false) == Names{"Module.a.parameters_grad.weight"});
  CHECK(pg.items.outputs.empty());
}

TEST_CASE("§17.17 batch p2p info extraction (§6.8)") {
  const std::string name = "Distributed.batch_isend_irecv.0.forward";
  auto build = [&](TempDir& t, const std::string& output) {
    return MustBuild(t, "{\"" + name + "\": null}", "{\"" + name + "\": {\"output\": " + output + "}}");
  };
  SECTION("the reference example: one info with null fields") {
    TempDir t;
    auto g = build(t, R"([[{"a": 1}], [{"b": 1}]])");
    const auto& info = g->node(g->Find(name)).batch_p2p;
    REQUIRE(info.size() == 1);
    CHECK(info[0].op == "null");
    CHECK(info[0].peer == "null");
    CHECK(info[0].group_id == "null");
  }
  SECTION("invalid outputs give nothing") {
    for (const char* out : {R"("a")", "[]", R"([["a"]])", "[[]]", "null"}) {
      INFO(out);
      TempDir t;
      auto g = build(t, out);
      CHECK(g->node(g->Find(name)).batch_p2p.empty());
    }
  }
  SECTION("fields are copied from every object of the first element") {
    TempDir t;
    auto g = build(t, R"([[{"op": "isend", "peer": 1, "group_id": "g1", "tag": 0}, {"op": "irecv", "peer": 0}], [{"op": "x"}]])");
    const auto& info = g->node(g->Find(name)).batch_p2p;
    REQUIRE(info.size() == 2);
    CHECK(info[0].op == "\"isend\"");
    CHECK(info[0].peer == "1");
    CHECK(info[0].group_id == "\"g1\"");
    CHECK(info[1].op == "\"irecv\"");
    CHECK(info[1].group_id == "null");
  }
}

TEST_CASE("§17.18 recompute detection from the call stack (§6.6 is_recompute_by_stack)") {
  const std::string user = "/app/model.py";
  const std::string fn = "/usr/lib/python3/site-packages/torch/autograd/function.py";
  CHECK(IsRecomputeByStack(
      {Frame("/usr/lib/python3/site-packages/torch/utils/checkpoint.py", 1555, "recompute_fn"), Frame(user, 3, "forward")}));
  CHECK(IsRecomputeByStack({Frame(user, 20, "backward"), Frame(user, 21, "helper"), Frame(fn, 288, "apply")}));
  CHECK(IsRecomputeByStack({Frame(user, 20, "backward"), Frame(fn, 288, "apply")}));
  CHECK(IsRecomputeByStack(
      {Frame("/opt/megatron/core/tensor_parallel/random.py", 300, "checkpoint_function_backward"), Frame(fn, 288, "apply")}));
  // Plain forward stack through torch/nn/modules/module.py and user files.
  CHECK_FALSE(IsRecomputeByStack({Frame("/usr/lib/python3/site-packages/torch/nn/modules/module.py", 1736, "_call_impl"),
                                  Frame(user, 12, "forward"), Frame("/app/train.py", 5, "<module>")}));
  // function.py three frames after the backward frame is too far.
  CHECK_FALSE(
      IsRecomputeByStack({Frame(user, 20, "backward"), Frame(user, 21, "a"), Frame(user, 22, "b"), Frame(fn, 288, "apply")}));
  // checkpoint_function_backward outside megatron does not count.
  CHECK_FALSE(IsRecomputeByStack({Frame("/opt/other/random.py", 300, "checkpoint_function_backward"), Frame(fn, 288, "apply")}));
  // recompute_fn in another file does not count.
  CHECK_FALSE(IsRecomputeByStack({Frame("/app/checkpoint.py", 1, "recompute_fn")}));
  CHECK_FALSE(IsRecomputeByStack({}));
  CHECK_FALSE(IsRecomputeByStack({"not a frame", "   "}));
}

TEST_CASE("§6.6 recomputed top-level modules move under the backward of the parent") {
  TempDir t;
  const std::string stack =
      R"J({"Module.model.layers.0.Linear.forward.1": ["File /usr/lib/python3/site-packages/torch/utils/checkpoint.py, line 1555, in recompute_fn, \n layer()"],
    "Module.model.Block.forward.0": ["File /app/model.py, line 3, in forward, \n x"]})J";
  auto g = MustBuild(t, R"({"Module.model.Block.forward.0": null,
    "Module.model.layers.0.Linear.forward.0": "Module.model.Block.forward.0",
    "Module.model.layers.0.Linear.forward.1": null,
    "Module.model.layers.0.Linear.backward.1": null,
    "Module.model.Block.backward.0": null,
    "Module.model.layers.0.Linear.backward.0": "Module.model.Block.backward.0"})",
                     "{}", stack);
  CHECK(ChildNames(*g, g->root()) == Names{"Module.model.Block.forward.0", "Module.model.Block.backward.0"});
  CHECK(ChildNames(*g, "Module.model.Block.backward.0") == Names{"Module.model.layers.0.Linear.backward.0",
                                                                 "Module.model.layers.0.Linear.forward.1",
                                                                 "Module.model.layers.0.Linear.backward.1"});
  CHECK(ParentName(*g, "Module.model.layers.0.Linear.forward.1") == "Module.model.Block.backward.0");
  CHECK(ParentName(*g, "Module.model.layers.0.Linear.backward.1") == "Module.model.Block.backward.0");
  CHECK(ChildNames(*g, "Module.model.Block.forward.0") == Names{"Module.model.layers.0.Linear.forward.0"});
}

TEST_CASE("§6.6 without a recompute stack nothing moves") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.model.Block.forward.0": null,
    "Module.model.layers.0.Linear.forward.0": "Module.model.Block.forward.0",
    "Module.model.layers.0.Linear.forward.1": null,
    "Module.model.layers.0.Linear.backward.1": null,
    "Module.model.Block.backward.0": null})",
                     "{}", R"({"Module.model.layers.0.Linear.forward.1": ["File /app/model.py, line 3, in forward, \n x"]})");
  CHECK(ChildNames(*g, g->root()) == Names{"Module.model.Block.forward.0", "Module.model.layers.0.Linear.forward.1",
                                           "Module.model.layers.0.Linear.backward.1", "Module.model.Block.backward.0"});
}

TEST_CASE("§4.2/§10 Megatron construct: [parent, micro] values set micro-step ids, paging gives N + 1") {
  TempDir t;
  auto g = MustBuild(t, R"({"megatron_micro_step_number": 1,
    "Module.m.M.forward.0": [null, 0],
    "Torch.a.0.forward": ["Module.m.M.forward.0", 0],
    "Module.m.M.forward.1": [null, 1],
    "Torch.b.0.forward": ["Module.m.M.forward.1", 1],
    "Module.m.M.backward.0": ["", 1],
    "Torch.c.0.forward": null,
    "Module.n.N.forward.0": null,
    "Torch.d.0.forward": [null, 1],
    "Torch.e.0.forward": [null, 1]})");
  CHECK(g->micro_step_num == 1);
  CHECK(g->Find("megatron_micro_step_number") == kNoNode);
  CHECK(ParentName(*g, "Torch.b.0.forward") == "Module.m.M.forward.1");
  auto micro = [&](const char* n) { return g->node(g->Find(n)).micro_step; };
  CHECK(micro("Module.m.M.forward.0") == 0);
  CHECK(micro("Torch.a.0.forward") == 0);
  CHECK(micro("Module.m.M.forward.1") == 1);
  CHECK(micro("Torch.b.0.forward") == 1);
  CHECK(micro("Module.m.M.backward.0") == 1);
  CHECK(micro("Torch.c.0.forward") == 0);  // plain parent: micro step 0
  CHECK(ChildNames(*g, g->root()).back() == "Apis_Between_Modules.0");
  CHECK(micro("Apis_Between_Modules.0") == 1);  // the first API's id
  CHECK(PageMicroSteps(*g) == 2);
  CHECK(micro("Module.m.M.forward.1") == 1);  // paging keeps the construct ids
  CHECK(g->node(g->root()).micro_step == kMicroStepUnset);
}

TEST_CASE("§4.2 Megatron micro step -1 (APIs before the first forward_step of a later pipeline stage) builds") {
  // The dumper's MegatronStepInfo counters start at -1: the irecv a pipeline stage > 0 begins with
  // carries [null, -1]. The reference stores the value as it is (micro_step_id -1) and the
  // collection node takes its first API's id.
  TempDir t;
  auto g = MustBuild(t, R"({"megatron_micro_step_number": 1,
    "Distributed.irecv.0.forward": [null, -1],
    "Distributed.wait.0.forward": [null, -1],
    "Module.m.M.forward.0": [null, 0],
    "Torch.a.0.forward": ["Module.m.M.forward.0", 0],
    "Distributed.isend.0.forward": [null, 0],
    "Module.m.M.backward.0": [null, 0]})",
                     DumpWithData("{}"), "{}");
  auto micro = [&](const char* n) { return g->node(g->Find(n)).micro_step; };
  CHECK(micro("Distributed.irecv.0.forward") == -1);
  CHECK(micro("Distributed.wait.0.forward") == -1);
  CHECK(micro("Module.m.M.forward.0") == 0);
  REQUIRE(ChildNames(*g, g->root()).front() == "Apis_Between_Modules.0");
  CHECK(micro("Apis_Between_Modules.0") == -1);
  CHECK(ParentName(*g, "Distributed.irecv.0.forward") == "Apis_Between_Modules.0");
  CHECK(PageMicroSteps(*g) == 2);  // megatron_micro_step_number + 1, ids kept
  CHECK(micro("Distributed.irecv.0.forward") == -1);
}

TEST_CASE("§4.2 a Megatron value that is a 3-element list fails the construct parse") {
  TempDir t;
  Status s =
      BuildError(t, R"({"megatron_micro_step_number": 1, "Module.m.M.forward.0": [null, 0, 1]})", DumpWithData("{}"), "{}");
  REQUIRE_FALSE(s.ok());
  CHECK(s.message() == "Parse construct json file \"construct.json\" failed.");
}

TEST_CASE("§4.3 stack.json old format: node name -> stack") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.m.M.forward.0": null, "Torch.x.0.forward": "Module.m.M.forward.0"})", "{}",
                     R"({"Module.m.M.forward.0": ["File /a.py, line 1, in f, \n x = 1"], "Torch.x.0.forward": []})");
  CHECK(vptest::StackJson(*g, "Module.m.M.forward.0") == "[\"File /a.py, line 1, in f, \\n x = 1\"]");
  CHECK(vptest::StackJson(*g, "Torch.x.0.forward") == "[]");
}

TEST_CASE("§4.3 stack.json new format: groups of names share one stack; later groups win") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.m.M.forward.0": null, "Torch.x.0.forward": null, "Torch.y.0.forward": null})", "{}",
                     R"({"0": [["Module.m.M.forward.0", "Torch.x.0.forward"], ["File /a.py, line 1, in f, \n a"]],
                         "1": "not a group", "2": [["Torch.x.0.forward", "Torch.y.0.forward"], ["File /b.py, line 2, in g, \n b"]],
                         "3": [["Torch.y.0.forward"]]})");
  CHECK(vptest::StackJson(*g, "Module.m.M.forward.0") == "[\"File /a.py, line 1, in f, \\n a\"]");
  CHECK(vptest::StackJson(*g, "Torch.x.0.forward") == "[\"File /b.py, line 2, in g, \\n b\"]");
  CHECK(vptest::StackJson(*g, "Torch.y.0.forward") == "[\"File /b.py, line 2, in g, \\n b\"]");
}

TEST_CASE("§6.2 backward nodes borrow the stack of the forward node (module: call 0; API: forward name)") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.m.M.forward.0": null, "Module.m.M.forward.1": null, "Torch.s.0.forward": null,
    "Module.m.M.backward.1": null, "Torch.s.0.backward": null, "Module.k.K.backward.0": null, "Module.q.Q.forward.0": null,
    "Module.q.Q.backward.0": null})",
                     "{}", R"({"Module.m.M.forward.0": ["File /zero.py, line 1, in f, \n a"],
    "Module.m.M.forward.1": ["File /one.py, line 1, in f, \n b"], "Torch.s.0.forward": ["File /s.py, line 1, in f, \n c"],
    "Module.q.Q.backward.0": ["File /own.py, line 1, in f, \n d"]})");
  CHECK(vptest::StackJson(*g, "Module.m.M.backward.1") == "[\"File /zero.py, line 1, in f, \\n a\"]");
  CHECK(vptest::StackJson(*g, "Torch.s.0.backward") == "[\"File /s.py, line 1, in f, \\n c\"]");
  CHECK(vptest::StackJson(*g, "Module.q.Q.backward.0") == "[\"File /own.py, line 1, in f, \\n d\"]");
  CHECK(vptest::StackJson(*g, "Module.k.K.backward.0") == std::string("[\"") + kNoForward + "\"]");
}

TEST_CASE("§6.2 the forward node must already exist when the backward node is created") {
  TempDir t;
  auto g = MustBuild(t, R"({"Module.m.M.backward.0": null, "Module.m.M.forward.0": null})", "{}",
                     R"({"Module.m.M.forward.0": ["File /zero.py, line 1, in f, \n a"]})");
  CHECK(vptest::StackJson(*g, "Module.m.M.backward.0") == std::string("[\"") + kNoForward + "\"]");
}

TEST_CASE("§4.3 a stack.json whose top level is not an object fails with the §4.3 message") {
  for (const char* stack : {"[1, 2]", "3", "null", "[]"}) {
    INFO(stack);
    TempDir t;
    Status s = BuildError(t, R"({"Module.m.M.forward.0": null})", DumpWithData("{}"), stack);
    REQUIRE_FALSE(s.ok());
    CHECK(s.message() == "The format of the stack.json is incorrect, the outermost layer of stack.json should be a dict type.");
  }
}

TEST_CASE("§4.3 a stack.json whose top level is a string fails with the §4.3 message") {
  TempDir t;
  Status s = BuildError(t, R"({"Module.m.M.forward.0": null})", DumpWithData("{}"), "\"x\"");
  REQUIRE_FALSE(s.ok());
  CHECK(s.message() == "The format of the stack.json is incorrect, the outermost layer of stack.json should be a dict type.");
}

TEST_CASE("§4.4 unparsable files fail with load json file \"<basename>\" failed.") {
  TempDir t;
  Status c = BuildError(t, R"({"Module.m.M.forward.0": )", DumpWithData("{}"), "{}");
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.message(), Catch::StartsWith("load json file \"construct.json\" failed."));
  TempDir t2;
  Status d = BuildError(t2, R"({"Module.m.M.forward.0": null})", R"({"task": "statistics", "data": {"Module.m)", "{}");
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(d.message(), Catch::StartsWith("load json file \"dump.json\" failed."));
  CHECK_THAT(d.message(), Catch::Contains(t2 / "dump.json"));
  CHECK_THAT(d.message(), Catch::Contains("@ byte"));
  TempDir t3;
  Status s = BuildError(t3, R"({"Module.m.M.forward.0": null})", DumpWithData("{}"), "{\"a\": [}");
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::StartsWith("load json file \"stack.json\" failed."));
}

TEST_CASE("§6.3 dump_data_dir of a graph") {
  SECTION("null -> NULL") {
    TempDir t;
    auto g = MustBuild(t, R"({"Module.m.M.forward.0": null})");
    CHECK_FALSE(g->has_dump_data_dir);
  }
  SECTION("missing -> empty string") {
    TempDir t;
    auto r = vptest::BuildFromTexts(t.path(), R"({"Module.m.M.forward.0": null})", R"({"data": {}})", "{}");
    REQUIRE(r.ok());
    CHECK(r.value()->has_dump_data_dir);
    CHECK(r.value()->dump_data_dir.empty());
  }
  SECTION("a folder elsewhere is replaced by <real rank folder>/dump_tensor_data") {
    TempDir t;
    auto r =
        vptest::BuildFromTexts(t.path(), R"({"Module.m.M.forward.0": null})",
                               R"({"task": "tensor", "dump_data_dir": "/elsewhere/rank0/dump_tensor_data", "data": {}})", "{}");
    REQUIRE(r.ok());
    CHECK(r.value()->has_dump_data_dir);
    CHECK(r.value()->dump_data_dir == RealPath(t.path()) + "/dump_tensor_data");
  }
  SECTION("a folder inside the rank folder is kept") {
    TempDir t;
    const std::string d = RealPath(t.path()) + "/dump_tensor_data";
    auto r = vptest::BuildFromTexts(t.path(), R"({"Module.m.M.forward.0": null})",
                                    "{\"task\": \"tensor\", \"dump_data_dir\": \"" + d + "\", \"data\": {}}", "{}");
    REQUIRE(r.ok());
    CHECK(r.value()->dump_data_dir == d);
  }
}

TEST_CASE("§6.2 framework and dump metadata are read from dump.json") {
  TempDir t;
  auto r = vptest::BuildFromTexts(t.path(), R"({"Cell.a.A.forward.0": null})",
                                  R"({"data": {}, "task": "tensor", "level": "L0", "framework": "mindspore"})", "{}");
  REQUIRE(r.ok());
  CHECK(r.value()->framework == "mindspore");
  CHECK(r.value()->task == "tensor");
  CHECK(r.value()->level == "L0");
  CHECK(r.value()->has_data_key);
}

TEST_CASE("§6.2 dump records are attached to their nodes with any window size") {
  TempDir t;
  std::string data = std::string("{\"Torch.a.0.forward\": {\"input_args\": [") + kTensor + "], \"output\": [" + kTensor +
                     "]}, \"Torch.b.0.forward\": {\"input_args\": [{\"type\": \"int\", \"value\": 3}]}}";
  vptest::WriteFile(t / "construct.json", R"({"Torch.a.0.forward": null, "Torch.b.0.forward": null})");
  vptest::WriteFile(t / "dump.json", DumpWithData(data));
  vptest::WriteFile(t / "stack.json", "{}");
  BuildOptions big, tiny;
  tiny.window_bytes = 1;
  auto a = BuildGraph(t.path(), big);
  auto b = BuildGraph(t.path(), tiny);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  for (const char* n : {"Torch.a.0.forward", "Torch.b.0.forward"}) {
    const Node& x = a.value()->node(a.value()->Find(n));
    const Node& y = b.value()->node(b.value()->Find(n));
    CHECK_FALSE(x.items.empty());
    CHECK(vptest::ItemsJson(x.items, false) == vptest::ItemsJson(y.items, false));
    CHECK(vptest::ItemsJson(x.items, true) == vptest::ItemsJson(y.items, true));
  }
}

TEST_CASE("§4.2 a Megatron micro-step count beyond int is a parse failure, not a crash (fuzz regression)") {
  vptest::TempDir t;
  auto g = vptest::BuildFromTexts(
      t.path(), "{\"megatron_micro_step_number\": 4444444444444444444444444444444441, \"Module.a.A.forward.0\": [null, 0]}",
      vptest::DumpWithData("{}"), "{}");
  REQUIRE_FALSE(g.ok());
  CHECK(g.status().message().find("Parse construct json file \"construct.json\" failed.") != std::string::npos);
  auto h = vptest::BuildFromTexts(t.path(), "{\"megatron_micro_step_number\": 1, \"Module.a.A.forward.0\": [null, 99999999999]}",
                                  vptest::DumpWithData("{}"), "{}");
  REQUIRE_FALSE(h.ok());
}

#ifndef __EMSCRIPTEN__  // the browser build has no threads
TEST_CASE("§6 with threads the structure is the one built on one thread (stack.json beside the node table's room)") {
  // The threaded pass loads stack.json while another thread reserves and maps the node table.
  const std::string dir = vptest::SamplesDir("cross_framework_pangu/pytorch_data");
  BuildOptions one, two;
  two.threads = 2;
  auto a = BuildGraph(dir, one);
  auto b = BuildGraph(dir, two);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const Graph& x = *a.value();
  const Graph& y = *b.value();
  REQUIRE(x.size() > 10);
  REQUIRE(x.size() == y.size());
  REQUIRE(x.stacks.size() == y.stacks.size());
  size_t with_stack = 0;
  for (NodeId id = 0; id < x.size(); ++id) {
    INFO(x.node(id).name);
    CHECK(x.node(id).name == y.node(id).name);
    CHECK(x.node(id).up == y.node(id).up);
    CHECK(x.node(id).subnodes == y.node(id).subnodes);
    CHECK(x.node(id).stack == y.node(id).stack);
    if (x.node(id).stack >= 0) {
      ++with_stack;
      CHECK(x.stacks[x.node(id).stack].json == y.stacks[y.node(id).stack].json);
    }
  }
  CHECK(with_stack > 5);  // the sample's stacks were read, on both paths
}

TEST_CASE("§4.3 with threads a bad stack.json gives the one-thread message, and a bad construct.json still wins") {
  TempDir t;
  BuildOptions two;
  two.threads = 2;
  const std::string construct = R"({"Module.a.A.forward.0": null, "Torch.b.0.forward": "Module.a.A.forward.0"})";
  vptest::WriteFile(t / "construct.json", construct);
  vptest::WriteFile(t / "dump.json", DumpWithData("{}"));
  vptest::WriteFile(t / "stack.json", "[1, 2]");
  auto one_thread = BuildGraph(t.path(), BuildOptions());
  auto threaded = BuildGraph(t.path(), two);
  REQUIRE_FALSE(one_thread.ok());
  REQUIRE_FALSE(threaded.ok());
  CHECK(threaded.status().message() == one_thread.status().message());
  CHECK(threaded.status().message().find("stack.json") != std::string::npos);
  vptest::WriteFile(t / "construct.json", "{}");
  auto both_bad = BuildGraph(t.path(), two);
  REQUIRE_FALSE(both_bad.ok());
  CHECK(both_bad.status().message() == kEmptyConstruct);
}
#endif
