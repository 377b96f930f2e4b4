// @ts-check
// First-divergence navigator (web-ui BEY-09): the flagged leaves of the Debug side (error, warning,
// unmatched, overflow; micro-step filtered) in execution order, with "First divergence", previous
// and next that reveal, centre and select each one in one action (keys N / P), and a sortable,
// paged "worst nodes" table (precision index and, where the task has them, relative errors or
// cosine) whose rows jump to the node. Buckets follow the file's legend like the badges do.
import { el, tel, setText, setTitle } from './dom.js';
import { VirtualList } from './virtual_list.js';
import { bucketFill, OVERFLOW, UNMATCHED, WHITE } from './colours.js';
import { t } from '../i18n.js';
import { scopeRowids, flaggedRows, nodeOrder, worstRows } from './queries.js';

const PAGE = 50;

/**
 * Worst-table metric columns per task: [key in the items, label, direction ('desc': larger is worse)].
 * @type {Record<string, Array<[string, string, 'asc'|'desc']>>}
 */
const METRICS = {
  summary: [['MaxRelativeErr', 'MaxRelativeErr', 'desc'], ['MeanRelativeErr', 'MeanRelativeErr', 'desc'], ['NormRelativeErr', 'NormRelativeErr', 'desc']],
  all: [['Cosine', 'Cosine', 'asc'], ['MaxRelativeErr', 'MaxRelativeErr', 'desc'], ['MaxAbsErr', 'MaxAbsErr', 'desc']],
};

/**
 * A metric cell: infinities and NaN as msProbe writes them (inf, -inf, nan), relative errors of the
 * statistics compare with their unit (%), "-" where a node has no such value.
 * @param {number|null} v @param {boolean} percent
 */
export function metricText(v, percent) {
  if (v === null || v === undefined) return '-';
  const unit = percent ? '%' : '';
  if (Number.isNaN(v)) return 'nan' + unit;
  if (v === Infinity) return 'inf' + unit;
  if (v === -Infinity) return '-inf' + unit;
  return String(Number(v).toPrecision(4)) + unit;
}

/**
 * The kinds of flagged node listed, one check box each with its colour chip: error and warning
 * (their chips painted once the legend's bounds are known), unmatched in a compare, overflow when
 * the file was checked for it. @param {NavigatorDeps} deps @param {() => void} onChange
 */
function kindChecks(deps, onChange) {
  const checks = el('div', undefined, 'ws-checks');
  const kinds = ['error', 'warning'];
  if (deps.compare) kinds.push('unmatched');
  if (deps.overflowCheck) kinds.push('overflow');
  for (const k of kinds) {
    const lab = el('label', undefined, 'ws-swatch');
    const cb = /** @type {HTMLInputElement} */ (el('input'));
    cb.type = 'checkbox';
    cb.value = k;
    cb.checked = true;
    cb.dataset.testid = 'nav-' + k;
    // A single graph has no precision: only overflow is meaningful.
    if (!deps.compare && k !== 'overflow') { cb.checked = false; cb.disabled = true; }
    cb.addEventListener('change', onChange);
    const chip = el('i');
    chip.dataset.kind = k;
    if (k === 'unmatched' || k === 'overflow') chip.style.background = k === 'unmatched' ? UNMATCHED : OVERFLOW.high;
    lab.append(cb, chip, tel('span', k));
    checks.append(lab);
  }
  return checks;
}

/** The worst-nodes table's column `i` of a row: 0 its precision index, then its metrics. @param {import('./queries.js').WorstRow} row @param {number} i */
const cellOf = (row, i) => (i === 0 ? row.precision : row.metrics[i - 1]);

/**
 * What the navigator uses of the workspace (Workspace.buildPanels makes it): the engine's queries and
 * legend bounds, the file's settings (compare, overflow check, colour table, task), the pane of a
 * side (0: Debug; none before the first load) and the jump that reveals, centres and selects a node.
 * @typedef {{engine: Pick<import('../engine/client.js').EngineClient, 'query'|'thresholds'>, compare: boolean, overflowCheck: boolean,
 *            colors: import('./colours.js').ColourBucket[], task: string, pane: (side: number) => import('./pane.js').Pane|undefined,
 *            selectFromList: (p: import('./pane.js').Pane, name: string) => Promise<void>}} NavigatorDeps
 */

export class NavigatorPanel {
  /** @param {NavigatorDeps} deps */
  constructor(deps) {
    this.deps = deps;
    /** The legend's bounds, by the engine's rule (core/db/badges.cc), asked once. @type {{warning: number, error: number}|null} */
    this.thresholds = null;
    this.el = el('div', undefined, 'ws-navigator ws-panel');
    this.el.dataset.testid = 'navigator';
    /** @type {Array<{name: string, order: number, colour: string, kind: string}>} */
    this.rows = [];
    /** @type {Promise<void>|null} */
    this.loading = null;
    this.key = '';
    this.seq = 0;
    this.checks = kindChecks(deps, () => { this.invalidate(); this.ensure().catch(() => {}); });
    const bar = el('div', undefined, 'ws-nav-bar');
    const first = tel('button', 'firstDivergence');
    first.dataset.testid = 'nav-first';
    first.addEventListener('click', () => this.first());
    const prev = el('button', '◀');
    prev.dataset.testid = 'nav-prev';
    setTitle(prev, 'prevFlagged');
    prev.addEventListener('click', () => this.step(-1));
    const next = el('button', '▶');
    next.dataset.testid = 'nav-next';
    setTitle(next, 'nextFlagged');
    next.addEventListener('click', () => this.step(1));
    // Issue 19: warnings have a navigator of their own (First divergence and errors come first).
    const prevWarn = el('button', '⚠◀');
    prevWarn.dataset.testid = 'nav-prev-warning';
    setTitle(prevWarn, 'prevWarning');
    prevWarn.addEventListener('click', () => this.stepKind(-1, 'warning'));
    const nextWarn = el('button', '⚠▶');
    nextWarn.dataset.testid = 'nav-next-warning';
    setTitle(nextWarn, 'nextWarning');
    nextWarn.addEventListener('click', () => this.stepKind(1, 'warning'));
    this.pos = el('span', '', 'ws-nav-pos');
    this.pos.dataset.testid = 'nav-pos';
    bar.append(first, prev, next, prevWarn, nextWarn, this.pos);
    this.count = tel('h4', 'flaggedNodes', 'ws-count', 0);
    this.list = new VirtualList({
      className: 'ws-list ws-nav-list', testid: 'nav-list', rowHeight: 28,
      key: (r) => r.name,
      render: (li, r) => {
        const chip = el('i', undefined, 'ws-chip');
        chip.style.background = r.colour;
        li.title = `${r.name} (${t(r.kind)})`;
        li.append(chip, r.name);
      },
      onPick: (r, i) => this.go(i),
    });
    // Worst nodes: loaded when opened (it parses the items of every flagged leaf).
    this.worst = /** @type {HTMLDetailsElement} */ (el('details', undefined, 'ws-worst'));
    this.worst.dataset.testid = 'worst';
    const sum = tel('summary', 'worstNodes');
    const help = el('p', undefined, 'ws-muted');
    setText(help, 'worstHelp');
    this.worstBody = el('div');
    this.worst.append(sum, help, this.worstBody);
    this.worst.addEventListener('toggle', () => { if (this.worst.open) this.loadWorst().catch(() => {}); });
    /**
     * The worst-nodes table: its rows, its columns (the precision index, then the task's metrics),
     * the column sorted on and its direction, and the page shown.
     * @type {{rows: import('./queries.js').WorstRow[], columns: Array<[string, string, 'asc'|'desc']>, sort: number, dir: 'asc'|'desc', page: number}|null}
     */
    this.table = null;
    this.el.append(this.checks, bar, this.count, this.list.el, this.worst);
  }

  /** The Debug pane (flagged leaves are a Debug-side notion, like the filter list). */
  get pane() { return this.deps.pane(0); }

  scopeKey() {
    const p = this.pane;
    const kinds = [...this.checks.querySelectorAll('input:checked')].map((c) => /** @type {HTMLInputElement} */ (c).value);
    return p ? `${p.opts.step}|${p.opts.rank}|${p.opts.micro}|${kinds.join(',')}` : '';
  }

  /** SEL-02: a new scope forgets the lists. */
  invalidate() {
    this.key = '';
    this.loading = null;
    this.rows = [];
    this.table = null;
    this.worstBody.textContent = '';
    this.list.setItems([], 'noFlagged');
    setText(this.count, 'flaggedNodes', 0);
    delete this.pos.dataset.i18n;
    this.pos.textContent = '';
    if (this.worst.open) this.loadWorst().catch(() => {});
  }

  /** Loads the flagged leaves of the current scope once. */
  ensure() {
    const key = this.scopeKey();
    if (this.key === key && this.loading) return this.loading;
    this.key = key;
    const seq = ++this.seq;
    this.loading = this.query().then((rows) => {
      if (seq !== this.seq) return;
      this.rows = rows;
      this.list.setItems(rows, 'noFlagged');
      setText(this.count, 'flaggedNodes', rows.length);
      this.count.dataset.done = String((Number(this.count.dataset.done) || 0) + 1);
      this.sync();
    });
    this.loading.catch(() => { if (seq === this.seq) this.loading = null; });
    return this.loading;
  }

  async query() {
    const p = this.pane;
    if (!p) return [];
    const kinds = new Set([...this.checks.querySelectorAll('input:checked')].map((c) => /** @type {HTMLInputElement} */ (c).value));
    if (!this.thresholds) {
      this.thresholds = await this.deps.engine.thresholds();
      for (const chip of this.checks.querySelectorAll('i[data-kind=error], i[data-kind=warning]')) {
        const c = /** @type {HTMLElement} */ (chip);
        c.style.background = bucketFill(c.dataset.kind === 'error' ? this.thresholds.error : this.thresholds.warning, this.deps.colors);
      }
    }
    const { warning, error } = this.thresholds;
    // The kinds' terms are queries.js flaggedRows's; no kind ticked: nothing to ask.
    if (!kinds.size) return [];
    const range = await scopeRowids(this.deps.engine, p.opts.step, p.opts.rank, 'NPU');
    if (!range) return [];
    const rows = await flaggedRows(this.deps.engine, range, [p.opts.step, p.opts.rank, 'NPU'], p.opts.micro, kinds, this.thresholds);
    return rows.map(({ name, order, precision: pr, level, unmatched }) => {
      const kind = pr !== null && pr >= error && kinds.has('error') ? 'error'
        : pr !== null && pr >= warning && kinds.has('warning') ? 'warning'
          : unmatched && kinds.has('unmatched') ? 'unmatched' : 'overflow';
      const colour = kind === 'unmatched' ? UNMATCHED : kind === 'overflow' ? OVERFLOW[String(level)] || WHITE : bucketFill(pr, this.deps.colors);
      return { name, order, colour, kind };
    });
  }

  /**
   * BEY-09: the first error in execution order, revealed, centred and selected (a warning before
   * it is not the divergence: N / P walk through every flagged node); without errors, the first row.
   */
  async first() {
    await this.ensure();
    const e = this.rows.findIndex((r) => r.kind === 'error');
    await this.go(e < 0 ? 0 : e);
  }

  /** Next / previous flagged leaf after the current selection (N / P). @param {number} dir */
  async step(dir) {
    await this.ensure();
    if (!this.rows.length) return;
    const cur = this.list.current;
    let i;
    if (cur < 0) {
      // From a selection that is not in the list: the next flagged leaf after it in execution order.
      const sel = this.pane && this.pane.selected;
      const order = sel ? this.orderOf(sel.name) : null;
      if (order === null) i = dir > 0 ? 0 : this.rows.length - 1;
      else {
        const after = this.rows.findIndex((r) => r.order > order);
        i = dir > 0 ? (after < 0 ? this.rows.length - 1 : after) : (after < 0 ? this.rows.length - 1 : after - 1);
      }
    } else i = cur + dir;
    await this.go(Math.max(0, Math.min(this.rows.length - 1, i)));
  }

  /**
   * The next / previous flagged node of one kind (warnings: Shift+N / Shift+P) after the current
   * row, or after the selected node in execution order when it is not in the list.
   * @param {number} dir @param {string} kind
   */
  async stepKind(dir, kind) {
    await this.ensure();
    const cur = this.list.current;
    let order = cur >= 0 && this.rows[cur] ? this.rows[cur].order : null;
    const p = this.pane;
    if (order === null && p && p.selected) {
      const o = await nodeOrder(this.deps.engine, [p.opts.step, p.opts.rank, 'NPU'], p.selected.name);
      if (o !== null) order = o;
    }
    let i = -1;
    if (dir > 0) i = this.rows.findIndex((r) => r.kind === kind && (order === null || r.order > order));
    else for (let k = this.rows.length - 1; k >= 0; --k) if (this.rows[k].kind === kind && (order === null || this.rows[k].order < order)) { i = k; break; }
    if (i < 0) { setText(this.pos, kind === 'warning' ? 'noWarningThere' : 'noFlagged'); return; }
    await this.go(i);
  }

  /** @param {string} name */
  orderOf(name) {
    const r = this.rows.find((x) => x.name === name);
    return r ? r.order : null;
  }

  /** @param {number} i */
  async go(i) {
    const r = this.rows[i];
    const p = this.pane;
    if (!r || !p) { setText(this.pos, 'noFlagged'); return; }
    this.list.setCurrent(i);
    delete this.pos.dataset.i18n;
    this.pos.textContent = `${i + 1} / ${this.rows.length}`;
    await this.deps.selectFromList(p, r.name);
  }

  /** The selected Debug node's row is current. */
  sync() {
    const p = this.pane;
    const name = p && p.selected ? p.selected.name : null;
    const i = name ? this.list.indexOfKey(name) : -1;
    if (i !== this.list.current) this.list.setCurrent(i);
    if (i >= 0) { delete this.pos.dataset.i18n; this.pos.textContent = `${i + 1} / ${this.rows.length}`; }
  }

  /**
   * Worst nodes: every compared Debug leaf with its metrics (worst over its outputs), parsed from the
   * items in SQL. Not only the flagged ones: msProbe flags where a divergence starts (clean inputs,
   * bad output), while the relative errors show how far it has spread.
   */
  async loadWorst() {
    const p = this.pane;
    if (!p || this.table) { this.drawWorst(); return; }
    const columns = METRICS[this.deps.task] || [];
    const seq = this.seq;
    const range = (await scopeRowids(this.deps.engine, p.opts.step, p.opts.rank, 'NPU')) || [0, -1];
    const rows = await worstRows(this.deps.engine, range, [p.opts.step, p.opts.rank, 'NPU'], p.opts.micro, columns);
    if (seq !== this.seq) return;
    this.table = { rows, columns: [['precision_index', 'precision_index', 'desc'], ...columns], sort: 0, dir: 'desc', page: 0 };
    this.sortWorst();
    this.drawWorst();
  }

  sortWorst() {
    const tb = /** @type {NonNullable<NavigatorPanel['table']>} */ (this.table);
    const sign = tb.dir === 'desc' ? -1 : 1;
    tb.rows.sort((a, b) => {
      const x = cellOf(a, tb.sort);
      const y = cellOf(b, tb.sort);
      if (x === null && y === null) return a.order - b.order;
      if (x === null) return 1;
      if (y === null) return -1;
      // NaN first in either direction (the worst); infinities compare as numbers.
      const xn = Number.isNaN(x);
      const yn = Number.isNaN(y);
      if (xn || yn) return xn && yn ? a.order - b.order : xn ? -1 : 1;
      if (x === y) return a.order - b.order;   // ties (also inf = inf): execution order
      return sign * (x < y ? -1 : 1);
    });
  }

  drawWorst() {
    const tb = this.table;
    const box = this.worstBody;
    box.textContent = '';
    if (!tb) return;
    box.dataset.rows = String(tb.rows.length);
    if (!tb.rows.length) { box.append(tel('p', 'noData')); return; }
    const table = el('table', undefined, 'ws-worst-table');
    const head = el('tr');
    head.append(el('th', '#'), tel('th', 'node'));
    tb.columns.forEach(([, label], i) => {
      const th = el('th');
      const b = el('button', label + (tb.sort === i ? (tb.dir === 'desc' ? ' ▼' : ' ▲') : ''), 'ws-link');
      b.dataset.testid = 'worst-sort-' + label;
      b.addEventListener('click', () => {
        if (tb.sort === i) tb.dir = tb.dir === 'desc' ? 'asc' : 'desc';
        else { tb.sort = i; tb.dir = tb.columns[i][2]; }
        tb.page = 0;
        this.sortWorst();
        this.drawWorst();
      });
      th.append(b);
      head.append(th);
    });
    const thead = el('thead');
    thead.append(head);
    const body = el('tbody');
    const start = tb.page * PAGE;
    for (const [k, row] of tb.rows.slice(start, start + PAGE).entries()) {
      const tr = el('tr');
      tr.dataset.name = row.name;
      const link = el('button', row.name, 'ws-link');
      link.title = row.name;
      link.addEventListener('click', () => { const p = this.pane; if (p) this.deps.selectFromList(p, row.name); });
      const nameCell = el('td');
      nameCell.append(link);
      tr.append(el('td', String(start + k + 1)), nameCell,
                ...tb.columns.map(([key], i) => el('td', metricText(cellOf(row, i), this.deps.task === 'summary' && /RelativeErr$/.test(key)), 'num')));
      body.append(tr);
    }
    table.append(thead, body);
    const pager = el('div', undefined, 'ws-pager');
    const prev = el('button', '‹');
    prev.dataset.testid = 'worst-prev';
    prev.addEventListener('click', () => { if (tb.page > 0) { tb.page -= 1; this.drawWorst(); } });
    const next = el('button', '›');
    next.dataset.testid = 'worst-next';
    next.addEventListener('click', () => { if (start + PAGE < tb.rows.length) { tb.page += 1; this.drawWorst(); } });
    pager.append(prev, tel('span', 'pageOf', undefined, start + 1, Math.min(start + PAGE, tb.rows.length), tb.rows.length), next);
    const wrap = el('div', undefined, 'ws-table-wrap');
    wrap.append(table);
    box.append(pager, wrap);
  }
}
