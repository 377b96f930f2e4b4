// The second pass over dump.json: every node's last record parsed into items and handed to the
// caller, on one thread or several.
#include "graph/node_records.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "graph/builder.h"
#include "graph/overflow.h"
#include "graph/rank_inputs.h"
#include "loader/json_reader.h"
#include "loader/json_records.h"

namespace visprobe {
namespace {

// §6.8: batch_isend_irecv outputs -> {op, peer, group_id} of the first output list.
void ExtractBatchP2P(const JTree& t, JIdx v, std::vector<BatchP2PInfo>* out) {
  out->clear();
  JIdx outs = t.Kind(v) == JKind::kObject ? t.Find(v, "output") : kJNone;
  if (outs == kJNone || t.Kind(outs) != JKind::kArray || !t.Truthy(outs)) return;
  JIdx first = t.at(outs).first;
  if (t.Kind(first) != JKind::kArray || !t.Truthy(first)) return;
  for (JIdx p = t.at(first).first; p != kJNone; p = t.at(p).next) {
    if (t.Kind(p) != JKind::kObject) continue;
    BatchP2PInfo info;
    auto field = [&](const char* f, std::string* dst) {
      JIdx x = t.Find(p, f);
      if (x == kJNone)
        *dst = "null";
      else
        t.AppendJson(*dst, x);
    };
    field("op", &info.op);
    field("peer", &info.peer);
    field("group_id", &info.group_id);
    out->push_back(std::move(info));
  }
}

}  // namespace

Status StreamNodeRecords(Graph& g, const BuildOptions& opts, const NodeRecordFn& fn) {
  return StreamNodeRecordsParallel(g, opts, 1, [&fn](int, NodeId id, const NodeItems& items) { return fn(id, items); });
}

Status StreamNodeRecordsParallel(Graph& g, const BuildOptions& opts, int workers, const WorkerRecordFn& fn) {
  JsonReadOptions o;
  o.container_key = "data";
  o.window_bytes = opts.window_bytes;
  if (opts.progress) o.progress = [&opts](uint64_t d, uint64_t t) { opts.progress(t / 10 + d - d / 10, t); };
  std::vector<NodeItems> items(static_cast<size_t>(std::max(1, workers)));
  // With the first pass's record offsets, a record's node is found by its offset: (offset, node)
  // pairs of the nodes' last records, sorted, and a cursor per worker that moves forward, as each
  // worker's records come in file order (a record behind its cursor is searched for).
  std::vector<std::pair<uint64_t, NodeId>> by_offset;
  std::vector<size_t> cursor(static_cast<size_t>(std::max(1, workers)), 0);
  const bool known = !g.record_pos.empty() && g.data_end != UINT64_MAX;
  if (known) {
    for (NodeId id = 0; id < g.size(); ++id)
      if (g.node(id).last_record != UINT64_MAX) by_offset.emplace_back(g.node(id).last_record, id);
    std::sort(by_offset.begin(), by_offset.end());
  }
  auto node_at = [&](int worker, uint64_t at) -> NodeId {
    size_t& c = cursor[static_cast<size_t>(worker)];
    if (c > 0 && c <= by_offset.size() && by_offset[c - 1].first >= at) c = 0;  // behind the cursor
    if (c == 0 || (c < by_offset.size() && at > by_offset[c].first + (64u << 10)))  // far ahead: search
      c = static_cast<size_t>(std::lower_bound(by_offset.begin(), by_offset.end(), std::make_pair(at, NodeId(0))) -
                              by_offset.begin());
    while (c < by_offset.size() && by_offset[c].first < at) ++c;
    if (c < by_offset.size() && by_offset[c].first == at) return by_offset[c++].second;
    return kNoNode;
  };
  // Errors of the record consumer (e.g. the database) are not dump.json's fault: they are returned
  // as they are, told apart from the reader's by identity.
  std::mutex consumer_mu;
  std::vector<Status> consumer_errors;
  auto rec = [&](int worker, std::string_view key, uint64_t at, const JTree& t, JIdx v) -> Status {
    NodeId id = known ? node_at(worker, at) : g.Find(key);
    if (id == kNoNode) return Status::Ok();
    Node& n = g.node(id);
    if (at != n.last_record) return Status::Ok();  // a later record of the same name wins (§2.1)
    NodeItems& it = items[static_cast<size_t>(worker)];
    RETURN_IF_ERROR(ParseEntryItems(t, v, n.name, opts.items, it));
    n.overflow = opts.overflow_check ? CheckOverflow(t, v, n.name) : Overflow::kNone;
    if (key.find("batch_isend_irecv") != std::string_view::npos) ExtractBatchP2P(t, v, &n.batch_p2p);
    Status s = fn(worker, id, it);
    if (!s.ok()) {
      std::lock_guard<std::mutex> lock(consumer_mu);
      consumer_errors.push_back(s);
    }
    return s;
  };
  Status st;
  if (known) {
    // The first pass knows where every record is: read only the records that count.
    std::vector<char> wanted(g.record_pos.size(), 0);
    for (size_t i = 0, k = 0; i < g.record_pos.size(); ++i) {
      while (k < by_offset.size() && by_offset[k].first < g.record_pos[i]) ++k;
      wanted[i] = k < by_offset.size() && by_offset[k].first == g.record_pos[i];
    }
    std::function<void(uint64_t, uint64_t)> prog;
    if (opts.progress) prog = [&opts](uint64_t d, uint64_t t) { opts.progress(t / 10 + d - d / 10, t); };
    st = ReadJsonRecordRanges(g.dump_path, g.record_pos, g.data_end, wanted, opts.window_bytes, workers, rec, prog);
  } else {
    auto r = ReadJsonRecordsParallel(g.dump_path, o, workers, rec);
    st = r.ok() ? Status::Ok() : r.status();
  }
  if (!st.ok()) {
    for (const Status& c : consumer_errors)
      if (&c.detail() == &st.detail()) return st;
    return LoadFailed("dump.json", st);
  }
  return Status::Ok();
}

}  // namespace visprobe
