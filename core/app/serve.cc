// `visprobe serve LOGDIR`: the page and an API over LOGDIR, on the machine where the dumps are (the
// TensorBoard workflow: run it on the training server, forward the port over SSH, open the URL).
// HTTP is cpp-httplib (Debian's source package, header-only; see scripts/setup.sh); what is
// served or written is confined to LOGDIR (serve_runs.h), builds run as child processes of this
// binary (serve_jobs.h).
#include "app/serve.h"

#include <signal.h>
#include <unistd.h>

#include <httplib.h>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <thread>

#include "app/serve_jobs.h"
#include "app/serve_runs.h"
#include "base/fs.h"
#include "loader/json_reader.h"
#include "loader/json_tree.h"

namespace visprobe {
namespace {

constexpr size_t kMaxBody = 64 * 1024;  // API requests are a few hundred bytes
constexpr size_t kChunk = 256 * 1024;  // file bytes are sent this much at a time
constexpr int kThreads = 48;  // connections served at once

struct Server {
  ServeOptions opt;
  std::string root;  // LOGDIR's real path
  std::string web;  // the page's folder ('' = none)
  std::string token;
  std::unique_ptr<RunLister> runs;
  std::unique_ptr<JobQueue> jobs;
};

void Json(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body, "application/json");
}

void Error(httplib::Response& res, int status, const std::string& message) {
  Json(res, status, "{\"error\": " + JsonText(message) + "}");
}

std::string RandomToken() {
  unsigned char b[24];
  FILE* f = std::fopen("/dev/urandom", "rb");
  const bool ok = f && std::fread(b, 1, sizeof b, f) == sizeof b;
  if (f) std::fclose(f);
  if (!ok) return "";
  static const char* hex = "0123456789abcdef";
  std::string t;
  for (unsigned char c : b) {
    t += hex[c >> 4];
    t += hex[c & 15];
  }
  return t;
}

// The token a request carries: ?token=, "Authorization: token X", or the cookie the page got.
std::string TokenOf(const httplib::Request& req) {
  if (req.has_param("token")) return req.get_param_value("token");
  const std::string auth = req.get_header_value("Authorization");
  if (auth.rfind("token ", 0) == 0) return auth.substr(6);
  const std::string cookie = req.get_header_value("Cookie");
  for (size_t i = 0; i < cookie.size();) {
    size_t j = cookie.find(';', i);
    if (j == std::string::npos) j = cookie.size();
    std::string kv = cookie.substr(i, j - i);
    while (!kv.empty() && kv[0] == ' ') kv.erase(0, 1);
    if (kv.rfind("visprobe_token=", 0) == 0) return kv.substr(15);
    i = j + 1;
  }
  return "";
}

bool SameToken(const std::string& a, const std::string& b) {  // constant time in the token's length
  if (a.size() != b.size()) return false;
  unsigned char d = 0;
  for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i]);
  return d == 0;
}

// RFC 9110 §14: one byte range of a file of `size` bytes. Returns 0 with [first, last] set, 1 for
// "answer the whole file" (no Range, several ranges, or one that is not a bytes range), 2 for an
// unsatisfiable range (416).
int ParseRange(const std::string& h, uint64_t size, uint64_t* first, uint64_t* last) {
  if (h.empty()) return 1;
  if (h.rfind("bytes=", 0) != 0) return 1;
  const std::string spec = h.substr(6);
  if (spec.find(',') != std::string::npos) return 1;  // several ranges: answered whole
  const size_t dash = spec.find('-');
  if (dash == std::string::npos) return 1;
  const std::string a = spec.substr(0, dash), b = spec.substr(dash + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() < 20 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (a.empty()) {  // suffix range: the last N bytes
    if (!digits(b)) return 1;
    const uint64_t n = std::strtoull(b.c_str(), nullptr, 10);
    if (n == 0 || size == 0) return 2;
    *first = n >= size ? 0 : size - n;
    *last = size - 1;
    return 0;
  }
  if (!digits(a) || (!b.empty() && !digits(b))) return 1;
  *first = std::strtoull(a.c_str(), nullptr, 10);
  *last = b.empty() ? ~uint64_t{0} : std::strtoull(b.c_str(), nullptr, 10);
  if (*last < *first) return 1;  // invalid: ignored
  if (*first >= size) return 2;
  if (*last >= size) *last = size - 1;
  return 0;
}

void ServeFile(const std::string& path, const httplib::Request& req, httplib::Response& res) {
  const uint64_t size = FileSize(path);
  const std::string name = BaseName(path);
  res.set_header("Accept-Ranges", "bytes");
  res.set_header("Cache-Control", "no-store");
  res.set_header("Content-Disposition", "attachment; filename=" + JsonText(name));
  uint64_t first = 0, last = size ? size - 1 : 0;
  const int kind = ParseRange(req.get_header_value("Range"), size, &first, &last);
  if (kind == 2) {
    res.status = 416;
    res.set_header("Content-Range", "bytes */" + std::to_string(size));
    return;
  }
  if (kind == 1) first = 0;
  if (req.method == "HEAD") {
    res.status = kind == 0 ? 206 : 200;
    res.set_header("Content-Length", std::to_string(size == 0 ? 0 : last - first + 1));
    if (kind == 0)
      res.set_header("Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" + std::to_string(size));
    return;
  }
  res.status = kind == 0 ? 206 : 200;
  if (kind == 0)
    res.set_header("Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(last) + "/" + std::to_string(size));
  // Chunked, read as the client takes it: a client that goes away stops the reads (the sink fails).
  auto file = std::make_shared<std::ifstream>(path, std::ios::binary);
  const uint64_t end = size == 0 ? 0 : last + 1;
  res.set_chunked_content_provider("application/octet-stream", [file, first, end](size_t offset, httplib::DataSink& sink) {
    const uint64_t at = first + offset;
    if (at >= end) {
      sink.done();
      return true;
    }
    std::string buf(static_cast<size_t>(std::min<uint64_t>(kChunk, end - at)), '\0');
    file->seekg(static_cast<std::streamoff>(at));
    if (!file->read(&buf[0], static_cast<std::streamsize>(buf.size()))) return false;
    return sink.write(buf.data(), buf.size());
  });
}

std::string RunsJson(Server& s) {
  std::string out = "{\"runs\": [";
  bool first = true;
  for (const RunEntry& r : s.runs->List()) {
    out += first ? "" : ", ";
    first = false;
    out += "{\"path\": " + JsonText(r.path) + ", \"kind\": " + JsonText(r.kind) + ", \"size\": " + std::to_string(r.size) +
           ", \"mtime\": " + std::to_string(r.mtime) + ", \"summary\": " + (r.summary.empty() ? "{}" : r.summary) + "}";
  }
  return out + "]}";
}

// A string member of a JSON request ("" when absent or not a string).
std::string Member(const JTree& t, JIdx obj, const char* key) {
  const JIdx m = t.Find(obj, key);
  return m != kJNone && t.Kind(m) == JKind::kString ? std::string(t.Str(m)) : std::string();
}
bool Flag(const JTree& t, JIdx obj, const char* key) {
  const JIdx m = t.Find(obj, key);
  return m != kJNone && t.Kind(m) == JKind::kBool && t.Truthy(m);
}

// The tokens of a space-separated option ("4 4" -> {"4", "4"}).
void AddTokens(std::vector<std::string>& args, const char* flag, const std::string& v) {
  std::vector<std::string> toks;
  for (size_t i = 0; i < v.size();) {
    size_t j = v.find(' ', i);
    if (j == std::string::npos) j = v.size();
    if (j > i) toks.push_back(v.substr(i, j - i));
    i = j + 1;
  }
  if (toks.empty()) return;
  args.push_back(flag);
  args.insert(args.end(), toks.begin(), toks.end());
}

// POST /api/build and /api/data2db: the request checked into a job (paths confined to LOGDIR).
void StartJob(Server& s, const std::string& kind, const httplib::Request& req, httplib::Response& res) {
  if (s.opt.read_only) return Error(res, 403, "this server is read-only (visprobe serve --read-only): builds are off");
  JTree t;
  JIdx root = kJNone;
  if (!ParseJsonText(req.body, t, &root).ok() || root == kJNone || t.Kind(root) != JKind::kObject)
    return Error(res, 400, "the request is not a JSON object");
  auto confined = [&](const std::string& rel, bool must_exist) { return ConfinedPath(s.root, rel, must_exist); };
  JobRequest job;
  job.kind = kind;
  Result<std::string> out = confined(Member(t, root, "output"), true);
  if (!out.ok() || !IsDir(*out))
    return Error(res, 400, "output: " + (out.ok() ? std::string("not a folder") : out.status().message()));
  job.out_dir = *out;
  job.out_rel = Member(t, root, "output");
  const JIdx o = t.Find(root, "options");
  const bool has_o = o != kJNone && t.Kind(o) == JKind::kObject;
  const JIdx input = t.Find(root, kind == "build" ? "target" : "data");
  if (input == kJNone || t.Kind(input) != JKind::kString)
    return Error(res, 400, std::string(kind == "build" ? "target" : "data") + ": required (a folder under the log folder)");
  if (kind == "build") {
    Result<std::string> target = confined(Member(t, root, "target"), true);
    if (!target.ok()) return Error(res, 400, "target: " + target.status().message());
    job.args = {"-tp", *target};
    job.label = Member(t, root, "target");
    const std::string golden_rel = Member(t, root, "golden");
    if (!golden_rel.empty()) {
      Result<std::string> golden = confined(golden_rel, true);
      if (!golden.ok()) return Error(res, 400, "golden: " + golden.status().message());
      job.args.insert(job.args.end(), {"-gp", *golden});
      job.label += " vs " + golden_rel;
    }
    if (has_o) {
      if (Flag(t, o, "overflowCheck")) job.args.push_back("-oc");
      if (Flag(t, o, "fuzzyMatch")) job.args.push_back("-fm");
      if (Flag(t, o, "layerMapping")) job.args.push_back("-lm");
      AddTokens(job.args, "--rank_size", Member(t, o, "rankSize"));
      AddTokens(job.args, "--tp", Member(t, o, "tp"));
      AddTokens(job.args, "--pp", Member(t, o, "pp"));
      AddTokens(job.args, "--vpp", Member(t, o, "vpp"));
      AddTokens(job.args, "--order", Member(t, o, "order"));
    }
  } else {
    Result<std::string> data = confined(Member(t, root, "data"), true);
    if (!data.ok()) return Error(res, 400, "data: " + data.status().message());
    job.args = {"--data", *data};
    job.label = Member(t, root, "data");
    if (has_o) {
      const std::string format = Member(t, o, "format");
      if (!format.empty()) job.args.insert(job.args.end(), {"--format", format});
      const JIdx ms = t.Find(o, "microStep");
      if (ms != kJNone && t.Kind(ms) == JKind::kBool && !t.Truthy(ms)) job.args.insert(job.args.end(), {"--micro_step", "false"});
    }
  }
  Result<int> id = s.jobs->Submit(std::move(job));
  if (!id.ok()) return Error(res, 503, id.status().message());
  Json(res, 202, "{\"id\": " + std::to_string(*id) + "}");
}

// GET /api/jobs/<id>/events: the job as server-sent events, one on each change, until it ends.
void JobEvents(Server& s, int id, httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  auto seen = std::make_shared<uint64_t>(~uint64_t{0});
  JobQueue* jobs = s.jobs.get();
  res.set_chunked_content_provider("text/event-stream", [jobs, id, seen](size_t, httplib::DataSink& sink) {
    const uint64_t v = *seen == ~uint64_t{0} ? jobs->version() : jobs->WaitChange(*seen, 15000);
    // Ended before the snapshot: the snapshot shows the end, and the stream closes after it.
    const bool ended = jobs->Ended(id);
    Result<std::string> j = jobs->Json(id);
    if (!j.ok()) {
      sink.done();
      return true;
    }
    if (v == *seen) {
      if (ended) sink.done();
      return ended || sink.write(": keep-alive\n\n", 14);
    }
    *seen = v;
    const std::string ev = "data: " + *j + "\n\n";
    if (!sink.write(ev.data(), ev.size())) return false;
    if (ended) sink.done();
    return true;
  });
}

// This binary's own path: builds run it again (the same pipeline as the CLI).
std::string ExePath() {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "visprobe";
  buf[n] = '\0';
  return buf;
}
std::string ExeDir() { return DirName(ExePath()); }

// The page's bundle: --web, else beside the binary (release: web/; install: ../share/visprobe/web;
// the build tree: build/native/../web).
std::string FindWeb(const std::string& given) {
  if (!given.empty()) return IsRegularFile(JoinPath(given, "index.html")) ? RealPath(given) : "";
  const std::string exe = ExeDir();
  for (const std::string& d : {JoinPath(exe, "web"), JoinPath(exe, "../share/visprobe/web"), JoinPath(exe, "../web")})
    if (IsRegularFile(JoinPath(d, "index.html"))) return RealPath(d);
  return "";
}

void Routes(httplib::Server& http, Server& s) {
  http.set_pre_routing_handler([&s](const httplib::Request& req, httplib::Response& res) {
    if (s.token.empty() || SameToken(TokenOf(req), s.token)) return httplib::Server::HandlerResponse::Unhandled;
    if (req.path.rfind("/api/", 0) == 0)
      Error(res, 401, "no or wrong token: open the URL visprobe serve printed");
    else {
      res.status = 401;
      res.set_content("visprobe serve: open the URL with its token (?token=...) as printed where the server started.\n",
                      "text/plain");
    }
    return httplib::Server::HandlerResponse::Handled;
  });
  // A request that carried the token in its URL leaves it in a cookie, so the page's own requests
  // (database ranges, events) need not repeat it.
  http.set_post_routing_handler([&s](const httplib::Request& req, httplib::Response& res) {
    if (!s.token.empty() && req.has_param("token"))
      res.set_header("Set-Cookie", "visprobe_token=" + s.token + "; Path=/; HttpOnly; SameSite=Strict");
    // The same for pages outside a secure context, where browsers hide Server-Timing (a session cookie).
    if (req.path == "/" || req.path == "/index.html") res.set_header("Set-Cookie", "visprobe_serve=1; Path=/; SameSite=Strict");
    res.set_header("X-Content-Type-Options", "nosniff");
    // How the page knows it is served by visprobe serve, with no request a static host would
    // answer 404 to (the page reads its navigation's Server-Timing entries).
    res.set_header("Server-Timing", "visprobe-serve");
  });
  http.Get("/api/info", [&s](const httplib::Request&, httplib::Response& res) {
    Json(res, 200,
         "{\"server\": \"visprobe\", \"version\": " + JsonText(s.opt.version) + ", \"logdir\": " + JsonText(BaseName(s.root)) +
             ", \"readOnly\": " + (s.opt.read_only ? "true" : "false") + "}");
  });
  http.Get("/api/runs", [&s](const httplib::Request&, httplib::Response& res) { Json(res, 200, RunsJson(s)); });
  auto file = [&s](const httplib::Request& req, httplib::Response& res) {
    Result<std::string> p = ConfinedPath(s.root, req.has_param("path") ? req.get_param_value("path") : std::string("\x01"));
    if (!p.ok()) return Error(res, p.status().code() == Code::kNotFound ? 404 : 403, p.status().message());
    if (!IsRegularFile(*p)) return Error(res, 404, "not a file");
    ServeFile(*p, req, res);
  };
  http.Get("/api/file", file);
  http.Post("/api/build", [&s](const httplib::Request& req, httplib::Response& res) { StartJob(s, "build", req, res); });
  http.Post("/api/data2db", [&s](const httplib::Request& req, httplib::Response& res) { StartJob(s, "data2db", req, res); });
  http.Get("/api/jobs",
           [&s](const httplib::Request&, httplib::Response& res) { Json(res, 200, "{\"jobs\": " + s.jobs->ListJson() + "}"); });
  http.Get(R"(/api/jobs/(\d+)/events)", [&s](const httplib::Request& req, httplib::Response& res) {
    JobEvents(s, std::atoi(req.matches[1].str().c_str()), res);
  });
  http.Post(R"(/api/jobs/(\d+)/cancel)", [&s](const httplib::Request& req, httplib::Response& res) {
    if (s.opt.read_only) return Error(res, 403, "this server is read-only");
    Status st = s.jobs->Cancel(std::atoi(req.matches[1].str().c_str()));
    if (!st.ok()) return Error(res, 404, st.message());
    Json(res, 200, "{\"ok\": true}");
  });
  if (!s.web.empty())
    http.set_mount_point("/", s.web);
  else
    http.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "visprobe serve: the page's bundle was not found (build it: node web/build.mjs build/web, or pass --web DIR); "
          "the API is at /api/runs.\n",
          "text/plain");
    });
}

}  // namespace

int Serve(const ServeOptions& opt) {
  Server s;
  s.opt = opt;
  if (!IsDir(opt.logdir)) {
    std::fprintf(stderr, "visprobe serve: error: %s is not a folder\n", opt.logdir.c_str());
    return 1;
  }
  s.root = RealPath(opt.logdir);
  s.web = FindWeb(opt.web);
  if (!opt.no_token) {
    s.token = RandomToken();
    if (s.token.empty()) {
      std::fprintf(stderr,
                   "visprobe serve: error: no random token (/dev/urandom unreadable); use --no-token on a trusted host\n");
      return 1;
    }
  }
  s.runs = std::make_unique<RunLister>(s.root);
  s.jobs = std::make_unique<JobQueue>(ExePath(), s.root, opt.max_builds, 16);
  // SIGINT / SIGTERM end the server from a thread of its own (httplib's stop is not signal-safe).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  httplib::Server http;
  http.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  http.set_payload_max_length(kMaxBody);
  http.set_read_timeout(10, 0);
  http.set_write_timeout(30, 0);
  http.set_keep_alive_max_count(1000);
  Routes(http, s);
  int port = opt.port;
  if (port == 0)
    port = http.bind_to_any_port(opt.host);
  else if (!http.bind_to_port(opt.host, port))
    port = -1;
  if (port <= 0) {
    std::fprintf(stderr, "visprobe serve: error: cannot listen on %s:%d (in use? another --port)\n", opt.host.c_str(), opt.port);
    return 1;
  }
  std::thread stopper([&http, set] {
    int sig = 0;
    sigwait(&set, &sig);
    http.stop();
  });
  const std::string host = opt.host == "0.0.0.0" || opt.host == "::" ? "127.0.0.1" : opt.host;
  std::printf("visprobe serve: %s on http://%s:%d/%s\n", s.root.c_str(), host.c_str(), port,
              s.token.empty() ? "" : ("?token=" + s.token).c_str());
  if (s.web.empty()) std::printf("visprobe serve: no page bundle found (--web DIR); serving the API only\n");
  if (opt.read_only) std::printf("visprobe serve: read-only: builds are off\n");
  std::printf("visprobe serve: on a remote host: ssh -L %d:localhost:%d HOST, then open the URL above here; Ctrl-C stops\n", port,
              port);
  std::fflush(stdout);
  http.listen_after_bind();
  ::kill(::getpid(), SIGTERM);  // wake the stopper if the server ended on its own
  stopper.join();
  return 0;
}

}  // namespace visprobe

namespace visprobe {

namespace {
const char kServeUsage[] =
    "usage: visprobe serve [-h] [--port PORT] [--host HOST] [--no-token] [--read-only] [--max-builds N] [--web DIR] LOGDIR\n";
}  // namespace

int ParseServeArgs(const std::vector<std::string>& argv, ServeOptions* out) {
  auto fail = [](const std::string& m) {
    std::fputs(kServeUsage, stderr);
    std::fprintf(stderr, "visprobe serve: error: %s\n", m.c_str());
    return 2;
  };
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    auto value = [&](const char* name) -> const std::string* {
      if (i + 1 >= argv.size()) return nullptr;
      (void)name;
      return &argv[++i];
    };
    if (a == "-h" || a == "--help") {
      std::printf(
          "%s\nServe the page and the runs under LOGDIR (databases, dump folders, monitor runs) over HTTP,\n"
          "as `tensorboard --logdir` does: open the printed URL (on a remote host through `ssh -L`).\n\n"
          "options:\n"
          "  -h, --help       show this help message and exit\n"
          "  --port PORT      the port to listen on (default 6006; 0: any free port)\n"
          "  --host HOST      the address to listen on (default 127.0.0.1: this machine only)\n"
          "  --no-token       no access token in the URL (only on a host no one else uses)\n"
          "  --read-only      list and open runs only: no builds or data2db from the page\n"
          "  --max-builds N   builds run at once (default 1; each uses every core); more wait in a queue\n"
          "  --web DIR        the page's files (default: found beside the binary)\n",
          kServeUsage);
      return 0;
    }
    if (a == "--port" || a == "--host" || a == "--max-builds" || a == "--web") {
      const std::string* v = value(a.c_str());
      if (!v) return fail("argument " + a + ": expected one argument");
      if (a == "--host")
        out->host = *v;
      else if (a == "--web")
        out->web = *v;
      else {
        char* end = nullptr;
        const long n = std::strtol(v->c_str(), &end, 10);
        if (!end || *end || n < (a == "--port" ? 0 : 1) || n > 65535)
          return fail("argument " + a + ": invalid value '" + *v + "'");
        (a == "--port" ? out->port : out->max_builds) = static_cast<int>(n);
      }
    } else if (a == "--no-token") {
      out->no_token = true;
    } else if (a == "--read-only") {
      out->read_only = true;
    } else if (!a.empty() && a[0] == '-') {
      return fail("unrecognized argument: " + a);
    } else if (out->logdir.empty()) {
      out->logdir = a;
    } else {
      return fail("unrecognized argument: " + a);
    }
  }
  if (out->logdir.empty()) return fail("the following arguments are required: LOGDIR");
  return -1;
}

}  // namespace visprobe
