#include "app/stream_rows.h"

#include <memory>
#include <mutex>
#include <thread>

#include "base/bounded_queue.h"
#include "base/thread_init.h"
#include "graph/node_records.h"

namespace visprobe {

namespace {

// A batch closes at 256 rows or this many bytes. A new block starts with room for kFirstRoom:
// 256 rows of a generated build take about 360 KB, and 2.5 MiB reserved for each had the kernel
// zero huge pages the block never used (peak 137 against 118 MiB on the 40 MB build, 193 against
// 175 MiB on the medium one). A compare's rows are larger: its blocks grow once, then come back
// from the pool with their room (closing them at 512 KiB instead measured 1.05-1.12x on c200).
constexpr size_t kBatchRows = 256, kBatchBytes = 2u << 20, kFirstRoom = 512u << 10;

// Blocks the writer is done with come back here with their buffers, so the parse threads fill
// memory that is already there: fresh blocks cost the kernel a zeroed huge page each (6 % of a
// medium build's CPU when every block was new). A block comes back when its last row is in.
class BlockPool : public std::enable_shared_from_this<BlockPool> {
 public:
  std::unique_ptr<RowBlock> Take() {
    std::unique_ptr<RowBlock> b;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (!free_.empty()) {
        b = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!b) {
      b = std::make_unique<RowBlock>();
      b->text.reserve(kFirstRoom);
    }
    return b;
  }
  // The block as the writer holds it: back to the pool when the writer lets go of it.
  std::shared_ptr<const RowBlock> Lend(std::unique_ptr<RowBlock> block) {
    std::shared_ptr<BlockPool> self = shared_from_this();
    return std::shared_ptr<const RowBlock>(block.release(), [self](RowBlock* b) { self->GiveBack(b); });
  }

 private:
  void GiveBack(RowBlock* b) {
    b->ids.clear();
    b->cuts.clear();
    b->text.clear();
    std::lock_guard<std::mutex> lk(mu_);
    if (free_.size() < 16)
      free_.emplace_back(b);
    else
      delete b;
  }
  std::mutex mu_;
  std::vector<std::unique_ptr<RowBlock>> free_;
};

// The hook's comparison fields for a record (target side of a compare), or none (false).
bool Extras(const RowHook& hook, NodeId id, const NodeItems& items, std::vector<std::string>& ie, std::vector<std::string>& oe) {
  ie.clear();
  oe.clear();
  if (hook) hook(id, items, &ie, &oe);
  return !ie.empty() || !oe.empty();
}

// The browser build's path: parse, render and insert on this thread.
Status StreamRowsHere(Graph& g, const BuildOptions& bo, VisDbWriter& db, const RowHook& hook) {
  std::vector<std::string> ie, oe;
  std::string text;
  return StreamNodeRecords(g, bo, [&](NodeId id, const NodeItems& items) {
    const bool extra = Extras(hook, id, items, ie, oe);
    text.clear();
    size_t mid = 0;
    VisDbWriter::AppendRenderedItems(items, extra ? &ie : nullptr, extra ? &oe : nullptr, &text, &mid);
    return db.WriteRenderedRow(id, std::string_view(text).substr(0, mid), std::string_view(text).substr(mid));
  });
}

// `workers` threads parse and render records into blocks, pushed to `queue` (closed at the end).
Status ProduceBlocks(Graph& g, const BuildOptions& bo, int workers, const RowHook& hook, BlockPool& pool,
                     BoundedQueue<std::unique_ptr<RowBlock>>& queue) {
  struct Scratch {
    std::unique_ptr<RowBlock> batch;
    std::vector<std::string> ie, oe;
  };
  std::vector<Scratch> scratch(static_cast<size_t>(workers));
  Status produced = StreamNodeRecordsParallel(g, bo, workers, [&](int w, NodeId id, const NodeItems& items) -> Status {
    Scratch& sc = scratch[static_cast<size_t>(w)];
    const bool extra = Extras(hook, id, items, sc.ie, sc.oe);
    if (!sc.batch) sc.batch = pool.Take();
    RowBlock& b = *sc.batch;
    // Formatted once, straight into the batch the writer inserts from.
    size_t mid = 0;
    VisDbWriter::AppendRenderedItems(items, extra ? &sc.ie : nullptr, extra ? &sc.oe : nullptr, &b.text, &mid);
    b.ids.push_back(id);
    b.cuts.push_back(mid);
    b.cuts.push_back(b.text.size());
    if (b.ids.size() >= kBatchRows || b.text.size() >= kBatchBytes) {
      if (!queue.Push(std::move(sc.batch))) return Status(Code::kCancelled, "stopped");
      sc.batch.reset();
    }
    return Status::Ok();
  });
  for (auto& sc : scratch)
    if (produced.ok() && sc.batch && !sc.batch->ids.empty()) queue.Push(std::move(sc.batch));
  queue.Close();
  return produced;
}

}  // namespace

Status StreamRows(Graph& g, const BuildOptions& bo, VisDbWriter& db, int workers, const RowHook& hook) {
  if (workers <= 0) return StreamRowsHere(g, bo, db, hook);
  // Batches reach the writer in whatever order the workers finish them: the writer puts the rows
  // in in node_order (VisDbWriter::BeginGraph's plan), so the file does not depend on scheduling.
  // Between the producer (parse + render) and this thread, the writer; a failed write cancels it.
  auto pool = std::make_shared<BlockPool>();
  BoundedQueue<std::unique_ptr<RowBlock>> queue(static_cast<size_t>(workers) * 3);
  Status produced;
  std::thread producer([&] {
    ThreadInit();
    produced = ProduceBlocks(g, bo, workers, hook, *pool, queue);
  });
  Status written;
  std::unique_ptr<RowBlock> b;
  while (written.ok() && queue.Pop(&b)) {
    written = db.WriteRows(pool->Lend(std::move(b)));
    if (!written.ok()) queue.Cancel();
  }
  producer.join();
  if (!written.ok()) return written;
  return produced;
}

RowPlan StreamedRows(const Graph& g, std::function<void(NodeId)> before_own) {
  RowPlan plan;
  plan.given.resize(g.size(), 0);
  for (NodeId id = 0; id < g.size(); ++id) plan.given[id] = g.node(id).last_record != UINT64_MAX;
  plan.before_own = std::move(before_own);
  return plan;
}

}  // namespace visprobe
