// graph_visualize, the entry the CLI, the browser worker and the shards call: from arguments to a
// finished .vis.db (spec §1.2 pipelines, §16.2 order of checks). The run is planned into units by
// one of two planners (app/graph_run.h: (step, rank) graphs streamed from dump.json; app/merge_run.h:
// (step, DP replica) units of rank graphs merged in memory, §15) and carried out over the stages of
// app/run_stages.h, with the plan, shard selection and output file of db/run_plan.h and the threads
// of base/parallel.h.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "app/args.h"
#include "app/log.h"
#include "base/status.h"
#include "db/run_plan.h"

namespace visprobe {

struct RunOptions {
  std::string timestamp;  // YYYYmmddHHMMSS, taken once at process start (§13.1)
  int threads = 1;  // ranks built in parallel (native); 1 = no threads at all
  // dump.json is parsed this many bytes at a time. 1 MiB measured best on 2 cores (medium build
  // 1.35-1.56 s against 1.83-2.09 s with 4 MiB and 1.49-1.69 s with 512 KiB; 75 MiB less at the
  // large build's peak): a window's rows wait for the window before it, and the pipeline fills sooner.
  size_t window_bytes = 1u << 20;
  // Rows that reach the writer before their turn are held in memory up to this many bytes
  // (DbOptions::held_bytes); 0: the writer's default.
  size_t held_bytes = 0;
  // §16.3 requires -tp / -gp to be writable folders (a reference quirk). Virtual file systems
  // (the wasm front doors) may drop the check, as the spec allows.
  bool check_input_writable = true;
  // Called when a graph is built and its build-time memory (construct.json entries, the key scan)
  // is freed, before its rows stream into the database: the native CLI returns the freed heap
  // pages to the system there (malloc_trim), so the page cache of the writer does not add to them.
  std::function<void()> release_memory;
};

struct RunSummary {
  std::string db_path;
  size_t graphs = 0;
  size_t rows = 0;
  uint64_t dump_bytes = 0;
};

// Runs graph_visualize. Every failure is logged through `rep` (ERROR) and returned.
// The progress state ends with running = false exactly once.
Result<RunSummary> RunGraphVisualize(const GraphVisualizeArgs& args, const RunOptions& opts, Reporter& rep);

// The stem of the .vis.db a run writes: build_<timestamp> (compare_... with a golden side), a
// shard's part <stem>.part-I-of-N (db/run_plan.h: ClaimOutput adds _1, _2, ... when it is taken).
std::string VisStem(bool compare, const std::string& timestamp, const ShardSpec& shard = {});

// A graph_visualize run's plan (db/run_plan.h): the run's settings (-tp, -gp, -lm, -oc, -fm, then
// `settings`, e.g. the merge parameters) and its `units` make the run key; `batch` runs get
// cross-rank links.
RunPlan VisRunPlan(const GraphVisualizeArgs& args, const std::string& settings, const std::string& units, size_t unit_count,
                   bool batch);

// visprobe gather (GatherParts) and the tables a part records (PartTables) are in app/gather.h.

// Local time formatted as YYYYmmddHHMMSS.
std::string NowTimestamp();

}  // namespace visprobe
