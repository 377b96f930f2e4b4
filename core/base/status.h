// Status and Result<T>: errors are values in the whole engine (no exceptions cross the wasm
// boundary, and core code compiles with -fno-exceptions).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/message.h"

namespace visprobe {

enum class Code : uint8_t { kOk, kInvalidInput, kNotFound, kIo, kOutOfMemory, kInternal, kCancelled };

// An error carries a Message (base/message.h): its id and arguments for the page, its English
// text for the CLI. An ok Status holds nothing (Result<T> stays small on the hot paths).
class Status {
 public:
  Status() = default;
  Status(Code code, Message message)
      : code_(code), detail_(code == Code::kOk ? nullptr : std::make_shared<const Message>(std::move(message))) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  // The English text ("" when ok).
  const std::string& message() const { return detail().text(); }
  // The message: id, arguments and text.
  const Message& detail() const;
  const char* code_name() const;

 private:
  Code code_ = Code::kOk;
  std::shared_ptr<const Message> detail_;
};

inline Status InvalidInput(Message msg) { return Status(Code::kInvalidInput, std::move(msg)); }
inline Status NotFound(Message msg) { return Status(Code::kNotFound, std::move(msg)); }
inline Status IoError(Message msg) { return Status(Code::kIo, std::move(msg)); }
inline Status Internal(Message msg) { return Status(Code::kInternal, std::move(msg)); }

// {"code":"invalid_input","message":{...MessageJson}}: a Status as the page receives it.
std::string StatusJson(const Status& s);

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return value_; }
  const T& value() const { return value_; }
  T* operator->() { return &value_; }
  T& operator*() { return value_; }

 private:
  Status status_;
  T value_{};
};

#define VP_CONCAT_INNER(a, b) a##b
#define VP_CONCAT(a, b) VP_CONCAT_INNER(a, b)
#define RETURN_IF_ERROR(expr)                \
  do {                                       \
    ::visprobe::Status vp_status_ = (expr);  \
    if (!vp_status_.ok()) return vp_status_; \
  } while (0)

// tmp is a name and lhs a declaration ("std::string x"): neither can be put in parentheses.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp.value())
// NOLINTEND(bugprone-macro-parentheses)
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(VP_CONCAT(vp_result_, __LINE__), lhs, expr)

}  // namespace visprobe
