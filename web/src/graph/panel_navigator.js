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
import { scopeRowids, scopeTerms, LEAF, COLOURED } from './scope_rows.js';

const UNMATCHED_SQL = "(matched_node_link IS NULL OR matched_node_link IN ('', '[]'))";
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

export class NavigatorPanel {
  /**
   * @param {{engine: import('../engine/client.js').EngineClient, compare: boolean, overflowCheck: boolean, colors: import('./colours.js').ColourBucket[],
   *          colorsJson: string|null, task: string, panes: import('./pane.js').Pane[],
   *          selectFromList: (p: import('./pane.js').Pane, name: string) => Promise<void>}} ws
   */
  constructor(ws) {
    this.ws = ws;
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
    this.checks = el('div', undefined, 'ws-checks');
    const kinds = ['error', 'warning'];
    if (ws.compare) kinds.push('unmatched');
    if (ws.overflowCheck) kinds.push('overflow');
    for (const k of kinds) {
      const lab = el('label', undefined, 'ws-swatch');
      const cb = /** @type {HTMLInputElement} */ (el('input'));
      cb.type = 'checkbox';
      cb.value = k;
      cb.checked = true;
      cb.dataset.testid = 'nav-' + k;
      // A single graph has no precision: only overflow is meaningful.
      if (!ws.compare && k !== 'overflow') { cb.checked = false; cb.disabled = true; }
      cb.addEventListener('change', () => { this.invalidate(); this.ensure().catch(() => {}); });
      const chip = el('i');
      chip.dataset.kind = k;
      if (k === 'unmatched' || k === 'overflow') chip.style.background = k === 'unmatched' ? UNMATCHED : OVERFLOW.high;
      lab.append(cb, chip, tel('span', k));
      this.checks.append(lab);
    }
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
     * The worst-nodes table: rows [node_name, node_order, precision_index, metric values (NaN: a NaN
     * in the node's outputs, null: none)...].
     * @type {{rows: [string, number, ...(number|null)[]][], columns: Array<[string, string, 'asc'|'desc']>, sort: number, dir: 'asc'|'desc', page: number}|null}
     */
    this.table = null;
    this.el.append(this.checks, bar, this.count, this.list.el, this.worst);
  }

  /** The Debug pane (flagged leaves are a Debug-side notion, like the filter list). */
  get pane() { return this.ws.panes[0]; }

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
      this.thresholds = await this.ws.engine.thresholds();
      for (const chip of this.checks.querySelectorAll('i[data-kind=error], i[data-kind=warning]')) {
        const c = /** @type {HTMLElement} */ (chip);
        c.style.background = bucketFill(c.dataset.kind === 'error' ? this.thresholds.error : this.thresholds.warning, this.ws.colors);
      }
    }
    const { warning, error } = this.thresholds;
    // Errors and warnings at every level (a module whose own outputs diverge while its leaves pass
    // is where the divergence shows, issue 19); unmatched and overflow are leaf notions, as in the badges.
    const conds = [];
    // API lists and fused operators draw white (GR-04): not flagged by their index.
    if (kinds.has('error')) conds.push(`(${COLOURED} AND precision_index >= ${Number(error)})`);
    if (kinds.has('warning')) conds.push(`(${COLOURED} AND precision_index >= ${Number(warning)} AND precision_index < ${Number(error)})`);
    if (kinds.has('unmatched')) conds.push(`(${LEAF} AND ${UNMATCHED_SQL})`);
    if (kinds.has('overflow')) conds.push(`(${LEAF} AND overflow_level IN ('medium', 'high', 'critical'))`);
    if (!conds.length) return [];
    // node_order is execution order: a module's row follows its children's (its output comes last).
    const range = await scopeRowids(this.ws.engine, p.opts.step, p.opts.rank, 'NPU');
    if (!range) return [];
    const r = await this.ws.engine.query(
      `SELECT node_name, node_order, precision_index, overflow_level, ${UNMATCHED_SQL} AND ${LEAF} FROM tb_nodes
       WHERE ${scopeTerms()} AND (? < 0 OR micro_step_id = ?) AND (${conds.join(' OR ')})
       ORDER BY node_order`, [...range, p.opts.step, p.opts.rank, 'NPU', p.opts.micro, p.opts.micro]);
    return r.values.map(([name, order, precision, level, unmatched]) => {
      const pr = precision === null ? null : Number(precision);
      const kind = pr !== null && pr >= error && kinds.has('error') ? 'error'
        : pr !== null && pr >= warning && kinds.has('warning') ? 'warning'
          : unmatched && kinds.has('unmatched') ? 'unmatched' : 'overflow';
      const colour = kind === 'unmatched' ? UNMATCHED : kind === 'overflow' ? OVERFLOW[String(level)] || WHITE : bucketFill(pr, this.ws.colors);
      return { name: String(name), order: Number(order), colour, kind };
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
      const r = await this.ws.engine.query('SELECT node_order FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
                                           [p.opts.step, p.opts.rank, 'NPU', p.selected.name]);
      if (r.values.length) order = Number(r.values[0][0]);
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
    await this.ws.selectFromList(p, r.name);
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
    const columns = METRICS[this.ws.task] || [];
    const metric = (/** @type {string} */ key, /** @type {string} */ dir) => {
      const v = `json_extract(j.value, '$."${key}"')`;
      // Values are stored as text ("12.5%", "0.999", "inf%", "nan%", "N/A"): numbers and infinities
      // count (SQLite's 9e999 is +inf); a NaN anywhere is reported by the flag beside the value, and
      // sorts as the worst (it is the divergence that hides every other).
      const num = `CASE WHEN ${v} GLOB '[0-9]*' OR ${v} GLOB '-[0-9]*' OR ${v} GLOB '.[0-9]*' THEN CAST(${v} AS REAL)
                   WHEN lower(${v}) GLOB 'inf*' OR lower(${v}) GLOB '+inf*' THEN 9e999 WHEN lower(${v}) GLOB '-inf*' THEN -9e999 END`;
      return `${dir === 'asc' ? 'min' : 'max'}(${num}), max(lower(${v}) GLOB '*nan*')`;
    };
    const seq = this.seq;
    const range = (await scopeRowids(this.ws.engine, p.opts.step, p.opts.rank, 'NPU')) || [0, -1];
    const r = await this.ws.engine.query(
      `SELECT n.node_name, n.node_order, n.precision_index${columns.map(([k, , d]) => ', ' + metric(k, d)).join('')}
       FROM tb_nodes n LEFT JOIN json_each(CASE WHEN json_valid(n.output_data) THEN n.output_data ELSE '{}' END) j
       WHERE ${scopeTerms('n.')} AND (n.sub_nodes IS NULL OR n.sub_nodes IN ('', '[]'))
         AND (? < 0 OR n.micro_step_id = ?) AND n.precision_index IS NOT NULL
       GROUP BY n.node_order`, [...range, p.opts.step, p.opts.rank, 'NPU', p.opts.micro, p.opts.micro]);
    if (seq !== this.seq) return;
    // [name, order, precision, (value, nan flag) per metric] -> [name, order, precision, value...], NaN kept.
    const rows = r.values.map((row) => {
      const out = row.slice(0, 3);
      for (let i = 0; i < columns.length; ++i) {
        const v = row[3 + 2 * i];
        out.push(row[4 + 2 * i] ? NaN : v === null ? null : Number(v));
      }
      return /** @type {[string, number, ...(number|null)[]]} */ (out);   // (name, order and precision as stored)
    });
    this.table = { rows, columns: [['precision_index', 'precision_index', 'desc'], ...columns], sort: 0, dir: 'desc', page: 0 };
    this.sortWorst();
    this.drawWorst();
  }

  sortWorst() {
    const tb = /** @type {NonNullable<NavigatorPanel['table']>} */ (this.table);
    const c = tb.sort + 2;
    const sign = tb.dir === 'desc' ? -1 : 1;
    tb.rows.sort((a, b) => {
      const x = /** @type {number|null} */ (a[c]);   // (c: a value column)
      const y = /** @type {number|null} */ (b[c]);
      if (x === null && y === null) return a[1] - b[1];
      if (x === null) return 1;
      if (y === null) return -1;
      // NaN first in either direction (the worst); infinities compare as numbers.
      const xn = Number.isNaN(x);
      const yn = Number.isNaN(y);
      if (xn || yn) return xn && yn ? a[1] - b[1] : xn ? -1 : 1;
      if (x === y) return a[1] - b[1];   // ties (also inf = inf): execution order
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
      tr.dataset.name = String(row[0]);
      const link = el('button', String(row[0]), 'ws-link');
      link.title = String(row[0]);
      link.addEventListener('click', () => { const p = this.pane; if (p) this.ws.selectFromList(p, String(row[0])); });
      const nameCell = el('td');
      nameCell.append(link);
      tr.append(el('td', String(start + k + 1)), nameCell,
                ...tb.columns.map(([key], i) => el('td', metricText(/** @type {number|null} */ (row[i + 2]), this.ws.task === 'summary' && /RelativeErr$/.test(key)), 'num')));
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
