#include "app/stream_rows.h"

#include <memory>
#include <mutex>
#include <thread>

#include "base/bounded_queue.h"
#include "base/thread_init.h"

namespace visprobe {

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

RowPlan StreamedRows(const Graph& g, std::function<void(NodeId)> before_own) {
  RowPlan plan;
  plan.given.resize(g.size(), 0);
  for (NodeId id = 0; id < g.size(); ++id) plan.given[id] = g.node(id).last_record != UINT64_MAX;
  plan.before_own = std::move(before_own);
  return plan;
}

}  // namespace visprobe
