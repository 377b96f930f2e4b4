#include "merge/merge_json.h"

#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "base/fs.h"
#include "base/pyfmt.h"
#include "db/vis_db.h"
#include "loader/json_reader.h"
#include "merge/merge_items.h"

namespace visprobe {
namespace {

// json.dumps(..., indent=2) of values: a small writer over JTree plus the few members we make.
class IndentWriter {
 public:
  explicit IndentWriter(std::string& out) : out_(out) {}
  void Newline(int depth) {
    out_ += '\n';
    out_.append(static_cast<size_t>(depth) * 2, ' ');
  }
  void Key(std::string_view k) {
    AppendJsonString(out_, k);
    out_ += ": ";
  }
  void Value(const JTree& t, JIdx v, int depth) {
    switch (t.Kind(v)) {
      case JKind::kNull: out_ += "null"; return;
      case JKind::kBool: out_ += t.at(v).b ? "true" : "false"; return;
      case JKind::kInt: out_ += std::to_string(t.at(v).i); return;
      case JKind::kBigInt: out_.append(t.Str(v)); return;
      case JKind::kFloat: AppendJsonFloat(out_, t.at(v).d); return;
      case JKind::kString: AppendJsonString(out_, t.Str(v)); return;
      case JKind::kArray: {
        if (t.at(v).count == 0) {
          out_ += "[]";
          return;
        }
        out_ += '[';
        bool first = true;
        for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next) {
          if (!first) out_ += ',';
          first = false;
          Newline(depth + 1);
          Value(t, c, depth + 1);
        }
        Newline(depth);
        out_ += ']';
        return;
      }
      case JKind::kObject: {
        bool any = false;
        for (JIdx c = t.at(v).first; c != kJNone; c = t.at(c).next) {
          JIdx m = t.DictMember(v, c);
          if (m == kJNone) continue;
          out_ += any ? "," : "{";
          any = true;
          Newline(depth + 1);
          Key(t.Key(c));
          Value(t, m, depth + 1);
        }
        if (!any) {
          out_ += "{}";
          return;
        }
        Newline(depth);
        out_ += '}';
        return;
      }
    }
  }
  std::string& out_;
};

void AppendStat(std::string& out, const CmpValue& v) {
  switch (v.kind) {
    case CmpValue::kNull: out += "null"; return;
    case CmpValue::kBool: out += v.b ? "true" : "false"; return;
    case CmpValue::kInt: out += std::to_string(v.i); return;
    case CmpValue::kFloat: AppendJsonFloat(out, v.d); return;
    case CmpValue::kString: AppendJsonString(out, v.s); return;
    case CmpValue::kJson: out += v.s; return;
  }
}

// One dump entry of a merged node: the raw entry of the rank it comes from, with the merged
// statistics written over the leaves of input_args / output / list parameters / input_kwargs, and
// without md5 (§15.9).
class EntryWriter {
 public:
  EntryWriter(const JTree& t, const Node& n, std::string& out) : t_(t), n_(n), w_(out), out_(out) {}

  void Write(JIdx entry, int depth) {
    if (t_.Kind(entry) != JKind::kObject) {
      w_.Value(t_, entry, depth);
      return;
    }
    bool any = false;
    for (JIdx c = t_.at(entry).first; c != kJNone; c = t_.at(c).next) {
      JIdx m = t_.DictMember(entry, c);
      if (m == kJNone) continue;
      out_ += any ? "," : "{";
      any = true;
      w_.Newline(depth + 1);
      std::string_view k = t_.Key(c);
      w_.Key(k);
      std::string prefix = std::string(n_.name);
      if (k == "input_args" && t_.Kind(m) == JKind::kArray)
        List(m, prefix + ".input.", ItemSide::kInput, depth + 1);
      else if (k == "output" && t_.Kind(m) == JKind::kArray)
        List(m, prefix + ".output.", ItemSide::kOutput, depth + 1);
      else if (k == "parameters" && t_.Kind(m) == JKind::kArray)
        List(m, prefix + ".parameters.", ItemSide::kInput, depth + 1);
      else if (k == "input_kwargs" && t_.Kind(m) == JKind::kObject)
        Kwargs(m, prefix + ".input.", depth + 1);
      else
        w_.Value(t_, m, depth + 1);
    }
    if (!n_.merge_info.empty()) {
      out_ += any ? "," : "{";
      any = true;
      w_.Newline(depth + 1);
      w_.Key("parallel_merge_info");
      out_ += '[';
      for (size_t i = 0; i < n_.merge_info.size(); ++i) {
        if (i) out_ += ',';
        w_.Newline(depth + 2);
        AppendJsonString(out_, n_.merge_info[i]);
      }
      w_.Newline(depth + 1);
      out_ += ']';
    }
    if (!any) {
      out_ += "{}";
      return;
    }
    w_.Newline(depth);
    out_ += '}';
  }

 private:
  void List(JIdx list, const std::string& prefix, ItemSide side, int depth) {
    if (t_.at(list).count == 0) {
      out_ += "[]";
      return;
    }
    out_ += '[';
    size_t i = 0;
    for (JIdx c = t_.at(list).first; c != kJNone; c = t_.at(c).next, ++i) {
      if (i) out_ += ',';
      w_.Newline(depth + 1);
      Leaf(c, prefix + std::to_string(i), side, depth + 1);
    }
    w_.Newline(depth);
    out_ += ']';
  }
  void Kwargs(JIdx obj, const std::string& prefix, int depth) {
    bool any = false;
    for (JIdx c = t_.at(obj).first; c != kJNone; c = t_.at(c).next) {
      JIdx m = t_.DictMember(obj, c);
      if (m == kJNone) continue;
      out_ += any ? "," : "{";
      any = true;
      w_.Newline(depth + 1);
      w_.Key(t_.Key(c));
      bool typed = t_.Kind(m) == JKind::kObject && t_.Find(m, "type") != kJNone;
      if (typed)
        Leaf(m, prefix + std::string(t_.Key(c)), ItemSide::kInput, depth + 1);
      else
        w_.Value(t_, m, depth + 1);
    }
    if (!any) {
      out_ += "{}";
      return;
    }
    w_.Newline(depth);
    out_ += '}';
  }
  // An element: merged statistics over Max / Min / Mean / Norm, md5 dropped.
  void Leaf(JIdx v, const std::string& item, ItemSide side, int depth) {
    if (t_.Kind(v) != JKind::kObject) {
      w_.Value(t_, v, depth);
      return;
    }
    const CmpItem* merged = nullptr;
    int at = FindItem(n_.items, side, item);
    if (at >= 0) merged = ItemValues(n_.items, side, static_cast<size_t>(at));
    static const char* kStats[] = {"Max", "Min", "Mean", "Norm"};
    bool any = false;
    for (JIdx c = t_.at(v).first; c != kJNone; c = t_.at(c).next) {
      JIdx m = t_.DictMember(v, c);
      std::string_view k = t_.Key(c);
      if (m == kJNone || k == "md5") continue;
      out_ += any ? "," : "{";
      any = true;
      w_.Newline(depth + 1);
      w_.Key(k);
      int stat = -1;
      for (int s = 0; s < 4; ++s)
        if (k == kStats[s]) stat = s;
      if (merged && stat >= 0)
        AppendStat(out_, merged->stats[stat]);
      else
        w_.Value(t_, m, depth + 1);
    }
    if (!any) {
      out_ += "{}";
      return;
    }
    w_.Newline(depth);
    out_ += '}';
  }

  const JTree& t_;
  const Node& n_;
  IndentWriter w_;
  std::string& out_;
};

Status WriteText(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return IoError(Msg<msg::kCannotWritePath>(path));
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = std::fclose(f) == 0 && ok;
  return ok ? Status::Ok() : IoError(Msg<msg::kCannotWritePath>(path));
}

// construct.json: node -> parent, post-order, the root left out.
std::string ConstructJson(const Graph& g, const std::vector<NodeId>& order) {
  std::string cons = "{";
  IndentWriter cw(cons);
  bool first = true;
  for (NodeId id : order) {
    if (id == g.root()) continue;
    cons += first ? "" : ",";
    first = false;
    cw.Newline(1);
    cw.Key(g.node(id).name);
    AppendJsonString(cons, g.node(g.node(id).up).name);
  }
  cons += first ? "}" : "\n}";
  return cons;
}

// stack.json (grouped format): nodes sharing a stack, numbered in order of first appearance.
std::string StackJson(const Graph& g, const std::vector<NodeId>& order) {
  std::vector<int32_t> group_stack;
  std::vector<std::vector<NodeId>> groups;
  std::unordered_map<std::string_view, size_t> group_of;
  for (NodeId id : order) {
    const Node& n = g.node(id);
    if (n.stack < 0 || g.stacks[static_cast<size_t>(n.stack)].json == "[]") continue;
    std::string_view text = g.stacks[static_cast<size_t>(n.stack)].json;
    auto it = group_of.emplace(text, groups.size());
    if (it.second) {
      groups.emplace_back();
      group_stack.push_back(n.stack);
    }
    groups[it.first->second].push_back(id);
  }
  std::string stack = "{";
  IndentWriter sw(stack);
  for (size_t k = 0; k < groups.size(); ++k) {
    stack += k ? "," : "";
    sw.Newline(1);
    sw.Key(std::to_string(k));
    stack += '[';
    sw.Newline(2);
    stack += '[';
    for (size_t i = 0; i < groups[k].size(); ++i) {
      stack += i ? "," : "";
      sw.Newline(3);
      AppendJsonString(stack, g.node(groups[k][i]).name);
    }
    sw.Newline(2);
    stack += "],";
    sw.Newline(2);
    const StackEntry& e = g.stacks[static_cast<size_t>(group_stack[k])];
    JTree t;
    JIdx root = kJNone;
    // (the reader parses objects only: the stack value is wrapped in one)
    if (ParseJsonText("{\"s\": " + e.json + "}", t, &root).ok() && t.at(root).first != kJNone)
      sw.Value(t, t.at(root).first, 2);
    else
      stack += e.json;
    sw.Newline(1);
    stack += ']';
  }
  stack += groups.empty() ? "}" : "\n}";
  return stack;
}

// Every node with data: its entry text, written from the raw entry of the rank and name it was
// built with (read again from that rank's dump.json). Indexed by node; empty for the others.
Result<std::vector<std::string>> EntryTexts(const RankGraph& r, const std::vector<NodeId>& order) {
  const Graph& g = *r.graph;
  std::map<int, std::unordered_map<std::string, std::vector<NodeId>>> wanted;  // origin rank -> name -> nodes
  for (NodeId id : order) {
    if (id == g.root() || g.node(id).items.empty()) continue;
    const NodeOrigin& o = id < r.origin.size() ? r.origin[id] : NodeOrigin{r.rank, g.node(id).name};
    wanted[o.rank][std::string(o.name)].push_back(id);
  }
  std::vector<std::string> entry_text(g.size());
  for (const auto& kv : wanted) {  // (no structured binding: lambdas may not capture one in C++17)
    const int rank = kv.first;
    const auto& names = kv.second;
    std::string dump = JoinPath(JoinPath(DirName(r.dir), "rank" + std::to_string(rank)), "dump.json");
    if (rank == r.rank) dump = JoinPath(r.dir, "dump.json");
    JsonReadOptions ro;
    ro.container_key = "data";
    auto res = ReadJsonRecords(dump, ro, [&](std::string_view key, const JTree& t, JIdx v) {
      auto it = names.find(std::string(key));
      if (it == names.end()) return Status::Ok();
      for (NodeId id : it->second) {  // a later record of the same name wins (§2.1)
        entry_text[id].clear();
        EntryWriter ew(t, g.node(id), entry_text[id]);
        ew.Write(v, 2);
      }
      return Status::Ok();
    });
    if (!res.ok()) return res.status();
  }
  return entry_text;
}

// dump.json: the meta members, then "data" with the entries in post-order.
std::string DumpJson(const Graph& g, const std::vector<NodeId>& order, const std::vector<std::string>& entry_text) {
  std::string data = "{";
  IndentWriter dw(data);
  auto member = [&](const char* k, const std::string& json_value) {
    data += data.size() > 1 ? "," : "";
    dw.Newline(1);
    dw.Key(k);
    data += json_value;
  };
  auto str = [](const std::string& s) {
    std::string o;
    AppendJsonString(o, s);
    return o;
  };
  member("task", str(g.task));
  member("level", str(g.level));
  member("framework", str(g.framework));
  member("dump_data_dir", g.has_dump_data_dir ? str(g.dump_data_dir) : std::string("null"));
  member("is_merged", "true");
  data += ",";
  dw.Newline(1);
  dw.Key("data");
  bool any = false;
  for (NodeId id : order) {
    if (entry_text[id].empty()) continue;
    data += any ? "," : "{";
    any = true;
    dw.Newline(2);
    dw.Key(g.node(id).name);
    data += entry_text[id];
  }
  data += any ? "\n  }" : "{}";
  data += "\n}";
  return data;
}

}  // namespace

Status WriteMergedJson(const RankGraph& r, const std::string& out_dir, const std::function<void(const Message&)>& info) {
  const Graph& g = *r.graph;
  std::string dir = JoinPath(JoinPath(out_dir, "step" + std::to_string(r.step)), "rank" + std::to_string(r.rank));
  RETURN_IF_ERROR(CheckNewPath(dir));
  RETURN_IF_ERROR(MakeDirs(dir));
  const std::vector<NodeId> order = PostOrder(g);
  const std::string cons = ConstructJson(g, order);
  const std::string stack = StackJson(g, order);
  ASSIGN_OR_RETURN(const std::vector<std::string> entry_text, EntryTexts(r, order));
  const std::string data = DumpJson(g, order, entry_text);

  RETURN_IF_ERROR(WriteText(JoinPath(dir, "construct.json"), cons));
  RETURN_IF_ERROR(WriteText(JoinPath(dir, "stack.json"), stack));
  RETURN_IF_ERROR(WriteText(JoinPath(dir, "dump.json"), data));
  if (info) info(Msg<msg::kJsonFilesExported>(dir));
  return Status::Ok();
}

}  // namespace visprobe
