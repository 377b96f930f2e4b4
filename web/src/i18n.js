// @ts-check
// Chinese and English for the page and the graph workspace (web-ui X-01). Elements carry their key
// in data-i18n (text), data-i18n-title, data-i18n-placeholder, data-i18n-aria; applyLanguage()
// re-translates them, so a toggle never rebuilds a view. Initial language: the saved choice, else
// the browser's (zh* -> Chinese, en* -> English), else Chinese.

/** @type {Record<string, [string, string]>} key -> [English, Chinese]; {0}, {1} are arguments */
const DICT = {
  // page
  tagline: ['Drop msProbe dump folders here. Everything runs in this tab: nothing is uploaded.', '将 msProbe dump 目录拖到此处。所有处理都在本页面内完成，不会上传任何数据。'],
  targetDump: ['Target (debug) dump', '调试侧（Debug）dump'],
  targetHint: ['Drop a folder: one rank, rankN/ or stepN/rankN/, or a monitor run for the trend views; or a .vis.db / .trend.db to open it.',
               '拖入目录：单个 rank、rankN/ 或 stepN/rankN/，或用于趋势视图的 monitor 输出；也可直接打开 .vis.db / .trend.db。'],
  goldenDump: ['Golden (benchmark) dump', '标杆侧（Bench）dump'],
  optionalCompare: ['optional: compare mode', '可选：比对模式'],
  goldenHint: ['Drop the folder to compare with.', '拖入用于比对的目录。'],
  chooseFolder: ['Choose folder', '选择目录'],
  openDb: ['Open .db file', '打开 .db 文件'],
  loadSample: ['Load the sample', '加载示例'],
  loadTrendSample: ['Load the trend sample', '加载趋势示例'],
  clear: ['Clear', '清除'],
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
  downloadDb: ['Download .vis.db', '下载 .vis.db'],
  searchNodeNames: ['search node names', '搜索节点名称'],
  side: ['side', '侧'],
  node: ['node', '节点'],
  type: ['type', '类型'],
  precision: ['precision', '精度'],
  overflowCol: ['overflow', '溢出'],
  log: ['Log', '日志'],
  language: ['Language: 中文 / English', '语言：中文 / English'],
  themeDark: ['Dark theme', '深色主题'],
  themeLight: ['Light theme', '浅色主题'],
  // graph workspace
  step: ['Step', 'Step'],
  rank: ['Rank', 'Rank'],
  microStep: ['MicroStep', 'MicroStep'],
  minimap: ['Minimap', '缩略图'],
  debugMinimap: ['Debug minimap', '调试侧缩略图'],
  benchMinimap: ['Bench minimap', '标杆侧缩略图'],
  syncExpansion: ['Sync expansion', '同步展开'],
  shortcuts: ['Shortcuts', '快捷键'],
  zoomIn: ['Zoom in', '放大'],
  zoomOut: ['Zoom out', '缩小'],
  moveLeft: ['Move left', '左移'],
  moveRight: ['Move right', '右移'],
  scroll: ['Scroll up / down', '上下滚动'],
  zoomAtPointer: ['Zoom at the pointer', '以指针为中心缩放'],
  resetView: ['Reset view', '重置视图'],
  fitToScreen: ['Fit to screen', '适应屏幕'],
  exportSvg: ['Export the visible graph as SVG', '将可见的图导出为 SVG'],
  exportPng: ['Export the visible graph as PNG', '将可见的图导出为 PNG'],
  exportCsv: ['Export the detail tables as CSV', '将详情表导出为 CSV'],
  exportTooBig: ['More than {0} boxes: narrow the view before exporting', '超过 {0} 个节点框：请缩小范围后再导出'],
  collapseBench: ['Show / hide the Bench pane', '显示/隐藏标杆侧'],
  panelFilter: ['Precision & overflow filter', '精度与溢出筛选'],
  panelMatching: ['Node matching', '节点匹配'],
  panelSearch: ['Node search', '节点搜索'],
  kindModule: ['Module or operator', '模块或算子'],
  kindLeaf: ['Non-expandable node', '不可展开节点'],
  kindLeafHelp: ['An API, operator or module without children; it cannot be expanded', '没有子节点的 API、算子或模块，不可展开'],
  kindApis: ['API list', 'API 列表'],
  kindApisHelp: ['Collection of free APIs between modules', '模块之间游离 API 的集合'],
  kindFused: ['Fused operator', '融合算子'],
  kindFusedHelp: ['Collection of fused operators', '融合算子的集合'],
  noPrecision: ['no precision (build)', '无精度（构图）'],
  markerComm: ['communication', '通信'],
  markerMerged: ['merged ranks', '已合并'],
  markerModified: ['matched by hand', '手动匹配'],
  nodeNotFound: ['Node not found: {0}', '未找到节点：{0}'],
  locateMatched: ['Locate matched node', '定位匹配节点'],
  rankUnavailable: ['Target rank is not available in this file', '目标 rank 不在此文件中'],
  noCounterpart: ['This node and its ancestors have no matched node', '该节点及其祖先都没有匹配节点'],
  dataSend: ['Data send', '数据发送'],
  dataReceive: ['Data receive', '数据接收'],
  dataSendReceive: ['Data send/receive', '数据发送/接收'],
  dataCommunication: ['Data communication', '数据通信'],
  // filter
  colourMode: ['Colour mode', '着色模式'],
  precisionError: ['Precision error', '精度误差'],
  overflow: ['Overflow', '溢出'],
  noOverflowData: ['This data was not generated with overflow detection', '该数据生成时未开启溢出检测'],
  filterHelp: ['Leaf nodes of the Debug side. Pass: 0 ≤ precision < 0.3; Warning: 0.3 ≤ precision < 0.6; Error: 0.6 ≤ precision ≤ 1; Unmatched: no counterpart. The graph colours follow the file\'s colour table.',
               '调试侧叶子节点。通过：0 ≤ 精度 < 0.3；警告：0.3 ≤ 精度 < 0.6；错误：0.6 ≤ 精度 ≤ 1；未匹配：无对应节点。图中颜色以文件的颜色表为准。'],
  pass: ['Pass', '通过'],
  warning: ['Warning', '警告'],
  error: ['Error', '错误'],
  unmatched: ['Unmatched', '未匹配'],
  medium: ['Medium', '中'],
  high: ['High', '高'],
  critical: ['Critical', '严重'],
  nodeList: ['Node list ({0})', '节点列表（{0}）'],
  searchByName: ['Search by name', '按名称搜索'],
  previous: ['Previous', '上一个'],
  next: ['Next', '下一个'],
  noData: ['No data', '暂无数据'],
  reachedTop: ['You have reached the top of the list', '已到达列表顶部'],
  reachedBottom: ['You have reached the bottom of the list', '已到达列表底部'],
  // search
  debug: ['Debug', '调试侧'],
  bench: ['Bench', '标杆侧'],
  // matching
  matchConfigFile: ['Match configuration file', '匹配配置文件'],
  chooseConfig: ['Choose match configuration file', '选择匹配配置文件'],
  chooseConfigHelp: ['Reads the node pairs from the file and matches them', '读取文件中的节点对并进行匹配'],
  generateConfig: ['Generate match configuration file', '生成匹配配置文件'],
  generateConfigHelp: ['Saves the manually matched pairs to {file}_{step}_{rank}.vis.config', '将手动匹配的节点对保存为 {file}_{step}_{rank}.vis.config'],
  createMatch: ['Create match', '创建匹配'],
  removeMatch: ['Remove match', '取消匹配'],
  debugUnmatched: ['Debug – unmatched ({0})', '调试侧 – 未匹配（{0}）'],
  benchUnmatched: ['Bench – unmatched ({0})', '标杆侧 – 未匹配（{0}）'],
  debugMatched: ['Debug – matched ({0})', '调试侧 – 已匹配（{0}）'],
  benchMatched: ['Bench – matched ({0})', '标杆侧 – 已匹配（{0}）'],
  alsoDescendants: ['Also apply to descendant nodes', '同时作用于子孙节点'],
  match: ['Match', '匹配'],
  unmatch: ['Unmatch', '取消匹配'],
  listEmpty: ['The node list is empty!', '节点列表为空！'],
  selectDebugUnmatched: ['Please select the debug-side unmatched node!', '请选择调试侧未匹配节点！'],
  selectBenchUnmatched: ['Please select the bench-side unmatched node!', '请选择标杆侧未匹配节点！'],
  selectToUnmatch: ['Please select the nodes to be unmatched!', '请选择要取消匹配的节点！'],
  matchOk: ['Match successful, corresponding node status has been updated', '匹配成功，对应节点状态已更新'],
  unmatchOk: ['Unmatch successful, corresponding node status has been updated', '取消匹配成功，对应节点状态已更新'],
  fileGenerated: ['File generated: {0}', '文件已生成：{0}'],
  notPairs: ['not an object of node pairs', '不是节点对对象'],
  configApplied: ['Matched by configuration file: total {0}, succeeded {1}, failed {2}', '按配置文件匹配：共 {0}，成功 {1}，失败 {2}'],
  // detail
  comparisonDetails: ['Comparison details', '比对详情'],
  ioDetails: ['Input/output details', '输入输出详情'],
  nodeInformation: ['Node information', '节点信息'],
  debugNode: ['Debug node:', '调试侧节点：'],
  benchNode: ['Bench node:', '标杆侧节点：'],
  debugRows: ['Debug', '调试侧'],
  benchRows: ['Bench', '标杆侧'],
  matchedParams: ['Matched parameters', '已匹配参数'],
  unmatchedParams: ['Unmatched parameters', '未匹配参数'],
  debugSide: ['Debug', '调试侧'],
  benchSide: ['Bench', '标杆侧'],
  stackInfo: ['Stack information', '堆栈信息'],
  mergeDetails: ['Parallel-merge details', '并行合并详情'],
  copy: ['Copy', '复制'],
  copied: ['Copied!', '已复制！'],
  copyFailed: ['Copy failed', '复制失败'],
  // beyond the reference: badges, navigator, cross-rank strip, deep links (BEY-03/04/08/09/10)
  badgeTitle: ['Leaves below: {0} error, {1} warning, {2} unmatched', '下方叶子节点：错误 {0}，警告 {1}，未匹配 {2}'],
  badgeOverflowTitle: ['Leaves below: {0} overflowing (worst: {1})', '下方叶子节点：溢出 {0}（最严重：{1}）'],
  panelNavigator: ['First-divergence navigator', '首个偏差导航'],
  firstDivergence: ['First divergence', '首个偏差'],
  prevFlagged: ['Previous flagged node (P)', '上一个问题节点 (P)'],
  nextFlagged: ['Next flagged node (N)', '下一个问题节点 (N)'],
  flaggedNodes: ['Flagged leaves in execution order ({0})', '按执行顺序的问题叶子节点（{0}）'],
  noFlagged: ['No flagged node in this graph', '此图中没有问题节点'],
  worstNodes: ['Worst nodes', '最差节点'],
  worstHelp: ['Compared leaves of the Debug side, metrics over their outputs; click a column to sort, a row to go to the node.',
              '调试侧已比对的叶子节点（指标取其输出中的最差值）；点击列标题排序，点击行跳转到节点。'],
  pageOf: ['{0}–{1} of {2}', '第 {0}–{1} 项，共 {2} 项'],
  crossStrip: ['This node on every step and rank', '此节点在各 step / rank 上的结果'],
  stripAbsent: ['not in this graph', '不在此图中'],
  stripCell: ['step {0}, rank {1}: {2}', 'step {0}，rank {1}：{2}'],
  copyLink: ['Copy link to this view', '复制当前视图链接'],
  linkCopied: ['Link copied', '链接已复制'],
  forgetStored: ['Forget stored data', '清除本地保存的数据'],
  forgotten: ['Stored data removed', '本地保存的数据已清除'],
  restoring: ['Restoring the last view from this browser\'s storage…', '正在从浏览器存储恢复上次的视图…'],
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

/** @param {string} key @param {...any} args */
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
  for (const e of root.querySelectorAll('[data-i18n-title]')) /** @type {HTMLElement} */ (e).title = t(/** @type {HTMLElement} */ (e).dataset.i18nTitle || '');
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
