#include "app/graph_visualize.h"

#include <ctime>

#include "app/graph_run.h"
#include "app/merge_run.h"
#include "base/fs.h"
#include "layout/layout.h"

namespace visprobe {

std::string NowTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y%m%d%H%M%S", &tm);
  return ts;
}

std::string VisStem(bool compare, const std::string& timestamp, const ShardSpec& shard) {
  return PartStem(std::string(compare ? "compare_" : "build_") + timestamp, shard);
}

RunPlan VisRunPlan(const GraphVisualizeArgs& args, const std::string& settings, const std::string& units, size_t unit_count,
                   bool batch) {
  RunPlan m;
  m.kind = "vis";
  std::string d = "graph_visualize -tp " + RealPath(args.target_path);
  if (args.has_golden) d += " -gp " + RealPath(args.golden_path);
  if (args.layer_mapping) d += " -lm " + args.layer_mapping_file;
  if (args.overflow_check) d += " -oc";
  if (args.fuzzy_match) d += " -fm";
  m.describe = d + settings;
  m.units_text = units;
  m.shard = args.shard;
  m.units = unit_count;
  m.extra = {{"compare", args.has_golden ? "1" : "0"},
             {"batch", batch ? "1" : "0"},
             {"overflow_check", args.overflow_check ? "1" : "0"}};
  return m;
}

Result<RunSummary> RunGraphVisualize(const GraphVisualizeArgs& args, const RunOptions& opts, Reporter& rep) {
  auto fail = [&](const Status& s) -> Status {
    rep.Log(LogLevel::kError, Msg<msg::kUnexpectedError>(s));
    rep.Progress(0, false);
    return s;
  };
  std::vector<ParallelParam> params;
  LayoutKind kind = LayoutKind::kFiles;
  auto check = [&]() -> Status {
    if (args.has_rank_size) { ASSIGN_OR_RETURN(params, LoadParallelParams(args)); }
    if (args.file_type == "json" && args.has_golden) return InvalidInput(Msg<msg::kFileTypeJsonParameter>());
    if (args.file_type == "json" && !args.has_rank_size) rep.Log(LogLevel::kWarning, Msg<msg::kFileTypeJsonParameterOnly>());
    const PathAccess access = opts.check_input_writable ? PathAccess::kWrite : PathAccess::kNone;
    RETURN_IF_ERROR(CheckPath(args.target_path, PathKind::kDir, access));
    if (args.has_golden) RETURN_IF_ERROR(CheckPath(args.golden_path, PathKind::kDir, access));
    if (args.shard.active() && args.file_type == "json" && args.has_rank_size)
      return InvalidInput(Msg<msg::kShardWritesDatabaseParts>());
    if (args.has_rank_size) {
      // §15: rank folders are merged; a single rank folder is built as usual, except for json output.
      ASSIGN_OR_RETURN(kind, Classify(args.target_path));
      if (kind == LayoutKind::kFiles && args.file_type == "json") return InvalidInput(Msg<msg::kYouHaveSpecifiedRank>());
    }
    return Status::Ok();
  };
  Status s = check();
  if (!s.ok()) return fail(s);
  Result<RunSummary> r = Status();
  if (args.has_rank_size && kind != LayoutKind::kFiles) {
    r = RunMergedGraphVisualize(args, params, kind, opts, rep);
  } else {
    r = RunStreamedGraphVisualize(args, opts, rep);
  }
  if (!r.ok()) return fail(r.status());
  rep.Progress(100.0, false);
  return r;
}

}  // namespace visprobe
