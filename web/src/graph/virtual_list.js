// @ts-check
// A virtualised list (web-ui FLT-06 / SRCH-01 / MAT-01): fixed-height rows, and only the rows in
// view (plus a few) exist in the DOM, so 200,000 names cost one array, not 200,000 elements.

import { t } from '../i18n.js';
import { middleEllipsis } from './render_common.js';

const OVERSCAN = 6;

/**
 * @template T
 */
export class VirtualList {
  /**
   * @param {{rowHeight?: number, className?: string, testid?: string,
   *          render: (li: HTMLLIElement, item: T, index: number) => void,
   *          onPick?: (item: T, index: number) => void, key?: (item: T) => string}} opts
   */
  constructor(opts) {
    this.opts = opts;
    this.rowHeight = opts.rowHeight || 40;
    /** @type {T[]} */
    this.items = [];
    this.current = -1;
    this.el = document.createElement('div');
    this.el.className = 'vlist ' + (opts.className || '');
    if (opts.testid) this.el.dataset.testid = opts.testid;
    this.el.tabIndex = 0;
    this.ul = document.createElement('ul');
    this.ul.setAttribute('role', 'listbox');
    this.el.append(this.ul);
    this.empty = document.createElement('p');
    this.empty.className = 'vlist-empty';
    this.el.append(this.empty);
    this.frame = 0;
    this.el.addEventListener('scroll', () => this.schedule());
    this.ul.addEventListener('click', (e) => {
      const li = /** @type {HTMLElement|null} */ (/** @type {Element} */ (e.target).closest('li'));
      if (!li || !this.opts.onPick) return;
      const i = Number(li.dataset.index);
      this.setCurrent(i);
      this.opts.onPick(this.items[i], i);
    });
    // Re-draw when the list becomes visible or is resized (a hidden list has no height).
    if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => this.draw()).observe(this.el);
  }

  /** @param {T[]} items @param {string} [emptyKey] the dictionary key of the text shown when empty */
  setItems(items, emptyKey = '') {
    this.items = items;
    this.current = -1;
    if (items.length || !emptyKey) {
      delete this.empty.dataset.i18n;
      this.empty.textContent = '';
    } else {
      this.empty.dataset.i18n = emptyKey;
      this.empty.textContent = t(emptyKey);
    }
    this.ul.style.height = items.length * this.rowHeight + 'px';
    this.el.scrollTop = 0;
    this.draw();
  }

  /** Marks row i as current and scrolls it into view. @param {number} i */
  setCurrent(i) {
    this.current = i;
    if (i >= 0) {
      const top = i * this.rowHeight;
      const h = this.el.clientHeight || 400;
      if (top < this.el.scrollTop || top + this.rowHeight > this.el.scrollTop + h)
        this.el.scrollTop = Math.max(0, top - (h - this.rowHeight) / 2);
    }
    this.draw();
  }

  /** The index of the first item with this key, or -1. @param {string} key */
  indexOfKey(key) {
    const k = this.opts.key;
    if (!k) return -1;
    for (let i = 0; i < this.items.length; ++i) if (k(this.items[i]) === key) return i;
    return -1;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(); });
  }

  draw() {
    const rh = this.rowHeight;
    const h = this.el.clientHeight || 400;
    const first = Math.max(0, Math.floor(this.el.scrollTop / rh) - OVERSCAN);
    const last = Math.min(this.items.length, Math.ceil((this.el.scrollTop + h) / rh) + OVERSCAN);
    const rows = /** @type {HTMLLIElement[]} */ ([...this.ul.children]);
    // Reuse the row elements; rows stay in index order so the first <li> is the first row shown.
    for (let i = first; i < last; ++i) {
      let li = rows[i - first];
      if (!li) { li = document.createElement('li'); this.ul.append(li); }
      li.dataset.index = String(i);
      li.style.top = i * rh + 'px';
      li.style.height = rh + 'px';
      li.className = i === this.current ? 'current' : '';
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', String(i === this.current));
      li.textContent = '';
      this.opts.render(li, this.items[i], i);
    }
    for (let j = Math.max(0, last - first); j < rows.length; ++j) rows[j].remove();
    fitHighlighted(this.ul);
  }
}

/** A highlighted run and the text and needles it was made from (fitHighlighted cuts it again). @typedef {HTMLElement & {fit?: {text: string, needles: string|string[]}}} FitSpan */

/**
 * Appends `text` as one inline run (a span, so a flex row never splits it into columns) with every
 * case-insensitive occurrence of every needle in a <mark> (as text, never HTML). Overlapping or
 * touching hits merge into one mark.
 * @param {HTMLElement} parent @param {string} text @param {string|string[]} needles
 */
export function appendHighlighted(parent, text, needles) {
  const span = highlighted(text, needles);
  /** @type {FitSpan} */ (span).fit = { text, needles };
  parent.append(span);
}

/**
 * Issue 19: a name longer than its row keeps its distinguishing end (middle ellipsis; the full
 * name is in the row's title) instead of spilling out of it. All rows are measured in one read,
 * the long ones cut, then measured once more (two layouts per redraw, not one per row).
 * @param {HTMLElement} container
 */
export function fitHighlighted(container) {
  /** @type {Array<{span: FitSpan, room: number, max: number}>} */
  let long = [];
  for (const span of /** @type {NodeListOf<FitSpan>} */ (container.querySelectorAll('.vl-text'))) {
    if (!span.fit) continue;
    const room = /** @type {HTMLElement} */ (span.parentElement).clientHeight - 4;
    if (room > 0 && span.scrollHeight > room + 1)
      long.push({ span, room, max: Math.floor(span.fit.text.length * (room / span.scrollHeight) * 0.95) });
  }
  for (let k = 0; k < 4 && long.length; ++k) {
    for (const r of long) {
      const fit = /** @type {{text: string, needles: string|string[]}} */ (r.span.fit);
      const cut = /** @type {FitSpan} */ (highlighted(middleEllipsis(fit.text, r.max), fit.needles));
      cut.fit = r.span.fit;
      r.span.replaceWith(cut);
      r.span = cut;
    }
    long = long.filter((r) => r.span.scrollHeight > r.room + 1 && r.max > 8);
    for (const r of long) r.max = Math.floor(r.max * 0.85);
  }
}

/** @param {string} text @param {string|string[]} needles */
function highlighted(text, needles) {
  const span = document.createElement('span');
  span.className = 'vl-text';
  const lower = text.toLowerCase();
  /** @type {Array<[number, number]>} */
  const hits = [];
  for (const n of (Array.isArray(needles) ? needles : [needles]).map((x) => String(x || '').toLowerCase()).filter(Boolean))
    for (let at = lower.indexOf(n); at >= 0; at = lower.indexOf(n, at + n.length)) hits.push([at, at + n.length]);
  hits.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  let pos = 0;
  for (const [from, to] of hits) {
    if (to <= pos) continue;
    const start = Math.max(from, pos);
    const last = span.lastChild;
    if (start === pos && last && last.nodeName === 'MARK' && pos > 0) last.textContent += text.slice(start, to);
    else {
      if (start > pos) span.append(text.slice(pos, start));
      const mark = document.createElement('mark');
      mark.textContent = text.slice(start, to);
      span.append(mark);
    }
    pos = to;
  }
  if (pos < text.length) span.append(text.slice(pos));
  return span;
}
