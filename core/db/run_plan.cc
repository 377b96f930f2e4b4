#include "db/run_plan.h"

#include "base/fs.h"

namespace visprobe {

PartMeta RunPlan::Part() const {
  PartMeta m;
  m.kind = kind;
  m.describe = describe;
  m.run_key = RunKey(describe + key_extra + units_text);
  m.shard = shard.index;
  m.shards = shard.count;
  m.units = static_cast<int64_t>(units);
  m.extra = extra;
  return m;
}

std::string PartStem(const std::string& stem, const ShardSpec& shard) {
  return shard.active() ? stem + ".part-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count) : stem;
}

Result<std::string> ClaimOutput(const std::string& dir, const std::string& stem, const std::string& ext, Reporter& rep) {
  bool taken = false;
  ASSIGN_OR_RETURN(std::string path, ClaimNewFile(dir, stem, ext, &taken));
  if (taken) rep.Log(LogLevel::kWarning, Msg<msg::kAlreadyExistsAnotherRun>(stem + ext, dir, BaseName(path)));
  return path;
}

}  // namespace visprobe
