// A message of the engine: an id from base/messages.def, the values of its placeholders and the
// English text the CLI prints. The page translates by id and arguments (web/src/engine_text.js),
// never by matching the English (issue 47).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace visprobe {

namespace msg {
enum Id : uint16_t {
  kNone = 0,  // a text with no id (SQLite's own messages, a dump's text): shown as it is
#define VP_MESSAGE(name, text) k##name,
#include "base/messages.def"
#undef VP_MESSAGE
  kCount
};

inline constexpr const char* kTemplates[] = {
    "{text}",
#define VP_MESSAGE(name, text) text,
#include "base/messages.def"
#undef VP_MESSAGE
};

// The number of placeholders in a template ({{ and }} are literal braces).
constexpr int CountPlaceholders(const char* s) {
  int n = 0;
  for (; *s; ++s) {
    if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
      ++s;
    } else if (*s == '{') {
      ++n;
    }
  }
  return n;
}
}  // namespace msg

// "PathEmpty" for msg::kPathEmpty; "" for kNone.
const char* MessageName(msg::Id id);
const char* MessageTemplate(msg::Id id);

class Message;
class Status;

// One placeholder's value: text, or a nested message (a {name:t} placeholder).
struct MessageArg {
  std::string text;
  std::shared_ptr<const Message> nested;

  MessageArg(std::string s) : text(std::move(s)) {}  // NOLINT: implicit by design (Msg's arguments)
  MessageArg(const char* s) : text(s) {}  // NOLINT
  MessageArg(std::string_view s) : text(s) {}  // NOLINT
  template <typename T, typename = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  MessageArg(T v) : text(std::to_string(v)) {}  // NOLINT
  MessageArg(const Message& m);  // NOLINT
  MessageArg(const Status& s);  // NOLINT: the status's message, nested
};

class Message {
 public:
  Message() = default;
  Message(std::string text) : text_(std::move(text)) {}  // NOLINT: a text with no id
  Message(const char* text) : text_(text) {}  // NOLINT
  Message(msg::Id id, std::vector<MessageArg> args);  // formats the English from the template

  msg::Id id() const { return id_; }
  const std::vector<MessageArg>& args() const { return args_; }
  const std::string& text() const { return text_; }

 private:
  msg::Id id_ = msg::kNone;
  std::vector<MessageArg> args_;
  std::string text_;
};

// Msg<msg::kPathEmpty>(dir): the message with its arguments in placeholder order. A string, a
// number, or a Message / Status for a {name:t} placeholder.
template <msg::Id id, typename... Args>
Message Msg(Args&&... args) {
  static_assert(msg::CountPlaceholders(msg::kTemplates[id]) == sizeof...(Args),
                "Msg: the arguments must match the template's placeholders (base/messages.def)");
  return Message(id, std::vector<MessageArg>{MessageArg(std::forward<Args>(args))...});
}

// {"id":"PathEmpty","args":{"dir":"/x"},"text":"The path /x is empty."}: nested messages as objects,
// id "" for a text with no id (then args is {}). The page's EngineMessage (web/src/engine/protocol.js).
std::string MessageJson(const Message& m);
void AppendMessageJson(std::string& out, const Message& m);

// Whether m is the message `id` or holds it as a nested argument, at any depth (core code asks
// what an error is by id, never by its English).
bool MentionsMessage(const Message& m, msg::Id id);

// The placeholder names of a template, in order ("{dir}" -> "dir").
std::vector<std::string> PlaceholderNames(std::string_view tmpl);

}  // namespace visprobe
