// The browser front door: a thin Embind layer over the same entries the CLI calls (RunGraphVisualize,
// RunData2Db, ...).
// It converts arguments and results; every decision is made in core/.
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

// Emscripten 3.1.6's val.h keeps each method caller (val::call, hasOwnProperty, the typed-array
// copy) in a function-local thread_local; the module is linked with bulk memory (CMakeLists.txt),
// with which thread-local storage does not link unless atomics are on. The module never starts a
// thread, so for these two headers thread_local is spelled static (the standard headers they use
// are included above, outside the macro).
#pragma push_macro("thread_local")
#define thread_local
#include <emscripten/bind.h>
#include <emscripten/val.h>
#pragma pop_macro("thread_local")

#include "app/args.h"
#include "app/data2db.h"
#include "app/graph_visualize.h"
#include "app/log.h"
#include "base/pyfmt.h"
#include "compare/manual_match.h"
#include "compare/manual_pairing.h"
#include "db/badges.h"
#include "match/layer_mapping.h"
#include "trend/parallel_layout.h"
#include "trend/parallel_layout_parse.h"

namespace {

using emscripten::val;

// The engine's JSON (a Message, a Status: base/message.h) as a JS value.
val JsonValue(const std::string& json) { return val::global("JSON").call<val>("parse", json); }

// Forwards log lines (formatted exactly as the CLI prints them) and progress to a JS callback.
class JsReporter : public visprobe::Reporter {
 public:
  explicit JsReporter(val cb) : cb_(std::move(cb)) {}
  void Log(visprobe::LogLevel level, const visprobe::Message& msg) override {
    val e = val::object();
    e.set("type", "log");
    e.set("level", std::string(visprobe::LogLevelName(level)));
    e.set("message", JsonValue(visprobe::MessageJson(msg)));
    e.set("line", visprobe::FormatLogLine(level, msg.text()));
    cb_(e);
  }
  void Progress(double percent, bool running) override {
    val e = val::object();
    e.set("type", "progress");
    e.set("percent", percent);
    e.set("running", running);
    cb_(e);
  }

 private:
  val cb_;
};

// Every bound function answers {status, value} (web/src/engine/visprobe_web.d.ts EngineResponse):
// status {code, message: {id, args, text}} (core StatusJson), code "ok" on success; value the
// operation's result, null when it failed.
val Respond(const visprobe::Status& status, val value = val::null()) {
  val out = val::object();
  out.set("status", JsonValue(visprobe::StatusJson(status)));
  out.set("value", status.ok() ? value : val::null());
  return out;
}

// Fields of a typed request (a JS object): absent or undefined fields keep their defaults.
bool Has(const val& o, const char* k) { return o.hasOwnProperty(k) && !o[k].isUndefined() && !o[k].isNull(); }
std::string Str(const val& o, const char* k) { return Has(o, k) ? o[k].as<std::string>() : std::string(); }
bool Flag(const val& o, const char* k) { return Has(o, k) && o[k].as<bool>(); }
// A list field: an array of strings (the tokens the user typed) or numbers.
std::vector<std::string> Tokens(const val& o, const char* k) {
  std::vector<std::string> out;
  if (!Has(o, k)) return out;
  val arr = o[k];
  const unsigned n = arr["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    val x = arr[i];
    if (x.isNumber()) {
      double d = x.as<double>();
      out.push_back(d == static_cast<double>(static_cast<long long>(d)) ? std::to_string(static_cast<long long>(d))
                                                                        : std::to_string(d));
    } else {
      out.push_back(x.as<std::string>());
    }
  }
  return out;
}

// The typed request of a graph_visualize run (core's GraphVisualizeArgs, field by field):
// {targetPath, outputPath, goldenPath?, overflowCheck?, fuzzyMatch?, tensorLog?, layerMapping?,
//  layerMappingFile?, rankSize?, tp?, pp?, vpp?, order? (arrays), fileType?}. No command line.
visprobe::Result<visprobe::GraphVisualizeArgs> GraphRequest(const val& r) {
  visprobe::GraphVisualizeArgs a;
  a.target_path = Str(r, "targetPath");
  a.output_path = Str(r, "outputPath");
  if (Has(r, "goldenPath")) {
    a.golden_path = Str(r, "goldenPath");
    a.has_golden = true;
  }
  a.overflow_check = Flag(r, "overflowCheck");
  a.fuzzy_match = Flag(r, "fuzzyMatch");
  a.print_compare_log = Flag(r, "tensorLog");
  a.layer_mapping = Flag(r, "layerMapping") || Has(r, "layerMappingFile");
  a.layer_mapping_file = Str(r, "layerMappingFile");
  if (Has(r, "fileType")) a.file_type = Str(r, "fileType");
  for (const auto& [key, flag] : {std::pair<const char*, const char*>{"rankSize", "--rank_size"},
                                  {"tp", "--tp"},
                                  {"pp", "--pp"},
                                  {"vpp", "--vpp"},
                                  {"order", "--order"}}) {
    std::vector<std::string> v = Tokens(r, key);
    if (!v.empty()) RETURN_IF_ERROR(visprobe::SetListOption(a, flag, v));
  }
  RETURN_IF_ERROR(visprobe::CheckRequiredArgs(a, !a.target_path.empty(), !a.output_path.empty()));
  return a;
}

// value: {dbPath, rows, dumpBytes} (counts cross as doubles).
val GraphVisualize(val request, std::string timestamp, val on_event) {
  auto parsed = GraphRequest(request);
  if (!parsed.ok()) return Respond(parsed.status());
  visprobe::RunOptions opts;
  opts.timestamp = timestamp.empty() ? visprobe::NowTimestamp() : timestamp;
  opts.threads = 1;  // the browser build starts single-threaded
  opts.check_input_writable = false;  // dropped files are read-only (§16.3 allows this)
  JsReporter rep(on_event);
  auto r = visprobe::RunGraphVisualize(parsed.value(), opts, rep);
  if (!r.ok()) return Respond(r.status());
  val value = val::object();
  value.set("dbPath", r->db_path);
  value.set("rows", static_cast<double>(r->rows));
  value.set("dumpBytes", static_cast<double>(r->dump_bytes));
  return Respond(visprobe::Status::Ok(), value);
}

val Help() { return Respond(visprobe::Status::Ok(), val(visprobe::GraphVisualizeHelp())); }

// The typed request of a data2db run (core's Data2DbArgs): {data, db, format?, mapping?, microStep?}.
// Single-threaded.
// value: {dbPaths: string[], rows, inputBytes}.
val Data2Db(val request, std::string created_utc, val on_event) {
  visprobe::Data2DbArgs a;
  a.data = Str(request, "data");
  a.db = Str(request, "db");
  if (Has(request, "format")) a.format = Str(request, "format");
  a.mapping = Str(request, "mapping");
  if (Has(request, "microStep")) a.micro_step = request["microStep"].as<bool>();
  visprobe::Status checked = visprobe::CheckData2DbArgs(a);
  if (checked.ok() && (a.data.empty() || a.db.empty()))
    checked = visprobe::InvalidInput(visprobe::Msg<visprobe::msg::kFollowingArgumentsRequired>("--db, --data"));
  if (!checked.ok()) return Respond(checked);
  JsReporter rep(on_event);
  auto r = visprobe::RunData2Db(a, rep, 1, created_utc);
  if (!r.ok()) return Respond(r.status());
  if (r->failed) return Respond(r->error);
  val value = val::object(), paths = val::array();
  double rows = 0, input_bytes = 0;
  for (const auto& w : r->written) {
    paths.call<void>("push", w.db_path);
    rows += static_cast<double>(w.rows);
    input_bytes += static_cast<double>(w.input_bytes);
  }
  value.set("dbPaths", paths);
  value.set("rows", rows);
  value.set("inputBytes", input_bytes);
  return Respond(visprobe::Status::Ok(), value);
}

// Whether a chosen layer-mapping file can be used by -lm (core CheckLayerMappingText): ok, or the
// error the run would give.
val CheckLayerMapping(std::string text, std::string file_name) {
  return Respond(visprobe::CheckLayerMappingText(text, file_name), val(true));
}

// plot_model_parallelism for the UI: value is the layout (trend spec §11.7).
val ParallelLayout(std::string config_json) {
  auto config = visprobe::ParallelConfigFromJson(config_json);
  if (!config.ok()) return Respond(config.status());
  auto layout = visprobe::ComputeParallelLayout(config.value());
  if (!layout.ok()) return Respond(layout.status());
  return Respond(visprobe::Status::Ok(), JsonValue(visprobe::ParallelLayoutToJson(layout.value())));
}

// Problem badges of one graph's rows (the worker's msProbe-made files): the core's rules over the
// typed arrays the worker filled (parent Int32Array, precision Float64Array, flags and overflow
// Uint8Array; see ComputeBadgesFlat), the thresholds from the file's legend. Returns copies: index,
// worst (-1: none), counts (error, warning, unmatched, overflow per row) and worstOverflow.
val ComputeBadgesJs(val parent_js, val precision_js, val flags_js, val overflow_js, bool compare, std::string legend) {
  const auto parent = emscripten::convertJSArrayToNumberVector<int32_t>(parent_js);
  const auto precision = emscripten::convertJSArrayToNumberVector<double>(precision_js);
  const auto flags = emscripten::convertJSArrayToNumberVector<uint8_t>(flags_js);
  const auto overflow = emscripten::convertJSArrayToNumberVector<uint8_t>(overflow_js);
  const size_t n = std::min({parent.size(), precision.size(), flags.size(), overflow.size()});
  const auto rows = visprobe::ComputeBadgesFlat(n, parent.data(), precision.data(), flags.data(), overflow.data(), compare,
                                                visprobe::BadgeThresholdsFromLegend(legend));
  std::vector<uint32_t> index(rows.size()), counts(4 * rows.size());
  std::vector<double> worst(rows.size());
  std::vector<uint8_t> worst_ov(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    index[i] = rows[i].index;
    worst[i] = rows[i].worst;
    counts[4 * i] = rows[i].n_error;
    counts[4 * i + 1] = rows[i].n_warning;
    counts[4 * i + 2] = rows[i].n_unmatched;
    counts[4 * i + 3] = rows[i].n_overflow;
    worst_ov[i] = rows[i].worst_overflow;
  }
  val out = val::object();
  out.set("index", val::global("Uint32Array").new_(emscripten::typed_memory_view(index.size(), index.data())));
  out.set("worst", val::global("Float64Array").new_(emscripten::typed_memory_view(worst.size(), worst.data())));
  out.set("counts", val::global("Uint32Array").new_(emscripten::typed_memory_view(counts.size(), counts.data())));
  out.set("worstOverflow", val::global("Uint8Array").new_(emscripten::typed_memory_view(worst_ov.size(), worst_ov.data())));
  return Respond(visprobe::Status::Ok(), out);
}

// The legend's thresholds (tests; the page's colours use the legend directly).
val BadgeThresholdsJs(std::string legend) {
  auto t = visprobe::BadgeThresholdsFromLegend(legend);
  val out = val::object();
  out.set("warning", t.warning);
  out.set("error", t.error);
  return Respond(visprobe::Status::Ok(), out);
}

// A cell of a row the worker read (sql.js: a string, a number or null) as text, '' for NULL.
std::string CellText(const val& row, const char* column) {
  if (!Has(row, column)) return std::string();
  val v = row[column];
  return v.isString() ? v.as<std::string>() : val::global("String")(v).as<std::string>();
}

// A tb_nodes row by column name (null: no such row) as core reads it.
std::optional<visprobe::StoredNodeRow> StoredRow(const val& row) {
  if (row.isNull() || row.isUndefined()) return std::nullopt;
  visprobe::StoredNodeRow r;
  r.node_name = CellText(row, "node_name");
  r.node_type = Has(row, "node_type") ? static_cast<int64_t>(row["node_type"].as<double>()) : 0;
  r.up_node = CellText(row, "up_node");
  r.sub_nodes = CellText(row, "sub_nodes");
  r.matched_node_link = CellText(row, "matched_node_link");
  r.input_data = CellText(row, "input_data");
  r.output_data = CellText(row, "output_data");
  r.dump_data_dir = CellText(row, "dump_data_dir");
  return r;
}

// Manual matching (MAT-03 / MAT-04): core decides the pairs and every row's new values
// (PlanManualMatch / PlanManualUnmatch); the worker reads the rows core asks for from its own
// database and writes the updates back. request: {task, npu, bench, descendants, unmatch, targetRoot?,
// goldenRoot? (tensor mode: the mounted folders)}; readRow(side 'NPU' | 'Bench', name): the tb_nodes
// row by column name, or null. value: {pairs: [npu, bench][], updates: [{side, nodeName, matchedNodeLink,
// setItems, precisionIndex (null: NULL), inputData, outputData}]}, to be written in order.
val ManualMatchJs(val request, val read_row) {
  visprobe::ManualMatchRequest req;
  req.task = Str(request, "task");
  req.npu = Str(request, "npu");
  req.bench = Str(request, "bench");
  req.descendants = Flag(request, "descendants");
  req.roots = visprobe::TensorDataDirs{Str(request, "targetRoot"), Str(request, "goldenRoot")};
  visprobe::StoredNodeReader read = [&read_row](visprobe::MatchSide side, const std::string& name) {
    return StoredRow(read_row(std::string(visprobe::MatchSideName(side)), name));
  };
  auto plan = Flag(request, "unmatch") ? visprobe::PlanManualUnmatch(req, read) : visprobe::PlanManualMatch(req, read);
  if (!plan.ok()) return Respond(plan.status());
  val pairs = val::array(), updates = val::array();
  for (const auto& [npu, bench] : plan->pairs) {
    val pair = val::array();
    pair.call<void>("push", npu);
    pair.call<void>("push", bench);
    pairs.call<void>("push", pair);
  }
  for (const visprobe::MatchedNodeUpdate& u : plan->updates) {
    val e = val::object();
    e.set("side", std::string(visprobe::MatchSideName(u.side)));
    e.set("nodeName", u.node_name);
    e.set("matchedNodeLink", u.matched_node_link);
    e.set("setItems", u.set_items);
    e.set("precisionIndex", u.precision_index < 0 ? val::null() : val(u.precision_index));
    e.set("inputData", u.input_data);
    e.set("outputData", u.output_data);
    updates.call<void>("push", e);
  }
  val value = val::object();
  value.set("pairs", pairs);
  value.set("updates", updates);
  return Respond(plan.status(), value);
}

}  // namespace

EMSCRIPTEN_BINDINGS(visprobe) {
  emscripten::function("graphVisualize", &GraphVisualize);
  emscripten::function("data2db", &Data2Db);
  emscripten::function("help", &Help);
  emscripten::function("parallelLayout", &ParallelLayout);
  emscripten::function("checkLayerMapping", &CheckLayerMapping);
  emscripten::function("computeBadges", &ComputeBadgesJs);
  emscripten::function("badgeThresholds", &BadgeThresholdsJs);
  emscripten::function("manualMatch", &ManualMatchJs);
}
