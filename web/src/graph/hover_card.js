// @ts-check
// Issue 19: the hover card of a graph node: its full name, kind and precision, and for it and its
// matched node on the other side the shapes, dtypes and key statistics of its inputs and outputs.
// Issue 46: it first says, in words, what gave the box its colour (the same rule as the fill,
// colours.js): the precision index and the bucket of the file's table it falls in, with the rows
// whose Result set it, or unmatched, or the overflow level in overflow mode. It stays inside the
// window (flipped left / up near the right / bottom edge). One query per side (the detail panel's),
// started once the pointer rests on a node; every value is set as text.
import { el, tel } from './dom.js';
import { isLeaf } from './layout.js';
import { keysOf, errMessages } from './panel_detail.js';
import { bucketOf, rangeText, isUncoloured } from './colours.js';
import { t } from '../i18n.js';

const REST_MS = 250;
const ITEMS = 3;            // inputs and outputs shown per side
const STATS = ['Max', 'Min', 'Mean', 'Norm'];
const LEVELS = ['pass', 'warning', 'error'];
/** The metric columns a checker's message may name (msProbe's Err_message), quoted beside it. */
const METRICS = ['NormRelativeErr', 'MaxRelativeErr', 'MeanRelativeErr', 'MinRelativeErr', 'Cosine', 'One Thousandth Err Ratio', 'MaxAbsErr'];
const REASON_ROWS = 2;      // flagged rows quoted under the verdict
const MARGIN = 8;           // the card's distance from the window's edges
const GAP = 16;             // and from the pointer


/** @typedef {import('./pane.js').Pane} Pane */
/** @typedef {import('./layout.js').GNode} GNode */
/** @typedef {import('./panel_detail.js').DetailRow} DetailRow */

export class HoverCard {
  /**
   * @param {{fetchRow: (pane: Pane, name: string, side: string) => Promise<DetailRow|null>, other: (p: Pane) => Pane|null, compare: boolean}} ws
   */
  constructor(ws) {
    this.ws = ws;
    this.el = el('div', undefined, 'ws-card');
    this.el.dataset.testid = 'hover-card';
    this.el.hidden = true;
    this.el.setAttribute('role', 'tooltip');
    document.body.append(this.el);
    this.timer = 0;
    this.seq = 0;
    /** @type {GNode|null} */
    this.node = null;
    /** @type {number|undefined} the pointer, where the card goes */
    this.x = undefined;
    /** @type {number|undefined} */
    this.y = undefined;
  }

  /** @param {Pane} p @param {GNode|null} n @param {number} x @param {number} y */
  hover(p, n, x, y) {
    if (!n) { this.hide(); return; }
    this.x = x;
    this.y = y;
    if (n === this.node) { if (!this.el.hidden) this.place(); return; }
    this.hide();
    this.node = n;
    this.timer = window.setTimeout(() => { this.show(p, n).catch(() => {}); }, REST_MS);
  }

  hide() {
    clearTimeout(this.timer);
    this.seq++;
    this.node = null;
    this.el.hidden = true;
  }

  destroy() { this.hide(); this.el.remove(); }

  /**
   * Issue 46: right of and below the pointer, flipped to its left / above it where the card would
   * cross the window's right / bottom edge, and never outside the window. Measured at the top left
   * corner first: near the right edge the box would shrink to the room left and its rows run off.
   */
  place() {
    const box = this.el;
    const vw = document.documentElement.clientWidth || window.innerWidth;
    const vh = document.documentElement.clientHeight || window.innerHeight;
    const room = Math.max(120, vw - 2 * MARGIN);
    box.style.maxWidth = `${Math.min(520, room)}px`;
    box.style.maxHeight = `${Math.max(60, vh - 2 * MARGIN)}px`;
    box.style.overflow = 'hidden';
    box.style.left = '0px';
    box.style.top = '0px';
    // Rows (kept on one line) wider than the card widen it, as far as the window allows.
    if (box.scrollWidth > box.clientWidth) box.style.maxWidth = `${Math.min(room, box.scrollWidth + (box.offsetWidth - box.clientWidth) + 2)}px`;
    const r = box.getBoundingClientRect();
    const px = this.x || 0;
    const py = this.y || 0;
    let x = px + GAP;
    if (x + r.width > vw - MARGIN) x = px - GAP - r.width;
    let y = py + GAP;
    if (y + r.height > vh - MARGIN) y = py - GAP - r.height;
    x = Math.max(MARGIN, Math.min(x, vw - MARGIN - r.width));
    y = Math.max(MARGIN, Math.min(y, vh - MARGIN - r.height));
    box.style.left = `${Math.round(x)}px`;
    box.style.top = `${Math.round(y)}px`;
  }

  /** @param {Pane} p @param {GNode} n */
  async show(p, n) {
    const seq = ++this.seq;
    const o = this.ws.other(p);
    const peer = o && n.link.length ? n.link[n.link.length - 1] : null;
    const rows = await Promise.all([this.ws.fetchRow(p, n.name, p.opts.side),
                                    peer && o ? this.ws.fetchRow(o, peer, o.opts.side) : Promise.resolve(null)]);
    if (seq !== this.seq || this.node !== n) return;
    const box = this.el;
    box.textContent = '';
    box.append(el('div', n.name, 'ws-card-name'));
    const kind = isLeaf(n) ? 'kindLeaf' : 'kindModule';
    const head = el('div', undefined, 'ws-muted');
    head.append(tel('span', kind));
    if (n.precision !== null && n.precision !== undefined) head.append(tel('span', 'cardPrecision', undefined, String(n.precision)));
    if (n.overflow) head.append(tel('span', 'cardOverflow', undefined, String(n.overflow)));
    box.append(head, colourReason(p, n, rows[0], rows[1]));
    for (const row of rows) if (row) box.append(sideSection(row, n));
    if (o && !peer) box.append(tel('div', 'unmatched', 'ws-muted'));
    box.hidden = false;
    this.place();
  }
}

/** One side's inputs and outputs: shape, dtype and statistics of the first ITEMS of each. @param {DetailRow} row @param {GNode} n */
function sideSection(row, n) {
  const sec = el('div', undefined, 'ws-card-side');
  const title = el('div', undefined, 'ws-card-title');
  title.append(tel('b', row.side === 'NPU' ? 'debugSide' : 'benchSide'));
  if (row.name !== n.name) title.append(' ', row.name);
  sec.append(title);
  const table = el('table');
  for (const part of /** @type {const} */ (['input', 'output'])) {
    const keys = keysOf(row[part]);
    for (const k of keys.slice(0, ITEMS)) {
      const item = row[part][k] && typeof row[part][k] === 'object' ? row[part][k] : {};
      const tr = el('tr');
      const short = k.startsWith(row.name + '.') ? k.slice(row.name.length + 1) : k;
      const shape = Array.isArray(item.shape) ? `[${item.shape.join(', ')}]` : item.shape === undefined ? '' : String(item.shape);
      tr.append(el('td', short), el('td', shape), el('td', item.dtype === undefined || item.dtype === null ? '' : String(item.dtype)),
                el('td', STATS.filter((s) => item[s] !== undefined && item[s] !== null).map((s) => `${s} ${fmt(item[s])}`).join('  ')));
      table.append(tr);
    }
    if (keys.length > ITEMS) { const tr = el('tr'); tr.append(el('td', t('moreItems', keys.length - ITEMS))); table.append(tr); }
  }
  sec.append(table);
  return sec;
}

/** A stored precision index as a number (NaN / null / empty: null). @param {unknown} v */
function indexOf(v) {
  if (v === null || v === undefined || v === '') return null;
  const x = Number(v);
  return Number.isNaN(x) ? null : x;
}

/**
 * Issue 46: what gave node `n` of pane `p` its fill, by the rule the fill follows (colours.js:
 * precisionFill / overflowFill): the words and the number, then the rows that set the index.
 * `own` is the node's row, `peer` its counterpart's (the Debug row when `p` is the Bench pane).
 * @param {Pane} p @param {GNode} n @param {DetailRow|null} own @param {DetailRow|null} peer
 */
export function colourReason(p, n, own, peer) {
  const box = el('div', undefined, 'ws-card-why');
  box.dataset.testid = 'card-why';
  const line = (/** @type {string} */ text) => { box.append(el('div', text)); return box; };
  if (isUncoloured(n.type)) return line(t('cardCollection'));
  if (p.mode === 'overflow') return line(n.overflow ? t('cardOverflowLevel', t(String(n.overflow)).toLowerCase()) : t('cardNoOverflow'));
  if (!p.opts.compare) return line(t('cardSingle'));
  const bench = p.opts.side === 'Bench';
  if (!n.link.length) return line(t(bench ? 'cardUnmatchedBench' : 'cardUnmatchedDebug'));
  // The Bench side is white; its Debug counterpart carries the index.
  const debugRow = bench ? peer : own;
  const value = bench ? (peer ? peer.precision : null) : n.precision;
  const text = levelText(value, p.opts.colors);
  line(bench ? `${t('cardBenchWhite')} ${text}` : text);
  if (debugRow) for (const r of reasonRows(debugRow)) box.append(el('div', r, 'ws-card-reason'));
  return box;
}

/**
 * "precision index 1 → error (≥ 0.6)": the index and the bucket of the file's colour table it falls
 * in (named by the table's level, else by its range). @param {unknown} value @param {import('./colours.js').ColourBucket[]} colors
 */
export function levelText(value, colors) {
  // The value as stored (a rounded one could fall in the next bucket), the bucket the fill takes.
  const x = indexOf(value);
  const b = x === null ? null : bucketOf(x, colors);
  if (x === null || !b) return t('cardNoIndex');
  const v = String(x);
  const level = b.level ? (LEVELS.includes(b.level) ? t(b.level) : b.level).toLowerCase() : '';
  return level ? t('cardLevel', v, level, rangeText(b)) : t('cardLevelRange', v, rangeText(b));
}

/**
 * The Debug rows whose Result is the node's worst (the rows that set its index), as
 * "output.0: NormRelativeErr 60.0% — error: The NormRelativeErr of output is greater than 0.5.";
 * at most REASON_ROWS, then "… N more". @param {DetailRow} row
 */
function reasonRows(row) {
  /** @type {{k: string, item: Record<string, unknown>, level: number}[]} */
  const items = [];
  for (const part of /** @type {const} */ (['input', 'output'])) {
    for (const k of keysOf(row[part])) {
      const item = row[part][k];
      if (item && typeof item === 'object' && LEVELS.indexOf(String(item.Result)) > 0) items.push({ k, item, level: LEVELS.indexOf(String(item.Result)) });
    }
  }
  const worst = items.reduce((w, x) => Math.max(w, x.level), 0);
  const flagged = items.filter((x) => x.level === worst);
  const out = flagged.slice(0, REASON_ROWS).map(({ k, item }) => {
    const short = k.startsWith(row.name + '.') ? k.slice(row.name.length + 1) : k;
    const msgs = errMessages(item.Err_message);
    const said = msgs.join(' ').toLowerCase().replace(/\s+/g, '');
    const quoted = METRICS.filter((m) => item[m] !== undefined && item[m] !== null && said.includes(m.toLowerCase().replace(/\s+/g, '')))
      .map((m) => `${m} ${item[m]}`);
    return `${short}: ${[quoted.join(', '), msgs.join(' ')].filter(Boolean).join(' — ') || t(LEVELS[worst])}`;
  });
  if (flagged.length > REASON_ROWS) out.push(t('moreItems', flagged.length - REASON_ROWS));
  return out;
}


/** Numbers shortened to 5 significant digits, text as written. @param {unknown} v */
function fmt(v) {
  const x = typeof v === 'number' ? v : Number(v);
  if (typeof v === 'string' && !/^[-+0-9.eE]+$/.test(v)) return v;
  if (!Number.isFinite(x)) return String(v);
  return Math.abs(x) >= 1e5 || (x !== 0 && Math.abs(x) < 1e-4) ? x.toExponential(4) : String(Number(x.toPrecision(5)));
}
