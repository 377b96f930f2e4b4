#include "app/session.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "app/merge_run.h"
#include "app/run_stages.h"
#include "base/bounded_queue.h"
#include "base/fs.h"
#include "base/thread_init.h"
#include "compare/compare.h"
#include "compare/tensor_metrics.h"
#include "db/distributed.h"
#include "db/vis_db.h"
#include "graph/builder.h"
#include "layout/layout.h"
#include "match/layer_mapping.h"
#include "match/match.h"

namespace visprobe {

std::string NowTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y%m%d%H%M%S", &tm);
  return ts;
}

Result<std::string> ClaimVisDb(const std::string& dir, bool compare, const std::string& timestamp, Reporter& rep,
                               const ShardSpec& shard) {
  std::string stem = std::string(compare ? "compare_" : "build_") + timestamp;
  if (shard.active()) stem += ".part-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.count);
  bool taken = false;
  ASSIGN_OR_RETURN(std::string path, ClaimNewFile(dir, stem, ".vis.db", &taken));
  if (taken)
    rep.Log(LogLevel::kWarning, stem + ".vis.db already exists in " + dir + " (or another run is writing it); this run writes " +
                                    BaseName(path) + ".");
  return path;
}

namespace {

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// CPU time of the calling thread (the writer's, for the DEBUG lines of the rows passes).
double ThreadSeconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string WriterText(double cpu) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " (the writer thread %.2f CPU s)", cpu);
  return buf;
}

// Serialises reporter calls from worker threads and turns stage progress into one
// non-decreasing percentage (§16.5: equal shares per stage, the tail reserved for post-processing).
class Progress {
 public:
  Progress(Reporter& r, size_t stages, double reserve) : rep_(r), stages_(stages ? stages : 1), reserve_(reserve) {
    frac_.assign(stages_, 0.0);
  }
  void Log(LogLevel l, const std::string& m) {
    std::lock_guard<std::mutex> g(mu_);
    rep_.Log(l, m);
  }
  void Stage(size_t stage, double fraction) {
    std::lock_guard<std::mutex> g(mu_);
    if (stage >= stages_ || fraction <= frac_[stage]) return;
    frac_[stage] = fraction;
    double sum = 0;
    for (double f : frac_) sum += f;
    double pct = sum / static_cast<double>(stages_) * (100.0 - reserve_);
    pct = static_cast<double>(static_cast<int>(pct));  // advance in whole percent
    if (pct > last_) {
      last_ = pct;
      rep_.Progress(pct, true);
    }
  }
  void Finish(bool ok) {
    std::lock_guard<std::mutex> g(mu_);
    rep_.Progress(ok ? 100.0 : last_, false);
  }

 private:
  std::mutex mu_;
  Reporter& rep_;
  size_t stages_;
  double reserve_;
  std::vector<double> frac_;
  double last_ = 0;
};

// Streams one graph's dump.json records into the database. With workers > 0 (native), `workers`
// threads parse and render windows of records while this thread inserts the rows; with 0 all of
// it happens in this thread (the browser build).
// Called for every node record before its row is rendered: may return comparison fields for
// the items (target side of a compare) or keep the captured values (golden side).
using RowHook = std::function<void(NodeId id, const NodeItems& items, std::vector<std::string>* in_extra,
                                   std::vector<std::string>* out_extra)>;

Status StreamRows(Graph& g, const BuildOptions& bo, VisDbWriter& db, int workers, const RowHook& hook) {
  // Comparison fields of the hook (target side of a compare), or none.
  auto extras = [&hook](NodeId id, const NodeItems& items, std::vector<std::string>& ie, std::vector<std::string>& oe) {
    ie.clear();
    oe.clear();
    if (hook) hook(id, items, &ie, &oe);
    return !ie.empty() || !oe.empty();
  };
  if (workers <= 0) {
    std::vector<std::string> ie, oe;
    std::string text;
    return StreamNodeRecords(g, bo, [&](NodeId id, const NodeItems& items) {
      const bool extra = extras(id, items, ie, oe);
      text.clear();
      size_t mid = 0;
      VisDbWriter::AppendRenderedItems(items, extra ? &ie : nullptr, extra ? &oe : nullptr, &text, &mid);
      return db.WriteRenderedRow(id, std::string_view(text).substr(0, mid), std::string_view(text).substr(mid));
    });
  }
  // A batch closes at 256 rows or this many bytes. A new block starts with room for kFirstRoom:
  // 256 rows of a generated build take about 360 KB, and 2.5 MiB reserved for each had the kernel
  // zero huge pages the block never used (peak 137 against 118 MiB on the 40 MB build, 193 against
  // 175 MiB on the medium one). A compare's rows are larger: its blocks grow once, then come back
  // from the pool with their room (closing them at 512 KiB instead measured 1.05-1.12x on c200).
  constexpr size_t kBatchBytes = 2u << 20, kFirstRoom = 512u << 10;
  // Blocks the writer is done with come back here with their buffers, so the parse threads fill
  // memory that is already there: fresh blocks cost the kernel a zeroed huge page each (6 % of a
  // medium build's CPU when every block was new). A block comes back when its last row is in.
  struct BlockPool {
    std::mutex mu;
    std::vector<std::unique_ptr<RowBlock>> free;
  };
  auto pool = std::make_shared<BlockPool>();
  auto take = [pool]() {
    std::unique_ptr<RowBlock> b;
    {
      std::lock_guard<std::mutex> lk(pool->mu);
      if (!pool->free.empty()) {
        b = std::move(pool->free.back());
        pool->free.pop_back();
      }
    }
    if (!b) {
      b = std::make_unique<RowBlock>();
      b->text.reserve(kFirstRoom);
    }
    return b;
  };
  auto give_back = [pool](RowBlock* b) {
    b->ids.clear();
    b->cuts.clear();
    b->text.clear();
    std::lock_guard<std::mutex> lk(pool->mu);
    if (pool->free.size() < 16)
      pool->free.emplace_back(b);
    else
      delete b;
  };
  struct Scratch {
    std::unique_ptr<RowBlock> batch;
    std::vector<std::string> ie, oe;
  };
  // Batches reach the writer in whatever order the workers finish them: the writer puts the rows
  // in in node_order (VisDbWriter::BeginGraph's plan), so the file does not depend on scheduling.
  // Between the producer (parse + render) and this thread, the writer; a failed write cancels it.
  BoundedQueue<std::unique_ptr<RowBlock>> queue(static_cast<size_t>(workers) * 3);
  Status produced;
  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  std::thread producer([&] {
    ThreadInit();
    produced = StreamNodeRecordsParallel(g, bo, workers, [&](int w, NodeId id, const NodeItems& items) -> Status {
      Scratch& sc = scratch[static_cast<size_t>(w)];
      const bool extra = extras(id, items, sc.ie, sc.oe);
      if (!sc.batch) sc.batch = take();
      RowBlock& b = *sc.batch;
      // Formatted once, straight into the batch the writer inserts from.
      size_t mid = 0;
      VisDbWriter::AppendRenderedItems(items, extra ? &sc.ie : nullptr, extra ? &sc.oe : nullptr, &b.text, &mid);
      b.ids.push_back(id);
      b.cuts.push_back(mid);
      b.cuts.push_back(b.text.size());
      if (b.ids.size() >= 256 || b.text.size() >= kBatchBytes) {
        if (!queue.Push(std::move(sc.batch))) return Status(Code::kCancelled, "stopped");
        sc.batch.reset();
      }
      return Status::Ok();
    });
    for (auto& sc : scratch)
      if (produced.ok() && sc.batch && !sc.batch->ids.empty()) queue.Push(std::move(sc.batch));
    queue.Close();
  });
  Status written;
  std::unique_ptr<RowBlock> b;
  while (written.ok() && queue.Pop(&b)) {
    written = db.WriteRows(std::shared_ptr<const RowBlock>(b.release(), give_back));
    if (!written.ok()) queue.Cancel();
  }
  producer.join();
  if (!written.ok()) return written;
  return produced;
}

// The rows StreamRows hands over: those of the nodes with a record in dump.json.
RowPlan StreamedRows(const Graph& g, std::function<void(NodeId)> before_own = nullptr) {
  RowPlan plan;
  plan.given.resize(g.size(), 0);
  for (NodeId id = 0; id < g.size(); ++id) plan.given[id] = g.node(id).last_record != UINT64_MAX;
  plan.before_own = std::move(before_own);
  return plan;
}

struct BuiltGraph {
  Status status;
  std::unique_ptr<Graph> graph, golden;
  int micro_steps = 1;
  bool ready = false;
};

class GraphRun {
 public:
  GraphRun(const GraphVisualizeArgs& a, const RunOptions& o, Reporter& r) : args_(a), opts_(o), rep_(r) {}
  Result<RunSummary> Run();

 private:
  bool sharded() const { return args_.shard.active(); }
  bool compare() const { return args_.has_golden; }
  size_t StagesPerJob() const { return compare() ? 5 : 2; }
  void BuildOne(size_t i);
  BuildOptions BuildOpts(size_t stage) {
    BuildOptions bo;
    bo.overflow_check = args_.overflow_check;
    bo.window_bytes = opts_.window_bytes;
    bo.keep_items = false;
    bo.threads = opts_.threads;
    Progress* p = progress_.get();
    bo.progress = [p, stage](uint64_t done, uint64_t total) {
      if (total) p->Stage(stage, double(done) / double(total));
    };
    return bo;
  }
  int Workers() const { return opts_.threads > 1 ? opts_.threads : 0; }
  Status WriteBuild(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum);
  Status WriteCompare(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum, CompareMode* mode);

  const GraphVisualizeArgs& args_;
  const RunOptions& opts_;
  Reporter& rep_;
  std::unique_ptr<Progress> progress_;
  RunPlan plan_;
  std::vector<BuiltGraph> built_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string file_;
  std::vector<size_t> unit_of_;  // plan_.jobs[i] is unit unit_of_[i] of the whole run
};

void GraphRun::BuildOne(size_t i) {
  ThreadInit();
  const GraphJob& job = plan_.jobs[i];
  if (plan_.kind != LayoutKind::kFiles)
    progress_->Log(LogLevel::kInfo, "Start building graph for " + BaseName(job.target_dir) + "...");
  BuiltGraph out;
  auto build = [&](const std::string& dir, size_t stage, std::unique_ptr<Graph>* dst) -> Status {
    auto r = BuildGraph(dir, BuildOpts(stage));
    if (!r.ok()) {
      const std::string& m = r.status().message();
      return m.find(dir) == std::string::npos ? Status(r.status().code(), m + " (in " + dir + ")") : r.status();
    }
    *dst = std::move(r.value());
    return Status::Ok();
  };
  if (compare() && opts_.threads > 1) {
    // The two sides are independent: build the golden structure beside the target's.
    Status golden_status;
    std::thread golden([&] {
      ThreadInit();
      golden_status = build(job.golden_dir, StagesPerJob() * i + 1, &out.golden);
    });
    out.status = build(job.target_dir, StagesPerJob() * i, &out.graph);
    golden.join();
    if (out.status.ok()) out.status = golden_status;
  } else {
    out.status = build(job.target_dir, StagesPerJob() * i, &out.graph);
    if (out.status.ok() && compare()) out.status = build(job.golden_dir, StagesPerJob() * i + 1, &out.golden);
  }
  if (out.status.ok()) {
    for (const Graph* g : {out.graph.get(), out.golden.get()}) {
      if (!g) continue;
      char buf[256];
      std::snprintf(
          buf, sizeof buf,
          "%zu nodes; construct.json %.2f s, stack.json %.2f s, nodes %.2f s, key scan %.2f s (its thread %.2f s), rules %.2f s",
          g->size(), g->t_construct, g->t_stack, g->t_nodes, g->t_scan, g->t_scanner, g->t_post);
      progress_->Log(LogLevel::kDebug, "Graph structure of " + g->dump_path + ": " + buf);
    }
    if (!compare()) out.micro_steps = PageMicroSteps(*out.graph);
    if (plan_.kind != LayoutKind::kFiles)
      progress_->Log(LogLevel::kInfo, "Building graph for step: " + std::to_string(job.step) +
                                          ", rank: " + BaseName(job.target_dir) + " finished.");
  }
  out.ready = true;
  std::lock_guard<std::mutex> g(mu_);
  built_[i] = std::move(out);
  cv_.notify_all();
}

Status ExportError(const Status& s, const std::string& file, const std::string& dir, bool compare) {
  const std::string& m = s.message();
  if (m.rfind("An sqlite3 error", 0) == 0)  // §13.9
    return Status(s.code(), std::string(compare ? "Failed to export compare graph result, file: "
                                                : "Failed to export model graph, file: ") +
                                file + ", error: " + m);
  if (m.find(dir) == std::string::npos) return Status(s.code(), m + " (in " + dir + ")");
  return s;
}

Status GraphRun::WriteBuild(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum) {
  const GraphJob& job = plan_.jobs[i];
  progress_->Log(LogLevel::kInfo, "Start exporting graph for " + file_ + "...");
  GraphRowsInfo info;
  info.step = job.step;
  info.rank = job.rank;
  // Rows go to the database while dump.json's records stream past (second pass).
  double t0 = Seconds(), c0 = ThreadSeconds();
  Status ws = db.BeginGraph(*b.graph, info, StreamedRows(*b.graph));
  if (ws.ok()) ws = StreamRows(*b.graph, BuildOpts(2 * i + 1), db, Workers(), nullptr);
  double t1 = Seconds();
  Result<size_t> rows = ws.ok() ? db.EndGraph() : Result<size_t>(ws);
  progress_->Log(LogLevel::kDebug, "Rows of " + b.graph->dump_path + ": streamed in " + std::to_string(t1 - t0) +
                                       " s, finished in " + std::to_string(Seconds() - t1) + " s" +
                                       WriterText(ThreadSeconds() - c0));
  if (!rows.ok()) return ExportError(rows.status(), file_, job.target_dir, false);
  sum.rows += rows.value();
  sum.dump_bytes += b.graph->dump_bytes;
  ++sum.graphs;
  return Status::Ok();
}

Status GraphRun::WriteCompare(size_t i, BuiltGraph& b, VisDbWriter& db, RunSummary& sum, CompareMode* mode_out) {
  const GraphJob& job = plan_.jobs[i];
  Graph& gn = *b.graph;
  Graph& gb = *b.golden;
  const std::string rank_name = BaseName(job.target_dir);
  progress_->Log(LogLevel::kInfo, "Start comparing data for " + rank_name + "...");
  ASSIGN_OR_RETURN(ComparePlan cp, PlanCompare(gn, gb, args_, false, job.target_dir, job.golden_dir,
                                               [this](LogLevel l, const std::string& m) { progress_->Log(l, m); }));
  const CompareMode mode = cp.mode;
  *mode_out = mode;
  const CompareSettings& settings = cp.settings;
  b.micro_steps = PageMicroStepsPair(gn, gb);
  progress_->Stage(5 * i + 2, 1.0);

  std::vector<NodeId> counterpart(gn.size(), kNoNode);
  std::vector<char> needed(gb.size(), 0);
  for (const auto& [ni, bi] : cp.pairs) {
    counterpart[ni] = bi;
    needed[bi] = 1;
  }
  std::vector<std::string> bench_items(gb.size());  // packed captured items of matched golden nodes

  progress_->Log(LogLevel::kInfo, "Start exporting compare graph result, file name: " + file_ + "...");
  const double t_start = Seconds(), c_start = ThreadSeconds();
  // Golden first: its captured values are what the target's rows are compared with.
  GraphRowsInfo binfo;
  binfo.data_source = "Bench";
  binfo.step = job.step;
  binfo.rank = job.rank;
  binfo.compare = true;
  BuildOptions bo_b = BuildOpts(5 * i + 4);
  bo_b.items.keep_md5 = mode == CompareMode::kMd5;
  bo_b.items.capture = true;
  // msProbe writes the target's rows first (§13.3): they take the rowids before the golden's.
  const int64_t target_first_rowid = db.ReserveRows(PostOrder(gn).size());
  Status ws = db.BeginGraph(gb, binfo, StreamedRows(gb));
  if (ws.ok())
    ws = StreamRows(gb, bo_b, db, Workers(),
                    [&](NodeId id, const NodeItems& items, std::vector<std::string>*, std::vector<std::string>*) {
                      if (needed[id]) bench_items[id] = PackCmpItems(items.cmp);
                    });
  Result<size_t> brows = ws.ok() ? db.EndGraph() : Result<size_t>(ws);
  if (!brows.ok()) return ExportError(brows.status(), file_, job.golden_dir, true);
  double t_golden = Seconds(), c_golden = ThreadSeconds();
  progress_->Log(LogLevel::kDebug,
                 "Rows of " + gb.dump_path + ": " + std::to_string(t_golden - t_start) + " s" + WriterText(c_golden - c_start));

  GraphRowsInfo ninfo;
  ninfo.step = job.step;
  ninfo.rank = job.rank;
  ninfo.compare = true;
  ninfo.first_rowid = target_first_rowid;
  BuildOptions bo_n = BuildOpts(5 * i + 3);
  bo_n.items.keep_md5 = mode == CompareMode::kMd5;
  bo_n.items.capture = true;
  // In tensor mode a record costs its .npy files, not its JSON: a tensor dump.json of a few hundred
  // KB would be one window, read by one worker. Small windows share the files among the workers.
  // (Not with -tensor_log, whose lines stay in the order of the file.)
  if (mode == CompareMode::kRealData && !args_.print_compare_log)
    bo_n.window_bytes = std::min<size_t>(bo_n.window_bytes, 16u << 10);
  // §9.7: a collection's row goes in after its children's (post-order), so it takes their
  // precision indices then.
  ws = db.BeginGraph(gn, ninfo, StreamedRows(gn, [&gn, mode](NodeId id) { ApplyCollectionRuleTo(gn, id, mode); }));
  if (ws.ok())
    ws = StreamRows(gn, bo_n, db, Workers(),
                    [&](NodeId id, const NodeItems& items, std::vector<std::string>* ie, std::vector<std::string>* oe) {
                      NodeId bi = counterpart[id];
                      if (bi == kNoNode) return;
                      VP_THREAD_LOCAL std::vector<CmpItem> bench;  // reused: the golden items of one node at a time
                      UnpackCmpItems(bench_items[bi], &bench);
                      NodeComparison c = CompareNode(settings, gn.node(id).name, items, bench);
                      gn.node(id).precision_index = c.precision_index;
                      *ie = std::move(c.input_extra);
                      *oe = std::move(c.output_extra);
                    });
  Result<size_t> nrows = ws.ok() ? db.EndGraph() : Result<size_t>(ws);
  if (!nrows.ok()) return ExportError(nrows.status(), file_, job.target_dir, true);
  progress_->Log(LogLevel::kDebug, "Rows of " + gn.dump_path + ", compared: " + std::to_string(Seconds() - t_golden) + " s" +
                                       WriterText(ThreadSeconds() - c_golden));
  progress_->Log(LogLevel::kInfo, "Comparing data for " + rank_name + " finished.");
  sum.rows += brows.value() + nrows.value();
  sum.dump_bytes += gn.dump_bytes + gb.dump_bytes;
  sum.graphs += 2;
  return Status::Ok();
}

Result<RunSummary> GraphRun::Run() {
  ASSIGN_OR_RETURN(plan_, PlanRun(args_.target_path, compare() ? args_.golden_path : ""));
  bool batch = plan_.kind != LayoutKind::kFiles;
  // A shard keeps its units (every count-th (step, rank) of the plan) and remembers their places.
  PartMeta part;
  if (sharded()) {
    std::string units;
    for (const GraphJob& j : plan_.jobs)
      units += "|" + std::to_string(j.step) + ":" + std::to_string(j.rank) + ":" + j.target_dir + ":" + j.golden_dir;
    part = VisPartMeta(args_, "", units, plan_.jobs.size(), batch);
  }
  {
    std::vector<GraphJob> kept;
    for (size_t u = 0; u < plan_.jobs.size(); ++u)
      if (args_.shard.Takes(u)) {
        kept.push_back(plan_.jobs[u]);
        unit_of_.push_back(u);
      }
    plan_.jobs = std::move(kept);
  }
  progress_ = std::make_unique<Progress>(rep_, StagesPerJob() * plan_.jobs.size(), batch ? 2.0 : 0.0);

  uint64_t dump_bytes = 0;
  for (const GraphJob& j : plan_.jobs)
    for (const std::string& d : {j.target_dir, j.golden_dir})
      if (!d.empty()) dump_bytes = std::max<uint64_t>(dump_bytes, FileSize(JoinPath(d, "dump.json")));
  ASSIGN_OR_RETURN(std::unique_ptr<RunOutput> out, RunOutput::Open(args_, opts_, rep_, dump_bytes, /*streamed=*/true, part));
  file_ = out->file();
  VisDbWriter* db = &out->db();

  rep_.Log(LogLevel::kInfo, "Start building model graphs...");
  built_.clear();
  built_.resize(plan_.jobs.size());
  RunSummary sum;
  sum.db_path = JoinPath(args_.output_path, file_);

  // Up to `threads` graphs are built ahead of the writer; the writer takes them in
  // (step, rank) order, so the file does not depend on scheduling.
  size_t threads = opts_.threads > 1 ? static_cast<size_t>(opts_.threads) : 1;
  std::vector<std::thread> workers(plan_.jobs.size());
  size_t launched = 0;
  auto launch_upto = [&](size_t limit) {
    for (; launched < plan_.jobs.size() && launched < limit; ++launched) {
      if (threads == 1)
        BuildOne(launched);
      else
        workers[launched] = std::thread(&GraphRun::BuildOne, this, launched);
    }
  };
  auto join_all = [&]() {
    for (auto& t : workers)
      if (t.joinable()) t.join();
  };

  int last_step = -1;
  bool said_built = false;
  for (size_t i = 0; i < plan_.jobs.size(); ++i) {
    launch_upto(threads == 1 ? i + 1 : i + threads);
    const GraphJob& job = plan_.jobs[i];
    if (plan_.kind == LayoutKind::kSteps && job.step != last_step) {
      last_step = job.step;
      progress_->Log(LogLevel::kInfo, "Start processing data for " + BaseName(DirName(job.target_dir)) + "...");
    }
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return built_[i].ready; });
    }
    BuiltGraph b = std::move(built_[i]);
    if (!b.status.ok()) {
      join_all();
      return Status(b.status.code(), b.status.message());
    }
    if (opts_.release_memory) opts_.release_memory();
    if (compare() && !said_built) {
      said_built = true;
      progress_->Log(LogLevel::kInfo, "Model graphs built successfully, start comparing graphs...");
    }
    CompareMode mode = CompareMode::kSummary;
    Status ws = compare() ? WriteCompare(i, b, *db, sum, &mode) : WriteBuild(i, b, *db, sum);
    if (!ws.ok()) {
      join_all();
      return ws;
    }
    size_t si = 0;
    for (; si < plan_.step_list.size() && plan_.step_list[si] != job.step; ++si) {}
    Status cs =
        out->Config(MakeConfigRow(compare(), mode, b.micro_steps, args_.overflow_check,
                                  si < plan_.rank_lists.size() ? plan_.rank_lists[si] : std::vector<int>{0}, plan_.step_list));
    if (cs.ok()) cs = out->UnitDone(static_cast<int64_t>(unit_of_[i]));
    if (!cs.ok()) {
      join_all();
      return cs;
    }
    for (size_t k = 0; k < StagesPerJob(); ++k) progress_->Stage(StagesPerJob() * i + k, 1.0);
    if (!batch) {
      std::string where = RealPath(args_.output_path) + "/" + file_;
      progress_->Log(LogLevel::kInfo, compare()
                                          ? "Exporting compare graph result successfully, the result file is saved in " + where
                                          : "Model graph exported successfully, the result file is saved in " + where);
    }
  }
  join_all();
  if (sharded()) {
    // The part keeps its rows as written: indexes and the cross-rank links are made by the gather.
    ASSIGN_OR_RETURN(sum.db_path,
                     out->FinishPart(std::to_string(plan_.jobs.size()) + " of " + std::to_string(part.units) + " graphs"));
    return sum;
  }
  if (batch)
    progress_->Log(LogLevel::kInfo,
                   compare() ? "Successfully exported compare graph results." : "Successfully exported build graph results.");
  // §14: communication nodes linked across ranks (batch runs only).
  ASSIGN_OR_RETURN(sum.db_path,
                   out->Finish(batch, args_.overflow_check, [this](LogLevel l, const std::string& m) { progress_->Log(l, m); }));
  return sum;
}

}  // namespace

Result<RunSummary> RunGraphVisualize(const GraphVisualizeArgs& args, const RunOptions& opts, Reporter& rep) {
  auto fail = [&](const Status& s) -> Status {
    rep.Log(LogLevel::kError, "An unexpected error occurred: " + s.message());
    rep.Progress(0, false);
    return s;
  };
  std::vector<ParallelParam> params;
  LayoutKind kind = LayoutKind::kFiles;
  auto check = [&]() -> Status {
    if (args.has_rank_size) { ASSIGN_OR_RETURN(params, LoadParallelParams(args)); }
    if (args.file_type == "json" && args.has_golden)
      return InvalidInput(
          "The --file_type json parameter is not supported in graph comparison mode. Please remove the "
          "-gp/--golden_path parameter or use --file_type db.");
    if (args.file_type == "json" && !args.has_rank_size)
      rep.Log(LogLevel::kWarning,
              "The --file_type json parameter is only supported in graph merge build scenarios. "
              "Falling back to default db output.");
    const PathAccess access = opts.check_input_writable ? PathAccess::kWrite : PathAccess::kNone;
    RETURN_IF_ERROR(CheckPath(args.target_path, PathKind::kDir, access));
    if (args.has_golden) RETURN_IF_ERROR(CheckPath(args.golden_path, PathKind::kDir, access));
    if (args.shard.active() && args.file_type == "json" && args.has_rank_size)
      return InvalidInput("--shard writes database parts: it cannot be used with --file_type json.");
    if (args.has_rank_size) {
      // §15: rank folders are merged; a single rank folder is built as usual, except for json output.
      ASSIGN_OR_RETURN(kind, Classify(args.target_path));
      if (kind == LayoutKind::kFiles && args.file_type == "json")
        return InvalidInput(
            "You have specified the \"--rank_size\" parameter for data merging, so the \"-tp\" parameter "
            "must pass in multiple rank data.");
    }
    return Status::Ok();
  };
  Status s = check();
  if (!s.ok()) return fail(s);
  Result<RunSummary> r = Status();
  if (args.has_rank_size && kind != LayoutKind::kFiles) {
    r = RunMergedGraphVisualize(args, params, kind, opts, rep);
  } else {
    GraphRun run(args, opts, rep);
    r = run.Run();
  }
  if (!r.ok()) return fail(r.status());
  rep.Progress(100.0, false);
  return r;
}

}  // namespace visprobe
