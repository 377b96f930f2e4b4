#include "base/status.h"

namespace visprobe {

const char* Status::code_name() const {
  switch (code_) {
    case Code::kOk: return "ok";
    case Code::kInvalidInput: return "invalid_input";
    case Code::kNotFound: return "not_found";
    case Code::kIo: return "io";
    case Code::kOutOfMemory: return "out_of_memory";
    case Code::kInternal: return "internal";
    case Code::kCancelled: return "cancelled";
  }
  return "unknown";
}

}  // namespace visprobe
