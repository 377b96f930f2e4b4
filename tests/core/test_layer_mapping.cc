// Spec §8.4 (layer mapping), §8.5 (framework detection) and the YAML subset of §8.4.3: the
// §8.4.4 table on the cross_framework_pangu sample, the layer_mapping_small sample, the item
// rules (frame scope, backward borrowing, ParallelTransformer renumbering, Megatron parents),
// and every error that makes the caller fall back to an empty mapping (§8.3).
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "match/framework.h"
#include "match/layer_mapping.h"
#include "match/layer_reader.h"
#include "match/yaml_subset.h"
#include "test_util.h"

using namespace visprobe;
using vptest::SamplesDir;
using vptest::TempDir;
using vptest::WriteFile;

namespace {

using Mapping = std::unordered_map<std::string, std::string>;

std::string Pangu(const std::string& rel) { return SamplesDir("cross_framework_pangu/" + rel); }

// A dump folder with the three files; `data_keys` become entries `{}` of "data".
std::string WriteSide(const TempDir& tmp, const std::string& name, const std::vector<std::string>& data_keys,
                      const std::string& construct, const std::string& stack, const std::string& framework = "pytorch") {
  std::string data = "{";
  for (size_t i = 0; i < data_keys.size(); ++i) data += (i ? ", \"" : "\"") + data_keys[i] + "\": {}";
  data += "}";
  std::string dir = tmp / name;
  std::string fw = framework.empty() ? std::string() : "\"framework\": \"" + framework + "\", ";
  WriteFile(dir + "/dump.json", "{\"task\": \"statistics\", \"level\": \"mix\", " + fw + "\"data\": " + data + "}");
  if (!construct.empty()) WriteFile(dir + "/construct.json", construct);
  if (!stack.empty()) WriteFile(dir + "/stack.json", stack);
  return dir + "/dump.json";
}

std::map<std::string, LayerDataItem> ItemsByName(const std::string& dump) {
  auto r = ReadLayerDataItems(dump);
  REQUIRE(r.ok());
  std::map<std::string, LayerDataItem> out;
  for (const auto& it : r.value()) out[it.data_name] = it;
  return out;
}

Result<std::vector<YamlClassMapping>> ParseYaml(const std::string& text) { return ParseLayerMappingYaml(text, "m.yaml"); }

const char* kPtFrame = "File /usr/lib/python3/site-packages/torch/nn/functional.py, line 10, in linear, \n return x";
const char* kPtTemplate = "File /x/msprobe/pytorch/hook_module/wrap.py, line 5, in forward, \n return TorchOPTemplate(x)";

}  // namespace

TEST_CASE("layer mapping: the §8.4.4 table on cross_framework_pangu", "[mapping]") {
  auto r = ComputeLayerMapping(Pangu("mindspore_data/dump.json"), Pangu("pytorch_data/dump.json"), Pangu("layer_mapping.yaml"));
  REQUIRE(r.ok());
  const Mapping& m = r.value();
  // The rows of the spec table.
  CHECK(m.at("Mint.logical_or.0.forward") == "Tensor.__or__.0.forward");
  CHECK(m.at("Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0") ==
        "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0");
  CHECK(m.at("Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0") ==
        "Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0");
  CHECK(m.at("Functional.flash_attention_score.0.forward") == "NPU.npu_fusion_attention.0.forward");
  CHECK(m.at("Primitive.norm.RmsNorm.0.forward") == "NPU.npu_rms_norm.0.forward");
  CHECK(m.at("Tensor.__add__.1.forward") == "Tensor.__add__.0.forward");
  CHECK(m.at("Tensor.__add__.0.forward") == "N/A");
  CHECK(m.at("Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.backward.0") == "N/A");
  // The whole mapping: one entry per target dump key (msProbe's own expectation for this pair).
  const Mapping expected = {
      {"Tensor.__add__.0.forward", "N/A"},
      {"Tensor.__bool__.1.forward", "N/A"},
      {"Tensor.__add__.1.forward", "Tensor.__add__.0.forward"},
      {"Mint.logical_or.0.forward", "Tensor.__or__.0.forward"},
      {"Distributed.all_reduce.0.forward", "Distributed.all_reduce.0.forward"},
      {"Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
       "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0"},
      {"Primitive.norm.RmsNorm.0.forward", "NPU.npu_rms_norm.0.forward"},
      {"Cell.network_with_loss.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0",
       "Module.module.module.language_model.encoder.layers.0.ParallelTransformerLayer.forward.0"},
      {"Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.backward.0", "N/A"},
      {"Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0",
       "Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0"},
      {"Mint.cos.0.forward", "Torch.cos.0.forward"},
      {"Functional.flash_attention_score.0.forward", "NPU.npu_fusion_attention.0.forward"},
      {"Functional.flash_attention_score.0.backward", "NPU.npu_fusion_attention.0.backward"},
  };
  CHECK(m == expected);
}

TEST_CASE("layer mapping: data items of cross_framework_pangu", "[mapping]") {
  auto ms = ItemsByName(Pangu("mindspore_data/dump.json"));
  REQUIRE(ms.size() == 13);
  // The MindSpore stack of Tensor.__add__.0 ends in a framework frame `__getitem__`.
  CHECK(ms["Tensor.__add__.0.forward"].frame_scope == "__getitem__");
  CHECK(ms["Tensor.__add__.0.forward"].full_scope == "TopLayer.__getitem__.__add__");
  CHECK(ms["Tensor.__add__.1.forward"].full_scope == "TopLayer.__add__");
  CHECK(ms["Mint.logical_or.0.forward"].full_scope ==
        "Cell.network_with_loss.module.language_model.embedding.word_embeddings.logical_or");
  // Primitive APIs never look at their stack.
  CHECK(ms["Primitive.norm.RmsNorm.0.forward"].frame_scope.empty());
  const auto& cell = ms["Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0"];
  CHECK(cell.api_type == "Cell");
  CHECK(cell.api_name == "attention");
  CHECK(cell.type_name == "ParallelAttention");
  CHECK(cell.state == "forward");
  CHECK(cell.layer_scope == "Cell.network_with_loss.module.language_model.encoder.layers.0");
  // Backward items borrow the forward item's scopes.
  CHECK(ms["Functional.flash_attention_score.0.backward"].full_scope ==
        ms["Functional.flash_attention_score.0.forward"].full_scope);
  CHECK(ms["Functional.flash_attention_score.0.backward"].state == "backward");

  auto pt = ItemsByName(Pangu("pytorch_data/dump.json"));
  REQUIRE(pt.size() == 12);
  CHECK(pt["NPU.npu_fusion_attention.0.forward"].full_scope ==
        "Module.module.module.language_model.encoder.layers.0.self_attention.core_attention_flash.npu_fusion_attention");
  CHECK(pt["Tensor.__add__.0.forward"].full_scope == "TopLayer.__add__");
}

TEST_CASE("layer mapping: -lm without a file on cross_framework_pangu", "[mapping]") {
  auto r = ComputeLayerMapping(Pangu("mindspore_data/dump.json"), Pangu("pytorch_data/dump.json"), "");
  REQUIRE(r.ok());
  REQUIRE(r->size() == 13);
  // Without the YAML only identical scopes meet: the top-level Tensor.__add__ calls.
  size_t mapped = 0;
  for (const auto& [k, v] : r.value()) mapped += v != "N/A";
  CHECK(mapped == 1);
  CHECK(r->at("Tensor.__add__.1.forward") == "Tensor.__add__.0.forward");
}

TEST_CASE("layer mapping: layer_mapping_small", "[mapping]") {
  auto r = ComputeLayerMapping(SamplesDir("layer_mapping_small/mindspore/dump.json"),
                               SamplesDir("layer_mapping_small/pytorch/dump.json"),
                               SamplesDir("layer_mapping_small/layer_mapping.yaml"));
  REQUIRE(r.ok());
  const Mapping expected = {
      {"Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
       "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0"}};
  CHECK(r.value() == expected);
}

TEST_CASE("framework detection (§8.5)", "[mapping]") {
  auto ms = DetectFramework(Pangu("mindspore_data/dump.json"));
  REQUIRE(ms.ok());
  CHECK(ms.value() == "mindspore");
  auto pt = DetectFramework(Pangu("pytorch_data/dump.json"));
  REQUIRE(pt.ok());
  CHECK(pt.value() == "pytorch");

  TempDir tmp;
  auto detect = [&](const std::string& text) {
    WriteFile(tmp / "d/dump.json", text);
    return DetectFramework(tmp / "d/dump.json");
  };
  // No framework field: the first line with a tensor type decides.
  auto a = detect("{\"data\": {\"Torch.add.0.forward\": {\"input_args\": [\n{\"type\":  \"torch.Tensor\"}]}}}");
  REQUIRE(a.ok());
  CHECK(a.value() == "pytorch");
  auto b = detect("{\"data\": {\"x\": {\"output\": [{\"type\":\t\"mindspore.Tensor\"}]}}}");
  REQUIRE(b.ok());
  CHECK(b.value() == "mindspore");
  // A field other than pytorch/mindspore (mindtorch) also falls back to the lines.
  auto c = detect("{\"framework\": \"mindtorch\", \"data\": {\"x\": {\"output\": [\n{\"type\": \"mindspore.Tensor\"}]}}}");
  REQUIRE(c.ok());
  CHECK(c.value() == "mindspore");
  // Inside one line MindSpore wins, whatever the order; across lines the first line wins.
  auto d = detect("{\"data\": {\"x\": {\"a\": {\"type\": \"torch.Tensor\"}, \"b\": {\"type\": \"mindspore.Tensor\"}}}}");
  REQUIRE(d.ok());
  CHECK(d.value() == "mindspore");
  auto e = detect("{\"data\": {\"x\": {\"a\": {\"type\": \"torch.Tensor\"},\r\n\"b\": {\"type\": \"mindspore.Tensor\"}}}}");
  REQUIRE(e.ok());
  CHECK(e.value() == "pytorch");
  // The pattern does not span lines; a near miss ("type": "int") does not count.
  auto f = detect("{\"data\": {\"x\": {\"a\": {\"type\":\n\"torch.Tensor\"}, \"b\": {\"type\": \"int\"}}}}");
  REQUIRE_FALSE(f.ok());
  CHECK(f.status().message() == tmp / "d/dump.json" + " must be based on the MindSpore or PyTorch framework.");
  // A null framework field, placed after the data, also falls back to the lines.
  auto g = detect("{\"data\": {\"x\": {\"t\": {\"type\": \"torch.Size\"}}}, \"framework\": null}");
  REQUIRE(g.ok());
  CHECK(g.value() == "pytorch");
  // The field wins over the lines.
  auto h = detect("{\"data\": {\"x\": {\"t\": {\"type\": \"torch.Size\"}}}, \"framework\": \"mindspore\"}");
  REQUIRE(h.ok());
  CHECK(h.value() == "mindspore");
  // The pattern is found across the block boundaries of the line search (1 MiB blocks).
  for (size_t shift = 0; shift < 16; ++shift) {
    const std::string head = "{\"data\": {\"x\": {\"pad\": \"";
    const std::string tail = "\", \"t\": {\"type\":  \"torch.Tensor\"}}}}";
    const size_t pattern_at = (1u << 20) - 8 + shift;  // offset of "type" in the file
    const size_t pad = pattern_at - head.size() - std::string("\", \"t\": {").size();
    auto r = detect(head + std::string(pad, 'a') + tail);
    INFO(shift);
    REQUIRE(r.ok());
    CHECK(r.value() == "pytorch");
  }
  // A dump that is not JSON fails.
  CHECK_FALSE(detect("not json").ok());
}

TEST_CASE("layer mapping YAML subset", "[mapping]") {
  SECTION("comments, blank lines, quotes, ---") {
    auto r = ParseYaml(
        "# leading comment\n"
        "---\n"
        "\n"
        "TopLayer:   # trailing comment\n"
        "  network_with_loss: module\n"
        "  # indented comment\n"
        "  'quoted.key': \"double # not a comment\"\n"
        "  \"esc\\tkey\": 'it''s'\n"
        "  plain key with spaces: value with spaces   # comment\n"
        "\n"
        "Empty: {}\n"
        "Other:\r\n"
        "    a.b: c(d)\r\n");
    REQUIRE(r.ok());
    const auto& c = r.value();
    REQUIRE(c.size() == 3);
    CHECK(c[0].name == "TopLayer");
    using E = std::vector<std::pair<std::string, std::string>>;
    CHECK(c[0].entries == E{{"network_with_loss", "module"},
                            {"quoted.key", "double # not a comment"},
                            {"esc\tkey", "it's"},
                            {"plain key with spaces", "value with spaces"}});
    CHECK(c[1].name == "Empty");
    CHECK(c[1].entries.empty());
    CHECK_FALSE(c[1].is_null);
    CHECK(c[2].entries == E{{"a.b", "c(d)"}});
  }
  SECTION("the flow form {} is an empty document") {
    auto r = ParseYaml("# nothing mapped\n{}\n");
    REQUIRE(r.ok());
    CHECK(r->empty());
    auto r2 = ParseYaml("--- # doc\n{ }  # empty\n...\n");
    REQUIRE(r2.ok());
    CHECK(r2->empty());
  }
  SECTION("PyYAML's tab and comment rules") {
    // A comment may follow a closing quote directly; tabs are only allowed in quotes and comments.
    auto r = ParseYaml("A:\n  x: \"y\"#c\n  'a\tb': \"c\td\"  # e\tf\n");
    REQUIRE(r.ok());
    CHECK(r->at(0).entries == std::vector<std::pair<std::string, std::string>>{{"x", "y"}, {"a\tb", "c\td"}});
    for (const char* bad : {"A:\n  x:\ty\n", "A:\n  x: y\t# c\n", "A:\n  x: y\tz\n", "A:\t\n  x: y\n", "A:\n  'x'\t: y\n",
                            "A: {}\t\n", "A:\n  x: y\n \t\n"}) {
      INFO(bad);
      CHECK_FALSE(ParseYaml(bad).ok());
    }
  }
  SECTION("repeated keys: first position, last value") {
    auto r = ParseYaml("A:\n  x: 1\n  y: 2\n  x: 3\nB:\n  z: 4\nA:\n  w: 5\n");
    REQUIRE(r.ok());
    REQUIRE(r->size() == 2);
    CHECK(r->at(0).name == "A");
    CHECK(r->at(0).entries == std::vector<std::pair<std::string, std::string>>{{"w", "5"}});
    CHECK(r->at(1).name == "B");
  }
  SECTION("a class with nothing under it is null") {
    auto r = ParseYaml("Cell:\nTopLayer:\n  a: b\n");
    REQUIRE(r.ok());
    CHECK(r->at(0).is_null);
    CHECK_FALSE(r->at(1).is_null);
  }
  SECTION("errors name the file and the line") {
    auto err = [](const std::string& text) {
      auto r = ParseYaml(text);
      REQUIRE_FALSE(r.ok());
      return r.status().message();
    };
    CHECK(err("").rfind("m.yaml:", 0) == 0);  // empty document
    CHECK(err("# only a comment\n---\n").find("empty") != std::string::npos);
    CHECK(err("A:\n  x: y\n  - z\n").rfind("m.yaml:3:", 0) == 0);  // sequence
    CHECK(err("A:\n  x: y\n      z: w\n").rfind("m.yaml:3:", 0) == 0);  // third level / bad indent
    CHECK(err("A:\n  x:\n").rfind("m.yaml:2:", 0) == 0);  // empty value
    CHECK(err("A:\n  x: b: c\n").rfind("m.yaml:2:", 0) == 0);  // nested mapping on one line
    CHECK(err("A: scalar\n").rfind("m.yaml:1:", 0) == 0);  // class value is not a mapping
    CHECK(err("A:\n  x: 'unterminated\n").rfind("m.yaml:2:", 0) == 0);
    CHECK(err("A:\n  x: [1, 2]\n").rfind("m.yaml:2:", 0) == 0);
    CHECK(err("A:\n  x: &anchor y\n").rfind("m.yaml:2:", 0) == 0);
    CHECK(err("{a: b}\n").rfind("m.yaml:1:", 0) == 0);
    CHECK(err("{}\nA:\n  x: y\n").rfind("m.yaml:2:", 0) == 0);
    CHECK(err("A:\n  x: y\n---\nB:\n  z: w\n").rfind("m.yaml:3:", 0) == 0);  // a second document
    CHECK(err("A:\n\tx: y\n").rfind("m.yaml:2:", 0) == 0);  // tab indentation
    CHECK(err("A:\n  novalue\n").rfind("m.yaml:2:", 0) == 0);
    CHECK(err("  A:\n    x: y\nB:\n  z: w\n").rfind("m.yaml:3:", 0) == 0);  // dedent below the top level
  }
  SECTION("file checks: suffix and existence") {
    TempDir tmp;
    WriteFile(tmp / "m.yml", "A:\n  x: y\n");
    auto a = LoadLayerMappingYaml(tmp / "m.yml");
    REQUIRE_FALSE(a.ok());
    CHECK(a.status().message() == tmp / "m.yml" + " should be one of the following types of files: [.yaml]!");
    auto b = LoadLayerMappingYaml(tmp / "missing.yaml");
    REQUIRE_FALSE(b.ok());
    CHECK(b.status().message() == "The file path " + tmp / "missing.yaml" + " does not exist.");
    WriteFile(tmp / "m.yaml", "A:\n  x: y\n");
    auto c = LoadLayerMappingYaml(tmp / "m.yaml");
    REQUIRE(c.ok());
    CHECK(c->size() == 1);
  }
}

TEST_CASE("user mapping preprocessing (§8.4.3)", "[mapping]") {
  SECTION("the spec example") {
    auto y = ParseYaml("GPTModel: \n  language_model.embedding: embedding\n  language_model.encoder: decoder\n");
    REQUIRE(y.ok());
    auto r = PreprocessLayerMapping(y.value());
    REQUIRE(r.ok());
    REQUIRE(r->size() == 1);
    const auto& groups = r->at("GPTModel");
    REQUIRE(groups.size() == 1);
    const auto& g = groups.at("language_model");
    REQUIRE(g.size() == 2);
    CHECK(g[0].src == "language_model.embedding");
    CHECK(g[0].dst == "embedding");
    CHECK(g[0].segments == 2);
    CHECK(g[1].src == "language_model.encoder");
    CHECK(g[1].dst == "decoder");
    CHECK(g[1].segments == 2);
  }
  SECTION("groups sorted by descending segment count, stable") {
    auto y = ParseYaml("A:\n  a.demo: new_demo\n  z: new_z\n  a: new_a\n  a.b.c: new_c\n  d.e: e\n  a.x: new_x\n");
    REQUIRE(y.ok());
    auto r = PreprocessLayerMapping(y.value());
    REQUIRE(r.ok());
    const auto& a = r->at("A").at("a");
    REQUIRE(a.size() == 4);
    CHECK(a[0].src == "a.b.c");
    CHECK(a[1].src == "a.demo");
    CHECK(a[2].src == "a.x");
    CHECK(a[3].src == "a");
    CHECK(r->at("A").at("z").at(0).segments == 1);
    CHECK(r->at("A").at("d").at(0).dst == "e");
  }
  SECTION("Cell is renamed TopLayer; dst is cut at '('") {
    auto y = ParseYaml("Cell:\n  network_with_loss: module(the wrapper)\nTopLayer:\n  other: x\n");
    REQUIRE(y.ok());
    auto r = PreprocessLayerMapping(y.value());
    REQUIRE(r.ok());
    CHECK(r->count("Cell") == 0);
    const auto& top = r->at("TopLayer");
    CHECK(top.count("other") == 0);  // the Cell value replaces TopLayer's
    CHECK(top.at("network_with_loss").at(0).dst == "module");
  }
  SECTION("null classes") {
    auto y = ParseYaml("Cell:\nTopLayer:\n  a: b\n");
    REQUIRE(y.ok());
    auto r = PreprocessLayerMapping(y.value());  // a null Cell is dropped
    REQUIRE(r.ok());
    CHECK(r->at("TopLayer").at("a").at(0).dst == "b");
    auto y2 = ParseYaml("Foo:\nTopLayer:\n  a: b\n");
    REQUIRE(y2.ok());
    CHECK_FALSE(PreprocessLayerMapping(y2.value()).ok());
  }
  SECTION("the renamed Cell mapping drives ComputeLayerMapping") {
    TempDir tmp;
    std::string yaml = tmp / "cell.yaml";
    WriteFile(yaml,
              "Cell:   # legacy name of the top layer\n"
              "  network_with_loss: \"module(wrapper)\"\n"
              "VocabParallelEmbedding:\n"
              "  logical_or: '__or__'\n"
              "  reduce_from_mp_region.all_reduce: all_reduce\n"
              "ParallelTransformerLayer: {attention: self_attention}\n");
    // The flow mapping of the last class is outside the subset: the whole file is refused.
    CHECK_FALSE(ComputeLayerMapping(Pangu("mindspore_data/dump.json"), Pangu("pytorch_data/dump.json"), yaml).ok());
    WriteFile(yaml,
              "Cell:   # legacy name of the top layer\n"
              "  network_with_loss: \"module(wrapper)\"\n"
              "VocabParallelEmbedding:\n"
              "  logical_or: '__or__'\n"
              "  reduce_from_mp_region.all_reduce: all_reduce\n");
    auto r = ComputeLayerMapping(Pangu("mindspore_data/dump.json"), Pangu("pytorch_data/dump.json"), yaml);
    REQUIRE(r.ok());
    CHECK(r->at("Mint.logical_or.0.forward") == "Tensor.__or__.0.forward");
    CHECK(r->at("Distributed.all_reduce.0.forward") == "Distributed.all_reduce.0.forward");
    CHECK(r->at("Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0") ==
          "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0");
    // No `attention` rule: the attention subtree stays unmatched.
    CHECK(r->at("Mint.cos.0.forward") == "N/A");
  }
}

TEST_CASE("layer mapping: stack frame scope (§8.4.1)", "[mapping]") {
  auto pt = [](const std::vector<std::string>& lines) {
    auto r = StackFrameScope(lines, false);
    REQUIRE(r.ok());
    return r.value();
  };
  // Region between the last "Template" line and the next `in forward,`; the last framework frame
  // before user code names the scope.
  CHECK(pt({"File /a/site-packages/torch/x.py, line 1, in inner, \n x", kPtTemplate,
            "File /a/site-packages/torch/nn/modules/module.py, line 2, in _call_impl, \n y", kPtFrame,
            "File /home/user/model.py, line 3, in block, \n z", "File /a/site-packages/torch/other.py, line 4, in later, \n w",
            "File /home/user/model.py, line 9, in forward, \n v"}) == "linear");
  // No Template line: the region starts at the top.
  CHECK(pt({kPtFrame, "File /home/user/m.py, line 1, in f, \n x"}) == "linear");
  // A user line first: no framework frame.
  CHECK(pt({"File /home/user/m.py, line 1, in f, \n x", kPtFrame}).empty());
  // Framework frames in msprobe or named construct/__call__ give nothing.
  CHECK(pt({"File /site-packages/torch/msprobe/x.py, line 1, in hook, \n x"}).empty());
  CHECK(pt({"File /site-packages/torch/nn/module.py, line 1, in __call__, \n x"}).empty());
  // MindSpore ends the region at a line containing "construct".
  auto ms = StackFrameScope(
      {"File /x/wrap_api.py, line 98, in api_function, \n return ApiTemplate(a)(b)",
       "File /p/site-packages/mindspore/ops/_compile_utils.py, line 1, in _tensor_getitem, \n r",
       "File /p/site-packages/mindspore/common/tensor.py, line 2, in __getitem__, \n r",
       "File /p/model.py, line 3, in construct, \n x", "File /p/site-packages/mindspore/nn/cell.py, line 4, in later, \n y"},
      true);
  REQUIRE(ms.ok());
  CHECK(ms.value() == "__getitem__");
  // Malformed frames fail like the reference (IndexError), user frames included.
  CHECK_FALSE(StackFrameScope({"File /site-packages/torch/x.py line 1"}, false).ok());
  CHECK_FALSE(StackFrameScope({kPtFrame, "File /home/user/m.py, line 1,"}, false).ok());
  CHECK_FALSE(StackFrameScope({"File /site-packages/torch/x.py, line 1, oneword"}, false).ok());
}

TEST_CASE("layer mapping: synthetic sides", "[mapping]") {
  TempDir tmp;
  SECTION("APIs under matched modules pair by position; parameters_grad items") {
    std::vector<std::string> keys = {"Module.layer.Linear.forward.0", "Torch.matmul.0.forward", "Torch.matmul.1.forward",
                                     "Module.layer.Linear.parameters_grad", "Torch.relu.0.forward"};
    std::string construct =
        "{\"Module.layer.Linear.forward.0\": null, \"Torch.matmul.0.forward\": \"Module.layer.Linear.forward.0\","
        " \"Torch.matmul.1.forward\": \"Module.layer.Linear.forward.0\", \"Torch.relu.0.forward\": \"\"}";
    std::string t = WriteSide(tmp, "t", keys, construct, "{\"Torch.relu.0.forward\": []}");
    std::vector<std::string> gkeys = {"Module.layer.Linear.forward.0", "Torch.matmul.5.forward",
                                      "Module.layer.Linear.parameters_grad.0", "Torch.relu.3.forward"};
    std::string gconstruct =
        "{\"Module.layer.Linear.forward.0\": null, \"Torch.matmul.5.forward\": \"Module.layer.Linear.forward.0\"}";
    std::string g = WriteSide(tmp, "g", gkeys, gconstruct, "{\"x\": []}");

    auto items = ItemsByName(t);
    CHECK(items["Module.layer.Linear.parameters_grad"].full_scope == "Module.layer");
    CHECK(items["Module.layer.Linear.parameters_grad"].state == "parameters_grad");
    CHECK(items["Torch.matmul.0.forward"].full_scope == "Module.layer.matmul");
    CHECK(items["Torch.relu.0.forward"].full_scope == "TopLayer.relu");
    auto gitems = ItemsByName(g);
    CHECK(gitems["Module.layer.Linear.parameters_grad.0"].api_name == "layer");
    CHECK(gitems["Module.layer.Linear.parameters_grad.0"].type_name == "Linear");
    CHECK(gitems["Module.layer.Linear.parameters_grad.0"].full_scope == "Module.layer.layer");

    auto r = ComputeLayerMapping(t, g, "");
    REQUIRE(r.ok());
    const Mapping expected = {
        {"Module.layer.Linear.forward.0", "Module.layer.Linear.forward.0"},
        {"Torch.matmul.0.forward", "Torch.matmul.5.forward"},
        {"Torch.matmul.1.forward", "N/A"},
        {"Module.layer.Linear.parameters_grad", "N/A"},
        {"Torch.relu.0.forward", "Torch.relu.3.forward"},
    };
    CHECK(r.value() == expected);
  }
  SECTION("ParallelTransformer layer indices become relative (MindSpore PP)") {
    std::vector<std::string> keys = {"Cell.net.encoder.ParallelTransformer.forward.0",
                                     "Cell.net.encoder.layers.4.ParallelTransformerLayer.forward.0",
                                     "Cell.net.encoder.layers.5.ParallelTransformerLayer.forward.0", "Mint.add.0.forward"};
    std::string construct = "{\"Mint.add.0.forward\": \"Cell.net.encoder.layers.5.ParallelTransformerLayer.forward.0\"}";
    std::string t = WriteSide(tmp, "t", keys, construct, "{\"x\": []}", "mindspore");
    auto items = ItemsByName(t);
    CHECK(items["Cell.net.encoder.layers.4.ParallelTransformerLayer.forward.0"].full_scope == "Cell.net.encoder.layers.0");
    CHECK(items["Cell.net.encoder.layers.5.ParallelTransformerLayer.forward.0"].full_scope == "Cell.net.encoder.layers.1");
    CHECK(items["Mint.add.0.forward"].full_scope == "Cell.net.encoder.layers.1.add");

    std::vector<std::string> gkeys = {"Module.net.encoder.layers.0.ParallelTransformerLayer.forward.0",
                                      "Module.net.encoder.layers.1.ParallelTransformerLayer.forward.0", "Torch.add.0.forward"};
    std::string gconstruct = "{\"Torch.add.0.forward\": \"Module.net.encoder.layers.1.ParallelTransformerLayer.forward.0\"}";
    std::string g = WriteSide(tmp, "g", gkeys, gconstruct, "{\"x\": []}");
    auto r = ComputeLayerMapping(t, g, "");
    REQUIRE(r.ok());
    CHECK(r->at("Cell.net.encoder.layers.4.ParallelTransformerLayer.forward.0") ==
          "Module.net.encoder.layers.0.ParallelTransformerLayer.forward.0");
    CHECK(r->at("Mint.add.0.forward") == "Torch.add.0.forward");
    CHECK(r->at("Cell.net.encoder.ParallelTransformer.forward.0") == "N/A");
  }
  SECTION("non-numeric layer segments under a ParallelTransformer become nan (inf - inf)") {
    std::vector<std::string> keys = {"Cell.net.encoder.ParallelTransformer.forward.0",
                                     "Cell.net.encoder.layers.first.Layer.forward.0"};
    std::string t = WriteSide(tmp, "t", keys, "{\"a\": null}", "{\"x\": []}", "mindspore");
    auto items = ItemsByName(t);
    CHECK(items["Cell.net.encoder.layers.first.Layer.forward.0"].full_scope == "Cell.net.encoder.layers.nan");
  }
  SECTION("Megatron construct: 2-element lists give the parent") {
    std::string construct = "{\"Torch.add.0.forward\": [\"Module.m.Block.forward.0\", 1], \"megatron_micro_step_number\": 1}";
    std::string t = WriteSide(tmp, "t", {"Module.m.Block.forward.0", "Torch.add.0.forward"}, construct, "{\"x\": []}");
    auto items = ItemsByName(t);
    CHECK(items["Torch.add.0.forward"].full_scope == "Module.m.add");
    // Without the Megatron key a list parent is not a string: failure.
    std::string t2 = WriteSide(tmp, "t2", {"Torch.add.0.forward"}, "{\"Torch.add.0.forward\": [\"Module.m.Block.forward.0\", 1]}",
                               "{\"x\": []}");
    CHECK_FALSE(ReadLayerDataItems(t2).ok());
    // A list of another length fails the Megatron parsing.
    std::string t3 =
        WriteSide(tmp, "t3", {"Torch.add.0.forward"}, "{\"a\": [\"p\"], \"megatron_micro_step_number\": 0}", "{\"x\": []}");
    auto e3 = ReadLayerDataItems(t3);
    REQUIRE_FALSE(e3.ok());
    CHECK(e3.status().message() == "Parse construct json file \"construct.json\" failed.");
  }
  SECTION("grouped (new format) stack.json gives no stacks") {
    std::string stack =
        "{\"0\": [[\"Torch.add.0.forward\"], [\"" + std::string(kPtTemplate) + "\", \"" + std::string(kPtFrame) + "\"]]}";
    // JSON-escape the newlines of the frames.
    std::string escaped;
    for (char c : stack) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
    std::string t = WriteSide(tmp, "t", {"Torch.add.0.forward"}, "{\"a\": null}", escaped);
    CHECK(ItemsByName(t)["Torch.add.0.forward"].full_scope == "TopLayer.add");
    std::string old_format =
        "{\"Torch.add.0.forward\": [\"" + std::string(kPtTemplate) + "\", \"" + std::string(kPtFrame) + "\"]}";
    escaped.clear();
    for (char c : old_format) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
    std::string t2 = WriteSide(tmp, "t2", {"Torch.add.0.forward"}, "{\"a\": null}", escaped);
    CHECK(ItemsByName(t2)["Torch.add.0.forward"].full_scope == "TopLayer.linear.add");
  }
  SECTION("repeated dump keys keep their first position") {
    std::string dir = tmp / "dup";
    WriteFile(dir + "/dump.json",
              "{\"framework\": \"pytorch\", \"data\": {\"Torch.a.0.forward\": {}, \"Torch.b.0.forward\": {}, "
              "\"Torch.a.0.forward\": {}}}");
    WriteFile(dir + "/construct.json", "{\"x\": null}");
    WriteFile(dir + "/stack.json", "{\"x\": []}");
    auto r = ReadLayerDataItems(dir + "/dump.json");
    REQUIRE(r.ok());
    REQUIRE(r->size() == 2);
    CHECK(r->at(0).data_name == "Torch.a.0.forward");
    CHECK(r->at(1).data_name == "Torch.b.0.forward");
  }
  SECTION("no items: both files missing, or one of them empty") {
    std::string a = WriteSide(tmp, "a", {"Torch.add.0.forward", "bad"}, "", "");
    auto ra = ReadLayerDataItems(a);
    REQUIRE(ra.ok());
    CHECK(ra->empty());
    std::string b = WriteSide(tmp, "b", {"Torch.add.0.forward", "bad"}, "{}", "{\"x\": []}");
    auto rb = ReadLayerDataItems(b);
    REQUIRE(rb.ok());
    CHECK(rb->empty());
    std::string c = WriteSide(tmp, "c", {"Torch.add.0.forward"}, "{\"megatron_micro_step_number\": 0}", "{\"x\": []}");
    auto rc = ReadLayerDataItems(c);
    REQUIRE(rc.ok());
    CHECK(rc->empty());
    // A target without items maps nothing.
    auto m = ComputeLayerMapping(a, Pangu("pytorch_data/dump.json"), "");
    REQUIRE(m.ok());
    CHECK(m->empty());
  }
}

TEST_CASE("layer mapping errors (§8.3 fallback cases)", "[mapping]") {
  TempDir tmp;
  const std::string good = Pangu("pytorch_data/dump.json");
  SECTION("a dump key with fewer than 4 segments") {
    std::string t = WriteSide(tmp, "t", {"Torch.add.0.forward", "Torch.add.forward"}, "{\"x\": null}", "{\"x\": []}");
    auto r = ComputeLayerMapping(t, good, "");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("no less than four fields") != std::string::npos);
    CHECK(r.status().message().find("Torch.add.forward") != std::string::npos);
  }
  SECTION("exactly one of stack.json / construct.json missing") {
    std::string t = WriteSide(tmp, "t", {"Torch.add.0.forward"}, "{\"x\": null}", "");
    auto r = ComputeLayerMapping(t, good, "");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() == "stack.json or construct.json not found, please check.");
    std::string g = WriteSide(tmp, "g", {"Torch.add.0.forward"}, "", "{\"x\": []}");
    auto r2 = ComputeLayerMapping(good, g, "");
    REQUIRE_FALSE(r2.ok());
    CHECK(r2.status().message() == "stack.json or construct.json not found, please check.");
  }
  SECTION("a stack entry that is not a list of strings") {
    std::string t =
        WriteSide(tmp, "t", {"Torch.add.0.forward"}, "{\"x\": null}", "{\"Torch.add.0.forward\": \"File a.py, line 1, in f\"}");
    auto r = ComputeLayerMapping(t, good, "");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("list[str]") != std::string::npos);
    std::string t2 = WriteSide(tmp, "t2", {"Torch.add.0.forward"}, "{\"x\": null}", "{\"Torch.add.0.forward\": [1]}");
    CHECK_FALSE(ComputeLayerMapping(t2, good, "").ok());
    // Modules and Primitive/Jit APIs never read their stack entry.
    std::string t3 = WriteSide(tmp, "t3", {"Module.a.B.forward.0", "Primitive.norm.RmsNorm.0.forward"}, "{\"x\": null}",
                               "{\"Module.a.B.forward.0\": 5, \"Primitive.norm.RmsNorm.0.forward\": {\"k\": 1}}");
    CHECK(ComputeLayerMapping(t3, good, "").ok());
    // The last of repeated stack entries is the one read.
    std::string t4 = WriteSide(tmp, "t4", {"Torch.add.0.forward"}, "{\"x\": null}",
                               "{\"Torch.add.0.forward\": 7, \"Torch.add.0.forward\": []}");
    CHECK(ComputeLayerMapping(t4, good, "").ok());
  }
  SECTION("a construct parent with a dot and fewer than 4 segments") {
    std::string t =
        WriteSide(tmp, "t", {"Torch.add.0.forward"}, "{\"Torch.add.0.forward\": \"Module.a.forward\"}", "{\"x\": []}");
    auto r = ComputeLayerMapping(t, good, "");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("Module.a.forward") != std::string::npos);
    // A parent without a dot is accepted (layer scope "").
    std::string t2 = WriteSide(tmp, "t2", {"Torch.add.0.forward"}, "{\"Torch.add.0.forward\": \"optimizer\"}", "{\"x\": []}");
    auto items = ReadLayerDataItems(t2);
    REQUIRE(items.ok());
    CHECK(items->at(0).full_scope == ".add");
  }
  SECTION("YAML problems") {
    WriteFile(tmp / "empty.yaml", "# nothing\n");
    CHECK_FALSE(ComputeLayerMapping(good, good, tmp / "empty.yaml").ok());
    CHECK_FALSE(ComputeLayerMapping(good, good, tmp / "missing.yaml").ok());
    WriteFile(tmp / "list.yaml", "- a\n- b\n");
    CHECK_FALSE(ComputeLayerMapping(good, good, tmp / "list.yaml").ok());
    WriteFile(tmp / "ok.yaml", "{}\n");
    auto r = ComputeLayerMapping(good, good, tmp / "ok.yaml");
    REQUIRE(r.ok());
    // Same dump on both sides: every node maps to itself.
    for (const auto& [k, v] : r.value()) CHECK(k == v);
  }
  SECTION("framework undetectable") {
    std::string t = WriteSide(tmp, "t", {"Torch.add.0.forward"}, "{\"x\": null}", "{\"x\": []}", "");
    auto r = ComputeLayerMapping(t, good, "");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message() == t + " must be based on the MindSpore or PyTorch framework.");
  }
}

TEST_CASE("layer mapping: a chosen file's text checked as -lm reads it (the page's check before a run)", "[mapping]") {
  const std::string sample = vptest::ReadFile(SamplesDir("cross_framework_pangu/layer_mapping.yaml"));
  CHECK(CheckLayerMappingText(sample, "layer_mapping.yaml").ok());
  CHECK(CheckLayerMappingText("Cell:\n  a: b\n", "m.yaml").ok());
  // The message the page shows for this file (tests/browser/test_browser.mjs).
  CHECK(CheckLayerMappingText("- Cell\n- Module\n", "not_a_mapping.yaml").message() ==
        "not_a_mapping.yaml:1: sequences are not supported");
  for (const char* bad : {"", "- a\n- b\n", "Cell: [a, b\n", "Cell:\n  a: [1, 2]\n  : x\n"}) {
    INFO(bad);
    Status s = CheckLayerMappingText(bad, "m.yaml");
    CHECK_FALSE(s.ok());
    CHECK_FALSE(s.message().empty());
  }
}
