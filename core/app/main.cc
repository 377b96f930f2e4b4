// No header: the native CLI's main(), which nothing else calls.
// The native command-line front door: `visprobe graph_visualize ...` (spec §16).
#include <unistd.h>
#if defined(VISPROBE_JEMALLOC)
#include <jemalloc/jemalloc.h>
#elif defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(VISPROBE_JEMALLOC)
// Eight arenas: the parse threads, the rows producer and the SQLite writer of one graph each
// allocate (row batches, windows, page cache) and free what another made; behind one arena lock the
// large build's rows pass took 21.4-23.3 s, with eight 14.7-15.3 s (old and new in turn; narenas:2
// 16.7-22.4 s, 4: 16.1-16.8 s). Merged runs bind every thread to arena 0 (BindArenaZero below): rank
// graphs are built on worker threads and merged on the main thread, and memory freed into a
// worker's arena must serve the merge (a 16-rank merged build peaked at 1.07 GB with one arena,
// 1.33-1.38 GB with eight).
// Transparent huge pages for the heap (jemalloc madvises its extents; the kernel's default is
// "madvise"): the parse windows, row batches, node tables and SQLite's page cache are touched once
// each, and on a virtual machine every 4 KiB page fault is expensive. Medium build: minor faults
// 65-70 k -> 6-7 k, user + sys CPU 4.5-4.6 s -> 3.4-3.9 s.
const char* malloc_conf = "narenas:8,thp:always,metadata_thp:auto";
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "app/args.h"
#include "app/data2db.h"
#include "app/gather.h"
#include "app/log.h"
#include "app/plot_cli.h"
#ifndef VISPROBE_VIRTUAL_FS
#include "app/serve.h"
#endif
#include "app/graph_visualize.h"
#include "base/thread_init.h"

namespace {

#if defined(VISPROBE_JEMALLOC)
// The calling thread allocates from arena 0 from now on (merged runs: see malloc_conf above).
void BindArenaZero() {
  unsigned arena = 0;
  mallctl("thread.arena", nullptr, nullptr, &arena, sizeof(arena));
}
#endif

const char kTopHelp[] =
    "usage: visprobe [-h] [--version] {graph_visualize,data2db,plot_model_parallelism,gather,serve} ...\n"
    "\n"
    "visprobe: msProbe precision dumps, analysed natively or in the browser.\n"
    "\n"
    "commands:\n"
    "  graph_visualize   build the module graph of a dump (or compare two dumps) into a .vis.db file\n"
    "  data2db           convert dump or monitor data into .trend.db files for the trend views\n"
    "  plot_model_parallelism\n"
    "                    chart which Megatron layers live on which ranks (TP / PP / VPP / DP) as SVG or JSON\n"
    "  gather            join the parts of a run sharded with --shard I/N into the one database\n"
    "  serve             serve the page and the runs under a folder over HTTP (as tensorboard --logdir)\n"
    "\n"
    "options:\n"
    "  -h, --help        show this help message and exit\n"
    "  --version         print the version and exit\n"
    "\n"
    "Run `visprobe <command> --help` for the options of a command.\n";

int GraphVisualizeMain(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "-h" || a == "--help") {
      std::fputs(visprobe::GraphVisualizeHelp().c_str(), stdout);
      return 0;
    }
  auto parsed = visprobe::ParseGraphVisualizeArgs(argv);
  if (!parsed.ok()) {
    std::fputs(visprobe::GraphVisualizeUsage().c_str(), stderr);
    visprobe::PrintError(stderr, "visprobe graph_visualize: ", parsed.status().detail());
    return 2;
  }
  visprobe::RunOptions opts;
  opts.timestamp = visprobe::NowTimestamp();
  unsigned hw = std::thread::hardware_concurrency();
  opts.threads = hw == 0 ? 1 : static_cast<int>(hw);
  if (const char* t = std::getenv("VISPROBE_THREADS")) opts.threads = std::max(1, std::atoi(t));
  // Size of the dump.json windows (bytes); tests shrink it to exercise record splitting.
  if (const char* w = std::getenv("VISPROBE_WINDOW_BYTES")) opts.window_bytes = static_cast<size_t>(std::max(1L, std::atol(w)));
  // Bytes of early rows the writer holds in memory before they wait in a temporary table; tests
  // shrink it to exercise that path.
  if (const char* h = std::getenv("VISPROBE_HELD_BYTES")) opts.held_bytes = static_cast<size_t>(std::max(1L, std::atol(h)));
#ifdef VISPROBE_VIRTUAL_FS
  opts.check_input_writable = false;  // set by the wasm build of this front door (§16.3)
#endif
  // The allocator keeps freed small blocks (construct.json's entries, the key scan) resident; on a
  // 1.1 GB dump that was about 200 MB under the writer's page cache (see README, Performance).
#if defined(VISPROBE_JEMALLOC)
  opts.release_memory = [] {
    char cmd[64];
    std::snprintf(cmd, sizeof cmd, "arena.%u.purge", static_cast<unsigned>(MALLCTL_ARENAS_ALL));
    mallctl(cmd, nullptr, nullptr, nullptr, 0);
  };
#elif defined(__GLIBC__)
  opts.release_memory = [] { malloc_trim(0); };
#endif
  bool bar = ::isatty(2) != 0;
  visprobe::ConsoleReporter rep(parsed->progress_log, bar);
  auto r = visprobe::RunGraphVisualize(parsed.value(), opts, rep);
  return r.ok() ? 0 : 1;
}

// The UTC time the trend databases record (trend_meta.created_utc); VISPROBE_CREATED_UTC fixes it
// for reproducible files.
std::string CreatedUtc() {
  if (const char* e = std::getenv("VISPROBE_CREATED_UTC")) return e;
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

int Data2DbMain(const std::vector<std::string>& argv) {
  for (const auto& a : argv)
    if (a == "-h" || a == "--help") {
      std::fputs(visprobe::Data2DbHelp().c_str(), stdout);
      return 0;
    }
  auto parsed = visprobe::ParseData2DbArgs(argv);
  if (!parsed.ok()) {
    std::fputs(visprobe::Data2DbUsage().c_str(), stderr);
    visprobe::PrintError(stderr, "visprobe data2db: ", parsed.status().detail());
    return 2;
  }
  visprobe::ConsoleReporter rep(false, ::isatty(2) != 0);
#ifdef VISPROBE_VIRTUAL_FS
  const int threads_cap = 1;  // the wasm build of this front door has no threads
#else
  const int threads_cap = 128;
#endif
  auto r = visprobe::RunData2Db(parsed.value(), rep, threads_cap, CreatedUtc());
  if (!r.ok()) {
    visprobe::PrintError(stderr, "", r.status().detail());
    return 1;
  }
  if (r->failed) {
    visprobe::PrintError(stderr, "", r->error.detail());
    return 1;
  }
  return 0;
}

const char kGatherUsage[] = "usage: visprobe gather [-h] -o OUTPUT_PATH PART [PART ...]\n";

int GatherMain(const std::vector<std::string>& argv) {
  std::string out;
  std::vector<std::string> parts;
  auto usage_error = [](const visprobe::Status& s) {
    std::fputs(kGatherUsage, stderr);
    visprobe::PrintError(stderr, "visprobe gather: ", s.detail());
    return 2;
  };
  for (const std::string& a : argv) {
    if (a == "-h" || a == "--help") {
      std::printf(
          "%s\nJoin the parts written by `graph_visualize --shard I/N` or `data2db --shard I/N` (all N of them)\n"
          "into the database the one-process run writes, in OUTPUT_PATH.\n\noptions:\n"
          "  -h, --help            show this help message and exit\n"
          "  -o, --output_path OUTPUT_PATH\n"
          "                        <Required> The folder where the database is written.\n",
          kGatherUsage);
      return 0;
    }
  }
  std::vector<visprobe::OptSpec> specs(1);
  specs[0].short_name = "-o";
  specs[0].long_name = "--output_path";
  specs[0].required = true;
  visprobe::Status read = visprobe::ReadArgs(
      specs, argv,
      [&out](const visprobe::OptSpec&, const std::vector<std::string>& v) {
        out = v[0];
        return visprobe::Status::Ok();
      },
      "PART", &parts);
  if (!read.ok()) return usage_error(read);
  visprobe::ConsoleReporter rep(false, ::isatty(2) != 0);
  auto r = visprobe::GatherParts(parts, out, rep);
  if (!r.ok()) {
    rep.Log(visprobe::LogLevel::kError, r.status().detail());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Merged runs (--rank_size) allocate from one arena: rank graphs are built on worker threads and
  // merged on the main thread, and memory freed into a worker's arena did not serve the merge's
  // allocations (glibc, per-thread arenas: a 64-rank merged build peaked at 1.5 GB instead of
  // 0.93 GB; jemalloc: see malloc_conf above). The other runs keep several arenas.
  bool merge_run = false;
  for (int i = 1; i < argc; ++i) merge_run |= std::string(argv[i]).rfind("--rank_size", 0) == 0;
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
  if (merge_run && !std::getenv("MALLOC_ARENA_MAX")) mallopt(M_ARENA_MAX, 1);
#elif defined(VISPROBE_JEMALLOC)
  if (merge_run) {
    BindArenaZero();
    visprobe::SetThreadInit(&BindArenaZero);
  }
#else
  (void)merge_run;
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fputs(kTopHelp, args.empty() ? stderr : stdout);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::printf("visprobe %s\n", VISPROBE_VERSION);
    return 0;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "graph_visualize") return GraphVisualizeMain(args);
#ifndef VISPROBE_VIRTUAL_FS
  if (cmd == "serve") {
    visprobe::ServeOptions o;
    o.version = VISPROBE_VERSION;
    const int rc = visprobe::ParseServeArgs(args, &o);
    return rc >= 0 ? rc : visprobe::Serve(o);
  }
#endif
  if (cmd == "data2db") return Data2DbMain(args);
  if (cmd == "plot_model_parallelism") return visprobe::PlotModelParallelismMain(args, stdout, stderr);
  if (cmd == "gather") return GatherMain(args);
  std::fputs(kTopHelp, stderr);
  visprobe::PrintError(stderr, "visprobe: ",
                       visprobe::Msg<visprobe::msg::kArgumentInvalidChoiceChoose>(
                           "command", cmd, "'graph_visualize', 'data2db', 'plot_model_parallelism', 'gather', 'serve'"));
  return 2;
}
