// @ts-check
// The detail panel (web-ui §8.5): "Comparison details" with debug and bench parameters paired by
// position (DET-02..04) and "Node information" with stacks, parallel-merge details and the
// communication peers (DET-05/06). One query per side; every value is set as text.
import { el, tel, setText, toast } from './dom.js';
import { t } from '../i18n.js';
import { crossStrip } from './panel_strip.js';
import { themed, textColour } from './colours.js';
import { detailColumns } from './queries.js';

const HIDDEN_FIELDS = new Set(['data_name', 'value']);
/** Issue 46: the verdict's columns first, then the errors, then the raw statistics. */
const LEAD_FIELDS = ['Result', 'Err_message'];
const ERROR_FIELDS = ['MaxRelativeErr', 'MinRelativeErr', 'MeanRelativeErr', 'NormRelativeErr', 'Cosine', 'EucDist', 'MaxAbsErr',
                      'One Thousandth Err Ratio', 'Five Thousandths Err Ratio', 'Max diff', 'Min diff', 'Mean diff', 'L2norm diff',
                      'Requires_grad Consistent'];
/** The error columns the verdict quotes for a flagged row (the ones that decide Result). */
const QUOTED_FIELDS = ['MaxRelativeErr', 'MeanRelativeErr', 'NormRelativeErr', 'Cosine', 'MaxAbsErr', 'One Thousandth Err Ratio'];
const LEVELS = ['pass', 'warning', 'error'];

/** The fields in the order the table shows them. @param {string[]} fields */
export function orderFields(fields) {
  const rank = (/** @type {string} */ f) => {
    const lead = LEAD_FIELDS.indexOf(f);
    if (lead >= 0) return lead;
    const err = ERROR_FIELDS.indexOf(f);
    return err >= 0 ? LEAD_FIELDS.length + err : 100;
  };
  return fields.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map((x) => x.f);
}

/** @typedef {import('../engine/protocol.js').SqlValue} SqlValue */
/**
 * A node's detail row (fetchRow): its JSON columns parsed (X-05: an object or a list, else the
 * fallback); input and output map a parameter's name to its fields as msProbe wrote them.
 * @typedef {{name: string, side: string, input: Record<string, Record<string, unknown>>, output: Record<string, Record<string, unknown>>,
 *            stack: unknown[], precision: SqlValue, overflow: SqlValue, merge: unknown[],
 *            dist: {communications_type?: unknown, nodes_info?: Record<string, unknown>}}} DetailRow
 */
/** One parameter of the paired table. @typedef {{side: string, key: string, node: string, item: Record<string, unknown>, paired: boolean}} ParamRow */

/** Err_message as msProbe writes it (a list in a string, or text) as a list. @param {unknown} v */
export function errMessages(v) {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.map(String).filter(Boolean);
  const text = String(v).trim();
  if (text.startsWith('[')) {
    try { const list = JSON.parse(text); if (Array.isArray(list)) return list.map(String).filter(Boolean); } catch { /* as text */ }
  }
  return text && text !== '-' && text !== 'None' ? [text] : [];
}

/** A table cell: Err_message as its messages (none: empty), other fields as written, '-' when absent. @param {Record<string, unknown>} item @param {string} f */
function cellOf(item, f) {
  const has = Object.prototype.hasOwnProperty.call(item, f) && item[f] !== null;
  if (f === 'Err_message') return el('td', has ? errMessages(item[f]).join('; ') : '-', 'ws-errmsg');
  return el('td', has ? String(item[f]) : '-');
}

/** A communication peer's number as msProbe stores it: 'Nan' / NaN / null mean none. @param {unknown} v */
const peerNumber = (v) => (v === null || v === undefined || v === '' || Number.isNaN(Number(v)) ? null : Number(v));

/** JSON from the database, parsed defensively (X-05). @template T @param {SqlValue} text @param {T} fallback @returns {T} */
function parseJson(text, fallback) {
  try {
    const v = JSON.parse(/** @type {string} */ (text) || 'null');
    return v === null || typeof v !== typeof fallback || Array.isArray(v) !== Array.isArray(fallback) ? fallback : v;
  } catch {
    return fallback;
  }
}

/** Own keys without prototype-pollution names. @param {unknown} o */
export const keysOf = (o) => Object.keys(/** @type {object} */ (o || {})).filter((k) => k !== '__proto__' && k !== 'constructor' && k !== 'prototype');

/**
 * What the detail panel uses of the workspace (Workspace.buildChrome makes it): what the cross strip
 * uses (StripDeps), the tool tips of tb_config, whether the file was checked for overflow, the
 * colour mode shown ('precision' or 'overflow'), the index of a pane (0: Debug, 1: Bench), and GI-03's
 * switch to a communication peer's rank with the peer selected.
 * @typedef {import('./panel_strip.js').StripDeps & {toolTips: Record<string, string>, overflowCheck: boolean, colourMode: () => string,
 *            sideOf: (p: import('./pane.js').Pane) => number,
 *            gotoPeer: (p: import('./pane.js').Pane, rank: string, name: string) => Promise<void>}} DetailDeps
 */

export class DetailPanel {
  /** @param {DetailDeps} deps */
  constructor(deps) {
    this.deps = deps;
    this.el = el('div', undefined, 'ws-detail');
    this.el.dataset.testid = 'detail';
    this.tab = 'details';
    this.seq = 0;
    this.clear();
  }

  clear() {
    this.seq += 1;
    const { cmpPanel, infoPanel } = this.frame();
    cmpPanel.append(tel('p', 'noData'));
    infoPanel.append(tel('p', 'noData'));
  }

  /** DET-01: the two tabs; the chosen tab stays chosen across selections. */
  frame() {
    const d = this.el;
    d.textContent = '';
    const tabs = el('div', undefined, 'ws-tabs');
    tabs.setAttribute('role', 'tablist');
    const cmpTab = tel('button', this.deps.compare ? 'comparisonDetails' : 'ioDetails', 'ws-tab');
    const infoTab = tel('button', 'nodeInformation', 'ws-tab');
    cmpTab.dataset.testid = 'tab-details';
    infoTab.dataset.testid = 'tab-info';
    tabs.append(cmpTab, infoTab);
    const cmpPanel = el('div', undefined, 'ws-tab-panel');
    const infoPanel = el('div', undefined, 'ws-tab-panel');
    cmpPanel.dataset.testid = 'panel-details';
    infoPanel.dataset.testid = 'panel-info';
    const show = (/** @type {string} */ tab) => {
      this.tab = tab;
      cmpPanel.hidden = tab !== 'details';
      infoPanel.hidden = tab === 'details';
      cmpTab.classList.toggle('active', tab === 'details');
      infoTab.classList.toggle('active', tab !== 'details');
      cmpTab.setAttribute('aria-selected', String(tab === 'details'));
      infoTab.setAttribute('aria-selected', String(tab !== 'details'));
    };
    cmpTab.addEventListener('click', () => show('details'));
    infoTab.addEventListener('click', () => show('info'));
    show(this.tab);
    d.append(tabs, cmpPanel, infoPanel);
    return { cmpPanel, infoPanel };
  }

  /**
   * @param {import('./pane.js').Pane} pane @param {string} name @param {string} side
   * @returns {Promise<DetailRow|null>}
   */
  async fetchRow(pane, name, side) {
    const c = await detailColumns(this.deps.engine, [pane.opts.step, pane.opts.rank, side], name);
    if (!c) return null;
    return { name, side, input: parseJson(c.input, {}), output: parseJson(c.output, {}), stack: parseJson(c.stack, []),
             precision: c.precision, overflow: c.overflow, dist: parseJson(c.dist, {}), merge: parseJson(c.merge, []) };
  }

  /**
   * §8.5 for node `n` of pane `p` and, in compare mode, its counterpart in `other`.
   * @param {import('./pane.js').Pane} p @param {import('./layout.js').GNode} n @param {string|null} counterpart @param {import('./pane.js').Pane|null} other
   */
  async show(p, n, counterpart, other) {
    const seq = ++this.seq;
    const sides = [this.fetchRow(p, n.name, p.opts.side)];
    if (counterpart && other) sides.push(this.fetchRow(other, counterpart, other.opts.side));
    const rows = /** @type {DetailRow[]} */ ((await Promise.all(sides)).filter(Boolean));
    if (seq !== this.seq) return;   // a newer selection won
    rows.sort((a, b) => (a.side === 'NPU' ? -1 : 1) - (b.side === 'NPU' ? -1 : 1));
    const { cmpPanel, infoPanel } = this.frame();
    // BEY-10: the node on every step and rank, above the tabs (filled when its query returns).
    const deps = this.deps;
    if (deps.steps.length > 1 || deps.ranks.length > 1) {
      const slot = el('div', undefined, 'ws-strip-slot');
      this.el.insertBefore(slot, this.el.children[1] || null);
      crossStrip(deps, p, n.name, deps.sideOf(p), deps.colourMode())
        .then((box) => { if (seq === this.seq) slot.append(box); })
        .catch(() => {});
    }
    const dbg = rows.find((r) => r.side === 'NPU') || null;
    const bch = rows.find((r) => r.side === 'Bench') || null;
    this.pairedTable(dbg, bch, cmpPanel);
    for (const row of rows) infoPanel.append(this.infoColumn(row, p));
    if (!cmpPanel.children.length) cmpPanel.append(tel('p', 'noData'));
    if (!infoPanel.children.length) infoPanel.append(tel('p', 'noData'));
  }

  /**
   * DET-02..04: debug and bench parameters paired by position; inputs, then outputs, then the
   * unpaired rows of each side.
   * @param {DetailRow|null} dbg @param {DetailRow|null} bch @param {HTMLElement} container
   */
  pairedTable(dbg, bch, container) {
    const compare = this.deps.compare;
    const all = paramRows(dbg, bch);
    const box = el('section', undefined, 'ws-node ws-paired');
    box.dataset.testid = 'paired';
    const head = el('div', undefined, 'ws-paired-head');
    const title = (/** @type {string} */ key, /** @type {DetailRow} */ row) => {
      const s = el('span', undefined, 'ws-paired-name');
      s.append(tel('b', key), ' ', row.name);
      s.title = row.name;
      return s;
    };
    if (dbg) head.append(title('debugNode', dbg));
    if (bch) head.append(title('benchNode', bch));
    const primary = dbg || bch;
    if (primary) {
      const stats = tel('span', 'detailPrecision', 'ws-muted', String(primary.precision ?? '-'), String(primary.overflow ?? '-'));
      stats.dataset.testid = 'detail-precision';
      head.append(stats);
    }
    if (compare) {
      // DET-02 legend.
      const legend = el('span', undefined, 'ws-paired-legend');
      legend.append(el('i', undefined, 'sw-debug'), tel('span', 'debugRows'), el('i', undefined, 'sw-bench'), tel('span', 'benchRows'),
                    el('span', '●', 'dot-green'), tel('span', 'matchedParams'), el('span', '●', 'dot-red'), tel('span', 'unmatchedParams'));
      head.append(legend);
    }
    box.append(head);
    if (primary) box.append(this.verdict(dbg, bch, all));
    if (!all.length) { container.append(box); return; }
    /** @type {string[]} */
    const fields = [];
    for (const r of all) for (const f of keysOf(r.item)) if (!HIDDEN_FIELDS.has(f) && !fields.includes(f)) fields.push(f);
    fields.splice(0, fields.length, ...orderFields(fields));
    const wrap = el('div', undefined, 'ws-table-wrap');
    const table = el('table');
    const tr0 = el('tr');
    const tips = this.deps.toolTips || {};
    // Issue 19: which side a row is (a column, not only a row colour).
    if (compare) tr0.append(tel('th', 'sideColumn'));
    tr0.append(tel('th', 'nameColumn'), ...fields.map((f) => {
      const th = el('th', f);
      if (Object.prototype.hasOwnProperty.call(tips, f)) th.title = String(tips[f]);   // DET-04 tooltips
      return th;
    }));
    const thead = el('thead');
    thead.append(tr0);
    table.append(thead);
    const body = el('tbody');
    for (const r of all) {
      const tr = el('tr', undefined, r.side === 'Bench' ? 'bench-row' : 'debug-row');
      tr.dataset.side = r.side;
      if (compare) tr.append(tel('td', r.side === 'Bench' ? 'benchSide' : 'debugSide', 'ws-side-cell'));
      const nameCell = el('td');
      if (compare) nameCell.append(el('span', '● ', r.paired ? 'dot-green' : 'dot-red'));
      nameCell.append(r.key.startsWith(r.node + '.') ? r.key.slice(r.node.length + 1) : r.key);
      const item = r.item && typeof r.item === 'object' ? r.item : {};
      tr.append(nameCell, ...fields.map((f) => cellOf(item, f)));
      body.append(tr);
    }
    table.append(body);
    wrap.append(table);
    box.append(wrap);
    container.append(box);
  }

  /**
   * Issue 46: the node's verdict, first in the panel: the level its precision index falls in (the
   * colour of its box), the rows whose Result set it with their Err_message and errors, and the
   * overflow level (with why it is "-" when the build had no overflow check).
   * @param {DetailRow|null} dbg @param {DetailRow|null} bch @param {ParamRow[]} rows
   */
  verdict(dbg, bch, rows) {
    const deps = this.deps;
    const box = el('div', undefined, 'ws-verdict');
    box.dataset.testid = 'verdict';
    const own = /** @type {DetailRow} */ (dbg || bch);   // (called with one of them at least)
    if (deps.compare && dbg && !bch) box.append(tel('span', 'verdictUnmatched', 'ws-verdict-badge'));
    else if (deps.compare && dbg) box.append(this.levelBadge(dbg.precision, deps.colors || []));
    const overflow = own.overflow === null || own.overflow === undefined || own.overflow === '' ? null : String(own.overflow);
    box.append(overflow ? tel('span', 'verdictOverflow', '', overflow) : tel('span', deps.overflowCheck ? 'verdictNoOverflow' : 'verdictNoOverflowCheck', 'ws-muted'));
    const debugRows = rows.filter((r) => r.side === 'NPU' && r.item && typeof r.item === 'object' && 'Result' in r.item);
    const worst = debugRows.reduce((w, r) => Math.max(w, LEVELS.indexOf(String(r.item.Result))), -1);
    if (worst < 0) return box;
    const list = el('div', undefined, 'ws-verdict-rows');
    if (worst === 0) list.append(tel('span', 'verdictAllPass', 'ws-muted'));
    for (const r of debugRows.filter((x) => LEVELS.indexOf(String(x.item.Result)) === worst && worst > 0)) {
      const line = el('span', undefined, 'ws-verdict-row');
      const key = r.key.startsWith(r.node + '.') ? r.key.slice(r.node.length + 1) : r.key;
      line.append(el('b', key), ` ${t(LEVELS[worst])}`);
      const quoted = QUOTED_FIELDS.filter((f) => r.item[f] !== undefined && r.item[f] !== null && r.item[f] !== '' && r.item[f] !== ' ');
      if (quoted.length) line.append(`: ${quoted.map((f) => `${f} ${r.item[f]}`).join(', ')}`);
      const msgs = errMessages(r.item.Err_message);
      if (msgs.length) line.append(' — ', el('span', msgs.join('; '), 'ws-verdict-msg'));
      list.append(line);
    }
    box.append(list);
    return box;
  }

  /**
   * The precision index and the bucket it falls in, coloured as the box is.
   * @param {SqlValue} value @param {import('./colours.js').ColourBucket[]} colors
   */
  levelBadge(value, colors) {
    const v = value === null || value === undefined || value === '' ? NaN : Number(value);
    const badge = el('span', undefined, 'ws-verdict-badge');
    badge.dataset.testid = 'verdict-level';
    if (Number.isNaN(v)) { badge.append(t('verdictNoIndex')); return badge; }
    const c = Math.min(1, Math.max(0, v));
    const bucket = colors.find((b, i) => c >= b.lo && (c < b.hi || (i === colors.length - 1 && c <= b.hi)));
    badge.style.background = bucket ? themed(bucket.colour) : '';
    if (bucket) badge.style.color = textColour(themed(bucket.colour));
    const level = bucket && bucket.level ? t(bucket.level) : '';
    badge.append(t('verdictLevel', String(v), level, bucket ? `[${bucket.lo}, ${bucket.hi}]` : ''));
    return badge;
  }

  /** DET-05 / DET-06: stack, merge details and communication peers of one side. @param {DetailRow} row @param {import('./pane.js').Pane} p */
  infoColumn(row, p) {
    const info = el('section', undefined, 'ws-node');
    const h = el('h3');
    h.append(tel('span', row.side === 'NPU' ? 'debugSide' : 'benchSide'), `: ${row.name}`);
    info.append(h);
    const addSection = (/** @type {string} */ key, /** @type {string} */ text, /** @type {boolean} */ open) => {
      const det = /** @type {HTMLDetailsElement} */ (el('details'));
      det.open = open;
      const sum = el('summary');
      const copy = tel('button', 'copy', 'ws-copy');
      copy.addEventListener('click', async (e) => {
        e.preventDefault();
        const ok = await copyText(text);
        setText(copy, ok ? 'copied' : 'copyFailed');
        toast(t(ok ? 'copied' : 'copyFailed'), ok ? 'ok' : 'error');
      });
      sum.append(tel('span', key), ' ', copy);
      det.append(sum, el('pre', text));
      info.append(det);
    };
    const frames = Array.isArray(row.stack) ? row.stack.map(String) : [];
    addSection('stackInfo', frames.length ? frames.join('\n') : t('noData'), true);
    const merge = Array.isArray(row.merge) ? row.merge.map(String) : [];
    if (merge.length) addSection('mergeDetails', merge.join('\n'), true);
    const dist = row.dist;
    if (dist && typeof dist === 'object' && dist.nodes_info && typeof dist.nodes_info === 'object') {
      const type = { send: 'dataSend', receive: 'dataReceive', send_receive: 'dataSendReceive' }[String(dist.communications_type)] || 'dataCommunication';
      const list = el('ul', undefined, 'ws-peers');
      list.dataset.testid = 'peers';
      for (const rank of keysOf(dist.nodes_info)) {
        const info2 = dist.nodes_info[rank];
        if (!Array.isArray(info2)) continue;
        const li = el('li');
        const b = el('button', `rank${rank}: ${String(info2[1])}`, 'ws-link');
        b.addEventListener('click', () => this.deps.gotoPeer(p, rank, String(info2[1])));
        // The number beside a peer is its precision index; msProbe writes "Nan" when there is none.
        const index = peerNumber(info2[0]);
        if (index !== null) li.append(b, el('span', ` ${t('precisionIndexShort')} ${index}`, 'ws-muted'));
        else li.append(b);
        list.append(li);
      }
      info.append(tel('h4', type), list);
    }
    return info;
  }
}

/**
 * DET-02..04: the parameters of the two sides paired by position, inputs then outputs, followed by
 * the unpaired ones of Debug, then of Bench. @param {DetailRow|null} dbg @param {DetailRow|null} bch @returns {ParamRow[]}
 */
function paramRows(dbg, bch) {
  /** @type {ParamRow[]} */
  const rows = [];
  /** @type {{NPU: ParamRow[], Bench: ParamRow[]}} */
  const unpaired = { NPU: [], Bench: [] };
  for (const part of /** @type {const} */ (['input', 'output'])) {
    const dk = dbg ? keysOf(dbg[part]) : [];
    const bk = bch ? keysOf(bch[part]) : [];
    // (dk has keys only with dbg, bk only with bch)
    const d = /** @type {DetailRow} */ (dbg), b = /** @type {DetailRow} */ (bch);
    for (let i = 0; i < Math.max(dk.length, bk.length); ++i) {
      if (i < dk.length && i < bk.length) {
        rows.push({ side: 'NPU', key: dk[i], node: d.name, item: d[part][dk[i]], paired: true });
        rows.push({ side: 'Bench', key: bk[i], node: b.name, item: b[part][bk[i]], paired: true });
      } else if (i < dk.length) unpaired.NPU.push({ side: 'NPU', key: dk[i], node: d.name, item: d[part][dk[i]], paired: false });
      else unpaired.Bench.push({ side: 'Bench', key: bk[i], node: b.name, item: b[part][bk[i]], paired: false });
    }
  }
  return [...rows, ...unpaired.NPU, ...unpaired.Bench];
}

/** DET-05: the clipboard API, or a hidden text area when it is unavailable. @param {string} text */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = /** @type {HTMLTextAreaElement} */ (el('textarea'));
    area.value = text;
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    area.remove();
    return ok;
  }
}
