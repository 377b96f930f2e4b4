// @ts-check
// The names of one (step, rank, side) in execution order, loaded once per scope (SRCH-02) and
// shared by the search list and the matching lists: the names, their micro-step ids, whether each
// is unmatched, and one lower-case haystack so a substring search is native indexOf calls.

import { nameRows } from './queries.js';

const CHUNK = 10000;

export class NameIndex {
  /** @param {ReturnType<typeof NameIndex.columns>} cols  the names in execution order (addRows) */
  constructor(cols) {
    /** @type {string[]} */
    this.names = cols.names;
    this.micro = Int32Array.from(cols.micro);
    this.unmatched = Uint8Array.from(cols.unmatched);
    const n = cols.names.length;
    this.offsets = new Int32Array(n + 1);
    let off = 0;
    for (let i = 0; i < n; ++i) {
      this.offsets[i] = off;
      off += cols.lower[i].length + 1;   // lower-casing may change the length of non-ASCII names
    }
    this.offsets[n] = off;
    this.hay = cols.lower.join('\n') + '\n';
  }

  /** Columns being filled chunk by chunk. */
  static columns() {
    return { names: /** @type {string[]} */ ([]), micro: /** @type {number[]} */ ([]),
      unmatched: /** @type {number[]} */ ([]), lower: /** @type {string[]} */ ([]) };
  }

  /** @param {ReturnType<typeof NameIndex.columns>} cols @param {Pick<import('./queries.js').NameRow, 'name'|'micro'|'unmatched'>[]} rows */
  static addRows(cols, rows) {
    for (const r of rows) {
      cols.names.push(r.name);
      cols.micro.push(r.micro === null ? -1 : r.micro);
      cols.unmatched.push(r.unmatched ? 1 : 0);
      cols.lower.push(r.name.toLowerCase());
    }
  }

  /**
   * @param {import('./queries.js').QueryEngine} engine @param {import('./queries.js').Scope} scope
   * @param {() => boolean} [stale]  true once nobody wants this list: loading stops before the next chunk
   */
  static async load(engine, scope, stale) {
    // In chunks along the graph's rowid range (queries.js nameRows), in execution order.
    const rows = await nameRows(engine, scope, stale);
    const cols = NameIndex.columns();
    // Converted in slices, so the page thread never spends one long task on the whole list
    // (200,000 names took 216 ms in one go and delayed an expand by as much).
    for (let i = 0; i < rows.length; i += CHUNK) {
      NameIndex.addRows(cols, rows.slice(i, i + CHUNK));
      if (i + CHUNK < rows.length) await new Promise((res) => setTimeout(res, 0));
    }
    return new NameIndex(cols);
  }

  /** SEL-03: nodes of micro-step m (those without one always kept). @param {number} i @param {number} m */
  inMicro(i, m) { return m < 0 || this.micro[i] < 0 || this.micro[i] === m; }

  /** Index of the name at a haystack offset (binary search). @param {number} pos */
  at(pos) {
    let lo = 0;
    let hi = this.names.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= pos) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  /**
   * SRCH-01 / SRCH-03: indices of the names matching a query, in execution order: case-insensitive
   * substring; space-separated terms must all match; a "quoted" query is an exact name.
   * @param {string} query @param {number} micro @param {(i: number) => boolean} [keep]
   */
  search(query, micro, keep) {
    const q = query.trim().toLowerCase();
    /** @type {number[]} */
    const out = [];
    const ok = (/** @type {number} */ i) => this.inMicro(i, micro) && (!keep || keep(i));
    if (!q) {
      for (let i = 0; i < this.names.length; ++i) if (ok(i)) out.push(i);
      return out;
    }
    const exact = /^"(.*)"$/.exec(q);
    const terms = exact ? [exact[1]] : q.split(/\s+/);
    const first = terms[0];
    const rest = terms.slice(1);
    if (!first) return out;   // `""`: no node has an empty name (an empty needle would match at every offset)
    let pos = this.hay.indexOf(first);
    while (pos >= 0 && pos < this.hay.length) {
      const i = this.at(pos);
      const lower = this.hay.slice(this.offsets[i], this.offsets[i + 1] - 1);
      if ((!exact || lower === first) && rest.every((t) => lower.includes(t)) && ok(i)) out.push(i);
      pos = this.hay.indexOf(first, this.offsets[i + 1]);
    }
    return out;
  }

  /** The terms to highlight for a query: every term (a quoted query is one). @param {string} query */
  static highlightOf(query) {
    const q = query.trim();
    const exact = /^"(.*)"$/.exec(q);
    return exact ? [exact[1]] : q.split(/\s+/).filter(Boolean);
  }
}

/**
 * SRCH-02: the name list of each graph, loaded once and shared by the search and matching panels.
 * clear() drops them all (a new scope, a match); a list still loading for the dropped cache stops
 * between two chunks instead of holding the worker for the rest of its queries, and its callers get
 * the current list. Split out of workspace.js, behaviour unchanged.
 */
export class NameLists {
  /** @param {import('./queries.js').QueryEngine} engine */
  constructor(engine) {
    this.engine = engine;
    /** @type {Map<string, Promise<NameIndex>>} */
    this.cache = new Map();
    /** Bumped whenever the cache is dropped: a list still loading for the old cache stops. */
    this.gen = 0;
  }

  /**
   * The list of one graph. @param {import('./queries.js').Scope} scope
   * @param {() => Promise<NameIndex>} current  the list wanted now, asked when this one was dropped while it loaded
   * @returns {Promise<NameIndex>}
   */
  get(scope, current) {
    const key = scope.join('|');
    let idx = this.cache.get(key);
    if (!idx) {
      const gen = this.gen;
      const loading = NameIndex.load(this.engine, scope, () => gen !== this.gen)
        .catch((e) => { if (e && e.stale) return current(); throw e; });
      idx = loading;
      this.cache.set(key, loading);
      loading.catch(() => { if (this.cache.get(key) === loading) this.cache.delete(key); });
    }
    return idx;
  }

  /** Drops the lists (they are reloaded on demand). */
  clear() {
    this.cache.clear();
    ++this.gen;
  }
}
