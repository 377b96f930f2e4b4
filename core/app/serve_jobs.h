// `visprobe serve`: builds and data2db runs started from the page, run by the server as the CLI
// itself (a child process of the same binary: the same pipeline, all cores), one queue. A job
// writes into a hidden staging folder under LOGDIR; its databases are renamed into the output
// folder only when the run succeeded, so a failed or cancelled job leaves nothing half-written.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace visprobe {

struct JobRequest {
  std::string kind;  // "build" (graph_visualize) or "data2db"
  std::vector<std::string> args;  // the command's arguments, absolute paths, without the output option
  std::string out_dir;  // absolute output folder (inside LOGDIR)
  std::string out_rel;  // the same, relative to LOGDIR (what the page shows)
  std::string label;  // what the page lists ("rank0 vs rank0")
};

class JobQueue {
 public:
  // `exe`: the visprobe binary; `root`: LOGDIR's real path; `max_running` jobs run at a time and at
  // most `max_queued` wait.
  JobQueue(std::string exe, std::string root, int max_running, size_t max_queued);
  ~JobQueue();  // cancels what runs, drops what waits

  Result<int> Submit(JobRequest r);
  Status Cancel(int id);
  // One job / all jobs as JSON: {id, kind, label, state (queued|running|done|failed|cancelled),
  // percent (-1: unknown), log (last lines), results (paths relative to LOGDIR), error}.
  Result<std::string> Json(int id) const;
  std::string ListJson() const;
  // Whether the job has ended (done, failed or cancelled); an unknown job counts as ended.
  bool Ended(int id) const;
  // Bumped on every change; WaitChange returns when it passes `seen` or after `ms`.
  uint64_t version() const;
  uint64_t WaitChange(uint64_t seen, int ms) const;

 private:
  struct Job {
    int id = 0;
    JobRequest req;
    std::string state = "queued";
    double percent = -1;
    std::deque<std::string> log;
    std::vector<std::string> results;
    std::string error;
    pid_t pid = -1;
    bool cancel = false;
  };
  void Worker();
  void RunJob(Job& job);
  void Finish(Job& job, int status, const std::string& staging);
  void Changed();
  std::string JobJson(const Job& j) const;

  std::string exe_, root_;
  size_t max_queued_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;  // the queue and every change
  std::map<int, std::unique_ptr<Job>> jobs_;
  std::deque<int> waiting_;
  int next_id_ = 1;
  uint64_t version_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

// Removes a folder and everything in it (the job's staging folder).
void RemoveTree(const std::string& dir);

}  // namespace visprobe
