#include "base/status.h"

namespace visprobe {

const Message& Status::detail() const {
  static const Message kEmpty;
  return detail_ ? *detail_ : kEmpty;
}

std::string StatusJson(const Status& s) {
  std::string out = "{\"code\":\"";
  out += s.code_name();
  out += "\",\"message\":";
  AppendMessageJson(out, s.detail());
  out += '}';
  return out;
}

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
