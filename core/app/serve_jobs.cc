#include "app/serve_jobs.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "app/serve_runs.h"
#include "base/fs.h"
#include "base/pyfmt.h"
#include "base/strings.h"

namespace visprobe {
namespace {

constexpr size_t kLogLines = 200;

// Moves `from` to dir/name, or dir/stem_1.ext, ... (never over an existing file): link() fails
// with EEXIST where a file is, so two jobs finishing at once cannot take one name.
Result<std::string> MoveNoClobber(const std::string& from, const std::string& dir, const std::string& name) {
  const std::string ext = EndsWith(name, ".trend.db") ? ".trend.db" : ".vis.db";
  const std::string stem = name.substr(0, name.size() - ext.size());
  for (int k = 0; k < 10000; ++k) {
    const std::string to = JoinPath(dir, k == 0 ? name : stem + "_" + std::to_string(k) + ext);
    if (::link(from.c_str(), to.c_str()) == 0) {
      ::unlink(from.c_str());
      return to;
    }
    if (errno != EEXIST) return IoError("cannot write " + to + ": " + std::strerror(errno));
  }
  return IoError("no free name for " + name + " in " + dir);
}

}  // namespace

void RemoveTree(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

JobQueue::JobQueue(std::string exe, std::string root, int max_running, size_t max_queued)
    : exe_(std::move(exe)), root_(std::move(root)), max_queued_(max_queued) {
  for (int i = 0; i < std::max(1, max_running); ++i) workers_.emplace_back([this] { Worker(); });
}

JobQueue::~JobQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    for (auto& [id, j] : jobs_) {
      j->cancel = true;
      if (j->pid > 0) ::kill(j->pid, SIGTERM);
    }
  }
  cv_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void JobQueue::Changed() {
  ++version_;
  cv_.notify_all();
}

Result<int> JobQueue::Submit(JobRequest r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (waiting_.size() >= max_queued_)
    return Status(Code::kOutOfMemory,
                  std::to_string(waiting_.size()) + " runs are waiting already; try again when one has finished");
  auto j = std::make_unique<Job>();
  j->id = next_id_++;
  j->req = std::move(r);
  const int id = j->id;
  jobs_[id] = std::move(j);
  waiting_.push_back(id);
  Changed();
  return id;
}

Status JobQueue::Cancel(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return NotFound("no run " + std::to_string(id));
  Job& j = *it->second;
  if (j.state == "queued") {
    waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), id), waiting_.end());
    j.state = "cancelled";
  } else if (j.state == "running") {
    j.cancel = true;
    if (j.pid > 0) ::kill(j.pid, SIGTERM);
  }
  Changed();
  return Status::Ok();
}

void JobQueue::Worker() {
  for (;;) {
    Job* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !waiting_.empty(); });
      if (stop_) return;
      job = jobs_[waiting_.front()].get();
      waiting_.pop_front();
      job->state = "running";
      Changed();
    }
    RunJob(*job);
  }
}

void JobQueue::RunJob(Job& job) {
  const std::string staging =
      JoinPath(JoinPath(root_, ".visprobe-jobs"), std::to_string(::getpid()) + "-" + std::to_string(job.id));
  std::vector<std::string> argv = {exe_, job.req.kind == "build" ? "graph_visualize" : "data2db"};
  argv.insert(argv.end(), job.req.args.begin(), job.req.args.end());
  if (job.req.kind == "build")
    argv.insert(argv.end(), {"-o", staging, "-progress_log"});
  else
    argv.insert(argv.end(), {"--db", staging});
  int fds[2];
  Status made = MakeDirs(staging);
  if (!made.ok() || ::pipe2(fds, O_CLOEXEC) != 0) {
    std::lock_guard<std::mutex> lock(mu_);
    job.state = "failed";
    job.error = made.ok() ? std::string("cannot start the run: ") + std::strerror(errno) : made.message();
    Changed();
    return;
  }
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(&a[0]);
  cargv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The child: stdout and stderr into the pipe, nothing else of the server's (sockets) open.
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    for (int fd = 3; fd < 1024; ++fd) ::close(fd);
    ::execv(cargv[0], cargv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  {
    std::lock_guard<std::mutex> lock(mu_);
    job.pid = pid;
    if (job.cancel && pid > 0) ::kill(pid, SIGTERM);
    Changed();
  }
  FILE* out = pid > 0 ? ::fdopen(fds[0], "r") : nullptr;
  char line[8192];
  while (out && std::fgets(line, sizeof line, out)) {
    std::string s(line);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    std::lock_guard<std::mutex> lock(mu_);
    const size_t p = s.find("PROGRESS: {\"current_progress\": ");
    if (p != std::string::npos) {
      job.percent = std::atof(s.c_str() + p + 32);
    } else {
      if (s.find("[ERROR]") != std::string::npos) job.error = s.substr(s.find("[ERROR]") + 8);
      job.log.push_back(s);
      if (job.log.size() > kLogLines) job.log.pop_front();
    }
    Changed();
  }
  if (out)
    std::fclose(out);
  else
    ::close(fds[0]);
  int status = -1;
  if (pid > 0) ::waitpid(pid, &status, 0);
  Finish(job, status, staging);
}

void JobQueue::Finish(Job& job, int status, const std::string& staging) {
  bool cancel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    job.pid = -1;
    cancel = job.cancel;
  }
  std::vector<std::string> results;
  std::string error;
  if (!cancel && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    Result<std::vector<DirEntry>> files = ListDir(staging);
    for (const DirEntry& f : files.ok() ? *files : std::vector<DirEntry>{}) {
      if (!f.is_file || !(EndsWith(f.name, ".vis.db") || EndsWith(f.name, ".trend.db"))) continue;
      Result<std::string> to = MoveNoClobber(JoinPath(staging, f.name), job.req.out_dir, f.name);
      if (!to.ok()) {
        error = to.status().message();
        break;
      }
      results.push_back(to->substr(root_.size() + (to->size() > root_.size() ? 1 : 0)));
    }
    if (results.empty() && error.empty()) error = "the run wrote no database";
  }
  RemoveTree(staging);  // a cancelled or failed run leaves nothing, a finished one its databases only
  std::lock_guard<std::mutex> lock(mu_);
  job.results = results;
  if (cancel)
    job.state = "cancelled";
  else if (!error.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    job.state = "failed";
    if (!error.empty() && job.error.empty()) job.error = error;
    if (job.error.empty())
      job.error = "the run ended with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  } else {
    job.state = "done";
    job.percent = 100;
  }
  Changed();
}

std::string JobQueue::JobJson(const Job& j) const {
  std::string s = "{\"id\": " + std::to_string(j.id) + ", \"kind\": " + JsonText(j.req.kind) +
                  ", \"label\": " + JsonText(j.req.label) + ", \"output\": " + JsonText(j.req.out_rel) +
                  ", \"state\": " + JsonText(j.state) + ", \"percent\": ";
  AppendPyFloat(s, j.percent);
  s += ", \"error\": " + JsonText(j.error) + ", \"results\": [";
  for (size_t i = 0; i < j.results.size(); ++i) s += (i ? ", " : "") + JsonText(j.results[i]);
  s += "], \"log\": [";
  size_t i = 0;
  for (const std::string& l : j.log) s += (i++ ? ", " : "") + JsonText(l);
  return s + "]}";
}

Result<std::string> JobQueue::Json(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return NotFound("no run " + std::to_string(id));
  return JobJson(*it->second);
}

std::string JobQueue::ListJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string s = "[";
  bool first = true;
  for (const auto& [id, j] : jobs_) {
    s += (first ? "" : ", ") + JobJson(*j);
    first = false;
  }
  return s + "]";
}

bool JobQueue::Ended(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = jobs_.find(id);
  return it == jobs_.end() || (it->second->state != "queued" && it->second->state != "running");
}

uint64_t JobQueue::version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return version_;
}

uint64_t JobQueue::WaitChange(uint64_t seen, int ms) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, std::chrono::milliseconds(ms), [&] { return version_ != seen || stop_; });
  return version_;
}

}  // namespace visprobe
