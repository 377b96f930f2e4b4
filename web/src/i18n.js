// @ts-check
// Chinese and English for the page and both workspaces (web-ui X-01). Elements carry their key
// in data-i18n (text, arguments in data-i18n-args), data-i18n-title (data-i18n-title-args),
// data-i18n-placeholder, data-i18n-aria; applyLanguage()
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
  dbUrlBad: ['?db={0} is not a URL.', '?db={0} 不是有效的 URL。'],
  dbUrlOrigin: ['?db={0} is on another site: the page opens databases of its own site ({1}) or relative paths; download the file and open it instead.', '?db={0} 位于其他站点：页面只打开本站（{1}）或相对路径的数据库；请下载该文件后打开。'],
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
  summaryRows: ['tb_nodes rows', 'tb_nodes 行数'],
  summaryGraphs: ['graphs', '图数量'],
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
  yamlNotMapping: ['the top level is not a mapping of class names', '顶层不是类名映射'],
  notLayerMapping: ['{0}: not a layer-mapping YAML file ({1})', '{0}：不是层映射 YAML 文件（{1}）'],
  noSample: ['No sample here: {0}', '此处没有示例：{0}'],
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
  layoutRanks: ['{0} rank folder(s): {1}', '{0} 个 rank 目录：{1}'],
  layoutSteps: ['{0} step folder(s) × {1} rank folder(s)', '{0} 个 step 目录 × {1} 个 rank 目录'],
  layoutMonitor: ['monitor run: {0} rank folder(s) of CSV files (for the trend views)', 'monitor 输出：{0} 个包含 CSV 文件的 rank 目录（用于趋势视图）'],
  layoutUnknown: ['no msProbe dump layout recognised (expected construct.json / dump.json / stack.json, rankN/ or stepN/rankN/)',
                  '未识别到 msProbe dump 目录结构（应为 construct.json / dump.json / stack.json、rankN/ 或 stepN/rankN/）'],
  // graph workspace
  rail: ['Graph tools', '图工具栏'],
  dataSelection: ['Data selection', '数据选择'],
  directory: ['Directory', '目录'],
  file: ['File', '文件'],
  openedFiles: ['Opened files', '已打开的文件'],
  filterOptions: ['Filter…', '筛选…'],
  scopeWhere: ['Step {0} · Rank {1} · MicroStep {2}', '步 {0} · 卡 {1} · 微步 {2}'],
  // issue 19: the app workspace
  syncView: ['Sync pan / zoom', '同步平移 / 缩放'],
  expandAll: ['Expand all', '全部展开'],
  collapseAll: ['Collapse all', '全部折叠'],
  expandToDepth: ['Expand to depth N', '展开到第 N 层'],
  depthN: ['depth…', '层级…'],
  expandCapped: ['Expanded as far as 6,000 boxes per graph: expand deeper modules one by one.', '每张图最多展开 6,000 个节点：更深的模块请逐个展开。'],
  breadcrumb: ['Ancestors of the selected node', '选中节点的祖先'],
  helpShortcuts: ['This list of shortcuts', '本快捷键列表'],
  nextPrevFlagged: ['Next / previous flagged node', '下一个 / 上一个问题节点'],
  closeOverlay: ['Close the drawer, menu or overlay', '关闭抽屉、菜单或浮层'],
  moreItems: ['… {0} more', '… 另有 {0} 项'],
  helpNoWorkspace: ['Shortcuts are listed in the graph workspace (?).', '快捷键列表位于图工作区（?）。'],
  buildOpenData: ['Build / open data', '构建 / 打开数据'],
  debugGraph: ['Debug graph', '调试侧图'],
  benchGraph: ['Bench graph', '标杆侧图'],
  noGraph: ['No graph for step {0}, rank {1} ({2}).', 'step {0}、rank {1} 没有图（{2}）。'],
  shortcutWheel: ['⇕ wheel', '⇕ 滚轮'],
  shortcutCtrlWheel: ['Ctrl + wheel', 'Ctrl + 滚轮'],
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
  openConfig: ['Open .vis.config…', '打开 .vis.config…'],
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
  sideColumn: ['Side', '侧'],
  exportMenu: ['Export', '导出'],
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
  // trend workspace (TR-01..TR-11, BEY-11)
  trDb: ['Database file', '数据库文件'],
  trDbHelp: ['The opened .trend.db files, by name. Switching resets every selection.', '已打开的 .trend.db 文件（按名称）。切换文件会重置所有选择。'],
  trCompare: ['Compare with', '比较对象'],
  trCompareHelp: ['Another opened .trend.db as run B: the same metric, statistic and selection of both files, aligned by step, rank and module name (ids may differ).',
                  '将另一个已打开的 .trend.db 作为运行 B：两个文件使用相同的指标、统计量和选择，按 step、rank 和模块名对齐（id 可以不同）。'],
  trView: ['Comparison view', '比较视图'],
  trViewHelp: ['Run A (the Database file), run B, or A − B (diverging colours centred on 0; NULL and ±inf are never subtracted). A and B share one colour scale. A click adds the A and B series (and A − B in the A − B view).',
               '运行 A（数据库文件）、运行 B，或 A − B（以 0 为中心的发散色；NULL 和 ±inf 不参与相减）。A 与 B 共用一个色阶。点击会添加 A 和 B 的曲线（A − B 视图中还有 A − B）。'],
  trMetric: ['Metric', '指标'],
  trMetricHelp: ['Category of the values: forward / backward / recompute / parameters_grad (dump) or the monitor file prefix.',
                 '数值类别：forward / backward / recompute / parameters_grad（dump），或 monitor 文件前缀。'],
  trStat: ['Statistic', '统计量'],
  trStatHelp: ['The statistic drawn: one column of trend_data for this metric.', '绘制的统计量：该指标在 trend_data 中的一列。'],
  trDimension: ['Dimension', '维度'],
  trDimensionHelp: ['The dimension held fixed. Step: ranks × modules at one step; Rank: steps × modules on one rank; Module Name: steps × ranks of one module.',
                    '固定的维度。Step：某一 step 下的 rank × 模块；Rank：某一 rank 上的 step × 模块；模块名：某一模块的 step × rank。'],
  trValue: ['Value', '取值'],
  trValueHelp: ['The fixed value of the dimension. Type to filter (case-insensitive).', '固定维度的取值。输入文字可筛选（不区分大小写）。'],
  trTags: ['Tags', '标签'],
  trTagsHelp: ['Only modules carrying all selected tags (layer, module class, input/output index …). Type to filter.',
               '仅显示带有全部所选标签（层、模块类、输入/输出序号等）的模块。输入文字可筛选。'],
  trMode: ['Heat map mode', '热力图模式'],
  trModeHelp: ['Gradient: continuous colours from the minimum to the maximum. Segmented: pieces at μ ± 1, 2, 3 σ.', '渐变：从最小值到最大值的连续颜色。分段：按 μ ± 1、2、3 σ 分段。'],
  trScale: ['Colour scale', '色阶'],
  trScaleHelp: ['How Gradient mode spreads its colours: linear in the value, symmetric log10, or by quantile (rank), which keeps ±1e9 clipped values from flattening the map.',
                '渐变模式的颜色分布方式：按数值线性、对称 log10，或按分位数（排名），后者可避免 ±1e9 截断值使整张图失去层次。'],
  trGradient: ['Gradient', '渐变'],
  trSegmented: ['Segmented', '分段'],
  trLinear: ['Linear', '线性'],
  trLog: ['Log', '对数'],
  trQuantile: ['Quantile', '分位数'],
  trNone: ['— none —', '— 无 —'],
  trDownload: ['Download .trend.db', '下载 .trend.db'],
  trThisFile: ['This file', '本文件'],
  trTabTrend: ['Heat map & trend', '热力图与趋势'],
  trTabParallel: ['Model parallelism', '模型并行'],
  trHeatMap: ['Heat map', '热力图'],
  trTrend: ['Trend', '趋势'],
  trNoMetric: ['Heat map — this file has no metric with statistics', '热力图 — 此文件中没有带统计量的指标'],
  trError: ['Trend view: {0}', '趋势视图：{0}'],
  trStep: ['Step', 'Step'],
  trRank: ['Rank', 'Rank'],
  trModuleName: ['Module Name', '模块名'],
  trFilter: ['filter…', '筛选…'],
  trFilterTags: ['filter tags…', '筛选标签…'],
  trDeselectTags: ['Deselect all tags', '取消选择全部标签'],
  trTagsSelected: ['{0} selected', '已选 {0} 个'],
  trTagsNone: ['none', '未选择'],
  trNoTags: ['no tags', '没有标签'],
  trNoCells: ['No data for this selection.', '当前选择没有数据。'],
  trValueLabel: ['Value: ', '数值：'],
  trNoData: ['no data', '无数据'],
  trOnlyA: ['only in A', '仅 A 有'],
  trOnlyB: ['only in B', '仅 B 有'],
  trInfAB: ['±inf in A or B', 'A 或 B 中为 ±inf'],
  trNoFinite: ['no finite values', '没有有限数值'],
  trRemoveAll: ['Remove all series', '移除全部曲线'],
  trToggleSeries: ['{0} — click to hide / show', '{0} — 点击隐藏 / 显示'],
  trRemoveSeries: ['Remove this series', '移除此曲线'],
  trRemoveNamed: ['Remove {0}', '移除 {0}'],
  trExportHeat: ['Export the heat map as {0}', '将热力图导出为 {0}'],
  trExportLine: ['Export the line chart as {0}', '将折线图导出为 {0}'],
  trBNoModule: ['B has no such module', 'B 中没有该模块'],
  trDropped: ['({0} points of targets A lacks left out)', '（省略了 A 中没有的目标的 {0} 个点）'],
  trAbsent: ['absent', '缺失'],
  trNotCompared: ['not compared ({0})', '未比较（{0}）'],
  trTargetIds: ['target id: A {0} · B {1}', '目标 id：A {0} · B {1}'],
  parWorldSize: ['World size', '设备总数'],
  parWorldSizeHelp: ['Total number of devices (1 … 1024).', '设备总数（1 … 1024）。'],
  parLayers: ['Layers', '层数'],
  parLayersHelp: ['Number of transformer layers (1 … 256).', 'Transformer 层数（1 … 256）。'],
  parTp: ['TP', 'TP'],
  parTpHelp: ['Tensor-parallel size (default 1).', '张量并行大小（默认 1）。'],
  parPp: ['PP', 'PP'],
  parPpHelp: ['Pipeline-parallel size (default 1).', '流水线并行大小（默认 1）。'],
  parVirtual: ['Layers per virtual stage', '每个虚拟阶段的层数'],
  parVirtualHelp: ['Empty: virtual pipeline off. Otherwise the number of layers per virtual pipeline stage.', '留空：不使用虚拟流水线；否则为每个虚拟流水线阶段的层数。'],
  parOrder: ['Order', '顺序'],
  parOrderHelp: ['Rank ordering of the parallel dimensions, e.g. tp-cp-ep-dp-pp (first varies fastest).', '并行维度的 rank 排列顺序，例如 tp-cp-ep-dp-pp（第一个变化最快）。'],
  parStandalone: ['Standalone embedding stage', '独立嵌入阶段'],
  parStandaloneHelp: ['The first pipeline stage holds only the embedding.', '第一个流水线阶段只包含嵌入层。'],
  parDraw: ['Draw', '绘制'],
  parExport: ['Export the chart', '导出图表'],
  parTooLarge: ['Large-scale drawing ({0} cells) may cause memory overflow.', '大规模绘制（{0} 个单元格）可能导致内存溢出。'],
  parLarge: ['Large-scale drawing ({0} cells) may take a long time.', '大规模绘制（{0} 个单元格）可能耗时较长。'],
  parStage: ['Stage {0}', '阶段 {0}'],
  parVppAxis: ['Virtual Pipeline Stage', '虚拟流水线阶段'],
  parTpAxis: ['TP Group', 'TP 组'],
  parCopies: ['Model Copies', '模型副本'],
  parCopy: ['Model Copy {0}', '模型副本 {0}'],
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
