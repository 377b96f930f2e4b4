// msProbe's log line format and progress protocol (spec §16.4, §16.5), shared by the native CLI
// and the browser worker so both print the same text.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "base/reporter.h"

namespace visprobe {

// Threshold from MSPROBE_LOG_LEVEL's text: 0 DEBUG, 1 INFO (default, also unknown), 2, 3, 4 nothing.
int LogThreshold(const char* env_value);

// Replaces \n \r \x7f \b \f \t \v and %08 %0a %0b %0c %0d %7f by '_'.
std::string SanitizeLogMessage(const std::string& msg);

// "YYYY-mm-dd HH:MM:SS (<pid>) [LEVEL] <message>" with the local time now.
std::string FormatLogLine(LogLevel level, const std::string& msg);

// VISPROBE_LOG_JSON=1: each message is printed as one JSON object instead of msProbe's log line,
// {"level": "INFO", "message": {"id", "args", "text"}} (base/message.h), for scripts and the
// engine_text test. Usage errors are printed the same way on stderr.
bool LogAsJson();
std::string LogJsonLine(LogLevel level, const Message& msg);
// "<prefix>error: <text>" on `out` (argparse's form; prefix "visprobe data2db: " or ""), or with
// VISPROBE_LOG_JSON its JSON line at level ERROR.
void PrintError(std::FILE* out, const std::string& prefix, const Message& msg);

// The CLI's reporter: log lines on stdout, the PROGRESS protocol with -progress_log, and a
// progress bar on stderr when it is a terminal.
class ConsoleReporter : public Reporter {
 public:
  ConsoleReporter(bool progress_log, bool progress_bar);
  void Log(LogLevel level, const Message& msg) override;
  void Progress(double percent, bool running) override;
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  void PrintProgressLine();
  bool progress_log_, bar_;
  int threshold_;
  bool json_;
  double percent_ = 0;
  bool running_ = true;
  int last_bar_ = -1;
  std::vector<std::string> errors_;
};

// JSON of the progress state: {"current_progress": p, "process_running": b, "error_msg": [...]}.
std::string ProgressJson(double percent, bool running, const std::vector<std::string>& errors);

}  // namespace visprobe
