// The engine's messages (base/messages.def, base/message.h): one id per template, the English
// formatted from it, and the JSON the page translates by id (issue 47).
#include <set>
#include <string>

#include <catch2/catch.hpp>
#include "base/message.h"
#include "base/status.h"

using visprobe::Message;
using visprobe::MessageJson;
using visprobe::Msg;
namespace msg = visprobe::msg;

TEST_CASE("every message id has a name and a template whose placeholder names are distinct", "[message]") {
  std::set<std::string> names;
  for (int i = 1; i < msg::kCount; ++i) {
    const auto id = static_cast<msg::Id>(i);
    const std::string name = visprobe::MessageName(id);
    INFO(name);
    CHECK(!name.empty());
    CHECK(names.insert(name).second);
    const auto placeholders = visprobe::PlaceholderNames(visprobe::MessageTemplate(id));
    CHECK(static_cast<int>(placeholders.size()) == msg::CountPlaceholders(visprobe::MessageTemplate(id)));
    CHECK(std::set<std::string>(placeholders.begin(), placeholders.end()).size() == placeholders.size());
  }
  CHECK(names.size() > 200);
  CHECK(std::string(visprobe::MessageName(msg::kNone)).empty());
}

TEST_CASE("Msg formats the English from the template, numbers and literal braces included", "[message]") {
  const Message m = Msg<msg::kPathEmpty>("/data/run");
  CHECK(m.id() == msg::kPathEmpty);
  CHECK(m.text() == "The path /data/run is empty.");
  CHECK(Msg<msg::kStepProcRankMapping>(3, "0: 1").text() == "Step 3: proc to rank mapping - {0: 1}");
  CHECK(Msg<msg::kPathHoldsFoldersMore>("/d", 5000, "rank", 4096).text() ==
        "The path /d holds 5000 rank folders, more than the limit of 4096.");
}

TEST_CASE("a nested message keeps its id; its text is part of the outer text", "[message]") {
  const visprobe::Status inner = visprobe::NotFound(Msg<msg::kFilePathNotExist>("/x/dump.json"));
  const visprobe::Status outer = visprobe::InvalidInput(Msg<msg::kUnexpectedError>(inner));
  CHECK(outer.message() == "An unexpected error occurred: The file path /x/dump.json does not exist.");
  CHECK(outer.detail().args().at(0).nested->id() == msg::kFilePathNotExist);
  CHECK(
      visprobe::StatusJson(outer) ==
      R"({"code":"invalid_input","message":{"id":"UnexpectedError","args":{"m":{"id":"FilePathNotExist","args":{"path":"/x/dump.json"},"text":"The file path /x/dump.json does not exist."}},"text":"An unexpected error occurred: The file path /x/dump.json does not exist."}})");
}

TEST_CASE("a text without an id crosses as itself; an ok Status has no message", "[message]") {
  const visprobe::Status s = visprobe::Internal("sqlite3_step: disk I/O error \"x\"");
  CHECK(s.detail().id() == msg::kNone);
  CHECK(MessageJson(s.detail()) == R"({"id":"","args":{},"text":"sqlite3_step: disk I/O error \"x\""})");
  CHECK(visprobe::Status::Ok().message().empty());
  CHECK(visprobe::StatusJson(visprobe::Status::Ok()) == R"({"code":"ok","message":{"id":"","args":{},"text":""}})");
}
