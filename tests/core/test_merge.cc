// Spec §15 (graph merge for parallel strategies) and §17 items 36-47: parallel parameters and their
// validation, default and discovered groups, loose-API collections, the TP worked example
// (ColumnParallelLinear / RowParallelLinear with matmul + all_reduce) and the PP example.
#include <catch2/catch.hpp>

#include "app/args.h"
#include "graph/overflow.h"
#include "merge/graph_merger.h"
#include "merge/parallel_params.h"
#include "test_util.h"

using namespace visprobe;
using vptest::ChildNames;
using vptest::TempDir;

namespace {

// A statistics tensor leaf with the given Max, Min, Mean, Norm (JSON number texts).
std::string T(const std::string& mx, const std::string& mn, const std::string& mean, const std::string& norm,
              const std::string& dtype = "torch.float32") {
  return "{\"type\": \"torch.Tensor\", \"dtype\": \"" + dtype + "\", \"shape\": [2, 2], \"Max\": " + mx + ", \"Min\": " + mn +
         ", \"Mean\": " + mean + ", \"Norm\": " + norm + ", \"requires_grad\": false}";
}

// Builds one rank folder from texts, with items loaded and their raw values captured (what the
// merge reads).
RankGraph Rank(const TempDir& tmp, int rank, const std::string& construct, const std::string& data) {
  std::string dir = tmp / ("rank" + std::to_string(rank));
  vptest::MakeDir(dir);
  BuildOptions bo;
  bo.items.capture = true;
  auto g = vptest::BuildFromTexts(dir, construct, vptest::DumpWithData(data), "{}", bo);
  REQUIRE(g.ok());
  RankGraph r;
  r.graph = std::move(g.value());
  r.rank = rank;
  r.dir = dir;
  return r;
}

std::vector<std::string> MergeInfo(const RankGraph& r, const std::string& node) {
  NodeId id = r.graph->Find(node);
  REQUIRE(id != kNoNode);
  return r.graph->node(id).merge_info;
}

ParallelParam Param(int rank_size, int tp, int pp, int vpp = 1) {
  ParallelParam p;
  p.rank_size = rank_size;
  p.tp = tp;
  p.pp = pp;
  p.vpp = vpp;
  return p;
}

struct LogLines {
  std::vector<std::string> info, warning;
  MergeLogFn Fn() {
    return [this](LogLevel l, const Message& m) { (l == LogLevel::kWarning ? warning : info).push_back(m.text()); };
  }
};

}  // namespace

TEST_CASE("default groups follow the order tp-cp-ep-dp-pp (§15.4)", "[merge]") {
  auto tp = DefaultGroups(Param(8, 4, 2), "tp");
  auto pp = DefaultGroups(Param(8, 4, 2), "pp");
  REQUIRE(tp.ok());
  REQUIRE(pp.ok());
  CHECK(tp.value() == RankGroups{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(pp.value() == RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(DefaultGroups(Param(8, 2, 2), "tp").value() == RankGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(DefaultGroups(Param(8, 2, 2), "pp").value() == RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  auto bad = DefaultGroups(Param(8, 2, 3), "tp");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message() == "The world size (8) is not divisible by 2 x 3 x 1.");
  SECTION("an order that leaves out a dimension of size > 1 fails") {
    ParallelParam p = Param(8, 2, 2);
    p.order = "tp-pp";
    auto r = DefaultGroups(p, "tp");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() == "The parallel size (dp) is (2), but it's not specified in order (tp-pp).");
  }
  SECTION("pp before tp") {
    ParallelParam p = Param(4, 2, 2);
    p.order = "pp-tp";
    CHECK(DefaultGroups(p, "tp").value() == RankGroups{{0, 2}, {1, 3}});
    CHECK(DefaultGroups(p, "pp").value() == RankGroups{{0, 1}, {2, 3}});
  }
  CHECK(GroupsText({{0, 1}, {2, 3}}) == "[[0, 1], [2, 3]]");
}

TEST_CASE("parallel parameters from the command line (§15.1, §16.2)", "[merge]") {
  auto parse = [](std::vector<std::string> argv) {
    argv.insert(argv.begin(), {"-tp", "t", "-o", "o"});
    auto a = ParseGraphVisualizeArgs(argv);
    REQUIRE(a.ok());
    return LoadParallelParams(a.value());
  };
  auto msg = [&](std::vector<std::string> argv) { return parse(std::move(argv)).status().message(); };
  CHECK(msg({"--rank_size", "2", "--tp", "2"}) == "In the graph merge task, parameters \"tp/pp/rank_size\" is required!");
  CHECK(msg({"--rank_size", "2", "2", "--tp", "2", "--pp", "1"}) ==
        "In the graph merge build task, the number of parameters \"rank_size\" to be filled in is either 1!");
  CHECK(msg({"--rank_size", "2", "--tp", "2", "1", "--pp", "1"}) ==
        "In the graph merge build task, the number of parameters \"tp/pp/rank_size\" to be filled in is either 1!");
  CHECK(msg({"-gp", "g", "--rank_size", "2", "--tp", "2", "--pp", "1"}) ==
        "In the graph merge compare task, the number of parameters \"rank_size\" to be filled in is either 2!");
  CHECK(msg({"-gp", "g", "--rank_size", "2", "1", "--tp", "2", "--pp", "1"}) ==
        "In the graph merge compare task, the number of parameters \"tp/pp/rank_size\" to be filled in is either 2!");
  auto build = parse({"--rank_size", "8", "--tp", "2", "--pp", "4", "--vpp", "2", "--order", "tp-dp-pp"});
  REQUIRE(build.ok());
  REQUIRE(build.value().size() == 1);
  CHECK(build.value()[0].vpp == 2);
  CHECK(build.value()[0].order == "tp-dp-pp");
  // Reference quirk (§19.2 item 18): one --vpp / --order value is ignored in compare mode.
  auto cmp = parse({"-gp", "g", "--rank_size", "8", "4", "--tp", "2", "1", "--pp", "4", "4", "--vpp", "2"});
  REQUIRE(cmp.ok());
  REQUIRE(cmp.value().size() == 2);
  CHECK(cmp.value()[0].vpp == 1);
  CHECK(cmp.value()[1].rank_size == 4);
  auto both = parse({"-gp", "g", "--rank_size", "8", "4", "--tp", "2", "1", "--pp", "4", "4", "--vpp", "2", "1"});
  CHECK(both.value()[0].vpp == 2);
}

TEST_CASE("validation of a side's parallel parameters (§15.1)", "[merge]") {
  auto check = [](const ParallelParam& p, size_t ranks) { return ValidateParallelParam(p, ranks, "[NPU]").message(); };
  CHECK(check(Param(8, 2, 4), 8).empty());
  CHECK(check(Param(8, 2, 4), 4) == "[NPU] The parallel param \"rank_size\" error, you set 8 but expected 4.");
  CHECK(check(Param(4, 0, 1), 4) == "[NPU] The parallel params \"tp/pp/vpp/rank_size\" must be greater than 0!");
  CHECK(check(Param(4, 8, 1), 4) == "[NPU] The parallel param \"tp\" must be less than or equal to \"rank_size\"!");
  CHECK(check(Param(4, 1, 8), 4) == "[NPU] The parallel param \"pp\" must be less than or equal to \"rank_size\"!");
  CHECK(check(Param(6, 4, 1), 6) == "[NPU] The parallel param \"rank_size\" must be divisible by \"tp\"!");
  CHECK(check(Param(6, 1, 4), 6) == "[NPU] The parallel param \"rank_size\" must be divisible by \"pp\"!");
  CHECK(check(Param(4, 4, 4), 4) == "[NPU] The parallel params \"tp * pp\" must be less than or equal to \"rank_size\"!");
  CHECK(check(Param(4, 4, 1, 2), 4) ==
        "[NPU] When configuring the parallel param \"vpp\", the \"pp\" param must be greater than 1!");
  ParallelParam p = Param(4, 2, 2);
  p.order = "TP-pp";
  CHECK(check(p, 4) == "[NPU] The parallel params \"order\" must consist only of lowercase letters and \"-\"!");
  CHECK(ValidateParallelParam(Param(2, 2, 1), 3, "[Bench]").message() ==
        "[Bench] The parallel param \"rank_size\" error, you set 2 but expected 3.");
  // Issue 47: the side is SidePrefixed, the check keeps its own id nested.
  const Status side = ValidateParallelParam(Param(2, 2, 1), 3, "[Bench]");
  CHECK(side.detail().id() == msg::kSidePrefixed);
  REQUIRE(side.detail().args().size() == 2);
  CHECK(side.detail().args()[0].text == "Bench");
  REQUIRE(side.detail().args()[1].nested);
  CHECK(side.detail().args()[1].nested->id() == msg::kParallelParamRankSize);
  SECTION("the rank folders are enumerated strictly") {
    TempDir tmp;
    vptest::MakeDir(tmp / "rank0");
    vptest::MakeDir(tmp / "rank1");
    CHECK(ValidateParallelParam(Param(2, 2, 1), tmp.path(), "[NPU]").ok());
    vptest::WriteFile(tmp / "notes.txt", "x");
    CHECK(ValidateParallelParam(Param(2, 2, 1), tmp.path(), "[NPU]").message().find("dump_dir contains 'notes.txt'") == 0);
  }
}

TEST_CASE("strategy selection (§15.2, §17 item 36)", "[merge]") {
  CHECK(SelectStrategy(Param(1, 1, 1)) == MergeStrategy::kNoParallel);
  CHECK(SelectStrategy(Param(2, 2, 1)) == MergeStrategy::kTp);
  CHECK(SelectStrategy(Param(2, 1, 2)) == MergeStrategy::kPp);
  CHECK(SelectStrategy(Param(4, 1, 2, 2)) == MergeStrategy::kVpp);
  CHECK(SelectStrategy(Param(4, 2, 1)) == MergeStrategy::kTp);  // tp with dp
  CHECK(SelectStrategy(Param(4, 1, 2)) == MergeStrategy::kPp);  // pp with dp
  CHECK(SelectStrategy(Param(4, 2, 2)) == MergeStrategy::kTpPp);
  CHECK(SelectStrategy(Param(8, 2, 2)) == MergeStrategy::kFull);
}

TEST_CASE("pp groups from p2p sends are chains (§15.5)", "[merge]") {
  CHECK(TraceP2PChains({{0, 2}, {1, 3}, {2, 4}, {3, 5}, {4, 6}, {5, 7}, {6, 4}, {7, 5}}) ==
        RankGroups{{0, 2, 4, 6}, {1, 3, 5, 7}});
  CHECK(TraceP2PChains({{0, 1}, {1, 2}, {2, 3}, {3, 0}}) == RankGroups{{0, 1, 2, 3}});
  CHECK(TraceP2PChains({}).empty());
}

TEST_CASE("replace_chunk (§15.8)", "[merge]") {
  CHECK(ReplaceChunk("Module.1.forward.0", 2) == "Module.2.forward.0");
  CHECK(ReplaceChunk("Module.abc.forward.0", 2) == "Module.abc.forward.0");
  CHECK(ReplaceChunk("Module.1", 2) == "Module.2");
  CHECK(ReplaceChunk("Module", 2) == "Module");
  CHECK(ReplaceChunk("Module.3.module.layers.1.X.forward.0", 0) == "Module.0.module.layers.1.X.forward.0");
}

TEST_CASE("loose APIs of all ranks go into Apis_Between_Modules_All_Ranks (§15.3)", "[merge]") {
  TempDir tmp;
  const std::string construct = "{\"Torch.add.3.forward\": null, \"Torch.mul.0.forward\": null, \"Module.m.M.forward.0\": null}";
  const std::string data = "{\"Torch.add.3.forward\": {\"input_args\": [" + T("1", "0", "0.5", "2") + "], \"output\": [" +
                           T("1", "0", "0.5", "2") + "]}, \"Torch.mul.0.forward\": {}, \"Module.m.M.forward.0\": {}}";
  LogLines log;
  SECTION("one rank: NoParallel still renames the collection") {
    std::vector<RankGraph> ranks;
    ranks.push_back(Rank(tmp, 0, construct, data));
    auto merged = MergeRankGraphs(std::move(ranks), Param(1, 1, 1), false, log.Fn());
    REQUIRE(merged.ok());
    REQUIRE(merged.value().size() == 1);
    const Graph& g = *merged.value()[0].graph;
    CHECK(ChildNames(g, g.root()) == std::vector<std::string>{"Apis_Between_Modules_All_Ranks.0", "Module.m.M.forward.0"});
    CHECK(ChildNames(g, "Apis_Between_Modules_All_Ranks.0") == std::vector<std::string>{"Apis_Between_Modules_Rank0.0"});
    CHECK(ChildNames(g, "Apis_Between_Modules_Rank0.0") ==
          std::vector<std::string>{"Torch.add.3.forward", "Torch.mul.0.forward"});
    CHECK(g.Find("Apis_Between_Modules.0") == kNoNode);
    CHECK(g.node(g.Find("Apis_Between_Modules_All_Ranks.0")).op == NodeOp::kApiCollection);
  }
  SECTION("two ranks: the other rank's APIs get _rank<r> in their API name and item keys") {
    std::vector<RankGraph> ranks;
    ranks.push_back(Rank(tmp, 0, construct, data));
    ranks.push_back(Rank(tmp, 1, construct, data));
    auto merged = MergeRankGraphs(std::move(ranks), Param(2, 2, 1), false, log.Fn());
    REQUIRE(merged.ok());
    REQUIRE(merged.value().size() == 1);
    const RankGraph& r = merged.value()[0];
    const Graph& g = *r.graph;
    CHECK(r.rank == 0);
    CHECK(ChildNames(g, "Apis_Between_Modules_All_Ranks.0") ==
          std::vector<std::string>{"Apis_Between_Modules_Rank0.0", "Apis_Between_Modules_Rank1.0"});
    CHECK(ChildNames(g, "Apis_Between_Modules_Rank1.0") ==
          std::vector<std::string>{"Torch.add_rank1.3.forward", "Torch.mul_rank1.0.forward"});
    const NodeItems& items = g.node(g.Find("Torch.add_rank1.3.forward")).items;
    REQUIRE(items.inputs.size() == 1);
    CHECK(items.Key(items.inputs[0]) == "Torch.add_rank1.3.forward.input.0");
    CHECK(items.cmp[items.outputs[0].cmp].name == "Torch.add_rank1.3.forward.output.0");
    // No communication node: default tp groups, logged (§15.5).
    CHECK(log.info.back() == "[NPU] All tp groups is [[0, 1]].");
  }
}

namespace {

// The TP worked example (§15.6): an MLP whose ColumnParallelLinear weight and output are sharded and
// whose RowParallelLinear ends with an all_reduce over the TP group.
const char kTpConstruct[] =
    "{\"Module.module.mlp.MLP.forward.0\": null,"
    " \"Module.module.mlp.ColumnParallelLinear.forward.0\": \"Module.module.mlp.MLP.forward.0\","
    " \"Torch.matmul.0.forward\": \"Module.module.mlp.ColumnParallelLinear.forward.0\","
    " \"Module.module.mlp.RowParallelLinear.forward.0\": \"Module.module.mlp.MLP.forward.0\","
    " \"Torch.matmul.1.forward\": \"Module.module.mlp.RowParallelLinear.forward.0\","
    " \"Distributed.all_reduce.0.forward\": \"Module.module.mlp.RowParallelLinear.forward.0\"}";

std::string TpData(int rank) {
  const bool r1 = rank == 1;
  const std::string x = T("2.0", "-2.0", "0.0", "4.0");  // replicated input
  const std::string w = r1 ? T("0.75", "-0.75", "0.0", "3.0") : T("0.5", "-0.5", "0.0", "2.0");
  const std::string y = r1 ? T("1.5", "-1.5", "0.25", "6.0") : T("1.0", "-1.0", "0.25", "8.0");
  const std::string w2 = r1 ? T("0.25", "-0.5", "0.125", "1.0") : T("0.5", "-0.25", "0.125", "1.0");
  const std::string part = r1 ? T("3.0", "-3.0", "1.0", "9.0") : T("4.0", "-4.0", "1.0", "12.0");
  const std::string full = T("7.0", "-7.0", "2.0", "15.0");
  const std::string group = "{\"type\": \"torch.ProcessGroup\", \"group_ranks\": [0, 1], \"group_id\": \"g\"}";
  return "{\"Module.module.mlp.MLP.forward.0\": {\"input_args\": [" + x + "], \"output\": [" + full +
         "]},"
         " \"Module.module.mlp.ColumnParallelLinear.forward.0\": {\"input_args\": [" +
         x + "], \"output\": [" + y + "], \"parameters\": {\"weight\": " + w +
         "}},"
         " \"Torch.matmul.0.forward\": {\"input_args\": [" +
         x + ", " + w + "], \"output\": [" + y +
         "]},"
         " \"Module.module.mlp.RowParallelLinear.forward.0\": {\"input_args\": [" +
         y + "], \"output\": [" + full + "], \"parameters\": {\"weight\": " + w2 +
         "}},"
         " \"Torch.matmul.1.forward\": {\"input_args\": [" +
         y + ", " + w2 + "], \"output\": [" + part +
         "]},"
         " \"Distributed.all_reduce.0.forward\": {\"input_args\": [" +
         part + "], \"input_kwargs\": {\"group\": " + group + "}, \"output\": [" + full + "]}}";
}

}  // namespace

TEST_CASE("TP merge of a ColumnParallelLinear / RowParallelLinear pair (§15.6)", "[merge]") {
  TempDir tmp;
  std::vector<RankGraph> ranks;
  ranks.push_back(Rank(tmp, 1, kTpConstruct, TpData(1)));  // any order: matched to groups by rank
  ranks.push_back(Rank(tmp, 0, kTpConstruct, TpData(0)));
  LogLines log;
  auto merged = MergeRankGraphs(std::move(ranks), Param(2, 2, 1), false, log.Fn());
  REQUIRE(merged.ok());
  REQUIRE(merged.value().size() == 1);
  const RankGraph& r = merged.value()[0];
  CHECK(r.rank == 0);
  // Groups come from the all_reduce's group argument.
  CHECK(log.info == std::vector<std::string>{"[NPU] All tp groups is [[0, 1]]."});

  CHECK(MergeInfo(r, "Module.module.mlp.ColumnParallelLinear.forward.0") ==
        std::vector<std::string>{
            "This data is the merged data after tensor parallelism(TP), and the data is merged from rank [0, 1].",
            "The Max value merging method for parameters.weight is: max(0.5, 0.75) = 0.75",
            "The Min value merging method for parameters.weight is: min(-0.5, -0.75) = -0.75",
            "The Mean value merging method for parameters.weight is: (0.0 + 0.0) / 2 = 0.0",
            "The Norm value merging method for parameters.weight is: (2.0 ** 2 + 3.0 ** 2) ** 0.5 = 3.605551275463989",
            "The Max value merging method for output.0 is: max(1.0, 1.5) = 1.5",
            "The Min value merging method for output.0 is: min(-1.0, -1.5) = -1.5",
            "The Mean value merging method for output.0 is: (0.25 + 0.25) / 2 = 0.25",
            "The Norm value merging method for output.0 is: (8.0 ** 2 + 6.0 ** 2) ** 0.5 = 10.0"});
  // The matmul inside RowParallelLinear takes the all_reduce's output (its input equals the
  // matmul's output), after its own inputs are merged.
  auto mm = MergeInfo(r, "Torch.matmul.1.forward");
  REQUIRE(mm.size() == 10);
  CHECK(mm[1] == "The Max value merging method for input.0 is: max(1.0, 1.5) = 1.5");
  CHECK(mm[5] == "The Max value merging method for input.1 is: max(0.5, 0.25) = 0.5");
  CHECK(mm[8] == "The Norm value merging method for input.1 is: (1.0 ** 2 + 1.0 ** 2) ** 0.5 = 1.4142135623730951");
  CHECK(mm.back() == "The output of this data is merged from Distributed.all_reduce.0.forward.output.0");
  const Graph& g = *r.graph;
  const NodeItems& items = g.node(g.Find("Torch.matmul.1.forward")).items;
  const CmpItem& out = items.cmp[items.outputs[0].cmp];
  CHECK(out.stats[0].d == 7.0);
  CHECK(out.stats[3].d == 15.0);
  CHECK(std::string(items.Text(items.outputs[0])).find("\"Max\": \"7.0\"") != std::string::npos);
  // The merged values replace the main rank's items (the weight of ColumnParallelLinear).
  const NodeItems& col = g.node(g.Find("Module.module.mlp.ColumnParallelLinear.forward.0")).items;
  CHECK(std::string(col.Text(col.inputs[1])).find("\"Norm\": \"3.605551275463989\"") != std::string::npos);
  // RowParallelLinear: input and weight differ; the replicated output is not merged.
  auto row = MergeInfo(r, "Module.module.mlp.RowParallelLinear.forward.0");
  REQUIRE(row.size() == 9);
  CHECK(row[1] == "The Max value merging method for input.0 is: max(1.0, 1.5) = 1.5");
  // Identical data (MLP) and communication nodes are left alone.
  CHECK(MergeInfo(r, "Module.module.mlp.MLP.forward.0").empty());
  CHECK(MergeInfo(r, "Distributed.all_reduce.0.forward").empty());
}

TEST_CASE("TP groups of the wrong size fall back to the default groups (§15.5)", "[merge]") {
  TempDir tmp;
  std::string data = TpData(0);
  const std::string from = "\"group_ranks\": [0, 1]", to = "\"group_ranks\": [0, 1, 2]";
  data.replace(data.find(from), from.size(), to);
  std::vector<RankGraph> ranks;
  ranks.push_back(Rank(tmp, 0, kTpConstruct, data));
  ranks.push_back(Rank(tmp, 1, kTpConstruct, TpData(1)));
  LogLines log;
  auto merged = MergeRankGraphs(std::move(ranks), Param(2, 2, 1), false, log.Fn());
  REQUIRE(merged.ok());
  REQUIRE(log.warning.size() == 1);
  CHECK(log.warning[0].find("the resulting tp groups=[[0, 1, 2], [0, 1]], its length is not equal to the parallel "
                            "param \"tp\"(2)") != std::string::npos);
  CHECK(log.info.back() == "[NPU] All tp groups is [[0, 1]].");
}

namespace {

// The PP example (§15.7): rank 0 holds the embedding and layers 0, 1; rank 1 holds layers 0, 1 and
// the output layer; rank 0 sends to rank 1.
std::string PpConstruct(int rank) {
  std::string c = "{\"Module.module.GPTModel.forward.0\": null,";
  if (rank == 0) c += " \"Module.module.embedding.Embedding.forward.0\": \"Module.module.GPTModel.forward.0\",";
  c += " \"Module.module.decoder.TransformerBlock.forward.0\": \"Module.module.GPTModel.forward.0\",";
  for (int l = 0; l < 2; ++l) {
    std::string layer = "Module.module.decoder.layers." + std::to_string(l) + ".TransformerLayer.forward.0";
    c += " \"" + layer + "\": \"Module.module.decoder.TransformerBlock.forward.0\",";
    c += " \"Torch.add." + std::to_string(l) + ".forward\": \"" + layer + "\",";
  }
  if (rank == 1) c += " \"Module.module.output_layer.ColumnParallelLinear.forward.0\": \"Module.module.GPTModel.forward.0\",";
  if (rank == 0) c += " \"Distributed.send.0.forward\": null,";
  c.back() = '}';
  return c;
}

std::string PpData(int rank) {
  auto t = [&](int k) {
    std::string v = std::to_string(rank * 10 + k) + ".0";
    return T(v, "-" + v, "0.5", v);
  };
  std::string d = "{\"Module.module.GPTModel.forward.0\": {\"input_args\": [" + t(0) + "], \"output\": [" + t(1) + "]},";
  if (rank == 0)
    d += " \"Module.module.embedding.Embedding.forward.0\": {\"input_args\": [" + t(2) + "], \"output\": [" + t(3) + "]},";
  d += " \"Module.module.decoder.TransformerBlock.forward.0\": {\"input_args\": [" + t(4) + "], \"output\": [" + t(5) + "]},";
  for (int l = 0; l < 2; ++l) {
    d += " \"Module.module.decoder.layers." + std::to_string(l) + ".TransformerLayer.forward.0\": {\"input_args\": [" + t(6 + l) +
         "], \"output\": [" + t(8 + l) + "]},";
    d +=
        " \"Torch.add." + std::to_string(l) + ".forward\": {\"input_args\": [" + t(6 + l) + "], \"output\": [" + t(8 + l) + "]},";
  }
  if (rank == 1)
    d += " \"Module.module.output_layer.ColumnParallelLinear.forward.0\": {\"input_args\": [" + t(2) + "], \"output\": [" + t(3) +
         "]},";
  if (rank == 0)
    d += " \"Distributed.send.0.forward\": {\"input_args\": [" + t(9) +
         "], \"input_kwargs\": {\"dst\": {\"type\": \"int\", \"value\": 1}}},";
  d.back() = '}';
  return d;
}

}  // namespace

TEST_CASE("PP merge renumbers the layers of the later stage (§15.7)", "[merge]") {
  TempDir tmp;
  std::vector<RankGraph> ranks;
  ranks.push_back(Rank(tmp, 0, PpConstruct(0), PpData(0)));
  ranks.push_back(Rank(tmp, 1, PpConstruct(1), PpData(1)));
  LogLines log;
  auto merged = MergeRankGraphs(std::move(ranks), Param(2, 1, 2), false, log.Fn());
  REQUIRE(merged.ok());
  REQUIRE(merged.value().size() == 1);
  CHECK(log.info == std::vector<std::string>{"[NPU] All pp groups is [[0, 1]]."});
  const Graph& g = *merged.value()[0].graph;
  CHECK(ChildNames(g, "Module.module.decoder.TransformerBlock.forward.0") ==
        std::vector<std::string>{"Module.module.decoder.layers.0.TransformerLayer.forward.0",
                                 "Module.module.decoder.layers.1.TransformerLayer.forward.0",
                                 "Module.module.decoder.layers.2.TransformerLayer.forward.0",
                                 "Module.module.decoder.layers.3.TransformerLayer.forward.0"});
  CHECK(ChildNames(g, "Module.module.decoder.layers.2.TransformerLayer.forward.0") ==
        std::vector<std::string>{"Torch.add_rank1.0.forward"});
  CHECK(ChildNames(g, "Module.module.decoder.layers.3.TransformerLayer.forward.0") ==
        std::vector<std::string>{"Torch.add_rank1.1.forward"});
  CHECK(ChildNames(g, "Module.module.GPTModel.forward.0") ==
        std::vector<std::string>{"Module.module.embedding.Embedding.forward.0",
                                 "Module.module.decoder.TransformerBlock.forward.0",
                                 "Module.module.output_layer.ColumnParallelLinear.forward.0"});
  // The renamed nodes keep rank 1's data under their new item keys.
  const NodeItems& l2 = g.node(g.Find("Module.module.decoder.layers.2.TransformerLayer.forward.0")).items;
  REQUIRE(l2.inputs.size() == 1);
  CHECK(l2.Key(l2.inputs[0]) == "Module.module.decoder.layers.2.TransformerLayer.forward.0.input.0");
  CHECK(l2.cmp[l2.inputs[0].cmp].stats[0].d == 16.0);
  CHECK(g.Find("Module.module.decoder.layers.0.TransformerLayer.forward.0%0%1") == kNoNode);
}

TEST_CASE("a missing rank of a group is an error (§19.5 item 7)", "[merge]") {
  TempDir tmp;
  std::vector<RankGraph> ranks;
  ranks.push_back(Rank(tmp, 0, kTpConstruct, TpData(0)));
  ranks.push_back(Rank(tmp, 2, kTpConstruct, TpData(1)));
  auto merged = MergeRankGraphs(std::move(ranks), Param(2, 2, 1), false, nullptr);
  REQUIRE_FALSE(merged.ok());
  CHECK(merged.status().message().find("rank1") != std::string::npos);
}

TEST_CASE("merge stages per side (§16.5) are reported one by one", "[merge]") {
  CHECK(MergeStageCount(Param(1, 1, 1)) == 1);
  CHECK(MergeStageCount(Param(8, 8, 1)) == 1);
  CHECK(MergeStageCount(Param(8, 2, 1)) == 4);
  CHECK(MergeStageCount(Param(8, 1, 8)) == 1);
  CHECK(MergeStageCount(Param(8, 1, 4, 2)) == 2);
  CHECK(MergeStageCount(Param(8, 2, 4)) == 2 + 1);  // TP+PP: two pp groups, then the TP merge
  CHECK(MergeStageCount(Param(8, 2, 2)) == 4 + 2);  // Full: four pp groups, two DP replicas

  TempDir tmp;
  const std::string construct = "{\"Module.m.M.forward.0\": null}";
  const std::string data = "{\"Module.m.M.forward.0\": {\"input_args\": [" + T("1", "0", "0.5", "2") + "]}}";
  std::vector<RankGraph> ranks;
  for (int r = 0; r < 4; ++r) ranks.push_back(Rank(tmp, r, construct, data));
  std::vector<std::pair<size_t, size_t>> seen;
  auto merged = MergeRankGraphs(std::move(ranks), Param(4, 2, 1), false, nullptr,
                                [&](size_t done, size_t total) { seen.emplace_back(done, total); });
  REQUIRE(merged.ok());
  CHECK(merged.value().size() == 2);
  CHECK(seen == std::vector<std::pair<size_t, size_t>>{{1, 2}, {2, 2}});
}

TEST_CASE("the overflow check runs again over a whole graph (§11, §15.2)", "[merge]") {
  TempDir tmp;
  const std::string construct = "{\"Torch.a.0.forward\": null, \"Torch.b.0.forward\": null}";
  const std::string data = "{\"Torch.a.0.forward\": {\"input_args\": [" + T("1", "0", "0.5", "2") + "], \"output\": [" +
                           T("Infinity", "0", "0.5", "2") + "]}, \"Torch.b.0.forward\": {\"input_args\": [" +
                           T("NaN", "0", "0.5", "2") + "], \"output\": [" + T("1", "0", "0.5", "2") + "]}, " +
                           "\"Torch.gone.0.forward\": {\"output\": [" + T("Infinity", "0", "0.5", "2") + "]}}";
  RankGraph r = Rank(tmp, 0, construct, data);
  Graph& g = *r.graph;
  NodeId a = g.Find("Torch.a.0.forward"), b = g.Find("Torch.b.0.forward");
  REQUIRE(a != kNoNode);
  REQUIRE(b != kNoNode);
  CHECK(g.node(a).overflow == Overflow::kNone);  // built without -oc
  g.node(b).overflow = Overflow::kHigh;  // a level found earlier stays
  REQUIRE(ApplyOverflowCheck(g, g.dump_path, 1 << 20).ok());
  CHECK(g.node(a).overflow == Overflow::kCritical);  // input normal, output abnormal
  CHECK(g.node(b).overflow == Overflow::kMedium);  // flagged again: the dump's level wins
  CHECK(!ApplyOverflowCheck(g, tmp / "missing.json", 1 << 20).ok());
}
