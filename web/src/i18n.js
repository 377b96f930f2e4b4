// @ts-check
// Chinese and English for the page and both workspaces (web-ui X-01). Elements carry their key
// in data-i18n (text, arguments in data-i18n-args), data-i18n-title (data-i18n-title-args),
// data-i18n-placeholder, data-i18n-aria; applyLanguage()
// re-translates them, so a toggle never rebuilds a view. Initial language: the saved choice, else
// the browser's (zh* -> Chinese, en* -> English), else Chinese.

import { GRAPH_TEXTS } from './i18n_graph.js';
import { TREND_TEXTS } from './i18n_trend.js';

/**
 * key -> [English, Chinese]; {0}, {1} are arguments. Each view's texts live in its own file
 * (i18n_graph.js, i18n_trend.js, issue 47); the page's and the ones several parts share are here.
 * @type {Record<string, [string, string]>}
 */
const DICT = {
  ...GRAPH_TEXTS,
  ...TREND_TEXTS,
  // page
  tagline: ['Everything runs in this tab: nothing is uploaded.', '所有处理都在本页面内完成，不会上传任何数据。'],
  startLead: ['Drop or choose an msProbe dump folder (one rank, rankN/, stepN/rankN/ or a monitor run), or a .vis.db / .trend.db to open; or load the sample.',
              '拖入或选择 msProbe dump 目录（单个 rank、rankN/、stepN/rankN/ 或 monitor 输出），或打开 .vis.db / .trend.db；也可加载示例。'],
  optionsFold: ["Options (msProbe's flags)", '选项（msProbe 参数）'],
  optOcHelp: ['off, as in msprobe; on: inf / nan outputs get an overflow level (without it a node\'s overflow reads "not checked")', '默认关闭（与 msprobe 一致）；开启后 inf / nan 输出会标记溢出等级（关闭时节点的溢出显示为“未检测”）'],
  optFmHelp: ['off: nodes pair by exact name; on: also by name with the call index ignored', '关闭：节点按完整名称匹配；开启：忽略调用序号后按名称匹配'],
  optLmHelp: ['off: layers pair by name; on: by the mapping file, across frameworks', '关闭：层按名称匹配；开启：按映射文件跨框架匹配'],
  graphMergeHelp: ['off; for a TP / PP / VPP run: one graph from every rank\'s split', '关闭；用于 TP / PP / VPP 训练：将各 rank 的切分合并为一张图'],
  targetDump: ['Target (debug) dump', '调试侧（Debug）dump'],
  targetHint: ['Drop a folder: one rank, rankN/ or stepN/rankN/, or a monitor run for the trend views; or a .vis.db / .trend.db to open it.',
               '拖入目录：单个 rank、rankN/ 或 stepN/rankN/，或用于趋势视图的 monitor 输出；也可直接打开 .vis.db / .trend.db。'],
  goldenDump: ['Golden (benchmark) dump', '标杆侧（Bench）dump'],
  optionalCompare: ['optional: compare mode', '可选：比对模式'],
  goldenHint: ['Drop the folder to compare with.', '拖入用于比对的目录。'],
  chooseFolder: ['Choose folder', '选择目录'],
  dbUrlBad: ['?db={0} is not a URL.', '?db={0} 不是有效的 URL。'],
  dbUrlOrigin: ['?db={0} is on another site: the page opens databases of its own site ({1}) or relative paths; download the file and open it instead.', '?db={0} 位于其他站点：页面只打开本站（{1}）或相对路径的数据库；请下载该文件后打开。'],
  openDb: ['Open .db file', '打开 .db 文件'],
  loadSample: ['Load the sample', '加载示例'],
  loadTrendSample: ['Load the trend sample', '加载趋势示例'],
  nothingChosen: ['nothing chosen', '未选择'],
  buildOnly: ['none: build only', '无：仅构图'],
  optOc: ['overflow check (-oc)', '溢出检测 (-oc)'],
  optFm: ['fuzzy match (-fm)', '模糊匹配 (-fm)'],
  optLm: ['layer mapping (-lm)', '层映射 (-lm)'],
  mappingYaml: ['mapping .yaml', '映射 .yaml'],
  graphMerge: ['graph merge', '图合并'],
  only: ['only', '仅'],
  build: ['Build', '构图'],
  compare: ['Compare', '比对'],
  microSteps: ['micro steps', '微步'],
  trendRun: ['Trend (data2db)', '趋势 (data2db)'],
  cancel: ['Cancel', '取消'],
  database: ['Database', '数据库'],
  summaryRows: ['tb_nodes rows', 'tb_nodes 行数'],
  summaryGraphs: ['graphs', '图数量'],
  searchNodeNames: ['search node names', '搜索节点名称'],
  type: ['type', '类型'],
  overflowCol: ['overflow', '溢出'],
  log: ['Log', '日志'],
  language: ['Language: 中文 / English', '语言：中文 / English'],
  themeDark: ['Dark theme', '深色主题'],
  themeLight: ['Light theme', '浅色主题'],
  trendRunHelp: ['msprobe data2db: the target folder (a dump run stepN/rankN/ or a monitor run <time>-rankN-<id>/) into .trend.db files for the heat map and trend views',
                 'msprobe data2db：将目标目录（dump 的 stepN/rankN/，或 monitor 的 <time>-rankN-<id>/）转换为用于热力图和趋势视图的 .trend.db 文件'],
  trendFormat: ['trend input format', '趋势输入格式'],
  // status line, notices and errors of the page
  statusIdle: ['ready', '就绪'],
  statusRunning: ['running', '运行中'],
  statusRunningAt: ['running {0} % — {1}', '运行中 {0} % — {1}'],
  statusFinishing: ['finishing', '即将完成'],
  statusFailed: ['failed', '失败'],
  previousResult: ['This run failed: what is shown below is the previous result ({0}), not this run\'s.',
                   '本次运行失败：下方显示的是上一次的结果（{0}），不是本次运行的结果。'],
  statusCancelled: ['cancelled', '已取消'],
  statusReady: ['ready: {0} rows in {1} s', '完成：{0} 行，用时 {1} 秒'],
  statusTrendRunning: ['running data2db', '正在运行 data2db'],
  statusTrendAt: ['data2db {0} % — {1}', 'data2db {0} % — {1}'],
  statusTrendReady: ['trend database ready in {0} s ({1} rows)', '趋势数据库已生成，用时 {0} 秒（{1} 行）'],
  statusRestored: ['session restored', '会话已恢复'],
  databaseOpened: ['database opened', '数据库已打开'],
  openingSource: ['opening {0}…', '正在打开 {0}…'],
  sourceGone: ['{0} is no longer available in this tab', '{0} 在本页面中已不可用'],
  noTrendData: ['No dump or monitor data found in this folder: see the log.', '此目录中没有 dump 或 monitor 数据：请查看日志。'],
  restoreFailed: ['The stored session could not be restored: {0}', '无法恢复保存的会话：{0}'],
  graphOpenFailed: ['The graph view could not open: {0}', '无法打开图视图：{0}'],
  unsupportedBrowser: ['This browser is not supported (missing {0}).', '不支持此浏览器（缺少 {0}）。'],
  notLayerMapping: ['{0}: not a layer-mapping YAML file ({1})', '{0}：不是层映射 YAML 文件（{1}）'],
  noSample: ['No sample here: {0}', '此处没有示例：{0}'],
  noSampleHere: ['This page has no sample beside it: the sample comes with ./scripts/serve.sh and with the release\'s web zip (index.html there); drop your own folders instead.', '此页面旁没有示例：示例随 ./scripts/serve.sh 和发布的 web 压缩包（其中的 index.html）提供；请改为拖入你自己的文件夹。'],
  tooBigSteps: ['The dumps hold {0} MB of dump.json; the database would not fit in this tab (limit about {1} MB). Choose one step below.',
                'dump.json 共 {0} MB，生成的数据库超出本页面的容量（上限约 {1} MB）。请在下方选择一个 step。'],
  tooBigRanks: ['The dumps hold {0} MB of dump.json; the database would not fit in this tab (limit about {1} MB). Choose one rank below.',
                'dump.json 共 {0} MB，生成的数据库超出本页面的容量（上限约 {1} MB）。请在下方选择一个 rank。'],
  tooBig: ['The dump holds {0} MB of dump.json; the database would not fit in this tab. Use the visprobe CLI for it.',
           'dump.json 共 {0} MB，生成的数据库超出本页面的容量。请使用 visprobe 命令行工具。'],
  tooBigQuotaSteps: ['The dumps hold {0} MB of dump.json; the database needs about {1} MB and the browser lets this page store {2} MB more. Choose one step below, free space (Forget stored data), or run the visprobe CLI: {3}',
                     'dump.json 共 {0} MB，数据库约需 {1} MB，而浏览器只允许本页面再存储 {2} MB。请在下方选择一个 step、释放空间（清除本地保存的数据），或使用 visprobe 命令行：{3}'],
  tooBigQuotaRanks: ['The dumps hold {0} MB of dump.json; the database needs about {1} MB and the browser lets this page store {2} MB more. Choose one rank below, free space (Forget stored data), or run the visprobe CLI: {3}',
                     'dump.json 共 {0} MB，数据库约需 {1} MB，而浏览器只允许本页面再存储 {2} MB。请在下方选择一个 rank、释放空间（清除本地保存的数据），或使用 visprobe 命令行：{3}'],
  tooBigQuota: ['The dump holds {0} MB of dump.json; the database needs about {1} MB and the browser lets this page store {2} MB more. Free space (Forget stored data) or run the visprobe CLI: {3}',
                'dump.json 共 {0} MB，数据库约需 {1} MB，而浏览器只允许本页面再存储 {2} MB。请释放空间（清除本地保存的数据）或使用 visprobe 命令行：{3}'],
  quotaFull: ['The browser\'s storage for this page is full ({0} MB used of {1} MB allowed): the database could not be written. Free space (Forget stored data, or the site data in the browser\'s settings), choose fewer steps or ranks, or run the visprobe CLI: {2}',
              '浏览器为本页面提供的存储已满（已用 {0} MB，上限 {1} MB），数据库无法写入。请释放空间（清除本地保存的数据，或在浏览器设置中清除站点数据）、选择更少的 step 或 rank，或使用 visprobe 命令行：{2}'],
  layoutDatabase: ['a database file', '数据库文件'],
  layoutFiles: ['one rank (construct.json, dump.json, stack.json)', '单个 rank（construct.json、dump.json、stack.json）'],
  layoutOneRank: ['one rank folder', '单个 rank 目录'],
  layoutMissing: ['missing {0}: the build needs construct.json, dump.json and stack.json in every rank folder', '缺少 {0}：构建需要每个 rank 目录中都有 construct.json、dump.json 和 stack.json'],
  layoutRanks: ['{0} rank folder(s): {1}', '{0} 个 rank 目录：{1}'],
  layoutSteps: ['{0} step folder(s) × {1} rank folder(s)', '{0} 个 step 目录 × {1} 个 rank 目录'],
  layoutMonitor: ['monitor run: {0} rank folder(s) of CSV files (for the trend views)', 'monitor 输出：{0} 个包含 CSV 文件的 rank 目录（用于趋势视图）'],
  layoutUnknown: ['no msProbe dump layout recognised (expected construct.json / dump.json / stack.json, rankN/ or stepN/rankN/)',
                  '未识别到 msProbe dump 目录结构（应为 construct.json / dump.json / stack.json、rankN/ 或 stepN/rankN/）'],
  // shared by the views, and the host's: the server's runs, copied links, stored data
  file: ['File', '文件'],
  helpNoWorkspace: ['Shortcuts are listed in the graph workspace (?).', '快捷键列表位于图工作区（?）。'],
  step: ['Step', 'Step'],
  rank: ['Rank', 'Rank'],
  error: ['Error', '错误'],
  medium: ['Medium', '中'],
  previous: ['Previous', '上一个'],
  serverRuns: ['Runs under {0} on this server', '服务器上 {0} 中的运行'],
  serverSearch: ['filter runs by path or kind', '按路径或类型筛选'],
  serverOpenSelected: ['Open selected ({0})', '打开所选（{0}）'],
  serverOpen: ['Open', '打开'],
  serverOpenResult: ['Open {0}', '打开 {0}'],
  serverBuildThis: ['Build…', '构建…'],
  serverTrendThis: ['Trend (data2db)', '趋势（data2db）'],
  serverOneRank: ['one rank', '单 rank'],
  serverRankFolders: ['rank folders', '个 rank 文件夹'],
  serverListFailed: ['The server\'s run list failed: {0}', '获取服务器运行列表失败：{0}'],
  serverBuildLegend: ['Build on the server (all its cores; the result is written under the log folder)', '在服务器上构建（使用其全部核心；结果写入日志文件夹）'],
  serverNoGolden: ['none: build only', '无：仅构建'],
  serverOutput: ['output folder', '输出文件夹'],
  serverOutputHint: ['under the log folder; empty: the log folder', '日志文件夹下；空：日志文件夹'],
  serverBuildGo: ['Build on the server', '在服务器上构建'],
  serverJobLost: ['the connection to the server was lost', '与服务器的连接已断开'],
  linkCopied: ['Link copied', '链接已复制'],
  forgotten: ['Stored data removed', '本地保存的数据已清除'],
  restoring: ['Restoring the last view from this browser\'s storage…', '正在从浏览器存储恢复上次的视图…'],
  // recent results and the Graph | Trend switch (issue 46)
  viewSwitch: ['Graph or trend view', '图视图或趋势视图'],
  viewGraph: ['Graph', '图'],
  viewTrend: ['Trend', '趋势'],
  viewGraphTitle: ['Show the graph result as it was left', '显示图结果（保持离开时的状态）'],
  viewTrendTitle: ['Show the trend result as it was left', '显示趋势结果（保持离开时的状态）'],
  recentButton: ['Recent', '最近'],
  recentResults: ['Recent results', '最近的结果'],
  recentKindGraph: ['graph', '图'],
  recentKindTrend: ['trend', '趋势'],
  recentRunB: ['B: {0}', 'B：{0}'],
  recentOpen: ['Open {0} again, as it was left', '重新打开 {0}（保持离开时的状态）'],
  recentRemove: ['Remove {0} from this browser', '从此浏览器删除 {0}'],
  recentGone: ['{0} is no longer stored in this browser.', '{0} 已不在此浏览器中保存。'],
  forgetAsk: ['Delete the {0} stored results (and the builds kept) from this browser? This cannot be undone.',
              '从此浏览器删除已保存的 {0} 个结果（以及保留的构建）？此操作无法撤销。'],
  forgetConfirm: ['Delete', '删除'],
};

const KEY = 'visprobe.lang';
/** @type {'en'|'zh'} */
let lang = initial();
/** @type {Set<() => void>} */
const listeners = new Set();

function initial() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved === 'en' || saved === 'zh') return saved;
  } catch { /* no storage */ }
  const nav = (typeof navigator !== 'undefined' && navigator.language) || '';
  return /^en/i.test(nav) ? 'en' : 'zh';
}

export function language() { return lang; }

/** @param {string} key @param {...unknown} args  the text's {0}, {1}, ... (as String() writes them) */
export function t(key, ...args) {
  const entry = DICT[key];
  if (!entry) return key;
  const s = entry[lang === 'zh' ? 1 : 0];
  return args.length ? s.replace(/\{(\d)\}/g, (m, i) => (args[Number(i)] !== undefined ? String(args[Number(i)]) : m)) : s;
}

/** True when the dictionary has the key (tests check every key on the page). @param {string} key */
export function hasKey(key) { return Object.prototype.hasOwnProperty.call(DICT, key); }

/** Re-translates every element below root that carries a key. @param {ParentNode} [root] */
export function applyLanguage(root = document) {
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  for (const e of root.querySelectorAll('[data-i18n]')) {
    const h = /** @type {HTMLElement} */ (e);
    let args = [];
    try { args = h.dataset.i18nArgs ? JSON.parse(h.dataset.i18nArgs) : []; } catch { args = []; }
    h.textContent = t(h.dataset.i18n || '', ...args);
  }
  for (const e of root.querySelectorAll('[data-i18n-title]')) {
    const h = /** @type {HTMLElement} */ (e);
    let args = [];
    try { args = h.dataset.i18nTitleArgs ? JSON.parse(h.dataset.i18nTitleArgs) : []; } catch { args = []; }
    h.title = t(h.dataset.i18nTitle || '', ...args);
  }
  for (const e of root.querySelectorAll('[data-i18n-aria]')) e.setAttribute('aria-label', t(/** @type {HTMLElement} */ (e).dataset.i18nAria || ''));
  for (const e of root.querySelectorAll('[data-i18n-placeholder]')) {
    /** @type {HTMLInputElement} */ (e).placeholder = t(/** @type {HTMLElement} */ (e).dataset.i18nPlaceholder || '');
  }
}

/** @param {'en'|'zh'} l */
export function setLanguage(l) {
  lang = l;
  try { localStorage.setItem(KEY, l); } catch { /* not persisted */ }
  applyLanguage();
  for (const fn of listeners) fn();
}

/** Calls fn after each language change, until signal aborts. @param {() => void} fn @param {AbortSignal} [signal] */
export function onLanguage(fn, signal) {
  listeners.add(fn);
  if (signal) signal.addEventListener('abort', () => listeners.delete(fn));
}
