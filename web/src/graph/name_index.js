// @ts-check
// The names of one (step, rank, side) in execution order, loaded once per scope (SRCH-02) and
// shared by the search list and the matching lists: the names, their micro-step ids, whether each
// is unmatched, and one lower-case haystack so a substring search is native indexOf calls.

import { scopeRowids, scopeTerms } from './scope_rows.js';

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

  /** @param {ReturnType<typeof NameIndex.columns>} cols @param {import('../engine/protocol.js').SqlValue[][]} rows  [node_name, micro_step_id, unmatched] */
  static addRows(cols, rows) {
    for (const v of rows) {
      const name = String(v[0]);
      cols.names.push(name);
      cols.micro.push(v[1] === null ? -1 : Number(v[1]));
      cols.unmatched.push(v[2] ? 1 : 0);
      cols.lower.push(name.toLowerCase());
    }
  }

  /**
   * @param {import('../engine/client.js').EngineClient} engine @param {[number, number, string]} scope
   * @param {() => boolean} [stale]  true once nobody wants this list: loading stops before the next chunk
   */
  static async load(engine, scope, stale) {
    // Along the graph's rowid range (scope_rows.js), in chunks of CHUNK rowids, then sorted by
    // node_order here; the engine answers other queries (an expand, a detail) between two chunks.
    const range = await scopeRowids(engine, ...scope);
    /** @type {import('../engine/protocol.js').SqlValue[][]} */
    const rows = [];
    if (range) {
      for (let at = range[0] - 1; at < range[1]; at += CHUNK) {
        if (stale && stale()) throw Object.assign(new Error('stale name list'), { stale: true });
        const r = await engine.query(
          `SELECT node_name, micro_step_id, (matched_node_link IS NULL OR matched_node_link IN ('', '[]')), node_order
           FROM tb_nodes WHERE ${scopeTerms()}`, [at + 1, Math.min(at + CHUNK, range[1]), ...scope]);
        for (const v of r.values) rows.push(v);
      }
    }
    rows.sort((x, y) => Number(x[3]) - Number(y[3]));
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
