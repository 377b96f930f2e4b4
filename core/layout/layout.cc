#include "layout/layout.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "base/fs.h"

namespace visprobe {

const char* LayoutName(LayoutKind k) {
  switch (k) {
    case LayoutKind::kFiles: return "single rank";
    case LayoutKind::kRanks: return "rankN folders";
    case LayoutKind::kSteps: return "stepN/rankN folders";
  }
  return "";
}

namespace {

bool AllDigits(const std::string& s, size_t from) {
  if (from >= s.size()) return false;
  for (size_t i = from; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}

bool MatchesNamed(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return false;
  if (name.size() == prefix.size()) return true;
  if (!AllDigits(name, prefix.size())) return false;
  return name[prefix.size()] != '0' || name.size() == prefix.size() + 1;
}

bool IsProcName(const std::string& name) { return name.size() > 4 && name.compare(0, 4, "proc") == 0 && AllDigits(name, 4); }

long SortKey(const std::string& name) {
  if (name.size() <= 4 || !AllDigits(name, 4)) return 0;
  return std::strtol(name.c_str() + 4, nullptr, 10);
}

}  // namespace

Result<LayoutKind> Classify(const std::string& dir) {
  ASSIGN_OR_RETURN(auto entries, ListDir(dir));
  if (entries.empty()) return InvalidInput(Msg<msg::kPathEmpty>(dir));
  if (IsDir(JoinPath(dir, "dump_tensor_data"))) return LayoutKind::kFiles;
  bool all_files = std::all_of(entries.begin(), entries.end(), [](const DirEntry& e) { return e.is_file; });
  if (all_files) return LayoutKind::kFiles;
  // A folder holding the dump files, one of which is not a regular file (a dangling link, a
  // folder): treat it as a rank folder so the file check names the broken file (§16.3).
  for (const auto& e : entries)
    if (e.name == "dump.json" || e.name == "construct.json" || e.name == "stack.json") return LayoutKind::kFiles;
  if (entries.size() == 1 && entries[0].name == "rank") return LayoutKind::kRanks;
  for (const auto& e : entries)
    if (e.is_dir && IsProcName(e.name)) return LayoutKind::kRanks;
  bool any_dir = false, all_rank = true, all_step = true;
  for (const auto& e : entries) {
    if (!e.is_dir) continue;
    any_dir = true;
    if (!(e.name.size() > 4 && e.name.compare(0, 4, "rank") == 0 && AllDigits(e.name, 4))) all_rank = false;
    if (!(e.name.size() > 4 && e.name.compare(0, 4, "step") == 0 && AllDigits(e.name, 4))) all_step = false;
  }
  if (any_dir && all_rank) return LayoutKind::kRanks;
  if (any_dir && all_step) return LayoutKind::kSteps;
  return InvalidInput(Msg<msg::kInputPathContentDoes>(dir));
}

Result<std::vector<std::string>> ListNamed(const std::string& dir, const std::string& prefix, bool strict) {
  ASSIGN_OR_RETURN(auto entries, ListDir(dir));
  std::vector<std::string> out;
  for (const auto& e : entries) {
    if (MatchesNamed(e.name, prefix)) {
      out.push_back(e.name);
      continue;
    }
    if (strict) return InvalidInput(Msg<msg::kDumpDirContainsExpected>(e.name, prefix, dir));
  }
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return SortKey(a) < SortKey(b); });
  return out;
}

Result<std::string> FindProcDir(const std::string& dir) {
  ASSIGN_OR_RETURN(auto entries, ListDir(dir));
  std::vector<std::string> procs;
  for (const auto& e : entries)
    if (e.is_dir && IsProcName(e.name)) procs.push_back(e.name);
  if (procs.size() != 1) return InvalidInput(Msg<msg::kNoMultipleProcDirectories>(dir));
  return procs[0];
}

Result<int> IdOf(const std::string& name, bool is_rank) {
  const char* word = is_rank ? "rank" : "step";
  if (name == "rank" || name == "step" || name.empty() || name.compare(0, 4, "proc") == 0) return 0;
  std::string rest = name;
  auto k = rest.find(word);
  if (k != std::string::npos) rest.erase(k, 4);
  if (AllDigits(rest, 0) && rest.size() < 10) return static_cast<int>(std::strtol(rest.c_str(), nullptr, 10));
  return InvalidInput(Msg<msg::kFolderNameFormatIncorrect>(word, name));
}

namespace {

Status CheckRankFolder(const std::string& dir) {
  for (const char* f : {"construct.json", "dump.json", "stack.json"})
    RETURN_IF_ERROR(CheckPath(JoinPath(dir, f), PathKind::kFile, PathAccess::kRead, ".json"));
  return Status::Ok();
}

Result<std::vector<std::string>> RankNames(const std::string& dir) {
  ASSIGN_OR_RETURN(auto ranks, ListNamed(dir, "rank", false));
  if (ranks.empty()) {
    ASSIGN_OR_RETURN(auto proc, FindProcDir(dir));
    ranks.push_back(proc);
  }
  return ranks;
}

Status TooMany(const std::string& dir, size_t n, const char* what, size_t limit) {
  return InvalidInput(Msg<msg::kPathHoldsFoldersMore>(dir, n, what, limit));
}

// Adds the jobs of one folder of rank folders (target, and golden if given).
Status AddRanks(LayoutPlan& plan, int step, const std::string& tdir, const std::string& gdir, const PlanLimits& limits) {
  std::vector<std::string> names;
  if (gdir.empty()) {
    ASSIGN_OR_RETURN(names, RankNames(tdir));
  } else {
    ASSIGN_OR_RETURN(auto tn, ListNamed(tdir, "rank", false));
    ASSIGN_OR_RETURN(auto gn, ListNamed(gdir, "rank", false));
    if (tn.empty() && gn.empty()) {
      ASSIGN_OR_RETURN(auto tp, FindProcDir(tdir));
      ASSIGN_OR_RETURN(auto gp, FindProcDir(gdir));
      GraphJob j{step, 0, JoinPath(tdir, tp), JoinPath(gdir, gp)};
      RETURN_IF_ERROR(CheckRankFolder(j.target_dir));
      RETURN_IF_ERROR(CheckRankFolder(j.golden_dir));
      plan.jobs.push_back(j);
      plan.rank_lists.push_back({0});
      return Status::Ok();
    }
    if (tn != gn) {
      std::set<std::string> gs(gn.begin(), gn.end());
      std::vector<std::string> common;
      for (auto& n : tn)
        if (gs.count(n)) common.push_back(n);
      if (common.empty()) return InvalidInput(Msg<msg::kRanksTwoRunsCompletely>());
      tn = common;
    }
    names = tn;
  }
  if (names.size() > limits.max_ranks) return TooMany(tdir, names.size(), "rank", limits.max_ranks);
  std::vector<int> ids;
  for (const auto& n : names) {
    ASSIGN_OR_RETURN(int id, IdOf(n, true));
    GraphJob j{step, id, JoinPath(tdir, n), gdir.empty() ? "" : JoinPath(gdir, n)};
    RETURN_IF_ERROR(CheckRankFolder(j.target_dir));
    if (!j.golden_dir.empty()) RETURN_IF_ERROR(CheckRankFolder(j.golden_dir));
    plan.jobs.push_back(j);
    ids.push_back(id);
  }
  plan.rank_lists.push_back(ids);
  return Status::Ok();
}

}  // namespace

Result<LayoutPlan> PlanRun(const std::string& target, const std::string& golden, const PlanLimits& limits) {
  LayoutPlan plan;
  ASSIGN_OR_RETURN(plan.kind, Classify(target));
  if (!golden.empty()) {
    ASSIGN_OR_RETURN(LayoutKind gk, Classify(golden));
    if (gk != plan.kind) return InvalidInput(Msg<msg::kDirectoryStructuresNpuPath>());
  }
  switch (plan.kind) {
    case LayoutKind::kFiles: {
      GraphJob j{0, 0, target, golden};
      RETURN_IF_ERROR(CheckRankFolder(target));
      if (!golden.empty()) RETURN_IF_ERROR(CheckRankFolder(golden));
      plan.jobs.push_back(j);
      plan.rank_lists.push_back({0});
      plan.step_list = {0};
      break;
    }
    case LayoutKind::kRanks:
      RETURN_IF_ERROR(AddRanks(plan, 0, target, golden, limits));
      plan.step_list = {0};
      break;
    case LayoutKind::kSteps: {
      std::vector<std::string> steps;
      if (golden.empty()) {
        ASSIGN_OR_RETURN(steps, ListNamed(target, "step", true));
      } else {
        ASSIGN_OR_RETURN(auto ts, ListNamed(target, "step", false));
        ASSIGN_OR_RETURN(auto gs, ListNamed(golden, "step", false));
        if (ts.empty()) {
          ASSIGN_OR_RETURN(auto p, FindProcDir(target));
          ts = {p};
        } else if (ts != gs) {
          std::set<std::string> g(gs.begin(), gs.end());
          std::vector<std::string> common;
          for (auto& s : ts)
            if (g.count(s)) common.push_back(s);
          if (common.empty()) return InvalidInput(Msg<msg::kTwoStepsCannotObtain>());
          ts = common;
        }
        steps = ts;
      }
      if (steps.size() > limits.max_steps) return TooMany(target, steps.size(), "step", limits.max_steps);
      std::vector<std::pair<int, std::string>> ordered;
      for (const auto& s : steps) {
        ASSIGN_OR_RETURN(int id, IdOf(s, false));
        ordered.emplace_back(id, s);
      }
      std::sort(ordered.begin(), ordered.end());
      for (const auto& [id, s] : ordered) {
        RETURN_IF_ERROR(AddRanks(plan, id, JoinPath(target, s), golden.empty() ? "" : JoinPath(golden, s), limits));
        plan.step_list.push_back(id);
      }
      break;
    }
  }
  return plan;
}

}  // namespace visprobe
