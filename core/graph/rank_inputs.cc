#include "graph/rank_inputs.h"

#include <algorithm>
#include <utility>

#include "base/fs.h"
#include "loader/json_reader.h"

namespace visprobe {

// ---- construct.json ----------------------------------------------------------------------

constexpr int64_t kMaxMicroSteps = 1000000;

namespace {

Status ConstructParseFailed() { return InvalidInput(Msg<msg::kParseConstructJsonFile>("construct.json")); }

}  // namespace

Status LoadFailed(const std::string& base, const Status& why) { return InvalidInput(Msg<msg::kLoadJsonFailed>(base, why)); }

Status TooManyNodes(const std::string& path, uint64_t limit, const Message& what) {
  return InvalidInput(Msg<msg::kHoldsMoreThanLimit>(path, limit, what));
}

Result<Construct> LoadConstruct(const std::string& path, uint64_t max_entries) {
  Construct c;
  // Room for the entries the file can hold at about 128 bytes an entry (the generated dumps have
  // 153-156, a child and its parent module's name), made once: grown by doubling, the index and
  // the entry list of a 1.1 GB dump's 179 MB construct.json were rehashed and copied into fresh
  // memory, which these VMs fault in slowly (see README, design notes). The list's room beyond its
  // entries is never touched. The index's is: for the generated dumps it rounds up to the power of
  // two the index grows to anyway; shorter names grow it once more, longer ones leave it at most
  // 128 / (bytes an entry) too large. At most 4 M entries (a construct.json over 512 MB grows from
  // there), so a file padded with whitespace cannot make the index fill memory it will not use.
  constexpr uint64_t kMostRoom = 4u << 20;
  const uint64_t room = std::min<uint64_t>({max_entries, FileSize(path) / 128 + 16, kMostRoom});
  c.entries.reserve(room);
  c.index.reserve(room);
  bool bad_value = false;
  JsonReadOptions o;
  auto rec = [&](std::string_view key, const JTree& t, JIdx v) -> Status {
    if (c.entries.size() >= max_entries) return TooManyNodes(path, max_entries, Msg<msg::kCountedEntries>());
    if (key == "megatron_micro_step_number") {
      c.megatron = true;
      // An integer micro-step count; anything else (or one beyond int) cannot be a Megatron
      // construct (found by fuzzing: a 60-digit number).
      if (t.Kind(v) != JKind::kInt || t.at(v).i < 0 || t.at(v).i > kMaxMicroSteps)
        bad_value = true;
      else
        c.micro_step_num = static_cast<int>(t.at(v).i);
      return Status::Ok();
    }
    ConstructEntry e;
    switch (t.Kind(v)) {
      case JKind::kNull: break;
      case JKind::kString: e.parent = c.text.Copy(t.Str(v)); break;
      case JKind::kArray: {
        e.from_list = true;
        if (t.at(v).count != 2) {
          bad_value = true;
          break;
        }
        JIdx p = t.at(v).first, m = t.at(p).next;
        if (t.Kind(p) == JKind::kString)
          e.parent = c.text.Copy(t.Str(p));
        else if (t.Kind(p) != JKind::kNull)
          bad_value = true;
        // Any integer, -1 included, as the reference reads it (it stores value[1] as micro_step_id).
        // The dumper's counters start at -1 (MegatronStepInfo); PP > 1 dumps reported in issue 18 carry
        // [null, -1] on the irecv a later pipeline stage begins with. tests/corpus has the shapes.
        if (t.Kind(m) == JKind::kInt && t.at(m).i >= -kMaxMicroSteps && t.at(m).i <= kMaxMicroSteps)
          e.micro = static_cast<int>(t.at(m).i);
        else
          bad_value = true;
        break;
      }
      default: bad_value = true;
    }
    auto it = c.index.find(key);
    if (it != c.index.end()) {  // last value, first position
      e.child = c.entries[it->second].child;
      c.entries[it->second] = e;
    } else {
      e.child = c.text.Copy(key);
      c.index.emplace(e.child, static_cast<uint32_t>(c.entries.size()));
      c.entries.push_back(e);
    }
    return Status::Ok();
  };
  auto r = ReadJsonRecords(path, o, rec);
  if (!r.ok()) return LoadFailed("construct.json", r.status());
  if (bad_value) return ConstructParseFailed();
  if (!c.megatron)
    for (const auto& e : c.entries)
      if (e.from_list) return ConstructParseFailed();
  if (c.entries.empty()) return InvalidInput(Msg<msg::kContentConstructJsonEmpty>());
  return c;
}

// ---- stack.json --------------------------------------------------------------------------

namespace {
void FillFrames(const JTree& t, JIdx v, StackEntry* e) {
  if (t.Kind(v) != JKind::kArray) return;
  for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next)
    if (t.Kind(c) == JKind::kString) e->frames.emplace_back(t.Str(c));
}

}  // namespace

Status LoadStacks(const std::string& path, Graph& g, Stacks& s) {
  // Both interpretations are collected in one pass; the format is known once key "0" is seen.
  bool new_format = false;
  std::vector<std::pair<std::string_view, int32_t>> old_map;  // name -> stack (old format)
  std::vector<std::pair<std::vector<std::string_view>, int32_t>> groups;  // names (in s.names) -> stack (new format)
  JsonReadOptions o;
  auto rec = [&](std::string_view key, const JTree& t, JIdx v) -> Status {
    if (key == "0") new_format = t.Truthy(v);
    StackEntry whole;
    whole.json.clear();
    t.AppendJson(whole.json, v);
    int32_t idx = -1;
    if (t.Truthy(v)) {
      FillFrames(t, v, &whole);
      idx = static_cast<int32_t>(g.stacks.size());
    }
    // New-format group: [[names...], stack].
    if (t.Kind(v) == JKind::kArray && t.at(v).count == 2 && t.Kind(t.at(v).first) == JKind::kArray) {
      JIdx names = t.at(v).first, st = t.at(names).next;
      std::vector<std::string_view> ns;
      for (JIdx c = t.at(names).first; c != kJNone; c = t.at(c).next)
        ns.push_back(s.names.Copy(t.Kind(c) == JKind::kString ? t.Str(c) : std::string_view(t.PyStr(c))));
      int32_t gidx = -1;
      if (t.Truthy(st)) {
        StackEntry ge;
        t.AppendJson(ge.json, st);
        FillFrames(t, st, &ge);
        gidx = static_cast<int32_t>(g.stacks.size()) + (idx >= 0 ? 1 : 0);
        if (idx >= 0) g.stacks.push_back(std::move(whole));
        g.stacks.push_back(std::move(ge));
      } else if (idx >= 0) {
        g.stacks.push_back(std::move(whole));
      }
      groups.emplace_back(std::move(ns), gidx);
    } else if (idx >= 0) {
      g.stacks.push_back(std::move(whole));
    }
    old_map.emplace_back(s.names.Copy(key), idx);
    return Status::Ok();
  };
  auto r = ReadJsonRecords(path, o, rec);
  if (!r.ok()) {
    const Message& m = r.status().detail();
    if (MentionsMessage(m, msg::kTopLevelValueNot) || MentionsMessage(m, msg::kTopLevelValueNotObject))
      return InvalidInput(Msg<msg::kFormatStackJsonIncorrect>());
    return LoadFailed("stack.json", r.status());
  }
  // The map gets its room once (grown by doubling it was rehashed into fresh memory, like
  // construct.json's index).
  size_t names = old_map.size();
  if (new_format) {
    names = 0;
    for (const auto& grp : groups) names += grp.first.size();
  }
  s.by_name.reserve(names);
  if (new_format) {
    for (auto& grp : groups)
      for (auto& n : grp.first) s.by_name[n] = grp.second;
  } else {
    for (auto& kv : old_map) s.by_name[kv.first] = kv.second;
  }
  return Status::Ok();
}

}  // namespace visprobe
