#include "app/data2db.h"

#include "app/argparse.h"
#include "app/args.h"

#include <cstdlib>

#include "base/fs.h"
#include "trend/dump_import.h"
#include "trend/monitor_import.h"

namespace visprobe {
namespace {

struct Flag {
  const char* name;
  const char* metavar;
  const char* help;
};

const Flag kFlags[] = {
    {"--db", "DB", "<Required> Output directory of dump_data.trend.db / monitor_data.trend.db (created if missing)."},
    {"--data", "DATA",
     "<Required> Input directory: the parent of step* folders (dump) or of <time>-rank<r>-<id> folders (monitor)."},
    {"--format", "{auto,dump,monitor}", "<Optional> Input kind; auto tries both (default auto)."},
    {"--mapping", "MAPPING", "<Optional> JSON object of name replacements applied in order."},
    {"--micro_step", "{true,false,True,False}", "<Optional> Split steps into micro steps (default true)."},
    {"--process_num", "PROCESS_NUM", "<Optional> Threads parsing monitor files, 1..128 (default 1)."},
    {"--shard", "SHARD", "<Optional> I/N: do shard I of N of the run (rank folders) into a part (visprobe gather joins them)."},
};

bool IsChoice(const std::string& v, std::initializer_list<const char*> cs) {
  for (const char* c : cs)
    if (v == c) return true;
  return false;
}

}  // namespace

std::string Data2DbUsage() {
  return "usage: visprobe data2db [-h] --db DB --data DATA [--format {auto,dump,monitor}] [--mapping MAPPING]\n"
         "                        [--micro_step {true,false,True,False}] [--process_num PROCESS_NUM] [--shard SHARD]\n";
}

std::string Data2DbHelp() {
  std::string s = Data2DbUsage();
  s += "\nConvert msProbe dump or monitor data into .trend.db files for the trend views.\n\noptions:\n";
  s += "  -h, --help            show this help message and exit\n";
  for (const Flag& f : kFlags) {
    std::string n = std::string(f.name) + " " + f.metavar;
    s += "  " + n + (n.size() < 20 ? std::string(20 - n.size(), ' ') : std::string("\n                      ")) + f.help + "\n";
  }
  return s;
}

Status CheckData2DbArgs(const Data2DbArgs& a) {
  if (!IsChoice(a.format, {"auto", "dump", "monitor"}))
    return InvalidInput(Msg<msg::kArgumentInvalidChoiceChoose>("--format", a.format, "'auto', 'dump', 'monitor'"));
  char* end = nullptr;
  std::strtol(a.process_num.c_str(), &end, 10);
  if (a.process_num.empty() || *end != '\0')
    return InvalidInput(Msg<msg::kArgumentInvalidIntValue>("--process_num", a.process_num));
  return Status::Ok();
}

Result<Data2DbArgs> ParseData2DbArgs(const std::vector<std::string>& argv) {
  std::vector<OptSpec> specs;
  for (const Flag& f : kFlags) {
    OptSpec sp;
    sp.long_name = f.name;
    sp.required = sp.long_name == "--db" || sp.long_name == "--data";
    specs.push_back(sp);
  }
  Data2DbArgs a;
  RETURN_IF_ERROR(ReadArgs(specs, argv, [&a](const OptSpec& o, const std::vector<std::string>& v) -> Status {
    const std::string& name = o.long_name;
    const std::string& value = v[0];
    if (name == "--db")
      a.db = value;
    else if (name == "--data")
      a.data = value;
    else if (name == "--mapping")
      a.mapping = value;
    else if (name == "--format") {
      a.format = value;
      return CheckData2DbArgs(a);
    } else if (name == "--micro_step") {
      if (!IsChoice(value, {"true", "false", "True", "False"}))
        return InvalidInput(Msg<msg::kArgumentInvalidChoiceChoose>("--micro_step", value, "'true', 'false', 'True', 'False'"));
      a.micro_step = value == "true" || value == "True";
    } else if (name == "--process_num") {
      a.process_num = value;
      return CheckData2DbArgs(a);
    } else if (name == "--shard") {
      ASSIGN_OR_RETURN(a.shard, ParseShardSpec("--shard", value));
    }
    return Status::Ok();
  }));
  return a;
}

Result<Data2DbOutcome> RunData2Db(const Data2DbArgs& args, Reporter& rep, int threads_cap, const std::string& created_utc) {
  TrendOptions o;
  // §12.2, in order.
  if (!args.mapping.empty()) {
    ASSIGN_OR_RETURN(o.mapping, LoadNameMapping(args.mapping));
    o.mapping_file = args.mapping;
  }
  if (!PathExists(args.data)) return InvalidInput(Msg<msg::kFilePathNotExist>(args.data));
  if (!IsDir(args.data)) return InvalidInput(Msg<msg::kPathNotDirectory>(args.data));
  RETURN_IF_ERROR(CheckPath(args.data, PathKind::kDir, PathAccess::kRead));
  RETURN_IF_ERROR(MakeDirs(args.db));
  RETURN_IF_ERROR(CheckPath(args.db, PathKind::kDir, PathAccess::kWrite));
  long n = std::strtol(args.process_num.c_str(), nullptr, 10);
  if (n <= 0) return InvalidInput(Msg<msg::kProcessNumMustPositive>());
  if (n > 128) return InvalidInput(Msg<msg::kMaximumSupportedProcessNum>(128));
  if (!IsChoice(args.format, {"auto", "dump", "monitor"}))
    return InvalidInput(Msg<msg::kUnsupportedFormatSupported>(args.format, "{'auto', 'dump', 'monitor'}"));
  o.data_dir = args.data;
  o.db_dir = args.db;
  o.format = args.format;
  o.micro_step = args.micro_step;
  o.process_num = std::max(1, std::min(static_cast<int>(n), threads_cap));
  o.created_utc = created_utc;
  o.shard = args.shard;
  Data2DbOutcome out;
  auto run = [&](Result<TrendImportResult> (*importer)(const TrendOptions&, Reporter&)) {
    auto r = importer(o, rep);
    if (!r.ok()) {
      rep.Log(LogLevel::kError, r.status().detail());
      if (!out.failed) out.error = r.status();
      out.failed = true;
      return;
    }
    if (r->written) out.written.push_back(r.value());
  };
  if (args.format == "auto") {
    rep.Log(LogLevel::kInfo, Msg<msg::kAutoDetectModeAttempting>());
    rep.Log(LogLevel::kInfo, Msg<msg::kTryingDumpImport>());
    run(&ImportDumpTrend);
    rep.Log(LogLevel::kInfo, Msg<msg::kTryingMonitorImport>());
    run(&ImportMonitorTrend);
  } else {
    rep.Log(LogLevel::kInfo, Msg<msg::kImportingDataFormat>(args.format));
    run(args.format == "dump" ? &ImportDumpTrend : &ImportMonitorTrend);
  }
  rep.Progress(100, false);
  return out;
}

}  // namespace visprobe
