#include "base/message.h"

#include "base/pyfmt.h"
#include "base/status.h"

namespace visprobe {

namespace {

constexpr const char* kNames[] = {
    "",
#define VP_MESSAGE(name, text) #name,
#include "base/messages.def"
#undef VP_MESSAGE
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == msg::kCount, "one name per id");
static_assert(sizeof(msg::kTemplates) / sizeof(msg::kTemplates[0]) == msg::kCount, "one template per id");

// Calls on_text for literal text and on_placeholder(name) for each placeholder, in order.
template <typename Text, typename Placeholder>
void WalkTemplate(std::string_view t, Text on_text, Placeholder on_placeholder) {
  size_t i = 0;
  while (i < t.size()) {
    if ((t[i] == '{' || t[i] == '}') && i + 1 < t.size() && t[i + 1] == t[i]) {
      on_text(t.substr(i, 1));
      i += 2;
    } else if (t[i] == '{') {
      const size_t close = t.find('}', i);
      std::string_view inside = t.substr(i + 1, close - i - 1);
      on_placeholder(inside.substr(0, inside.find(':')));
      i = close + 1;
    } else {
      const size_t next = t.find_first_of("{}", i + 1);
      const size_t end = next == std::string_view::npos ? t.size() : next;
      on_text(t.substr(i, end - i));
      i = end;
    }
  }
}

}  // namespace

const char* MessageName(msg::Id id) { return id < msg::kCount ? kNames[id] : ""; }
const char* MessageTemplate(msg::Id id) { return id < msg::kCount ? msg::kTemplates[id] : ""; }

MessageArg::MessageArg(const Message& m) : text(m.text()), nested(std::make_shared<const Message>(m)) {}
MessageArg::MessageArg(const Status& s) : MessageArg(s.detail()) {}

Message::Message(msg::Id id, std::vector<MessageArg> args) : id_(id), args_(std::move(args)) {
  size_t k = 0;
  WalkTemplate(
      MessageTemplate(id_), [this](std::string_view s) { text_.append(s); },
      [this, &k](std::string_view) {
        if (k < args_.size()) text_ += args_[k].text;
        ++k;
      });
}

bool MentionsMessage(const Message& m, msg::Id id) {
  if (m.id() == id) return true;
  for (const MessageArg& a : m.args())
    if (a.nested && MentionsMessage(*a.nested, id)) return true;
  return false;
}

std::vector<std::string> PlaceholderNames(std::string_view tmpl) {
  std::vector<std::string> out;
  WalkTemplate(
      tmpl, [](std::string_view) {}, [&out](std::string_view name) { out.emplace_back(name); });
  return out;
}

void AppendMessageJson(std::string& out, const Message& m) {
  out += "{\"id\":";
  AppendJsonString(out, MessageName(m.id()));
  out += ",\"args\":{";
  if (m.id() != msg::kNone) {
    const std::vector<std::string> names = PlaceholderNames(MessageTemplate(m.id()));
    for (size_t i = 0; i < names.size() && i < m.args().size(); ++i) {
      if (i) out += ',';
      AppendJsonString(out, names[i]);
      out += ':';
      if (m.args()[i].nested) {
        AppendMessageJson(out, *m.args()[i].nested);
      } else {
        AppendJsonString(out, m.args()[i].text);
      }
    }
  }
  out += "},\"text\":";
  AppendJsonString(out, m.text());
  out += '}';
}

std::string MessageJson(const Message& m) {
  std::string out;
  AppendMessageJson(out, m);
  return out;
}

}  // namespace visprobe
