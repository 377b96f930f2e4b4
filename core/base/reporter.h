// What a run says, and to whom: the log levels of msProbe's log lines (spec §16.4) and the
// receiver of a run's messages and progress (§16.5). Every layer of the engine reports through
// this; the CLI's console reporter and the browser worker's reporter live above it (app/, wasm/).
#pragma once

#include <string>

#include "base/message.h"

namespace visprobe {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };
const char* LogLevelName(LogLevel l);

// Receives what a run says. Implementations must be thread-safe only if the run uses threads;
// the run pipelines serialise their calls.
class Reporter {
 public:
  virtual ~Reporter() = default;
  // msg.text() is the English line; msg.id() and args() let the page show it in its language.
  virtual void Log(LogLevel level, const Message& msg) = 0;
  // Overall progress 0..100, non-decreasing; `running` false exactly once at the end.
  virtual void Progress(double percent, bool running) = 0;
};

}  // namespace visprobe
