// dump.json's records parsed by worker threads: while the splitter (or the offsets of a first
// pass) cuts windows of records on this thread, a pool of parsers turns them into trees.
#include "loader/json_records.h"

#include <cerrno>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/bounded_queue.h"
#include "base/fs.h"
#include "base/thread_init.h"
#include "loader/json_reader.h"
#include "loader/json_reader_internal.h"

namespace visprobe {
using namespace json_internal;

namespace {

// Windows parsed by worker threads, each with its own parser; buffers are recycled. The first
// failing window in file order decides the error, so errors do not depend on scheduling.
class WindowPool {
 public:
  struct Job {
    size_t index = 0;
    std::string text;
    std::vector<RecordOrigin> origins;
  };

  WindowPool(const std::string& path, int workers, const RecordAtFn& fn, JsonLimits limits = {})
      : jobs_(static_cast<size_t>(workers) * 2) {
    for (int i = 0; i < workers; ++i)
      pool_.emplace_back([this, &path, &fn, i, limits] {
        ThreadInit();
        Work(path, fn, i, limits);
      });
  }
  ~WindowPool() { Close(); }

  // A recycled buffer for the next window (empty when none is free yet).
  std::string TakeSpare() {
    std::lock_guard<std::mutex> g(mu_);
    if (spare_.empty()) return std::string();
    std::string s = std::move(spare_.back());
    spare_.pop_back();
    return s;
  }
  // Blocks while the queue is full; false once a window failed (stop producing).
  bool Push(Job job) { return jobs_.Push(std::move(job)); }
  // No more jobs: joins the workers and returns the first failure (in window order) or Ok.
  Status Close() {
    jobs_.Close();
    for (auto& t : pool_)
      if (t.joinable()) t.join();
    return failure();
  }
  Status failure() {
    std::lock_guard<std::mutex> g(mu_);
    return failed_index_ == SIZE_MAX ? Status::Ok() : failed_;
  }

 private:
  void Work(const std::string& path, const RecordAtFn& fn, int wid, JsonLimits limits) {
    WindowParser wp(
        path, [&fn, wid](std::string_view k, uint64_t p, const JTree& t, JIdx v) { return fn(wid, k, p, t, v); }, limits);
    Job job;
    while (jobs_.Pop(&job)) {
      {
        std::lock_guard<std::mutex> g(mu_);
        if (failed_index_ < job.index) continue;  // a window before this one failed
      }
      Status st = wp.Parse(job.text, job.origins);
      job.text.clear();
      std::lock_guard<std::mutex> g(mu_);
      if (!st.ok() && job.index < failed_index_) {
        failed_index_ = job.index;
        failed_ = st;
        // Every queued window comes after this one (the queue is in window order): drop them.
        // Windows other workers are parsing may come before it and still report their failure.
        jobs_.Cancel();
      }
      spare_.push_back(std::move(job.text));
    }
  }

  BoundedQueue<Job> jobs_;
  std::mutex mu_;  // guards spare_, failed_index_, failed_
  std::vector<std::string> spare_;
  size_t failed_index_ = SIZE_MAX;
  Status failed_;
  std::vector<std::thread> pool_;
};

}  // namespace

Result<JsonReadResult> ReadJsonRecordsParallel(const std::string& path, const JsonReadOptions& opts, int workers,
                                               const RecordAtFn& on_record) {
  std::unique_ptr<WindowParser> wp;
  std::unique_ptr<WindowPool> pool;
  size_t next_index = 0;
  RecordSplitter::WindowFn window_fn;
  if (workers <= 1) {
    wp = std::make_unique<WindowParser>(
        path, [&on_record](std::string_view k, uint64_t p, const JTree& t, JIdx v) { return on_record(0, k, p, t, v); },
        LimitsOf(opts));
    window_fn = [&wp](std::string& w, const std::vector<RecordOrigin>& o) { return wp->Parse(w, o); };
  } else {
    // The splitter runs here; windows go to the pool.
    pool = std::make_unique<WindowPool>(path, workers, on_record, LimitsOf(opts));
    window_fn = [&](std::string& w, const std::vector<RecordOrigin>& o) {
      WindowPool::Job job;
      job.index = next_index++;
      job.origins = o;
      job.text.swap(w);
      w = pool->TakeSpare();
      return pool->Push(std::move(job)) ? Status::Ok() : pool->failure();
    };
  }
  RecordSplitter splitter(opts.container_key, opts.window_bytes, window_fn);
  splitter.SetLimits(opts.max_record_bytes, opts.max_string_bytes);
  auto fed = FeedFile(path, opts, splitter);
  if (pool) RETURN_IF_ERROR(pool->Close());
  if (!fed.ok()) return fed.status();
  JsonReadResult out;
  out.records = splitter.records();
  out.bytes = fed.value();
  out.largest_window = splitter.largest_window();
  RETURN_IF_ERROR(ParseMeta(path, splitter, opts, out));
  return out;
}

Status ReadJsonRecordRanges(const std::string& path, const std::vector<uint64_t>& pos, uint64_t end,
                            const std::vector<char>& wanted, size_t window_bytes, int workers, const RecordAtFn& on_record,
                            const std::function<void(uint64_t, uint64_t)>& progress) {
  std::unique_ptr<FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) return IoError(Msg<msg::kPathCannotOpen>(path, ErrnoMessage(errno)));
  const size_t n = pos.size();
  // Reads records [a, b) into one window "{...}" (the separator before record b dropped).
  uint64_t total = n ? ((end == UINT64_MAX ? pos.back() : end) - pos.front()) : 0;
  uint64_t done = 0;
  auto read_window = [&](size_t a, size_t b, WindowPool::Job* job) -> Status {
    uint64_t from = pos[a];
    uint64_t to = b < n ? pos[b] : end;
    if (to == UINT64_MAX || to < from) return InvalidInput(Msg<msg::kJsonErrorAt>(path, from, Msg<msg::kFileChangedWhileWas>()));
    size_t len = static_cast<size_t>(to - from);
    job->text.resize(len + 2);
    if (fseeko(f.get(), static_cast<off_t>(from), SEEK_SET) != 0 || std::fread(&job->text[1], 1, len, f.get()) != len)
      return IoError(Msg<msg::kJsonErrorAt>(path, from, Msg<msg::kReadError>()));
    job->text[0] = '{';
    // Drop the trailing whitespace and the comma that separates record b-1 from record b.
    size_t e = len + 1;
    while (e > 1 && (job->text[e - 1] == ' ' || job->text[e - 1] == '\n' || job->text[e - 1] == '\r' || job->text[e - 1] == '\t'))
      --e;
    if (b < n && e > 1 && job->text[e - 1] == ',') --e;
    job->text[e] = '}';
    job->text.resize(e + 1);
    job->origins.clear();
    for (size_t i = a; i < b; ++i) job->origins.push_back({pos[i] - from + 1, pos[i]});
    done += len;
    if (progress) progress(done, total);
    return Status::Ok();
  };
  // Windows: runs of wanted records, cut at window_bytes.
  std::vector<std::pair<size_t, size_t>> windows;
  for (size_t i = 0; i < n;) {
    if (!wanted[i]) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < n && wanted[j] && pos[j] - pos[i] < window_bytes) ++j;
    windows.emplace_back(i, j);
    i = j;
  }
  if (workers <= 1) {
    WindowParser wp(path,
                    [&on_record](std::string_view k, uint64_t p, const JTree& t, JIdx v) { return on_record(0, k, p, t, v); });
    WindowPool::Job job;
    for (auto& w : windows) {
      RETURN_IF_ERROR(read_window(w.first, w.second, &job));
      RETURN_IF_ERROR(wp.Parse(job.text, job.origins));
    }
    return Status::Ok();
  }
  WindowPool pool(path, workers, on_record);
  Status read_status;
  for (size_t k = 0; k < windows.size(); ++k) {
    WindowPool::Job job;
    job.index = k;
    job.text = pool.TakeSpare();
    read_status = read_window(windows[k].first, windows[k].second, &job);
    if (!read_status.ok() || !pool.Push(std::move(job))) break;
  }
  RETURN_IF_ERROR(pool.Close());
  return read_status;
}

}  // namespace visprobe
