// @ts-check
// The graph workspace (web-ui §3-§8): data selection, one pane (build) or two (compare) with a
// splitter, counterpart highlight and synchronised expansion, the side panels (filter, navigator,
// matching, search: one at a time, chosen from the rail), the detail panel, the context menu and
// exports. The panels, the rail, the data-selection popover and the context menu live in their own
// modules, each given what it uses (its deps); this file builds those and wires them to the panes.
import { Pane } from './pane.js';
import { parseColourTable } from './colours.js';
import { el, tel, setTitle, toast } from './dom.js';
import { buildRail } from './rail.js';
import { NameLists } from './name_index.js';
import { FilterPanel } from './panel_filter.js';
import { SearchPanel } from './panel_search.js';
import { MatchingPanel } from './panel_matching.js';
import { DetailPanel } from './panel_detail.js';
import { NavigatorPanel } from './panel_navigator.js';
import { SelectionPopover } from './panel_selection.js';
import { showContextMenu } from './context_menu.js';
import { HoverCard } from './hover_card.js';
import { drawBreadcrumb } from './breadcrumb.js';
import { actionOf, runAction } from './keys.js';
import { buildViewControls, drawLegend } from './view_controls.js';
import { paneSplitter, sideSplitter, dockSplitter } from './splitters.js';
import { viewStateOf, applyViewState } from './view_state.js';
import { t, onLanguage } from '../i18n.js';
import { paintPrefButtons, onTheme } from '../host/prefs.js';
import { LATER } from '../later.js';
import { graphConfig, matchStates } from './queries.js';

/** @typedef {import('./layout.js').GNode} GNode */

export class Workspace {
  // What open() reads from tb_config.
  /** @type {boolean} */ compare = LATER;
  /** @type {string} */ task = LATER;
  /** @type {number} */ microSteps = LATER;
  /** @type {boolean} */ overflowCheck = LATER;
  /** @type {import('./colours.js').ColourBucket[]} */ colors = LATER;
  /** @type {string|null} the legend's JSON (tb_config.node_colors) */ colorsJson = LATER;
  /** @type {number[]} */ steps = LATER;
  /** @type {number[]} */ ranks = LATER;
  /** @type {Record<string, string>} */ toolTips = LATER;
  // What buildChrome() makes (from open()).
  /** @type {SelectionPopover} */ selection = LATER;
  /** @type {string} */ sourceName = LATER;
  /** @type {HTMLSelectElement} */ stepSel = LATER;
  /** @type {HTMLSelectElement} */ rankSel = LATER;
  /** @type {HTMLSelectElement} */ microSel = LATER;
  /** @type {HTMLElement} */ scopeText = LATER;
  /** @type {HTMLElement} */ legendBox = LATER;
  /** @type {HTMLElement} */ crumbs = LATER;
  /** @type {HTMLElement[]} */ paneHosts = LATER;
  /** @type {FilterPanel} */ filter = LATER;
  /** @type {SearchPanel} */ search = LATER;
  /** @type {NavigatorPanel} */ navigator = LATER;
  /** @type {MatchingPanel|null} (compare only) */ matching = LATER;
  /** @type {Record<string, {panel: FilterPanel|SearchPanel|NavigatorPanel|MatchingPanel, button: HTMLElement}>} */ panels = LATER;
  /** @type {DetailPanel} */ detail = LATER;
  /** @type {HoverCard} */ card = LATER;
  // What view_controls.js buildViewControls keeps on the workspace.
  /** @type {HTMLInputElement|undefined} synchronised expansion (compare only) */ syncBox = undefined;
  /** @type {HTMLInputElement|undefined} synchronised pan and zoom (compare only) */ syncViewBox = undefined;
  /** @type {HTMLDetailsElement} the shortcut overlay */ shortcuts = LATER;
  /** @type {{svg: HTMLElement, png: HTMLElement, csv: HTMLElement}} the export menu's buttons (keys.js clicks them) */ exportButtons = LATER;

  /**
   * @param {HTMLElement} host @param {import('../engine/client.js').EngineClient} engine
   * @param {{dbName?: string, onState?: () => void, onEdit?: () => void, onCopyLink?: () => void, onIntake?: () => void,
   *          sources?: () => {list: {id: string, dir: string, name: string}[], current: string},
   *          onSource?: (id: string) => Promise<void>}} [opts]
   *   onState: the view state (viewState()) changed; onEdit: the database changed (manual match);
   *   sources: the graph databases of the tab by directory (SEL-01); onSource: show another one;
   *   onIntake: show the intake (APP-03)
   */
  constructor(host, engine, opts = {}) {
    this.host = host;
    this.engine = engine;
    this.opts = opts;
    this.dbName = opts.dbName || 'graph.vis.db';
    /** @type {Pane[]} */
    this.panes = [];
    this.nameLists = new NameLists(engine);
    /** The scope (scopeKey()) of the last load(). */
    this.loadedScope = '';
    this.abort = new AbortController();
    this.panel = 'filter';
    /** Set while applyState() restores a view: its moves do not count as the user's. */
    this.restoring = false;
  }

  async open() {
    const cfg = await graphConfig(this.engine);
    this.compare = cfg.compare;
    this.task = cfg.task;
    this.microSteps = cfg.microSteps;
    this.overflowCheck = cfg.overflowCheck;
    this.colors = parseColourTable(cfg.nodeColors);
    this.colorsJson = cfg.nodeColors;
    this.steps = cfg.steps;
    this.ranks = cfg.ranks;
    this.toolTips = cfg.toolTips;
    this.buildChrome();
    await this.load();
  }

  destroy() {
    this.abort.abort();
    for (const p of this.panes) p.destroy();
  }

  /** The workspace's page: toolbar, rail, side panels, panes and the docked detail panel. */
  buildChrome() {
    const h = this.host;
    h.textContent = '';
    h.hidden = false;
    const signal = this.abort.signal;
    const resized = () => { for (const p of this.panes) p.resized(); };
    const bar = this.buildBar();
    const panes = this.buildPanes(resized);
    this.buildPanels();
    // APP-03: the rail chooses the side panel.
    /** @type {[string, string, string, FilterPanel|SearchPanel|NavigatorPanel|MatchingPanel][]} */
    const tabs = [['filter', '⚑', 'panelFilter', this.filter], ['navigator', '⇢', 'panelNavigator', this.navigator]];
    if (this.matching) tabs.push(['matching', '⇆', 'panelMatching', this.matching]);
    tabs.push(['search', '⌕', 'panelSearch', this.search]);
    const { rail, dataButton, side, panels } = buildRail(tabs, { onPanel: (id) => this.showPanel(id), onIntake: this.opts.onIntake });
    this.panels = panels;
    const main = el('div', undefined, 'ws-main');
    const sideSplit = sideSplitter(side, resized);
    main.append(rail, this.selection.el, side, sideSplit, panes);
    // BEY-04: pans, zooms, toggles and list choices move the view state.
    for (const type of ['pointerup', 'wheel', 'keyup', 'dblclick', 'change']) main.addEventListener(type, () => this.stateChanged(), { signal, passive: true });
    // Issue 19: the detail panel docked under the graph, its height dragged on the splitter above it.
    const dock = el('div', undefined, 'ws-dock');
    dock.dataset.testid = 'detail-dock';
    const dockSplit = dockSplitter(h, resized);
    dock.append(this.crumbs, this.detail.el);
    h.append(bar, main, dockSplit, dock);
    this.card = new HoverCard({ fetchRow: (pane, name, side) => this.detail.fetchRow(pane, name, side), other: (p) => this.other(p), compare: this.compare });
    signal.addEventListener('abort', () => this.card.destroy());
    paintPrefButtons();
    this.showPanel(this.panel);
    this.legend();
    // The rail's button opens the popover; it closes on Escape and on a click elsewhere.
    this.selection.bind(dataButton, signal);
    this.wireKeys(signal);
    onLanguage(() => { this.legend(); }, signal);
    onTheme(() => { for (const p of this.panes) p.coloursChanged(); this.legend(); }, signal);   // fills and the canvas background follow the theme
  }

  /**
   * The toolbar: the data selection (SEL-01, a popover of the rail, its own module), the scope in
   * words, the legend and the view controls; and the breadcrumb the dock shows.
   */
  buildBar() {
    const bar = el('div', undefined, 'ws-bar');
    const selection = new SelectionPopover({
      dbName: this.dbName, steps: this.steps, ranks: this.ranks, microSteps: this.microSteps, onScope: () => this.load(),
      sources: this.opts.sources, onSource: this.opts.onSource,
    });
    this.selection = selection;
    this.sourceName = selection.sourceName;
    this.stepSel = selection.stepSel;
    this.rankSel = selection.rankSel;
    this.microSel = selection.microSel;
    // The scope in words, since the selects live in the popover.
    this.scopeText = el('span', '', 'ws-scope');
    this.scopeText.dataset.testid = 'scope';
    bar.append(this.scopeText);
    buildViewControls(this, bar);
    // Issue 46: the legend in the toolbar's one row, before the view controls.
    this.legendBox = el('div', undefined, 'ws-legend');
    this.legendBox.dataset.testid = 'legend';
    bar.insertBefore(this.legendBox, bar.querySelector('.ws-controls'));
    // Issue 19: the selected node's ancestors, each one click away.
    this.crumbs = el('nav', undefined, 'ws-crumbs');
    this.crumbs.dataset.testid = 'breadcrumb';
    this.crumbs.dataset.i18nAria = 'breadcrumb';
    this.crumbs.setAttribute('aria-label', t('breadcrumb'));
    return bar;
  }

  /** GR-01 / CMP-03: the pane hosts with a splitter; the Bench pane is collapsible. @param {() => void} resized */
  buildPanes(resized) {
    const panes = el('div', undefined, 'ws-panes');
    this.paneHosts = [el('div', undefined, 'ws-pane')];
    if (this.compare) this.paneHosts.push(el('div', undefined, 'ws-pane'));
    this.paneHosts[0].dataset.testid = 'pane-debug';
    panes.append(this.paneHosts[0]);
    if (this.paneHosts[1]) {
      this.paneHosts[1].dataset.testid = 'pane-bench';
      const splitter = paneSplitter(panes, this.paneHosts, resized);
      const collapse = el('button', '⇥', 'ws-collapse');
      collapse.dataset.testid = 'collapse-bench';
      setTitle(collapse, 'collapseBench');
      collapse.addEventListener('click', () => {
        const host = this.paneHosts[1];
        host.hidden = !host.hidden;
        collapse.textContent = host.hidden ? '⇤' : '⇥';
        if (host.hidden) this.paneHosts[0].style.flex = '1 1 0';
        resized();
      });
      splitter.append(collapse);
      panes.append(splitter, this.paneHosts[1]);
    }
    return panes;
  }

  /**
   * The side panels and the detail panel, each given exactly what it uses of the workspace (its
   * declared deps: FilterDeps, SearchDeps, NavigatorDeps, MatchingDeps, DetailDeps): the file's
   * settings as values (open() read them before), the panes and the filter's mode through functions
   * (they change with every load).
   */
  buildPanels() {
    const self = this;
    const { engine, compare, overflowCheck, colors, task } = this;
    const pane = (/** @type {number} */ side) => /** @type {Pane|undefined} */ (this.panes[side]);
    const names = (/** @type {number} */ side) => this.names(side);
    const selectFromList = (/** @type {Pane} */ p, /** @type {string} */ name) => this.selectFromList(p, name);
    this.filter = new FilterPanel({
      engine, compare, overflowCheck, colors, get panes() { return self.panes; }, setMode: (m) => this.setMode(m), selectFromList,
    });
    this.search = new SearchPanel({ compare, pane, names, selectFromList });
    this.navigator = new NavigatorPanel({ engine, compare, overflowCheck, colors, task, pane, selectFromList });
    this.matching = compare ? new MatchingPanel({
      engine, task, pane, names, invalidateNames: () => this.clearNames(), selectFromList, afterMatch: () => this.afterMatch(), dbName: () => this.dbName,
    }) : null;
    this.detail = new DetailPanel({
      engine, compare, overflowCheck, colors, steps: this.steps, ranks: this.ranks, toolTips: this.toolTips,
      colourMode: () => (this.filter && this.filter.mode ? this.filter.mode.value : 'precision'),
      sideOf: (p) => this.panes.indexOf(p),
      gotoScope: (step, rank, side, name) => this.gotoScope(step, rank, side, name),
      gotoPeer: (p, rank, name) => this.gotoPeer(p, rank, name),
    });
  }

  /** GI-04: keys act on the pane under the pointer, else on the focused pane. @param {AbortSignal} signal */
  wireKeys(signal) {
    document.addEventListener('keydown', (e) => {
      const target = /** @type {HTMLElement} */ (e.target);
      if (/^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName) || target.isContentEditable) return;
      if (this.host.hidden) return;
      // Issue 19: the workspace's actions (keys.js); W/A/S/D/0 act on one pane below.
      const action = actionOf(e);
      if (action && runAction(this, action, this.exportButtons)) { e.preventDefault(); return; }
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const p = this.panes.find((q) => q.hover && !q.host.hidden) || this.panes.find((q) => q.host.contains(target));
      if (p && p.key(e)) e.preventDefault();
    }, { signal });
  }

  /**
   * Issue 19: both panes expanded to `depth` (1: collapse all; Infinity: expand all, up to a cap of
   * boxes per pane), laid out and fitted to the pane's width.
   * @param {number} depth
   */
  async expandDepth(depth) {
    let truncated = false;
    for (const p of this.panes) {
      const r = await p.expandToDepth(depth);
      truncated = truncated || r.truncated;
      p.render();
    }
    this.host.dataset.depth = String(depth);
    if (truncated) toast(t('expandCapped'), 'warn');
    this.stateChanged();
  }

  /** Issue 19: the other pane takes this pane's pan and zoom (when synced). @param {Pane} p */
  syncView(p) {
    if (!this.syncViewBox || !this.syncViewBox.checked) return;
    const o = this.other(p);
    if (!o || o.host.hidden) return;
    o.t = { ...p.t };
    o.syncing = true;
    try { o.schedule(); } finally { o.syncing = false; }
  }

  /** BEY-04: tell the page the view state moved (it rewrites the URL fragment, debounced). */
  stateChanged() {
    if (this.opts.onState && !this.restoring) this.opts.onState();
  }

  /** BEY-04: the view state as plain strings (deep link and restore; graph/view_state.js). */
  viewState() { return viewStateOf(this); }

  /** BEY-04: restores a viewState() (values from a URL: each is checked). @param {Record<string, string>} s */
  applyState(s) { return applyViewState(this, s); }

  /** @param {string} id */
  showPanel(id) {
    if (!this.panels[id]) id = 'filter';
    this.panel = id;
    this.stateChanged();
    for (const [k, { panel, button }] of Object.entries(this.panels)) {
      panel.el.hidden = k !== id;
      button.classList.toggle('active', k === id);
      button.setAttribute('aria-selected', String(k === id));
    }
    const active = this.panels[id].panel;
    if (active === this.matching && this.matching && !this.matching.loaded) this.matching.refresh();
    if (active === this.search) this.search.list.draw();
    if (active === this.filter) this.filter.list.draw();
    if (active === this.navigator) { this.navigator.list.draw(); this.navigator.ensure().catch(() => {}); }
  }

  /** @param {number} i @param {boolean} on */
  setMinimap(i, on) {
    const p = this.panes[i];
    if (!p) return;
    p.minimap.visible = on;
    p.draw(true);
  }

  /** GR-05: the colour mode of every pane and the legend. @param {string} mode */
  setMode(mode) {
    for (const p of this.panes) { p.mode = mode; p.recolour(); }
    this.legend();
  }

  /**
   * The shared name list of a side in the current scope (SRCH-02: loaded once); one dropped while it
   * loaded gives the list of the side's scope then. @param {number} side @returns {Promise<import('./name_index.js').NameIndex>}
   */
  names(side) {
    const p = this.panes[side] || this.panes[0];
    return this.nameLists.get(p.scope, () => this.names(side));
  }

  /** Drops the name lists (they are reloaded on demand). */
  clearNames() { this.nameLists.clear(); }

  /** GR-08: node kinds and the active colour scale. */
  legend() { drawLegend(this.legendBox, { overflow: !!(this.filter && this.filter.mode.value === 'overflow'), compare: this.compare, colors: this.colors }); }

  /** The step / rank / micro-step the selectors show. */
  scopeKey() { return `${this.stepSel.value}/${this.rankSel.value}/${this.microSel.value}`; }

  /** SEL-02: a new step / rank / micro-step: panes, selection, view, filter, lists reset. */
  async load() {
    this.loadedScope = this.scopeKey();
    const step = Number(this.stepSel.value);
    const rank = Number(this.rankSel.value);
    const micro = Number(this.microSel.value);
    const sides = this.compare ? ['NPU', 'Bench'] : ['NPU'];
    for (const p of this.panes) p.destroy();
    if (this.filter) this.filter.reset();
    if (this.navigator) this.navigator.invalidate();
    this.panes = sides.map((side, i) => new Pane(this.paneHosts[i], this.engine, {
      side: /** @type {'NPU'|'Bench'} */ (side), step, rank, micro, compare: this.compare, colors: this.colors,
      threshold: window.visprobeCanvasThreshold,
      onSelect: (p, n) => this.select(p, n),
      onToggle: (p, n) => this.syncToggle(p, n),
      onMenu: (p, n, x, y) => showContextMenu(this, p, n, x, y),
      onView: (p) => this.syncView(p),
      onHover: (p, n, x, y) => this.card.hover(p, n, x, y),
    }));
    for (const p of this.panes) { p.mode = 'precision'; await p.load(); p.render(); }
    for (let i = 0; i < this.panes.length; ++i) {
      const box = /** @type {HTMLInputElement|null} */ (this.host.querySelector(`#ws-minimap-${i}`));
      if (box && !box.checked) this.setMinimap(i, false);
    }
    this.clearNames();
    // Warm the name lists in the background (search, then matching); they load in chunks, so a
    // click meanwhile waits for one chunk at most.
    this.names(0).then(() => (this.compare ? this.names(1) : null)).catch(() => {});
    this.detail.clear();
    this.crumbs.textContent = '';
    this.search.reset();
    if (this.matching) {
      this.matching.reset();
      if (this.panel === 'matching') this.matching.refresh();
    }
    // The source name in its own span: the app's toolbar already shows it, so there it is hidden
    // and the scope keeps to the step, rank and micro step (the view controls fit one line).
    this.scopeText.textContent = '';
    this.scopeText.append(el('span', `${this.sourceName} · `, 'ws-scope-src'),
                          tel('span', 'scopeWhere', undefined, step, rank, micro < 0 ? 'ALL' : micro));
    this.scopeText.title = this.sourceName;
    this.host.dataset.loaded = String((Number(this.host.dataset.loaded) || 0) + 1);
    this.stateChanged();
  }

  /** @param {Pane} p */
  other(p) { return this.panes.find((q) => q !== p) || null; }

  /**
   * GI-08 and issue 19: reveal, centre and select the node, and reveal and centre its matched
   * node in the other pane (every jump: lists, navigator, search, strip, deep link, breadcrumb).
   * @param {Pane} p @param {string} name
   */
  async selectFromList(p, name) {
    const n = await p.reveal(name);
    if (!n) { toast(t('nodeNotFound', name), 'warn'); return; }
    p.render();
    p.centre(n, true);
    await this.revealCounterpart(p, n);
    await this.select(p, n);
  }

  /** Issue 19: the matched node of `n` revealed and centred in the other pane. @param {Pane} p @param {GNode} n */
  async revealCounterpart(p, n) {
    const o = this.other(p);
    if (!o || o.host.hidden || !n.link.length) return;
    const c = await o.reveal(n.link[n.link.length - 1]);
    if (!c) return;
    o.render();
    o.centre(c, true);
  }

  /** MAT-05: recolour without losing expansion or view; refresh lists and details. */
  async afterMatch() {
    for (const pane of this.panes) {
      // Only loaded nodes are drawn: re-read their precision, link and modified flag.
      for (const s of await matchStates(this.engine, pane.scope, [...pane.nodes.keys()])) {
        const n = pane.nodes.get(s.name);
        if (!n) continue;
        n.precision = s.precision;
        n.link = s.link;
        n.modified = s.modified;
      }
      await pane.reloadBadges();
      pane.coloursChanged();
    }
    this.navigator.invalidate();
    if (this.opts.onEdit) this.opts.onEdit();
    if (this.matching) await this.matching.refresh();
    this.search.index = null;
    await this.search.run();
    const sel = this.panes.find((q) => q.selected);
    if (sel) await this.select(sel, /** @type {GNode} */ (sel.selected), true);
  }

  /**
   * GI-03: switch to the peer's rank and, once its graph is loaded, select the peer.
   * @param {Pane} p @param {string} rank as the peer list names it @param {string} name
   */
  async gotoPeer(p, rank, name) {
    await this.gotoScope(Number(this.stepSel.value), rank, this.panes.indexOf(p), name);
  }

  /**
   * BEY-10: switch to (step, rank) and select `name` in pane `side` there (none: the first).
   * @param {number} step @param {number|string} rank @param {number} side @param {string} name
   */
  async gotoScope(step, rank, side, name) {
    if (![...this.stepSel.options].some((o) => o.value === String(step)) ||
        ![...this.rankSel.options].some((o) => o.value === String(rank))) { toast(t('rankUnavailable'), 'warn'); return; }
    this.stepSel.value = String(step);
    this.rankSel.value = String(rank);
    await this.load();
    await this.selectFromList(this.panes[side >= 0 && this.panes[side] ? side : 0], name);
  }

  /**
   * GI-01 / CMP-01: select, highlight the counterpart, wire the lists and the detail panel.
   * @param {Pane} p @param {GNode} n @param {boolean} [force]  refresh even if already selected
   */
  async select(p, n, force = false) {
    const o = this.other(p);
    const counterpart = n.link.length ? n.link[n.link.length - 1] : null;
    if (!force && p.selected === n && (!o || (o.selected === null && o.highlight === counterpart))) return;
    p.prefetch(n);
    // A synced double-click expands the counterpart too: its children load in the same queue,
    // so they are ready when this side has drawn (not one query later).
    if (o && counterpart && this.syncBox && this.syncBox.checked && o.nodes.has(counterpart)) o.prefetch(/** @type {GNode} */ (o.nodes.get(counterpart)));
    p.selected = n;
    p.highlight = null;
    if (o) { o.selected = null; o.highlight = counterpart; o.restyle(); }
    p.restyle();
    drawBreadcrumb(this.crumbs, n, (name) => { this.selectFromList(p, name).catch(() => {}); });
    const debug = p.opts.side === 'NPU';
    if (this.matching) this.matching.onSelect(debug, n, counterpart);
    if (debug) { this.filter.sync(); this.navigator.sync(); }
    if (this.panes.indexOf(p) === this.search.side) this.search.sync();
    this.stateChanged();
    await this.detail.show(p, n, o ? counterpart : null, o);
  }

  /** CMP-02: bring the counterpart to the same expansion state (re-centred only if it was revealed). @param {Pane} p @param {GNode} n */
  async syncToggle(p, n) {
    const o = this.other(p);
    if (!o || !this.syncBox || !this.syncBox.checked) return;
    /** @type {GNode|null} */
    let cur = n;
    while (cur && !cur.link.length) cur = cur.parent;
    if (!cur) return;
    const name = cur.link[cur.link.length - 1];
    const wasLaid = o.nodes.has(name) && o.laid.includes(/** @type {GNode} */ (o.nodes.get(name)));
    const c = await o.reveal(name);
    if (!c) return;
    if (c.expanded !== n.expanded) await o.toggleState(c);
    o.render();
    if (!wasLaid) o.centre(c);
  }
}
