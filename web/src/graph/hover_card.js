// @ts-check
// Issue 19: the hover card of a graph node: its full name, kind and precision, and for it and its
// matched node on the other side the shapes, dtypes and key statistics of its inputs and outputs.
// One query per side (the detail panel's), started once the pointer rests on a node; every value
// is set as text.
import { el, tel } from './dom.js';
import { isLeaf } from './layout.js';
import { keysOf } from './panel_detail.js';
import { t } from '../i18n.js';

const REST_MS = 250;
const ITEMS = 3;            // inputs and outputs shown per side
const STATS = ['Max', 'Min', 'Mean', 'Norm'];


export class HoverCard {
  /**
   * @param {{fetchRow: (pane: any, name: string, side: string) => Promise<any>, other: (p: any) => any, compare: boolean}} ws
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
    /** @type {any} */
    this.node = null;
  }

  /** @param {any} p @param {any} n @param {number} x @param {number} y */
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

  place() {
    const w = this.el.offsetWidth || 360;
    const h = this.el.offsetHeight || 200;
    const x = Math.min((this.x || 0) + 16, window.innerWidth - w - 8);
    const y = (this.y || 0) + 16 + h > window.innerHeight ? Math.max(8, (this.y || 0) - h - 12) : (this.y || 0) + 16;
    this.el.style.left = `${Math.max(8, x)}px`;
    this.el.style.top = `${y}px`;
  }

  /** @param {any} p @param {any} n */
  async show(p, n) {
    const seq = ++this.seq;
    const o = this.ws.other(p);
    const peer = o && n.link.length ? n.link[n.link.length - 1] : null;
    const rows = await Promise.all([this.ws.fetchRow(p, n.name, p.opts.side),
                                    peer ? this.ws.fetchRow(o, peer, o.opts.side) : Promise.resolve(null)]);
    if (seq !== this.seq || this.node !== n) return;
    const box = this.el;
    box.textContent = '';
    box.append(el('div', n.name, 'ws-card-name'));
    const kind = isLeaf(n) ? 'kindLeaf' : 'kindModule';
    const head = el('div', undefined, 'ws-muted');
    head.append(tel('span', kind));
    if (n.precision !== null && n.precision !== undefined) head.append(tel('span', 'cardPrecision', undefined, String(n.precision)));
    if (n.overflow) head.append(tel('span', 'cardOverflow', undefined, String(n.overflow)));
    box.append(head);
    for (const row of rows) {
      if (!row) continue;
      const sec = el('div', undefined, 'ws-card-side');
      const title = el('div', undefined, 'ws-card-title');
      title.append(tel('b', row.side === 'NPU' ? 'debugSide' : 'benchSide'));
      if (row.name !== n.name) title.append(' ', row.name);
      sec.append(title);
      const table = el('table');
      for (const part of ['input', 'output']) {
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
      box.append(sec);
    }
    if (o && !peer) box.append(tel('div', 'unmatched', 'ws-muted'));
    box.hidden = false;
    this.place();
  }
}

/** Numbers shortened to 5 significant digits, text as written. @param {any} v */
function fmt(v) {
  const x = typeof v === 'number' ? v : Number(v);
  if (typeof v === 'string' && !/^[-+0-9.eE]+$/.test(v)) return v;
  if (!Number.isFinite(x)) return String(v);
  return Math.abs(x) >= 1e5 || (x !== 0 && Math.abs(x) < 1e-4) ? x.toExponential(4) : String(Number(x.toPrecision(5)));
}
