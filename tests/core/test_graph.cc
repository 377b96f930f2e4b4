// Spec §5.2 (op_of), §6.1 (node model: add_node, add_upnode, ancestors) and §10 (micro steps),
// §17 items 19, 21, 22, 24.
#include <catch2/catch.hpp>

#include <cstdio>

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
#include <unistd.h>
#endif

#include "base/prefault.h"
#include "graph/builder.h"
#include "graph/graph.h"
#include "graph/paging.h"
#include "test_util.h"

using namespace visprobe;

TEST_CASE("§17.22 op_of table of §5.2 (unescaped dots)") {
  for (const char* m : {"ModuleTest", "Module1", "InvalidNodeName", "Tensor", "Module.fc.Linear.forward.0",
                        "Cell.fc.Dense.forward.0", "optimizer", "clip_grad", "DefaultModel", "Distributed", "Module"})
    CHECK(OpOfName(m) == NodeOp::kModule);
  for (const char* a : {"TensorTest",
                        "TorchTest",
                        "FunctionalTest",
                        "NPUTest",
                        "VFTest",
                        "DistributedTest",
                        "AtenTest",
                        "Tensor1",
                        "Tensor.__add__.0.forward",
                        "Torch.sum.0.forward",
                        "Functional.linear.0.backward",
                        "NPU.npu_fusion_attention.0.forward",
                        "VF.lstm.0.forward",
                        "Distributed.all_reduce.0.forward",
                        "Aten.mul.0.forward",
                        "Mint.add.0.forward",
                        "MintFunctional.relu.0.forward",
                        "Primitive.norm.RmsNorm.0.forward",
                        "Jit.x.0.forward",
                        "MindSpeed.x.0.forward"})
    CHECK(OpOfName(a) == NodeOp::kFunctionApi);
}

TEST_CASE("§6.1 the root is DefaultModel, a module, created first") {
  Graph g;
  CHECK(g.size() == 1);
  CHECK(g.node(g.root()).name == "DefaultModel");
  CHECK(g.node(g.root()).op == NodeOp::kModule);
  CHECK(g.Find("DefaultModel") == g.root());
  CHECK(g.node(g.root()).up == kNoNode);
}

TEST_CASE("§17.19 add_node with accumulate nine times gives api.0 .. api.8") {
  Graph g;
  std::vector<std::string> ids;
  for (int i = 0; i < 9; ++i) ids.push_back(vptest::NameOf(g, g.AddNode(NodeOp::kFunctionApi, "api", g.root(), true)));
  CHECK(ids == std::vector<std::string>{"api.0", "api.1", "api.2", "api.3", "api.4", "api.5", "api.6", "api.7", "api.8"});
  CHECK(g.Find("api") == kNoNode);
  CHECK(g.size() == 10);
  CHECK(vptest::ChildNames(g, g.root()).size() == 9);
}

TEST_CASE("§6.1 add_node without accumulate returns the existing node") {
  Graph g;
  NodeId a = g.AddNode(NodeOp::kModule, "Module.a.A.forward.0", g.root());
  NodeId b = g.AddNode(NodeOp::kFunctionApi, "Module.a.A.forward.0", kNoNode);
  CHECK(a == b);
  CHECK(g.size() == 2);
  CHECK(g.node(a).op == NodeOp::kModule);
}

TEST_CASE("§6.1 add_upnode: first parent wins, no self-parenting") {
  Graph g;
  NodeId p1 = g.AddNode(NodeOp::kModule, "p1", g.root());
  NodeId p2 = g.AddNode(NodeOp::kModule, "p2", g.root());
  NodeId c = g.AddNode(NodeOp::kModule, "c", kNoNode);
  CHECK(g.node(c).up == kNoNode);
  g.AddUpnode(c, c);
  CHECK(g.node(c).up == kNoNode);
  g.AddUpnode(c, p1);
  g.AddUpnode(c, p2);
  CHECK(g.node(c).up == p1);
  CHECK(vptest::ChildNames(g, p1) == std::vector<std::string>{"c"});
  CHECK(g.node(p2).subnodes.empty());
}

TEST_CASE("§17.24 ancestors: ids from the top down to the parent; a cycle gives []") {
  Graph g;
  NodeId up1 = g.AddNode(NodeOp::kModule, "up_node_1", kNoNode);
  NodeId child = g.AddNode(NodeOp::kModule, "child", up1);
  auto anc = g.Ancestors(child);
  REQUIRE(anc.size() == 1);
  CHECK(anc[0] == up1);

  NodeId a = g.AddNode(NodeOp::kModule, "a", g.root());
  NodeId b = g.AddNode(NodeOp::kModule, "b", a);
  NodeId c = g.AddNode(NodeOp::kModule, "c", b);
  auto chain = g.Ancestors(c);
  std::vector<std::string> names;
  for (NodeId n : chain) names.push_back(vptest::NameOf(g, n));
  CHECK(names == std::vector<std::string>{"DefaultModel", "a", "b"});
  CHECK(g.Ancestors(g.root()).empty());

  NodeId x = g.AddNode(NodeOp::kModule, "x", kNoNode);
  NodeId y = g.AddNode(NodeOp::kModule, "y", x);
  g.AddUpnode(x, y);  // x -> y -> x
  CHECK(g.Ancestors(y).empty());
}

TEST_CASE("§17.24 ancestors: a node hanging below a cycle has none; a chain past 256 levels is whole") {
  Graph g;
  // z -> y -> x -> y: z is not on the cycle, so its walk only learns of it after 256 steps.
  NodeId x = g.AddNode(NodeOp::kModule, "x", kNoNode);
  NodeId y = g.AddNode(NodeOp::kModule, "y", x);
  g.AddUpnode(x, y);
  NodeId z = g.AddNode(NodeOp::kModule, "z", y);
  CHECK(g.Ancestors(z).empty());
  // The same below a chain of 300 that ends in a cycle: the cycle is found past the first 256.
  NodeId top = g.AddNode(NodeOp::kModule, "c0", kNoNode);
  NodeId last = top;
  for (int i = 1; i < 300; ++i) last = g.AddNode(NodeOp::kModule, "c" + std::to_string(i), last);
  g.AddUpnode(top, last);  // c0's parent is c299
  CHECK(g.Ancestors(last).empty());
  NodeId below = g.AddNode(NodeOp::kModule, "below", last);
  CHECK(g.Ancestors(below).empty());

  // A straight chain of 300 below the root: every level, top down.
  NodeId p = g.root();
  for (int i = 0; i < 300; ++i) p = g.AddNode(NodeOp::kModule, "d" + std::to_string(i), p);
  NodeId leaf = g.AddNode(NodeOp::kModule, "leaf", p);
  auto chain = g.Ancestors(leaf);
  REQUIRE(chain.size() == 301);
  CHECK(vptest::NameOf(g, chain.front()) == "DefaultModel");
  for (int i = 0; i < 300; ++i) CHECK(vptest::NameOf(g, chain[static_cast<size_t>(i) + 1]) == "d" + std::to_string(i));
}

TEST_CASE("§17.21 micro-step paging example of §10") {
  Graph g;
  auto mod = [&](const char* n) { return g.AddNode(NodeOp::kModule, n, g.root()); };
  auto apis = [&](const char* n) { return g.AddNode(NodeOp::kApiCollection, n, g.root()); };
  NodeId af0 = mod("a.forward.0");
  NodeId ab0 = mod("a.backward.0");
  NodeId apis0 = apis("apis.0");
  NodeId af1 = mod("a.forward.1");
  NodeId bf0 = mod("b.forward.0");
  NodeId bb0 = mod("b.backward.0");
  NodeId ab1 = mod("a.backward.1");
  NodeId apis1 = apis("apis.1");
  NodeId inner = g.AddNode(NodeOp::kFunctionApi, "Torch.x.0.forward", apis0);
  NodeId deep = g.AddNode(NodeOp::kFunctionApi, "Torch.y.0.forward", bf0);

  CHECK(PageMicroSteps(g) == 2);
  for (NodeId n : {af0, ab0, apis0}) CHECK(g.node(n).micro_step == 0);
  for (NodeId n : {af1, bf0, bb0, ab1, apis1}) CHECK(g.node(n).micro_step == 1);
  CHECK(g.node(inner).micro_step == 0);  // propagated from its parent
  CHECK(g.node(deep).micro_step == 1);
  CHECK(g.node(g.root()).micro_step == kMicroStepUnset);  // root stays unset (stored as 0)
}

TEST_CASE("§10 a graph without backward modules is one micro step") {
  Graph g;
  g.AddNode(NodeOp::kModule, "Module.a.A.forward.0", g.root());
  g.AddNode(NodeOp::kModule, "Module.a.A.forward.1", g.root());
  CHECK(PageMicroSteps(g) == 1);
}

TEST_CASE("§10 Megatron graphs return N + 1 and keep their ids") {
  Graph g;
  g.micro_step_num = 3;
  NodeId a = g.AddNode(NodeOp::kModule, "Module.a.A.forward.0", g.root());
  g.node(a).micro_step = 2;
  NodeId b = g.AddNode(NodeOp::kModule, "Module.a.A.backward.0", g.root());
  CHECK(PageMicroSteps(g) == 4);
  CHECK(g.node(a).micro_step == 2);
  CHECK(g.node(b).micro_step == kMicroStepUnset);
}

#if defined(__linux__) && !defined(__EMSCRIPTEN__)
namespace {
// Resident bytes of this process (/proc/self/statm).
size_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  long size = 0, resident = 0;
  if (f) {
    if (std::fscanf(f, "%ld %ld", &size, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<size_t>(resident) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}
}  // namespace

TEST_CASE("Graph::Reserve with a prefault count maps the room for that many nodes now, without it not") {
  alignas(4096) static char probe[2 * 4096];
  if (!PrefaultWritable(probe, sizeof probe)) {
    WARN("MADV_POPULATE_WRITE is not available on this kernel");
    return;
  }
  const size_t n = 200000, mapped = 100000;
  Graph plain, prefaulted;
  size_t before = ResidentBytes();
  plain.Reserve(n);
  const size_t plain_growth = ResidentBytes() - before;
  before = ResidentBytes();
  prefaulted.Reserve(n, mapped);
  const size_t prefault_growth = ResidentBytes() - before;
  INFO("resident growth: " << plain_growth << " bytes plain, " << prefault_growth << " with the prefault");
  CHECK(prefault_growth >= plain_growth + mapped * sizeof(Node) * 9 / 10);
  CHECK(prefault_growth < plain_growth + n * sizeof(Node));  // the room past `mapped` stays unmapped
  const NodeId a = prefaulted.AddNode(NodeOp::kModule, "Module.a.forward.0", prefaulted.root());
  CHECK(prefaulted.Find("Module.a.forward.0") == a);  // the mapped room holds nodes as before
}
#endif
