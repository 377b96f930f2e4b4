// @ts-check
// Chinese for the engine's messages (web-ui X-01, issue 19). The engine prints msProbe's English
// text, and the CLI must keep doing so (parity with msProbe), so the page translates at display
// time. Each catalog entry is an English template taken from the engine's sources (core/, wasm/)
// or the worker, and its Chinese. In a template:
//   {name}    a variable part (a path, a node name, a list): copied verbatim
//   {name:d}  a number: copied verbatim
//   {name:t}  a nested engine message: translated in turn with the same catalog
//   {{ }}     literal braces
// Entries are tried in order and must match the whole message; the first match wins, so specific
// templates come before the generic suffix rules at the end. A message with no entry comes back
// unchanged. The result is plain text (dump names are never HTML): callers set textContent.
import { language } from './i18n.js';

/**
 * [English template, Chinese template] or, with `inner`, an entry that applies only when every
 * nested {name:t} part was itself translated (a generic rule must not claim unknown text).
 * @type {([string, string] | [string, string, {inner: boolean}])[]}
 */
const CATALOG = [
  // --- wrappers: the CLI's ERROR line and the worker / client
  ['An unexpected error occurred: {m:t}', '发生意外错误：{m}'],
  ['The engine stopped: {m:t}', '引擎已停止：{m}'],
  ['worker error', '工作线程出错'],
  ['Cancelled.', '已取消。'],
  ['stopped', '已停止'],
  ['starting', '正在启动'],   // the page's stage text before the engine's first INFO line

  // --- app/session.cc, app/merge_run.cc, app/gather.cc, db/distributed.cc: the stages of a run
  ['Start building model graphs...', '开始构建模型图…'],
  ['Start processing data for {name}...', '开始处理 {name} 的数据…'],
  ['Start building graph for {name}...', '开始为 {name} 构图…'],
  ['Building graph for step: {step:d}, rank: {rank} finished.', '{rank}（step {step}）的图构建完成。'],
  ['Start exporting graph for {file}...', '开始导出 {file} 的图…'],
  ['Start exporting graph to JSON files...', '开始将图导出为 JSON 文件…'],
  ['Model graphs built successfully, start comparing graphs...', '模型图构建成功，开始比对图…'],
  ['Start comparing data for {name}...', '开始比对 {name} 的数据…'],
  ['Comparing data for {name} finished.', '{name} 的数据比对完成。'],
  ['Start exporting compare graph result, file name: {file}...', '开始导出比对图结果，文件名：{file}…'],
  ['Exporting compare graph result successfully, the result file is saved in {path}', '比对图结果导出成功，结果文件保存在 {path}'],
  ['Model graph exported successfully, the result file is saved in {path}', '模型图导出成功，结果文件保存在 {path}'],
  ['Model graph exported successfully as JSON files to {dir}', '模型图已成功导出为 JSON 文件，位于 {dir}'],
  ['JSON files exported to {dir}', 'JSON 文件已导出到 {dir}'],
  ['Successfully exported compare graph results.', '比对图结果导出成功。'],
  ['Successfully exported build graph results.', '构图结果导出成功。'],
  ['Start adding index to db file, please wait...', '开始为数据库文件添加索引，请稍候…'],
  ['Adding index to db file completed.', '数据库文件索引添加完成。'],
  ['Start analyzing distributed nodes...', '开始分析分布式节点…'],
  ['Successfully analyzed distributed nodes.', '分布式节点分析完成。'],
  ['Shard {i:d}/{n:d}: {k:d} of {u:d} graphs written to {path}; join all parts with: {cmd}',
   '分片 {i}/{n}：{u} 个图中的 {k} 个已写入 {path}；合并全部分片请运行：{cmd}'],
  ['Gathering {n:d} graphs from {p:d} parts into {file}...', '正在将 {p} 个分片中的 {n} 个图合并到 {file}…'],
  ['Gathering {n:d} rank folders from {p:d} parts into {file}...', '正在将 {p} 个分片中的 {n} 个 rank 文件夹合并到 {file}…'],
  ['{stem} already exists in {dir} (or another run is writing it); this run writes {file}.',
   '{stem} 已存在于 {dir}（或另一次运行正在写入它）；本次运行写入 {file}。'],
  ['The layer mapping file parsing failed, please check file format, mapping is not effective.',
   '层映射文件解析失败，请检查文件格式；映射未生效。'],
  ['The cross_frame graph comparison failed. Please specify -lm or --layer_mapping when performing cross_frame graph comparison.',
   '跨框架（cross_frame）图比对失败。进行跨框架图比对时，请指定 -lm 或 --layer_mapping。'],
  ['Unable to get framework information from {side} dump.json, default setting is pytorch.',
   '无法从 {side} 侧的 dump.json 获取框架信息，默认设置为 pytorch。'],
  ['Unrecognized framework, target now is {tf}, golden now is {gf}, please check dump.json.',
   '无法识别的框架：target 为 {tf}，golden 为 {gf}，请检查 dump.json。'],
  ['The --file_type json parameter is not supported in graph comparison mode. Please remove the -gp/--golden_path parameter or use --file_type db.',
   '图比对模式不支持 --file_type json 参数。请去掉 -gp/--golden_path 参数，或改用 --file_type db。'],
  ['The --file_type json parameter is only supported in graph merge build scenarios. Falling back to default db output.',
   '--file_type json 参数仅支持图合并构图场景，将回退为默认的 db 输出。'],
  ['--shard writes database parts: it cannot be used with --file_type json.', '--shard 输出的是数据库分片，不能与 --file_type json 同时使用。'],
  ['You have specified the "--rank_size" parameter for data merging, so the "-tp" parameter must pass in multiple rank data.',
   '已为数据合并指定 "--rank_size" 参数，因此 "-tp" 参数必须传入多个 rank 的数据。'],
  ['Failed to export compare graph result, file: {file}, error: {m:t}', '比对图结果导出失败，文件：{file}，错误：{m}'],
  ['Failed to export model graph, file: {file}, error: {m:t}', '模型图导出失败，文件：{file}，错误：{m}'],
  ['Parallel merge failed because the dp of npu: {a:d} is inconsistent with that of bench: {b:d}!',
   '并行合并失败：npu 的 dp（{a}）与 bench 的 dp（{b}）不一致！'],
  ['--shard plans {dp:d} DP replicas per step (rank_size / (tp * pp)), but the merge of {dir} gave {n:d}: run it without --shard',
   '--shard 按每个 step {dp} 个 DP 副本规划（rank_size / (tp * pp)），但 {dir} 合并得到 {n} 个：请不带 --shard 运行'],

  // --- layout/layout.cc: the folder structure
  ['The path {dir} is empty.', '路径 {dir} 为空。'],
  ['The input path content does not conform to the expected naming convention. It is expected to be all step{{number}} named folders (such as step0), all rank{{number}} named folders (such as rank0), or all files. Found in {dir}.',
   '输入路径的内容不符合预期的命名规范：应全部为 step{{number}} 形式命名的文件夹（如 step0）、全部为 rank{{number}} 形式命名的文件夹（如 rank0），或全部为文件。位置：{dir}。'],
  ["dump_dir contains '{name}'. Expected '{prefix}'. This name is not in the format of dump output. Please check and delete irrelevant files in {dir} and try again.",
   "dump_dir 中包含 '{name}'，应为 '{prefix}'。该名称不符合 dump 输出的格式，请检查并删除 {dir} 中的无关文件后重试。"],
  ['No or multiple proc directories were found in the {dir}. Expected exactly one.', '在 {dir} 中未找到或找到多个 proc 目录，应恰好有一个。'],
  ["The folder name format is incorrect, expected {word}+number, such as rank0, step1, etc. Found '{name}'.",
   "文件夹名称格式不正确，应为 {word}+数字，如 rank0、step1 等。实际为 '{name}'。"],
  ['The path {dir} holds {n:d} {what} folders, more than the limit of {limit:d}.', '路径 {dir} 中有 {n} 个 {what} 文件夹，超过上限 {limit}。'],
  ['The ranks in the two runs are completely different. Unable to match the ranks.', '两次运行的 rank 完全不同，无法匹配 rank。'],
  ['The directory structures of npu_path and bench_path are inconsistent.', 'npu_path 与 bench_path 的目录结构不一致。'],
  ['Two steps cannot obtain intersection.', '两侧的 step 没有交集。'],

  // --- base/fs.cc: msProbe's path checks
  ['The file path {path} does not exist.', '文件路径 {path} 不存在。'],
  ['The file path length exceeds limit.', '文件路径长度超出限制。'],
  ['The {path} should be a file!', '{path} 应为文件！'],
  ['The {path} should be a dictionary!', '{path} 应为目录！'],
  ['The file path {path} is not readable.', '文件路径 {path} 不可读。'],
  ['The file path {path} is not writable.', '文件路径 {path} 不可写。'],
  ['The file path {path} contains special characters.', '文件路径 {path} 包含特殊字符。'],
  ['The size ({size:d}) of {path} exceeds ({limit:d}) bytes, tools not support.', '{path} 的大小（{size}）超过 {limit} 字节，工具不支持。'],
  ['{path} should be one of the following types of files: [{suffix}]!', '{path} 应为以下类型的文件之一：[{suffix}]！'],
  ['cannot list {dir}: {why:t}', '无法列出 {dir}：{why}'],
  ['cannot create the folder {dir}', '无法创建文件夹 {dir}'],
  ['cannot create {path}: {why:t}', '无法创建 {path}：{why}'],
  ['no free file name for {path} (tried {n:d})', '没有可用的文件名用于 {path}（已尝试 {n} 个）'],
  ['cannot rename {a} to {b}', '无法将 {a} 重命名为 {b}'],
  ['cannot write {path} ({what}): {why:t}', '无法写入 {path}（{what}）：{why}'],
  ['cannot write {path}: {why:t}', '无法写入 {path}：{why}'],
  ['cannot write {path}', '无法写入 {path}'],
  ['cannot open {path}', '无法打开 {path}'],
  ['cannot read {path}', '无法读取 {path}'],
  ['cannot seek in {path}', '无法在 {path} 中定位'],
  ['{path} is not a regular file', '{path} 不是普通文件'],
  ['{path} is not a directory', '{path} 不是目录'],
  // strerror texts inside the messages above
  ['No such file or directory', '没有该文件或目录'],
  ['Permission denied', '权限不足'],
  ['Is a directory', '是一个目录'],
  ['Not a directory', '不是目录'],
  ['Too many levels of symbolic links', '符号链接层数过多'],
  ['No space left on device', '设备上没有剩余空间'],

  // --- graph/rank_inputs.cc, graph/items.cc: construct.json, stack.json, dump.json
  ['load json file "{file}" failed. {why:t}', '加载 JSON 文件 "{file}" 失败。{why}'],
  ['Parse construct json file "{file}" failed.', '解析 construct JSON 文件 "{file}" 失败。'],
  ["The content of 'construct.json' is empty, failed to build graph. When dumping data, it is necessary to select level L0 or mix in order to collect model structure data, that is, the content of 'construct.json' is not empty.",
   "'construct.json' 的内容为空，构图失败。dump 数据时需选择 level L0 或 mix 以采集模型结构数据，即 'construct.json' 的内容不能为空。"],
  ['The format of the stack.json is incorrect, the outermost layer of stack.json should be a dict type.',
   'stack.json 的格式不正确，stack.json 的最外层应为 dict 类型。'],
  ['{path} holds more than {n:d} {what}, the limit of nodes in one graph.', '{path} 中的 {what} 超过 {n} 个，即单个图的节点上限。'],
  ["the entry '{node}' is nested more than {n:d} levels deep (exceeds the recursion limit)", "条目 '{node}' 的嵌套超过 {n} 层（超出递归上限）"],

  // --- loader/: JSON reading, with the byte offset
  ['{path} @ byte {pos:d}: {what:t} (in the member starting at byte {at:d})', '{path} 第 {pos} 字节处：{what}（位于从第 {at} 字节开始的成员中）'],
  ['{path} @ byte {pos:d}: {what:t}', '{path} 第 {pos} 字节处：{what}'],
  ['@ byte {pos:d}: {what:t}', '第 {pos} 字节处：{what}'],
  ['{path}: cannot open ({why:t})', '{path}：无法打开（{why}）'],
  ['{path}: read error ({why:t})', '{path}：读取错误（{why}）'],
  ['read error', '读取错误'],
  ['the file changed while it was read', '读取期间文件发生了变化'],
  ['the file is empty', '文件为空'],
  ['no JSON object found', '未找到 JSON 对象'],
  ['the file ends inside a JSON value (truncated JSON)', '文件在 JSON 值的中间结束（JSON 被截断）'],
  ['unexpected characters after the top-level object', '顶层对象之后有多余的字符'],
  ['the top-level value is not a JSON object', '顶层值不是 JSON 对象'],
  ['the top-level value is not an object', '顶层值不是对象'],
  ['unbalanced closing bracket', '右括号不配对'],
  ['JSON nesting deeper than the limit of {n:d} levels', 'JSON 嵌套深度超过 {n} 层的上限'],
  ['a string longer than the limit of {n:d} bytes for one string', '字符串长度超过单个字符串 {n} 字节的上限'],
  ['a key longer than the limit of {n:d} bytes for one string', '键的长度超过单个字符串 {n} 字节的上限'],
  ['the member starting here is larger than the limit of {n:d} bytes for one member', '从此处开始的成员超过单个成员 {n} 字节的上限'],
  ['the members next to "{key}" are larger than the limit of {n:d} bytes', '"{key}" 相邻的成员超过 {n} 字节的上限'],
  ['invalid JSON syntax', '无效的 JSON 语法'],
  ['unexpected value type', '意外的值类型'],
  ['invalid literal (expected null)', '无效的字面量（应为 null）'],
  ['invalid literal (expected true)', '无效的字面量（应为 true）'],
  ['invalid literal (expected false)', '无效的字面量（应为 false）'],
  ['invalid number', '无效的数字'],
  ['invalid UTF-8 in a string', '字符串中有无效的 UTF-8'],
  ['unclosed string', '字符串未闭合'],
  ['invalid string escape', '无效的字符串转义'],
  ['unexpected content after a value', '值之后有多余的内容'],
  // simdjson's own texts (error_message) for the codes the reader does not rename
  ['UNESCAPED_CHARS: Within strings, some characters must be escaped, we found unescaped characters', 'UNESCAPED_CHARS：字符串中有必须转义却未转义的字符'],
  ['BIGINT_ERROR: Big integer value that cannot be represented using 64 bits', 'BIGINT_ERROR：整数过大，无法用 64 位表示'],
  ['NUMBER_OUT_OF_RANGE: The JSON number is too large or too small to fit within the requested type.', 'NUMBER_OUT_OF_RANGE：JSON 数字过大或过小，超出所需类型的范围。'],
  ['INCOMPLETE_ARRAY_OR_OBJECT: JSON document ended early in the middle of an object or array.', 'INCOMPLETE_ARRAY_OR_OBJECT：JSON 文档在对象或数组中间提前结束。'],
  ['TAPE_ERROR: The JSON document has an improper structure: missing or superfluous commas, braces, missing keys, etc.', 'TAPE_ERROR：JSON 文档结构不正确：缺少或多余的逗号、括号，缺少键等。'],
  ['CAPACITY: This parser can\'t support a document that big', 'CAPACITY：解析器不支持这么大的文档'],
  ['MEMALLOC: Error allocating memory, we\'re most likely out of memory', 'MEMALLOC：内存分配失败，很可能是内存不足'],
  ['EMPTY: no JSON found', 'EMPTY：未找到 JSON'],

  // --- compare/, match/: comparing two graphs
  ['Task for {side} is empty, please check.', '{side} 侧的 task 为空，请检查。'],
  ["Missing 'data' in dump.json, please check dump.json of {side}.", "dump.json 中缺少 'data'，请检查 {side} 侧的 dump.json。"],
  ["Invalid type for 'data': expected a dict. Please check dump.json of {side}.", "'data' 的类型无效：应为 dict。请检查 {side} 侧的 dump.json。"],
  ['Please check the dump task is consistent.', '请检查两侧的 dump task 是否一致。'],
  ['Please check the dump task is consistent, dump mode of npu and bench should both be statistics or md5.',
   '请检查两侧的 dump task 是否一致，npu 与 bench 的 dump 模式应同为 statistics 或 md5。'],
  ['Compare applies only to task is tensor or statistics', '比对仅适用于 task 为 tensor 或 statistics 的数据'],
  ['Tensor files required for real-data matching', '真实数据匹配需要 tensor 文件'],
  ["Manual matching is not available for the task '{task}'.", "task 为 '{task}' 时不支持手动匹配。"],
  ['{path}: not a readable .npy file: {what}', '{path}：不是可读取的 .npy 文件：{what}'],
  ['{path}: too many elements ({n:d})', '{path}：元素过多（{n}）'],
  ['stack frame without a function field: {line}', '堆栈帧缺少函数字段：{line}'],
  ['stack frame with a malformed function field: {line}', '堆栈帧的函数字段格式错误：{line}'],
  ["layer mapping: the value of '{name}' is not a mapping", "层映射：'{name}' 的值不是映射"],
  ['{path} must be based on the MindSpore or PyTorch framework.', '{path} 必须基于 MindSpore 或 PyTorch 框架。'],
  ['{path}: the "data" member is not an object', '{path}："data" 成员不是对象'],
  ['stack.json or construct.json not found, please check.', '未找到 stack.json 或 construct.json，请检查。'],
  ['The dump data does not comply with the format specification and must contain no less than four fields. The current data is {name}',
   'dump 数据不符合格式规范，必须包含不少于四个字段。当前数据为 {name}'],
  ['The construct data does not comply with the format specification and must contain no less than four fields. The current data is {name}',
   'construct 数据不符合格式规范，必须包含不少于四个字段。当前数据为 {name}'],
  ['the parent of {name} is not a string', '{name} 的父节点不是字符串'],
  ["Invalid identifier '{s}', potential SQL injection.", "无效的标识符 '{s}'，可能存在 SQL 注入。"],
  ['Invalid node id {id}.', '无效的节点 id {id}。'],
  ['An sqlite3 error occurred: {m:t}', '发生 sqlite3 错误：{m}'],

  // --- merge/: graph merge (--rank_size --tp --pp --vpp --order)
  ['In the graph merge task, parameters "tp/pp/rank_size" is required!', '图合并任务需要参数 "tp/pp/rank_size"！'],
  ['In the graph merge build task, the number of parameters "{p}" to be filled in is either {n:d}!', '图合并构图任务中，参数 "{p}" 应填写 {n} 个值！'],
  ['In the graph merge compare task, the number of parameters "{p}" to be filled in is either {n:d}!', '图合并比对任务中，参数 "{p}" 应填写 {n} 个值！'],
  ['The parallel param "rank_size" error, you set {a:d} but expected {b:d}.', '并行参数 "rank_size" 错误：设置为 {a}，应为 {b}。'],
  ['The parallel params "tp/pp/vpp/rank_size" must be greater than 0!', '并行参数 "tp/pp/vpp/rank_size" 必须大于 0！'],
  ['The parallel param "{p}" must be less than or equal to "rank_size"!', '并行参数 "{p}" 必须小于或等于 "rank_size"！'],
  ['The parallel param "rank_size" must be divisible by "{p}"!', '并行参数 "rank_size" 必须能被 "{p}" 整除！'],
  ['The parallel params "tp * pp" must be less than or equal to "rank_size"!', '并行参数 "tp * pp" 必须小于或等于 "rank_size"！'],
  ['When configuring the parallel param "vpp", the "pp" param must be greater than 1!', '配置并行参数 "vpp" 时，"pp" 参数必须大于 1！'],
  ['The parallel params "order" must consist only of lowercase letters and "-"!', '并行参数 "order" 只能由小写字母和 "-" 组成！'],
  ['The world size ({n:d}) is not divisible by {tp:d} x {pp:d} x {cp:d}.', 'world size（{n}）不能被 {tp} x {pp} x {cp} 整除。'],
  ['The ep and dp must be adjacent in order ({order}).', 'order（{order}）中 ep 与 dp 必须相邻。'],
  ["The parallel size ({name}) is ({n:d}), but it's not specified in order ({order}).", '并行维度 {name} 的大小为 {n}，但 order（{order}）中没有指定它。'],
  ['Unknown parallel dimension ({item}) in order ({order}).', 'order（{order}）中有未知的并行维度（{item}）。'],
  ['Unknown parallel dimension ({item}).', '未知的并行维度（{item}）。'],
  ['Unable to get tp groups based on Distributed Api (reduce_scatter or all_reduce), generate tp groups using parallel param "rank_size", "tp" and "pp".',
   '无法根据分布式 API（reduce_scatter 或 all_reduce）获取 tp 组，将使用并行参数 "rank_size"、"tp" 和 "pp" 生成 tp 组。'],
  ['Unable to get pp groups based on Distributed Api (batch_isend_irecv, send, or isend), generate pp groups using parallel param "rank_size", "tp" and "pp".',
   '无法根据分布式 API（batch_isend_irecv、send 或 isend）获取 pp 组，将使用并行参数 "rank_size"、"tp" 和 "pp" 生成 pp 组。'],
  ['Based on Distributed Api (reduce_scatter or all_reduce), the resulting tp groups={g}, its length is not equal to the parallel param "tp"({n:d}) you defined, generate tp groups using parallel param "rank_size", "tp" and "pp".',
   '根据分布式 API（reduce_scatter 或 all_reduce）得到的 tp 组为 {g}，其长度不等于设置的并行参数 "tp"（{n}），将使用并行参数 "rank_size"、"tp" 和 "pp" 生成 tp 组。'],
  ['Based on Distributed Api (atch_isend_irecv, send, or isend), the resulting pp groups={g}, its length is not equal to the parallel param "pp"({n:d}) you defined, generate pp groups using parallel param "rank_size", "tp" and "pp".',
   '根据分布式 API（batch_isend_irecv、send 或 isend）得到的 pp 组为 {g}，其长度不等于设置的并行参数 "pp"（{n}），将使用并行参数 "rank_size"、"tp" 和 "pp" 生成 pp 组。'],
  ['All {kind} groups is {g}.', '全部 {kind} 组为 {g}。'],
  ['Graph merge failed: rank{r:d} of the group {g} has no rank folder.', '图合并失败：组 {g} 中的 rank{r} 没有 rank 文件夹。'],
  ['Graph merged error, and tp_groups is {g}.', '图合并出错，tp_groups 为 {g}。'],
  ['{name} is exist!', '{name} 已存在！'],
  ['Update node id {id} fail!', '更新节点 id {id} 失败！'],

  // --- command-line arguments (the worker passes the page's options as the CLI's flags)
  ['argument {opt}: expected one argument', '参数 {opt}：需要一个值'],
  ['argument {opt}: expected at least one argument', '参数 {opt}：至少需要一个值'],
  ["argument {opt}: ignored explicit argument '{v}'", "参数 {opt}：忽略了显式给出的值 '{v}'"],
  ["argument {opt}: invalid int value: '{v}'", "参数 {opt}：无效的整数值：'{v}'"],
  ["argument {opt}: invalid choice: '{v}' (choose from {list})", "参数 {opt}：无效的选项：'{v}'（可选：{list}）"],
  ["argument {opt}: invalid shard '{v}' (expected I/N with 0 <= I < N, e.g. 0/4)", "参数 {opt}：无效的分片 '{v}'（应为 I/N，且 0 <= I < N，例如 0/4）"],
  ['the following arguments are required: {list}', '缺少必需的参数：{list}'],
  ['unrecognized arguments: {list}', '无法识别的参数：{list}'],
  ['ambiguous option: {arg} could match {names}', '有歧义的选项：{arg} 可匹配 {names}'],

  // --- app/data2db.cc, trend/: the trend import
  ['Auto-detect mode: attempting both dump and monitor imports', '自动检测模式：同时尝试 dump 与 monitor 导入'],
  ['Trying dump import...', '正在尝试 dump 导入…'],
  ['Trying monitor import...', '正在尝试 monitor 导入…'],
  ["Importing data in '{format}' format", "以 '{format}' 格式导入数据"],
  ['Starting dump data import...', '开始导入 dump 数据…'],
  ['Starting monitor data import...', '开始导入 monitor 数据…'],
  ['Scanning data directory...', '正在扫描数据目录…'],
  ['Scanning dimensions...', '正在扫描维度…'],
  ['Step {s:d}: proc to rank mapping - {{{map}}}', 'step {s}：proc 到 rank 的映射 - {{{map}}}'],
  ['Step {s:d} processing completed. Total micro steps identified: [{list}]', 'step {s} 处理完成。识别出的微步总数：[{list}]'],
  ['Dump data import completed. DB: {path}', 'dump 数据导入完成。数据库：{path}'],
  ['Monitor data import completed. DB: {path}', 'monitor 数据导入完成。数据库：{path}'],
  ['Split {n:d} ranks into {b:d} batches (batch_size={bs:d}, total_files={f:d})', '将 {n} 个 rank 分为 {b} 批（batch_size={bs}，total_files={f}）'],
  ['Starting data import for {b:d} batches, {f:d} files...', '开始导入数据：{b} 批，{f} 个文件…'],
  ['Rank {r:d} inserted {n:d} rows', 'rank {r} 写入了 {n} 行'],
  ["No 'dump.json' file found in: {dir}", "在 {dir} 中未找到 'dump.json' 文件"],
  ["No 'construct.json' file found in: {dir}; its entries are counted as one micro step", "在 {dir} 中未找到 'construct.json' 文件；其条目按一个微步计"],
  ["No valid 'rank*' or 'proc*' directories found in: {dir}. Expected directory names like 'rank0' or 'proc0'. Skipped entries: {list:t}",
   "在 {dir} 中未找到有效的 'rank*' 或 'proc*' 目录，目录名应类似 'rank0' 或 'proc0'。跳过的条目：{list}"],
  ['(none — no rank*/proc* entries at all)', '（无：完全没有 rank*/proc* 条目）'],
  ["No valid 'step*' directories found in: {dir}, Expected directory names like 'step0'.", "在 {dir} 中未找到有效的 'step*' 目录，目录名应类似 'step0'。"],
  ['No valid dump data discovered in: {dir}, dump import skipped. See preceding scan warnings for the exact reason.',
   '在 {dir} 中未发现有效的 dump 数据，已跳过 dump 导入。具体原因见前面的扫描警告。'],
  ['No valid monitor directories found in: {dir}', '在 {dir} 中未找到有效的 monitor 目录'],
  ['No valid CSV files found', '未找到有效的 CSV 文件'],
  ['No valid data files found during pre-scan', '预扫描期间未找到有效的数据文件'],
  ["illegal timestamp: {tag}, timestamp should be prefix of existing output dirpath, like 'Dec03_21-34-40'. Skipped: {path}",
   "非法的时间戳：{tag}，时间戳应为已有输出目录路径的前缀，如 'Dec03_21-34-40'。已跳过：{path}"],
  ['Two monitor folders for rank {r:d}; using the latest, discarding {path}', 'rank {r} 有两个 monitor 文件夹；使用最新的一个，舍弃 {path}'],
  ['Existing database kept: {path}; this run writes {next}', '保留已有数据库：{path}；本次运行写入 {next}'],
  ['{path} has no "data" object; it contributes no rows', '{path} 没有 "data" 对象，不产生任何行'],
  ['Cycle in the parent chain of {name} in {path}; such nodes are not placed', '{path} 中 {name} 的父节点链存在环；此类节点不会被放置'],
  ['{path}: the value of "{key}" is a list of {n:d} elements, expected [parent, micro_step]', '{path}："{key}" 的值是含 {n} 个元素的列表，应为 [parent, micro_step]'],
  ['Load json file {path} failed. {why:t}', '加载 JSON 文件 {path} 失败。{why}'],
  ['It cannot be opened.', '无法打开该文件。'],
  ['The mapping must be a JSON object of strings.', '映射必须是值为字符串的 JSON 对象。'],
  ['The value of "{key}" is not a string.', '"{key}" 的值不是字符串。'],
  ['The mapping has an empty key.', '映射中有空键。'],
  ['Its replacements could make names more than {n:d} times longer.', '其替换可能使名称变长 {n} 倍以上。'],
  ['process_num must be a positive integer', 'process_num 必须为正整数'],
  ['Maximum supported process_num is {n:d}', 'process_num 最大支持 {n}'],
  ['Unsupported format: {f}. Supported: {list}', '不支持的格式：{f}。支持的格式：{list}'],
  ['line {n:d}: unterminated quoted field', '第 {n} 行：引号字段未闭合'],
  ['line {n:d}: text after a closing quote', '第 {n} 行：右引号之后有多余文本'],
  ['line {n:d}: quote inside an unquoted field', '第 {n} 行：未加引号的字段中出现引号'],
  ["{path}: unknown trend format '{f}'", "{path}：未知的趋势格式 '{f}'"],
  ['{path} lacks unit {u:d} (the shard did not finish?): run shard {s:d} again', '{path} 缺少单元 {u}（该分片未完成？）：请重新运行分片 {s}'],

  // --- trend/parallel_layout*.cc: plot_model_parallelism
  ['invalid parallel config JSON: {m:t}', '无效的并行配置 JSON：{m}'],
  ['standalone_embedding_stage must be a boolean', 'standalone_embedding_stage 必须为布尔值'],
  ['order must be a string', 'order 必须为字符串'],
  ['{name} must be a positive integer', '{name} 必须为正整数'],
  ['{name} ({n:d}) exceeds the maximum supported value of {max:d}.', '{name}（{n}）超过支持的最大值 {max}。'],
  ['world_size ({n:d}) is not divisible by tensor_parallel_size({tp:d}) x pipeline_parallel_size ({pp:d})',
   'world_size（{n}）不能被 tensor_parallel_size（{tp}）x pipeline_parallel_size（{pp}）整除'],
  ["invalid token '{t}' in order ({order})", "order（{order}）中有无效的标记 '{t}'"],
  ["duplicate token '{t}' in order ({order})", "order（{order}）中有重复的标记 '{t}'"],
  ['number of layers ({n:d}) must be divisible by transformer_pipeline_parallel_size ({p:d}), which is pipeline_parallel_size-1 when standalone_embedding_stage is enabled.',
   '层数（{n}）必须能被 transformer_pipeline_parallel_size（{p}）整除；启用 standalone_embedding_stage 时它等于 pipeline_parallel_size-1。'],
  ['number of layers ({n:d}) must be divisible by pipeline_parallel_size ({p:d}).', '层数（{n}）必须能被 pipeline_parallel_size（{p}）整除。'],
  ['number of layers per pipeline stage ({n:d}) must be divisible by number of layers per virtual pipeline stage ({v:d}).',
   '每个流水线阶段的层数（{n}）必须能被每个虚拟流水线阶段的层数（{v}）整除。'],
  ['pipeline-model-parallel size should be greater than 1 with virtual-pipeline', '使用虚拟流水线时，流水线模型并行大小应大于 1'],

  // --- web/src/engine/: the worker's own messages
  ['{name} is not an SQLite database ({m:t}).', '{name} 不是 SQLite 数据库（{m}）。'],
  ['file is not a database', '文件不是数据库'],
  ['{name} is not a visprobe / msProbe database (no tb_nodes or trend_data table).', '{name} 不是 visprobe / msProbe 数据库（没有 tb_nodes 或 trend_data 表）。'],
  ['No database is open.', '没有打开的数据库。'],
  ['This browser cannot run the visprobe engine: it lacks WebAssembly SIMD (Chromium 91, Firefox 89 and Safari 16.4 and later have it). Databases made elsewhere still open and draw here.',
   '此浏览器无法运行 visprobe 引擎：它不支持 WebAssembly SIMD（Chromium 91、Firefox 89、Safari 16.4 及更高版本支持）。在别处生成的数据库仍可在此打开和绘制。'],
  ['{name} is not open.', '{name} 未打开。'],
  ['The engine wrote no {path}.', '引擎没有写出 {path}。'],
  ["The browser's storage (OPFS) failed: {op} at byte {at} of the database: {name}: {m:t}. A private window keeps OPFS in memory (in Chromium about 1.5 GB a file): open the page in a normal window, or build with the CLI (visprobe graph_visualize) and open its database here.",
   '浏览器存储（OPFS）失败：在数据库第 {at} 字节处 {op} 出错：{name}: {m}。无痕窗口把 OPFS 保存在内存中（Chromium 中每个文件约 1.5 GB）：请在普通窗口中打开本页面，或用 CLI（visprobe graph_visualize）构图后在此打开其数据库。'],
  ['wrote {w:d} of {n:d} bytes', '写入了 {n} 字节中的 {w} 字节'],
  ['read {r:d} of {n:d} bytes inside a file of {size:d} bytes', '在 {size} 字节的文件中读取了 {n} 字节中的 {r} 字节'],
  ['the storage answered {w:d} bytes written for {n:d}', '写入 {n} 字节时存储返回写入了 {w} 字节'],
  ['the file stayed at {size:d} bytes after a write up to byte {end:d}', '写到第 {end} 字节后文件仍为 {size} 字节'],
  ['Please select the debug-side unmatched node!', '请选择调试侧未匹配的节点！'],
  ['Please select the bench-side unmatched node!', '请选择标杆侧未匹配的节点！'],
  ['Both nodes must be unmatched.', '两个节点都必须是未匹配的。'],
  ['Node types differ', '节点类型不同'],
  ['Please select the nodes to be unmatched!', '请选择要取消匹配的节点！'],
  ['These nodes are not matched with each other', '这两个节点并未互相匹配'],
  ['This engine build has no {fn}: rebuild the wasm (./scripts/build.sh wasm).', '此引擎构建中没有 {fn}：请重新构建 wasm（./scripts/build.sh wasm）。'],
  ['parallelLayout returned no layout.', 'parallelLayout 没有返回布局。'],
  ['Unknown request {type}', '未知的请求 {type}'],
  ['data2db failed', 'data2db 失败'],
  ['{url} cannot be reached ({m}).', '无法访问 {url}（{m}）。'],
  ['{url}: the server answered {status:d} {text}.', '{url}：服务器返回 {status} {text}。'],
  ['{url}: the server gives no Content-Length, so the database cannot be read in parts.', '{url}：服务器没有给出 Content-Length，无法分块读取数据库。'],

  // --- generic suffix rules (last: they apply only to what the entries above translate)
  ['[{side}] {m:t}', '[{side}] {m}', { inner: true }],
  ['{m:t} (in {dir})', '{m}（位于 {dir}）', { inner: true }],
  ['{path}: {m:t}', '{path}：{m}', { inner: true }],
];

/** @typedef {{re: RegExp, names: {name: string, kind: string}[], zh: string, inner: boolean}} Entry */

const escapeRe = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const TOKEN = /\{\{|\}\}|\{(\w+)(?::([td]))?\}/g;

/** @param {string} en @param {string} zh @param {boolean} inner @returns {Entry} */
function compile(en, zh, inner) {
  let re = '^';
  let last = 0;
  /** @type {{name: string, kind: string}[]} */
  const names = [];
  for (const m of en.matchAll(TOKEN)) {
    re += escapeRe(en.slice(last, m.index));
    if (m[0] === '{{' || m[0] === '}}') re += escapeRe(m[0][0]);
    else {
      names.push({ name: m[1], kind: m[2] || '' });
      re += m[2] === 'd' ? '(-?\\d+(?:\\.\\d+)?)' : '([\\s\\S]+?)';
    }
    last = /** @type {number} */ (m.index) + m[0].length;
  }
  return { re: new RegExp(re + escapeRe(en.slice(last)) + '$'), names, zh, inner };
}

const ENTRIES = CATALOG.map(([en, zh, o]) => compile(en, zh, !!(o && o.inner)));

/** The catalog's [English, Chinese] templates. Visible for testing. */
export const catalogTemplates = () => CATALOG.map(([en, zh]) => [en, zh]);

/** One line of an engine message in Chinese; null when no entry matches. @param {string} s @returns {string|null} */
function translateLine(s) {
  for (const e of ENTRIES) {
    const m = e.re.exec(s);
    if (!m) continue;
    /** @type {Record<string, string>} */
    const values = {};
    let ok = true;
    e.names.forEach(({ name, kind }, i) => {
      const v = m[i + 1];
      if (kind !== 't') { values[name] = v; return; }
      const inner = translateLine(v);
      if (inner === null) ok = !e.inner && ok;
      values[name] = inner === null ? v : inner;
    });
    if (!ok) continue;
    return e.zh.replace(TOKEN, (t, name) => (t === '{{' ? '{' : t === '}}' ? '}' : values[name]));
  }
  return null;
}

/**
 * An engine message in the page's language: unchanged in English; in Chinese translated line by
 * line, keeping every variable part (file names, paths, numbers, node names, byte offsets) as it
 * is. A line no entry knows stays as the engine wrote it.
 * @param {string} message @param {string} [lang]
 * @returns {string}
 */
export function engineText(message, lang = language()) {
  if (lang !== 'zh' || typeof message !== 'string' || !message) return message;
  return message.split('\n').map((line) => translateLine(line) ?? line).join('\n');
}

// msProbe's log line: "YYYY-mm-dd HH:MM:SS (pid) [LEVEL] message" (core/app/log.h FormatLogLine).
const LOG_PREFIX = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[(?:DEBUG|INFO|WARNING|ERROR)\] )([\s\S]*)$/;

/**
 * A log line with its message part translated and msProbe's prefix (time, pid, level) kept; a
 * line without the prefix is translated whole.
 * @param {string} line @param {string} [lang]
 */
export function engineLogLine(line, lang = language()) {
  if (lang !== 'zh') return line;
  const m = LOG_PREFIX.exec(line);
  return m ? m[1] + engineText(m[2], lang) : engineText(line, lang);
}
