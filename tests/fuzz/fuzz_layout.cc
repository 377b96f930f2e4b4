// The layout detector (spec §3: classify, rank/step enumeration, the run plan of build and
// compare) and data2db's dump folder scan (trend-analyzer.md §2.2) over generated folder trees.
// The input is a mode byte, then operations, each an opcode and its arguments:
//   path   = depth byte (1-3 levels) + one byte per level, an index into kNames
//   0, 1   mkdir -p path            2, 3  write file at path: content byte (index into kTexts)
//   4      symlink at path -> target byte (a sibling name from kNames, "nowhere" or itself)
//   5      a rank folder at path (construct.json, dump.json, stack.json)
// Links point only at siblings, so nothing written through them leaves the tree.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

#include "fuzz_util.h"
#include "layout/layout.h"
#include "trend/dump_import.h"
#include "trend/trend_import.h"

namespace {

const char* const kNames[] = {"step0", "step1",  "step2", "step01", "rank0",    "rank1", "rank2",
                              "rank",  "step",   "proc0", "proc1",  "proc",     "rank01", "stepx",
                              "rank-1", "rank4294967296", "step99999999999999999999", "dump.json",
                              "construct.json", "stack.json", "dump_tensor_data", "a", "b", "x.txt"};
constexpr size_t kNameCount = sizeof(kNames) / sizeof(kNames[0]);

const char* const kTexts[] = {
    "",
    "{}",
    "{\"Module.a.A.forward.0\": null}",
    "{\"task\": \"statistics\", \"level\": \"mix\", \"data\": {\"Module.a.A.forward.0\": {\"input_args\": [{\"type\": "
    "\"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 1.0, \"Min\": 0.0, \"Mean\": 0.5, "
    "\"Norm\": 1.0}]}}}",
    "[",
    "garbage",
    "{\"megatron_micro_step_number\": 1, \"Module.a.A.forward.0\": [null, 0]}",
};
constexpr size_t kTextCount = sizeof(kTexts) / sizeof(kTexts[0]);

class Input {
 public:
  Input(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool done() const { return i_ >= n_; }
  uint8_t Next() { return i_ < n_ ? d_[i_++] : 0; }

 private:
  const uint8_t* d_;
  size_t n_, i_ = 0;
};

class Quiet : public visprobe::Reporter {
 public:
  void Log(visprobe::LogLevel, const visprobe::Message&) override {}
  void Progress(double, bool) override {}
};

void Write(const std::string& path, const char* text) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return;
  std::fputs(text, f);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string root = vpfuzz::Dir() + "/layout";
  const std::string db = vpfuzz::Dir() + "/layout_db";
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  std::filesystem::remove_all(db, ec);
  mkdir(root.c_str(), 0700);
  mkdir(db.c_str(), 0700);
  Input in(data, size);
  const uint8_t mode = in.Next();
  for (int ops = 0; ops < 64 && !in.done(); ++ops) {
    const uint8_t op = in.Next() % 6;
    std::string path = root, last;
    const int depth = 1 + in.Next() % 3;
    for (int k = 0; k < depth; ++k) {
      last = kNames[in.Next() % kNameCount];
      path += "/" + last;
    }
    switch (op) {
      case 0: case 1:
        std::filesystem::create_directories(path, ec);
        break;
      case 2: case 3:
        Write(path, kTexts[in.Next() % kTextCount]);
        break;
      case 4: {
        const uint8_t t = in.Next();
        std::string target = t % 4 == 0 ? "nowhere" : t % 4 == 1 ? last : kNames[(t / 4) % kNameCount];
        std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
        (void)symlink(target.c_str(), path.c_str());
        break;
      }
      default:
        Write(path + "/construct.json", kTexts[2]);
        Write(path + "/dump.json", kTexts[3]);
        Write(path + "/stack.json", kTexts[1]);
        break;
    }
  }
  if (mode & 1) {
    (void)visprobe::Classify(root);
    (void)visprobe::PlanRun(root, "");
    (void)visprobe::PlanRun(root + "/a", root + "/b");
    (void)visprobe::ListNamed(root, "rank", true);
    (void)visprobe::FindProcDir(root);
  }
  if (mode & 2) {
    Quiet q;
    visprobe::TrendOptions o;
    o.data_dir = root;
    o.db_dir = db;
    o.format = (mode & 4) ? "auto" : "dump";
    o.micro_step = (mode & 8) != 0;
    (void)visprobe::ImportDumpTrend(o, q);
  }
  return 0;
}
