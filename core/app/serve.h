// `visprobe serve LOGDIR`: the page and an API over a folder of dumps and databases (native CLI only).
#pragma once

#include <string>
#include <vector>

namespace visprobe {

struct ServeOptions {
  std::string logdir;
  std::string host = "127.0.0.1";
  int port = 6006;  // 0: any free port (tests)
  bool no_token = false;
  bool read_only = false;
  int max_builds = 1;  // builds run at once (each uses every core)
  std::string web;  // the page's folder; '' = found beside the binary
  std::string version;
};

// Parses `visprobe serve` arguments (argv after "serve"); prints usage errors itself. Returns the
// exit status when it should not serve (help, error), or -1 with `out` filled.
int ParseServeArgs(const std::vector<std::string>& argv, ServeOptions* out);

// Serves until SIGINT / SIGTERM; returns the exit status.
int Serve(const ServeOptions& opt);

}  // namespace visprobe
