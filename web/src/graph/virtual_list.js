// @ts-check
// A virtualised list (web-ui FLT-06 / SRCH-01 / MAT-01): fixed-height rows, and only the rows in
// view (plus a few) exist in the DOM, so 200,000 names cost one array, not 200,000 elements.

import { t } from '../i18n.js';

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
  }
}

/**
 * Appends `text` with its first case-insensitive occurrence of `needle` in a <mark> (as text).
 * @param {HTMLElement} parent @param {string} text @param {string} needle
 */
export function appendHighlighted(parent, text, needle) {
  const at = needle ? text.toLowerCase().indexOf(needle.toLowerCase()) : -1;
  if (at < 0) { parent.append(text); return; }
  const mark = document.createElement('mark');
  mark.textContent = text.slice(at, at + needle.length);
  parent.append(text.slice(0, at), mark, text.slice(at + needle.length));
}
