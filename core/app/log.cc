#include "app/log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "base/pyfmt.h"

namespace visprobe {

int LogThreshold(const char* v) {
  if (!v) return 1;
  std::string s(v);
  if (s == "0") return 0;
  if (s == "2") return 2;
  if (s == "3") return 3;
  if (s == "4") return 4;
  return 1;
}

std::string SanitizeLogMessage(const std::string& msg) {
  static const char* kSeq[] = {"%08", "%0a", "%0b", "%0c", "%0d", "%7f"};
  std::string out;
  out.reserve(msg.size());
  for (size_t i = 0; i < msg.size(); ++i) {
    char c = msg[i];
    if (c == '\n' || c == '\r' || c == '\x7f' || c == '\b' || c == '\f' || c == '\t' || c == '\v') {
      out += '_';
      continue;
    }
    bool seq = false;
    if (c == '%')
      for (const char* s : kSeq)
        if (msg.compare(i, 3, s) == 0) {
          out += '_';
          i += 2;
          seq = true;
          break;
        }
    if (!seq) out += c;
  }
  return out;
}

std::string FormatLogLine(LogLevel level, const std::string& msg) {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
  std::string line = ts;
  line += " (" + std::to_string(static_cast<long>(::getpid())) + ") [";
  line += LogLevelName(level);
  line += "] ";
  line += SanitizeLogMessage(msg);
  return line;
}

std::string ProgressJson(double percent, bool running, const std::vector<std::string>& errors) {
  std::string s = "{\"current_progress\": ";
  AppendPyFloat(s, percent);
  s += ", \"process_running\": ";
  s += running ? "true" : "false";
  s += ", \"error_msg\": [";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i) s += ", ";
    AppendJsonString(s, errors[i]);
  }
  s += "]}";
  return s;
}

ConsoleReporter::ConsoleReporter(bool progress_log, bool progress_bar)
    : progress_log_(progress_log),
      bar_(progress_bar),
      threshold_(LogThreshold(std::getenv("MSPROBE_LOG_LEVEL"))),
      json_(LogAsJson()) {}

void PrintError(std::FILE* out, const std::string& prefix, const Message& msg) {
  const std::string line = LogAsJson() ? LogJsonLine(LogLevel::kError, msg) : prefix + "error: " + msg.text();
  std::fprintf(out, "%s\n", line.c_str());
}

bool LogAsJson() {
  const char* v = std::getenv("VISPROBE_LOG_JSON");
  return v && *v && std::string(v) != "0";
}

std::string LogJsonLine(LogLevel level, const Message& msg) {
  std::string out = "{\"level\":\"";
  out += LogLevelName(level);
  out += "\",\"message\":";
  AppendMessageJson(out, msg);
  out += '}';
  return out;
}

void ConsoleReporter::PrintProgressLine() {
  if (!progress_log_) return;
  if (threshold_ <= 1) {
    std::string line = FormatLogLine(LogLevel::kInfo, "PROGRESS: " + ProgressJson(percent_, running_, errors_));
    std::fputs(line.c_str(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
}

void ConsoleReporter::Log(LogLevel level, const Message& message) {
  const std::string& msg = message.text();
  if (level == LogLevel::kError && progress_log_) {
    errors_.push_back(msg);
    PrintProgressLine();
  }
  if (static_cast<int>(level) < threshold_) return;
  if (bar_ && last_bar_ >= 0) std::fputs("\r\x1b[K", stderr);
  std::string line = json_ ? LogJsonLine(level, message) : FormatLogLine(level, msg);
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void ConsoleReporter::Progress(double percent, bool running) {
  if (percent < percent_) percent = percent_;
  bool changed = percent != percent_ || running != running_;
  percent_ = percent;
  running_ = running;
  if (changed) PrintProgressLine();
  if (bar_) {
    int p = static_cast<int>(percent);
    if (p != last_bar_ || !running) {
      last_bar_ = p;
      int filled = p * 30 / 100;
      std::string bar(static_cast<size_t>(filled), '#');
      bar.resize(30, ' ');
      std::fprintf(stderr, "\r[Graph] Overall Progress: %3d%%|%s|", p, bar.c_str());
      if (!running) std::fputc('\n', stderr);
      std::fflush(stderr);
    }
  }
}

}  // namespace visprobe
