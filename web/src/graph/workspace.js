// @ts-check
// The graph workspace (web-ui §3-§8): step / rank / micro-step selectors, one pane (build) or two
// (compare) with counterpart highlight and synchronised expansion, precision / overflow colouring
// with the file's legend, search with jump, and the detail panel. Every value from the database
// is set as text.
import { Pane } from './pane.js';
import { saveBlob as save } from '../host/download.js';

const DEFAULT_COLORS = [
  { colour: '#FFFCF3', lo: 0, hi: 0.3, level: 'pass' },
  { colour: '#FFDC7F', lo: 0.3, hi: 0.6, level: 'warning' },
  { colour: '#FF704D', lo: 0.6, hi: 1, level: 'error' },
];

/** @param {string} tag @param {string} [text] @param {string} [cls] */
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

export class Workspace {
  /** @param {HTMLElement} host @param {import('../engine/client.js').EngineClient} engine */
  constructor(host, engine) {
    this.host = host;
    this.engine = engine;
    /** @type {Pane[]} */
    this.panes = [];
  }

  async open() {
    const cfg = await this.engine.query('SELECT graph_type, task, micro_steps, overflow_check, node_colors, rank_list, step_list FROM tb_config');
    const row = cfg.values[0] || ['build', '', 1, 0, 'null', '[0]', '[0]'];
    this.compare = row[0] === 'compare';
    this.microSteps = Number(row[2]) || 1;
    this.colors = DEFAULT_COLORS;
    try {
      const table = JSON.parse(row[4]);
      if (table && typeof table === 'object') {
        const list = Object.entries(table)
          .filter(([, v]) => Array.isArray(v.value) && v.value.length === 2)
          .map(([colour, v]) => ({ colour, lo: Number(v.value[0]), hi: Number(v.value[1]), level: v.accuracy_level || '' }));
        if (list.length) this.colors = list;
      }
    } catch { /* keep the default table */ }
    const parse = (t, d) => { try { const v = JSON.parse(t); return Array.isArray(v) && v.length ? v : d; } catch { return d; } };
    this.steps = parse(row[6], [0]);
    this.ranks = parse(row[5], [0]);
    this.buildChrome();
    await this.load();
  }

  buildChrome() {
    const h = this.host;
    h.textContent = '';
    h.hidden = false;
    const bar = el('div', undefined, 'ws-bar');
    const selectOf = (label, values, id) => {
      const lab = el('label', label + ' ');
      const s = /** @type {HTMLSelectElement} */ (el('select'));
      s.id = id;
      for (const v of values) s.append(new Option(String(v[1] ?? v), String(v[0] ?? v)));
      lab.append(s);
      bar.append(lab);
      return s;
    };
    this.stepSel = selectOf('Step', this.steps.map((s) => [s, s]), 'ws-step');
    this.rankSel = selectOf('Rank', this.ranks.map((r) => [r, r]), 'ws-rank');
    const micro = [[-1, 'ALL']];
    for (let i = 0; i < this.microSteps; ++i) micro.push([i, i]);
    this.microSel = selectOf('MicroStep', micro, 'ws-micro');
    for (const s of [this.stepSel, this.rankSel, this.microSel]) s.addEventListener('change', () => this.load());
    const mode = /** @type {HTMLSelectElement} */ (el('select'));
    mode.id = 'ws-mode';
    mode.append(new Option('Precision', 'precision'), new Option('Overflow', 'overflow'));
    mode.addEventListener('change', () => {
      for (const p of this.panes) { p.mode = mode.value; p.render(); }
      this.legend();
      this.fillChecks();   // FLT-01: switching mode clears the boxes and the list
    });
    const modeLab = el('label', 'Colour ');
    modeLab.append(mode);
    bar.append(modeLab);
    this.modeSel = mode;
    if (this.compare) {
      const sync = /** @type {HTMLInputElement} */ (el('input'));
      sync.type = 'checkbox';
      sync.checked = true;
      sync.id = 'ws-sync';
      const lab = el('label');
      lab.append(sync, ' Sync expansion');
      bar.append(lab);
      this.syncBox = sync;
    }
    const exportSvg = el('button', 'SVG');
    exportSvg.title = 'Export the visible graph as SVG';
    exportSvg.addEventListener('click', () => this.exportGraph('svg'));
    const exportPng = el('button', 'PNG');
    exportPng.title = 'Export the visible graph as PNG';
    exportPng.addEventListener('click', () => this.exportGraph('png'));
    const exportCsv = el('button', 'CSV');
    exportCsv.title = 'Export the detail tables as CSV';
    exportCsv.addEventListener('click', () => this.exportCsv());
    bar.append(exportSvg, exportPng, exportCsv);
    const fit = el('button', 'Fit to screen');
    fit.addEventListener('click', () => this.panes.forEach((p) => p.fit()));
    bar.append(fit);
    const search = /** @type {HTMLInputElement} */ (el('input'));
    search.type = 'search';
    search.placeholder = 'search nodes';
    search.maxLength = 200;
    search.id = 'ws-search';
    bar.append(search);
    // SRCH-01: search the Debug or the Bench side.
    this.searchSide = /** @type {HTMLSelectElement} */ (el('select'));
    this.searchSide.id = 'ws-search-side';
    this.searchSide.append(new Option('Debug', '0'));
    if (this.compare) this.searchSide.append(new Option('Bench', '1'));
    this.searchSide.addEventListener('change', () => this.search(search.value));
    bar.append(this.searchSide);
    this.legendBox = el('div', undefined, 'ws-legend');
    const panes = el('div', undefined, 'ws-panes');
    this.paneHosts = [el('div', undefined, 'ws-pane')];
    if (this.compare) this.paneHosts.push(el('div', undefined, 'ws-pane'));
    this.paneHosts[0].dataset.testid = 'pane-debug';
    if (this.paneHosts[1]) this.paneHosts[1].dataset.testid = 'pane-bench';
    panes.append(this.paneHosts[0]);
    if (this.paneHosts[1]) {
      // CMP-03: a draggable splitter; each pane keeps at least 20 % and its own transform.
      const splitter = el('div', undefined, 'ws-splitter');
      splitter.dataset.testid = 'splitter';
      splitter.addEventListener('pointerdown', (e) => {
        splitter.setPointerCapture(e.pointerId);
        const box = panes.getBoundingClientRect();
        const move = (/** @type {PointerEvent} */ ev) => {
          const share = Math.min(0.8, Math.max(0.2, (ev.clientX - box.left) / box.width));
          this.paneHosts[0].style.flex = `0 0 ${(share * 100).toFixed(2)}%`;
          this.paneHosts[1].style.flex = '1 1 0';
          for (const p of this.panes) p.schedule();
        };
        const up = () => { splitter.removeEventListener('pointermove', move); splitter.removeEventListener('pointerup', up); };
        splitter.addEventListener('pointermove', move);
        splitter.addEventListener('pointerup', up);
      });
      panes.append(splitter, this.paneHosts[1]);
    }
    const side = el('div', undefined, 'ws-side');
    side.append(this.buildFilter());
    if (this.compare) side.append(this.buildMatching());
    side.append(el('h4', 'Search results'));
    this.results = el('ul', undefined, 'ws-results');
    side.append(this.results);
    const main = el('div', undefined, 'ws-main');
    main.append(panes, side);
    this.detail = el('div', undefined, 'ws-detail');
    this.detail.dataset.testid = 'detail';
    h.append(bar, this.legendBox, main, this.detail);
    let timer = 0;
    search.addEventListener('input', () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => this.search(search.value), 120);
    });
    this.legend();
  }

  /** §8.3: manual match / unmatch (compare graphs). */
  buildMatching() {
    const box = el('div', undefined, 'ws-matching');
    box.dataset.testid = 'matching';
    const sel = (id, label) => {
      const lab = el('label', label + ' ');
      const s = /** @type {HTMLSelectElement} */ (el('select'));
      s.id = id;
      lab.append(s);
      box.append(lab);
      return s;
    };
    box.append(el('h4', 'Matching'));
    this.dbgUnmatched = sel('ws-dbg-unmatched', 'Debug – unmatched');
    this.bchUnmatched = sel('ws-bch-unmatched', 'Bench – unmatched');
    const desc = /** @type {HTMLInputElement} */ (el('input'));
    desc.type = 'checkbox';
    desc.checked = true;
    desc.id = 'ws-descendants';
    const dl = el('label');
    dl.append(desc, ' Also apply to descendant nodes');
    box.append(dl);
    const matchBtn = el('button', 'Match');
    matchBtn.id = 'ws-match';
    box.append(matchBtn);
    this.dbgMatched = sel('ws-dbg-matched', 'Debug – matched');
    this.bchMatched = sel('ws-bch-matched', 'Bench – matched');
    const unmatchBtn = el('button', 'Unmatch');
    unmatchBtn.id = 'ws-unmatch';
    box.append(unmatchBtn);
    // MAT-06: match configuration files.
    const gen = el('button', 'Generate match configuration file');
    gen.id = 'ws-gen-config';
    gen.addEventListener('click', () => this.generateConfig());
    const applyLab = el('label', 'Apply configuration ');
    const apply = /** @type {HTMLInputElement} */ (el('input'));
    apply.type = 'file';
    apply.accept = '.config,.json';
    apply.id = 'ws-apply-config';
    apply.addEventListener('change', async () => {
      const f = apply.files && apply.files[0];
      apply.value = '';
      if (f) await this.applyConfig(f);
    });
    applyLab.append(apply);
    box.append(gen, applyLab);
    const load = el('button', 'Load lists');
    load.id = 'ws-load-lists';
    load.addEventListener('click', () => this.refreshMatchLists(true));
    box.append(load);
    this.matchMsg = el('p', '', 'ws-match-msg');
    this.matchMsg.dataset.testid = 'match-msg';
    box.append(this.matchMsg);
    this.descBox = desc;
    matchBtn.addEventListener('click', () => this.doMatch(true));
    unmatchBtn.addEventListener('click', () => this.doMatch(false));
    for (const [s, side] of [[this.dbgUnmatched, 0], [this.bchUnmatched, 1], [this.dbgMatched, 0], [this.bchMatched, 1]]) {
      s.addEventListener('focus', () => { if (!this.matchListsWanted) this.refreshMatchLists(true); });
      s.addEventListener('change', async () => {
        const p = this.panes[side];
        if (!p || !s.value) return;
        const n = await p.reveal(s.value);
        if (n) { p.render(); p.centre(n); await this.select(p, n); }
      });
    }
    return box;
  }

  async generateConfig() {
    const p = this.panes[0];
    const r = await this.engine.query(
      "SELECT node_name, matched_node_link FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = 'NPU' AND modified = 1 AND matched_node_link NOT IN ('', '[]') ORDER BY node_order",
      [p.opts.step, p.opts.rank]);
    const pairs = {};
    for (const [name, link] of r.values) {
      try { const l = JSON.parse(link); if (l.length) pairs[name] = l[l.length - 1]; } catch { /* skip */ }
    }
    const dbName = (document.querySelector('[data-testid=db-name]') || {}).textContent || 'graph.vis.db';
    const name = `${dbName.replace(/\.vis\.db$|\.db$/, '')}_${p.opts.step}_${p.opts.rank}.vis.config`;
    save(new Blob([JSON.stringify(pairs, null, 4)], { type: 'application/json' }), name);
    this.matchMsg.textContent = `File generated: ${name}`;
    this.matchMsg.className = 'ws-match-msg ok';
  }

  /** @param {File} file */
  async applyConfig(file) {
    let pairs;
    try {
      pairs = JSON.parse(await file.text());
      if (!pairs || typeof pairs !== 'object' || Array.isArray(pairs)) throw new Error('not an object of node pairs');
    } catch (e) {
      this.matchMsg.textContent = `${file.name}: ${/** @type {Error} */ (e).message}`;
      this.matchMsg.className = 'ws-match-msg bad';
      return;
    }
    const p = this.panes[0];
    let ok = 0;
    let failed = 0;
    for (const [npu, bench] of Object.entries(pairs)) {
      try {
        await this.engine.match({ step: p.opts.step, rank: p.opts.rank, npu, bench: String(bench), descendants: false });
        ok += 1;
      } catch { failed += 1; }
    }
    await this.afterMatch();
    this.matchMsg.textContent = `Matched by configuration file: total ${ok + failed}, succeeded ${ok}, failed ${failed}`;
    this.matchMsg.className = 'ws-match-msg ok';
  }

  async refreshMatchLists(force = false) {
    if (!this.compare || !this.panes.length) return;
    // The lists scan every row of the scope: load them when the matching panel is first used.
    if (!force && !this.matchListsWanted) return;
    this.matchListsWanted = true;
    const p = this.panes[0];
    const list = async (side, matched) => {
      const r = await this.engine.query(
        `SELECT node_name FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND
         (matched_node_link IS NULL OR matched_node_link IN ('', '[]')) = ? ORDER BY node_order`,
        [p.opts.step, p.opts.rank, side, matched ? 0 : 1]);
      return r.values.map((v) => String(v[0]));
    };
    const fill = (s, names, label) => {
      const keep = s.value;
      s.textContent = '';
      s.append(new Option('', ''));
      for (const n of names) s.append(new Option(n, n));
      s.value = names.includes(keep) ? keep : '';
      /** @type {HTMLElement} */ (s.parentElement).firstChild.textContent = `${label} (${names.length}) `;
    };
    fill(this.dbgUnmatched, await list('NPU', false), 'Debug – unmatched');
    fill(this.bchUnmatched, await list('Bench', false), 'Bench – unmatched');
    fill(this.dbgMatched, await list('NPU', true), 'Debug – matched');
    fill(this.bchMatched, await list('Bench', true), 'Bench – matched');
  }

  /** MAT-03 / MAT-04, then MAT-05: recolour without losing expansion, refresh lists and details. */
  async doMatch(match) {
    const p = this.panes[0];
    const npu = match ? this.dbgUnmatched.value : this.dbgMatched.value;
    const bench = match ? this.bchUnmatched.value : this.bchMatched.value;
    const args = { step: p.opts.step, rank: p.opts.rank, npu, bench, descendants: this.descBox.checked };
    try {
      if (match && !npu) throw new Error('Please select the debug-side unmatched node!');
      if (match && !bench) throw new Error('Please select the bench-side unmatched node!');
      if (!match && (!npu || !bench)) throw new Error('Please select the nodes to be unmatched!');
      if (match) await this.engine.match(args); else await this.engine.unmatch(args);
      this.matchMsg.textContent = match ? 'Match successful, corresponding node status has been updated'
                                        : 'Unmatch successful, corresponding node status has been updated';
      this.matchMsg.className = 'ws-match-msg ok';
    } catch (e) {
      this.matchMsg.textContent = /** @type {Error} */ (e).message;
      this.matchMsg.className = 'ws-match-msg bad';
      return;
    }
    await this.afterMatch();
  }

  async afterMatch() {
    for (const pane of this.panes) {
      const r = await this.engine.query('SELECT node_name, precision_index, matched_node_link FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?', pane.scope);
      for (const [name, precision, link] of r.values) {
        const n = pane.nodes.get(String(name));
        if (!n) continue;
        n.precision = precision === null ? null : Number(precision);
        try { n.link = link ? JSON.parse(link) : []; } catch { n.link = []; }
      }
      pane.render();
    }
    await this.refreshMatchLists();
    const sel = this.panes.find((q) => q.selected);
    if (sel) await this.select(sel, sel.selected);
  }

  /** §8.1: precision / overflow filter lists of Debug leaves. */
  buildFilter() {
    const box = el('div', undefined, 'ws-filter');
    box.dataset.testid = 'filter';
    const checks = el('div', undefined, 'ws-checks');
    this.filterChecks = checks;
    this.filterCount = el('h4', 'Node list (0)');
    this.filterList = el('ul', undefined, 'ws-results ws-filter-list');
    // FLT-05: a name filter and previous / next over the filtered rows.
    const nav = el('div', undefined, 'ws-filter-nav');
    this.filterName = /** @type {HTMLInputElement} */ (el('input'));
    this.filterName.type = 'search';
    this.filterName.placeholder = 'Search by name';
    this.filterName.maxLength = 200;
    this.filterName.id = 'ws-filter-name';
    this.filterName.addEventListener('input', () => this.applyFilterName());
    const prev = el('button', '▲');
    prev.id = 'ws-filter-prev';
    const next = el('button', '▼');
    next.id = 'ws-filter-next';
    prev.addEventListener('click', () => this.stepFilter(-1));
    next.addEventListener('click', () => this.stepFilter(1));
    this.filterMsg = el('span', '', 'ws-filter-msg');
    nav.append(this.filterName, prev, next, this.filterMsg);
    box.append(el('h4', 'Filter'), checks, this.filterCount, nav, this.filterList);
    this.fillChecks();
    return box;
  }

  fillChecks() {
    const checks = this.filterChecks;
    checks.textContent = '';
    const overflow = this.modeSel && this.modeSel.value === 'overflow';
    const items = overflow
      ? [['medium', '#E6F3FE', 'Medium'], ['high', '#8DC5F8', 'High'], ['critical', '#1668DC', 'Critical']]
      : [['pass', '#FFFCF3', 'Pass'], ['warning', '#FFDC7F', 'Warning'], ['error', '#FF704D', 'Error'], ['unmatched', '#C7C7C7', 'Unmatched']];
    for (const [key, colour, label] of items) {
      const lab = el('label', undefined, 'ws-swatch');
      const cb = /** @type {HTMLInputElement} */ (el('input'));
      cb.type = 'checkbox';
      cb.value = key;
      cb.dataset.testid = 'filter-' + key;
      // FLT-02: a single graph has no precision: only Unmatched is meaningful.
      if (!overflow && !this.compare && key !== 'unmatched') cb.disabled = true;
      cb.addEventListener('change', () => this.runFilter());
      const chip = el('i');
      chip.style.background = colour;
      lab.append(cb, chip, label);
      checks.append(lab);
    }
    this.filterList.textContent = '';
    this.filterCount.textContent = 'Node list (0)';
  }

  visibleFilterRows() {
    return [...this.filterList.querySelectorAll('li')].filter((li) => !/** @type {HTMLElement} */ (li).hidden);
  }

  applyFilterName() {
    const needle = this.filterName.value.toLowerCase();
    for (const li of this.filterList.querySelectorAll('li')) {
      const name = /** @type {HTMLElement} */ (li).dataset.name || '';
      const hit = name.toLowerCase().indexOf(needle);
      /** @type {HTMLElement} */ (li).hidden = needle !== '' && hit < 0;
      // Highlight the matched substring (text nodes only, never HTML).
      li.textContent = '';
      if (needle && hit >= 0) {
        const mark = el('mark', name.slice(hit, hit + needle.length));
        li.append(name.slice(0, hit), mark, name.slice(hit + needle.length));
      } else {
        li.append(name);
      }
    }
    this.filterCount.textContent = `Node list (${this.visibleFilterRows().length})`;
  }

  async stepFilter(dir) {
    const rows = this.visibleFilterRows();
    this.filterMsg.textContent = '';
    if (!rows.length) { this.filterMsg.textContent = 'No data'; return; }
    const cur = rows.findIndex((li) => li.classList.contains('current'));
    let i = cur < 0 ? (dir > 0 ? 0 : rows.length - 1) : cur + dir;
    if (i < 0) { this.filterMsg.textContent = 'You have reached the top of the list'; i = 0; }
    if (i >= rows.length) { this.filterMsg.textContent = 'You have reached the bottom of the list'; i = rows.length - 1; }
    rows[i].click();
  }

  async runFilter() {
    const keys = [...this.filterChecks.querySelectorAll('input:checked')].map((c) => /** @type {HTMLInputElement} */ (c).value);
    this.filterList.textContent = '';
    if (!keys.length || !this.panes.length) { this.filterCount.textContent = 'Node list (0)'; return; }
    const cond = {
      pass: '(precision_index >= 0 AND precision_index < 0.3)',
      warning: '(precision_index >= 0.3 AND precision_index < 0.6)',
      error: '(precision_index >= 0.6 AND precision_index <= 1)',
      unmatched: "(matched_node_link IS NULL OR matched_node_link IN ('', '[]'))",
      medium: "(overflow_level = 'medium')", high: "(overflow_level = 'high')", critical: "(overflow_level = 'critical')",
    };
    const p = this.panes[0];
    const where = keys.map((k) => cond[k]).join(' OR ');
    const r = await this.engine.query(
      `SELECT node_name, precision_index, overflow_level FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = 'NPU'
       AND (sub_nodes IS NULL OR sub_nodes = '') AND (? < 0 OR micro_step_id = ?) AND (${where}) ORDER BY node_order`,
      [p.opts.step, p.opts.rank, p.opts.micro, p.opts.micro]);
    this.filterCount.textContent = `Node list (${r.values.length})`;
    this.filterCount.dataset.done = String((Number(this.filterCount.dataset.done) || 0) + 1);
    if (this.filterName) this.filterName.value = '';
    for (const [name] of r.values.slice(0, 2000)) {
      const li = el('li', name);
      li.dataset.name = name;
      li.addEventListener('click', async () => {
        for (const other of this.filterList.querySelectorAll('li.current')) other.classList.remove('current');
        li.classList.add('current');
        li.scrollIntoView({ block: 'nearest' });
        const n = await p.reveal(name);
        if (!n) return;
        p.render();
        p.centre(n);
        await this.select(p, n);
      });
      this.filterList.append(li);
    }
  }

  legend() {
    const box = this.legendBox;
    box.textContent = '';
    // GR-08: the node kinds, then the active colour scale.
    for (const [cls, label, tip] of [['shape-module', 'Module or operator', ''],
                                     ['shape-leaf', 'Non-expandable node', 'An API, operator or module without children; it cannot be expanded'],
                                     ['shape-apis', 'API list', 'Collection of free APIs between modules'],
                                     ['shape-fused', 'Fused operator', 'Collection of fused operators']]) {
      const item = el('span', undefined, 'ws-kind');
      item.append(el('i', undefined, cls), label);
      if (tip) item.title = tip;
      box.append(item);
    }
    const swatch = (colour, text) => {
      const item = el('span', undefined, 'ws-swatch');
      const chip = el('i');
      chip.style.background = colour;
      item.append(chip, text);
      box.append(item);
    };
    if (this.modeSel.value === 'overflow') {
      swatch('#E6F3FE', 'medium'); swatch('#8DC5F8', 'high'); swatch('#1668DC', 'critical');
    } else if (this.compare) {
      for (const c of this.colors) swatch(c.colour, `${c.level || ''} [${c.lo}, ${c.hi}]`);
      swatch('#C7C7C7', 'unmatched');
    }
  }

  async load() {
    const step = Number(this.stepSel.value);
    const rank = Number(this.rankSel.value);
    const micro = Number(this.microSel.value);
    const sides = this.compare ? ['NPU', 'Bench'] : ['NPU'];
    this.panes = sides.map((side, i) => new Pane(this.paneHosts[i], this.engine, {
      side, step, rank, micro, compare: this.compare, colors: this.colors,
      onSelect: (p, n) => this.select(p, n),
      onToggle: (p, n) => this.syncToggle(p, n),
      onMenu: (p, n, x, y) => this.menu(p, n, x, y),
    }));
    for (const p of this.panes) { p.mode = this.modeSel.value; await p.load(); p.render(); }
    // Warm the search list of the Debug side in the background (SRCH-02: loaded once per scope).
    this.nameCache = null;
    const warm = this.panes[0];
    this.engine.query('SELECT node_name FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? ORDER BY node_order', warm.scope)
      .then((r) => {
        if (this.nameCache) return;
        const names = r.values.map((v) => String(v[0]));
        this.nameCache = { key: warm.scope.join('|'), names, lower: names.map((n) => n.toLowerCase()) };
      })
      .catch(() => {});
    this.detail.textContent = '';
    this.results.textContent = '';
    if (this.filterChecks) this.fillChecks();
    this.matchListsWanted = false;
  }

  other(p) { return this.panes.find((q) => q !== p) || null; }

  /** Item 5: the visible graph of each pane as SVG or PNG, with the drawing styles inlined. */
  async exportGraph(kind) {
    for (const p of this.panes) {
      const clone = /** @type {SVGSVGElement} */ (p.svg.cloneNode(true));
      const w = p.host.clientWidth || 800;
      const h = p.host.clientHeight || 600;
      clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
      clone.setAttribute('width', String(w));
      clone.setAttribute('height', String(h));
      const style = document.createElementNS('http://www.w3.org/2000/svg', 'style');
      style.textContent = 'text{dominant-baseline:central;text-anchor:middle;font-family:sans-serif}';
      clone.prepend(style);
      const text = new XMLSerializer().serializeToString(clone);
      const base = `graph_${p.opts.side}_step${p.opts.step}_rank${p.opts.rank}`;
      if (kind === 'svg') { save(new Blob([text], { type: 'image/svg+xml' }), base + '.svg'); continue; }
      const img = new Image();
      const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
      await new Promise((res, rej) => { img.onload = res; img.onerror = rej; img.src = url; });
      const canvas = document.createElement('canvas');
      canvas.width = w * 2;
      canvas.height = h * 2;
      const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      const blob = await new Promise((res) => canvas.toBlob(res, 'image/png'));
      if (blob) save(/** @type {Blob} */ (blob), base + '.png');
    }
  }

  exportCsv() {
    const quote = (v) => (/[",\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v);
    const lines = [];
    for (const table of this.detail.querySelectorAll('table')) {
      for (const tr of table.querySelectorAll('tr')) lines.push([...tr.children].map((c) => quote(c.textContent || '')).join(','));
      lines.push('');
    }
    if (lines.length) save(new Blob([lines.join('\n')], { type: 'text/csv' }), 'node_details.csv');
  }

  /** GI-03: context menu with "Locate matched node" (compare) and the communication peers. */
  async menu(p, n, x, y) {
    document.querySelectorAll('.ws-menu').forEach((m) => m.remove());
    const m = el('ul', undefined, 'ws-menu');
    m.style.left = x + 'px';
    m.style.top = y + 'px';
    const item = (text, fn) => {
      const li = el('li', text);
      li.addEventListener('click', async () => { m.remove(); await fn(); });
      m.append(li);
    };
    const o = this.other(p);
    if (o) item('Locate matched node', () => this.locate(p, n));
    const r = await this.engine.query('SELECT matched_distributed FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
                                      [...p.scope, n.name]);
    let dist = null;
    try { dist = JSON.parse(r.values[0][0]); } catch { /* none */ }
    if (dist && dist.nodes_info) {
      const title = { send: 'Data send', receive: 'Data receive', send_receive: 'Data send/receive' }[dist.communications_type] || 'Data communication';
      m.append(el('li', title, 'ws-menu-title'));
      for (const [rank, info] of Object.entries(dist.nodes_info)) {
        item(`rank${rank}: ${info[1]}`, async () => {
          if (![...this.rankSel.options].some((o2) => o2.value === rank)) { alert('Target rank is not available in this file'); return; }
          this.rankSel.value = rank;
          await this.load();
          const q = this.panes[this.panes.indexOf(p) >= 0 ? this.panes.indexOf(p) : 0];
          const peer = await q.reveal(info[1]);
          if (peer) { q.render(); q.centre(peer); await this.select(q, peer); }
        });
      }
    }
    if (!m.children.length) return;
    document.body.append(m);
    const close = () => { m.remove(); document.removeEventListener('click', close); };
    setTimeout(() => document.addEventListener('click', close), 0);
  }

  /** Selects the counterpart (or the nearest matched ancestor's) in the other pane, revealed and centred. */
  async locate(p, n) {
    const o = this.other(p);
    if (!o) return;
    let cur = n;
    while (cur && !cur.link.length) cur = cur.parent;
    if (!cur) return;
    const target = await o.reveal(cur.link[cur.link.length - 1]);
    if (!target) return;
    o.render();
    o.centre(target);
    await this.select(o, target);
  }

  /** GI-01 / CMP-01: select, highlight the counterpart, fill the detail panel. */
  async select(p, n) {
    p.selected = n;
    p.highlight = null;
    const o = this.other(p);
    const counterpart = n.link.length ? n.link[n.link.length - 1] : null;
    if (o) { o.selected = null; o.highlight = counterpart; o.render(); }
    p.render();
    if (this.compare && this.dbgUnmatched) {
      const debug = p.opts.side === 'NPU';
      const setv = (s, v) => { s.value = [...s.options].some((op) => op.value === v) ? v : ''; };
      // MAT-02: an unmatched node fills its side's unmatched select and clears the matched ones;
      // a matched node fills both matched selects and clears the unmatched ones.
      if (!n.link.length) {
        this.dbgMatched.value = '';
        this.bchMatched.value = '';
        setv(debug ? this.dbgUnmatched : this.bchUnmatched, n.name);
      } else {
        this.dbgUnmatched.value = '';
        this.bchUnmatched.value = '';
        setv(debug ? this.dbgMatched : this.bchMatched, n.name);
        setv(debug ? this.bchMatched : this.dbgMatched, counterpart);
      }
    }
    await this.showDetail(p, n, o ? counterpart : null);
  }

  /** CMP-02: bring the counterpart to the same expansion state. */
  async syncToggle(p, n) {
    const o = this.other(p);
    if (!o || !this.syncBox || !this.syncBox.checked || !n.link.length) return;
    const c = await o.reveal(n.link[n.link.length - 1]);
    if (!c) return;
    if (c.expanded !== n.expanded) {
      if (n.expanded) await o.expand(c); else o.collapse(c);
    }
    o.render();
  }

  async search(text) {
    this.results.textContent = '';
    if (!text) return;
    const p = this.panes[Number(this.searchSide.value)] || this.panes[0];
    // SRCH-02: the names of a scope are loaded once (execution order) and filtered here.
    const key = p.scope.join('|');
    if (!this.nameCache || this.nameCache.key !== key) {
      const r = await this.engine.query('SELECT node_name FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? ORDER BY node_order', p.scope);
      const names = r.values.map((v) => String(v[0]));
      this.nameCache = { key, names, lower: names.map((n) => n.toLowerCase()) };
    }
    const needle = text.toLowerCase();
    const { names, lower } = this.nameCache;
    let shown = 0;
    const frag = document.createDocumentFragment();
    for (let i = 0; i < names.length && shown < 200; ++i) {
      if (!lower[i].includes(needle)) continue;
      const name = names[i];
      const li = el('li', name);
      li.addEventListener('click', async () => {
        const n = await p.reveal(name);
        if (!n) return;
        p.render();
        p.centre(n);
        await this.select(p, n);
      });
      frag.append(li);
      ++shown;
    }
    this.results.append(frag);
  }

  /** DET-03/04: debug and bench parameters paired by position, inputs then outputs. */
  async pairedTable(p, name, counterpart, container) {
    const debugSide = p.opts.side === 'NPU' ? [name, p] : [counterpart, this.other(p)];
    const benchSide = p.opts.side === 'NPU' ? [counterpart, this.other(p)] : [name, p];
    const fetch = async ([nm, pane], side) => {
      const r = await this.engine.query('SELECT input_data, output_data FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
                                        [pane.opts.step, pane.opts.rank, side, nm]);
      const parse = (t) => { try { return JSON.parse(t || '{}'); } catch { return {}; } };
      return r.values.length ? { name: nm, input: parse(r.values[0][0]), output: parse(r.values[0][1]) } : { name: nm, input: {}, output: {} };
    };
    const dbg = await fetch(debugSide, 'NPU');
    const bch = await fetch(benchSide, 'Bench');
    const rows = [];
    const unpaired = [];
    for (const part of ['input', 'output']) {
      const dk = Object.keys(dbg[part]);
      const bk = Object.keys(bch[part]);
      for (let i = 0; i < Math.max(dk.length, bk.length); ++i) {
        if (i < dk.length && i < bk.length) {
          rows.push({ side: 'Debug', key: dk[i], node: dbg.name, item: dbg[part][dk[i]], paired: true });
          rows.push({ side: 'Bench', key: bk[i], node: bch.name, item: bch[part][bk[i]], paired: true });
        } else if (i < dk.length) unpaired.push({ side: 'Debug', key: dk[i], node: dbg.name, item: dbg[part][dk[i]], paired: false });
        else unpaired.push({ side: 'Bench', key: bk[i], node: bch.name, item: bch[part][bk[i]], paired: false });
      }
    }
    const all = [...rows, ...unpaired.sort((a, b) => (a.side === b.side ? 0 : a.side === 'Debug' ? -1 : 1))];
    if (!all.length) return;
    const hidden = new Set(['data_name', 'value']);
    const fields = [];
    for (const r of all) for (const f of Object.keys(r.item || {})) if (!hidden.has(f) && !fields.includes(f)) fields.push(f);
    const box = el('section', undefined, 'ws-node ws-paired');
    box.dataset.testid = 'paired';
    box.append(el('h3', `Debug node: ${dbg.name}    Bench node: ${bch.name}`));
    const table = el('table');
    const head = el('tr');
    head.append(el('th', 'name'), ...fields.map((f) => el('th', f)));
    table.append(head);
    for (const r of all) {
      const tr = el('tr', undefined, r.side === 'Bench' ? 'bench-row' : 'debug-row');
      const nameCell = el('td');
      nameCell.append(el('span', '● ', r.paired ? 'dot-green' : 'dot-red'), r.key.startsWith(r.node + '.') ? r.key.slice(r.node.length + 1) : r.key);
      tr.append(nameCell, ...fields.map((f) => el('td', r.item && r.item[f] !== undefined ? String(r.item[f]) : '-')));
      table.append(tr);
    }
    box.append(table);
    container.append(box);
  }

  /** §8.5: inputs / outputs of the node (and its counterpart), stack. */
  async showDetail(p, n, counterpart) {
    const d = this.detail;
    d.textContent = '';
    // DET-01: two tabs.
    const tabs = el('div', undefined, 'ws-tabs');
    const cmpTab = el('button', this.compare ? 'Comparison details' : 'Input/output details', 'ws-tab active');
    const infoTab = el('button', 'Node information', 'ws-tab');
    cmpTab.dataset.testid = 'tab-details';
    infoTab.dataset.testid = 'tab-info';
    tabs.append(cmpTab, infoTab);
    const cmpPanel = el('div', undefined, 'ws-tab-panel');
    const infoPanel = el('div', undefined, 'ws-tab-panel');
    infoPanel.hidden = true;
    cmpPanel.dataset.testid = 'panel-details';
    infoPanel.dataset.testid = 'panel-info';
    const show = (details) => {
      cmpPanel.hidden = !details;
      infoPanel.hidden = details;
      cmpTab.classList.toggle('active', details);
      infoTab.classList.toggle('active', !details);
    };
    cmpTab.addEventListener('click', () => show(true));
    infoTab.addEventListener('click', () => show(false));
    d.append(tabs, cmpPanel, infoPanel);

    const fetchRow = async (pane, name, side) => {
      const r = await this.engine.query(
        'SELECT n.input_data, n.output_data, s.stack_info, n.precision_index, n.overflow_level, n.matched_distributed, n.parallel_merge_info ' +
        'FROM tb_nodes n LEFT JOIN tb_stack s ON s.id = n.stack_id WHERE n.step = ? AND n.rank = ? AND n.data_source = ? AND n.node_name = ?',
        [pane.opts.step, pane.opts.rank, side, name]);
      return r.values.length ? r.values[0] : null;
    };
    const sides = [[p, n.name, p.opts.side]];
    if (counterpart) sides.push([this.other(p), counterpart, p.opts.side === 'NPU' ? 'Bench' : 'NPU']);
    sides.sort((x, y) => (x[2] === 'NPU' ? -1 : 1) - (y[2] === 'NPU' ? -1 : 1));

    if (counterpart) await this.pairedTable(p, n.name, counterpart, cmpPanel);
    for (const [pane, name, side] of sides) {
      const row = await fetchRow(pane, name, side);
      if (!row) continue;
      const [input, output, stack, precision, overflow, dist, merge] = row;
      if (!counterpart) {
        const box = el('section', undefined, 'ws-node');
        box.append(el('h3', `${side === 'NPU' ? 'Debug' : 'Bench'} node: ${name}`));
        box.append(el('p', `precision_index: ${precision ?? '-'}   overflow: ${overflow ?? '-'}`));
        for (const [title, text] of [['Inputs', input], ['Outputs', output]]) {
          let items = {};
          try { items = JSON.parse(text || '{}'); } catch { /* shown empty */ }
          const keys = Object.keys(items);
          if (!keys.length) continue;
          box.append(el('h4', title));
          const fields = [];
          for (const k of keys) for (const f of Object.keys(items[k] || {})) if (!fields.includes(f)) fields.push(f);
          const table = el('table');
          const head = el('tr');
          head.append(el('th', 'name'), ...fields.map((f) => el('th', f)));
          table.append(head);
          for (const k of keys) {
            const tr = el('tr');
            tr.append(el('td', k), ...fields.map((f) => el('td', items[k] && items[k][f] !== undefined ? String(items[k][f]) : '-')));
            table.append(tr);
          }
          box.append(table);
        }
        cmpPanel.append(box);
      }
      // DET-05: node information per side: stack, parallel-merge details, communication peers.
      const info = el('section', undefined, 'ws-node');
      info.append(el('h3', `${side === 'NPU' ? 'Debug' : 'Bench'}: ${name}`));
      let frames = [];
      try { frames = JSON.parse(stack || '[]'); } catch { /* none */ }
      const addSection = (title, text) => {
        const h = el('h4', title);
        const copy = el('button', 'Copy', 'ws-copy');
        copy.addEventListener('click', async () => {
          try { await navigator.clipboard.writeText(text); copy.textContent = 'Copied!'; } catch { copy.textContent = 'Copy failed'; }
        });
        h.append(' ', copy);
        info.append(h, el('pre', text));
      };
      addSection('Stack information', Array.isArray(frames) && frames.length ? frames.join('\n') : 'No data');
      let mergeList = [];
      try { mergeList = merge ? JSON.parse(merge) : []; } catch { /* none */ }
      if (Array.isArray(mergeList) && mergeList.length) addSection('Parallel-merge details', mergeList.join('\n'));
      if (dist && dist !== '{}') addSection('Communication', dist);
      infoPanel.append(info);
    }
    if (!cmpPanel.children.length) cmpPanel.append(el('p', 'No data'));
  }
}
