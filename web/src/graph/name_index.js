// @ts-check
// The names of one (step, rank, side) in execution order, loaded once per scope (SRCH-02) and
// shared by the search list and the matching lists: the names, their micro-step ids, whether each
// is unmatched, and one lower-case haystack so a substring search is native indexOf calls.

const CHUNK = 10000;

export class NameIndex {
  /** @param {any[][]} rows  [node_name, micro_step_id, unmatched] in execution order */
  constructor(rows) {
    const n = rows.length;
    /** @type {string[]} */
    this.names = new Array(n);
    this.micro = new Int32Array(n);
    this.unmatched = new Uint8Array(n);
    this.offsets = new Int32Array(n + 1);
    const lower = new Array(n);
    let off = 0;
    for (let i = 0; i < n; ++i) {
      const name = String(rows[i][0]);
      this.names[i] = name;
      this.micro[i] = rows[i][1] === null ? -1 : Number(rows[i][1]);
      this.unmatched[i] = rows[i][2] ? 1 : 0;
      this.offsets[i] = off;
      lower[i] = name.toLowerCase();
      off += lower[i].length + 1;   // lower-casing may change the length of non-ASCII names
    }
    this.offsets[n] = off;
    this.hay = lower.join('\n') + '\n';
  }

  /**
   * @param {import('../engine/client.js').EngineClient} engine @param {[number, number, string]} scope
   */
  static async load(engine, scope) {
    // Chunks of CHUNK rows along index3 (step, rank, data_source, node_order): the engine answers
    // other queries (an expand, a detail) between two chunks instead of after the whole list.
    const rows = [];
    let after = -Infinity;
    for (;;) {
      const r = await engine.query(
        `SELECT node_name, micro_step_id, (matched_node_link IS NULL OR matched_node_link IN ('', '[]')), node_order
         FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_order > ? ORDER BY node_order LIMIT ${CHUNK}`,
        [...scope, after === -Infinity ? -1e18 : after]);
      for (const v of r.values) rows.push(v);
      if (r.values.length < CHUNK) break;
      after = Number(r.values[r.values.length - 1][3]);
    }
    return new NameIndex(rows);
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
    let pos = this.hay.indexOf(first);
    while (pos >= 0) {
      const i = this.at(pos);
      const lower = this.hay.slice(this.offsets[i], this.offsets[i + 1] - 1);
      if ((!exact || lower === first) && rest.every((t) => lower.includes(t)) && ok(i)) out.push(i);
      pos = this.hay.indexOf(first, this.offsets[i + 1]);
    }
    return out;
  }

  /** The terms to highlight for a query (the first one). @param {string} query */
  static highlightOf(query) {
    const q = query.trim();
    const exact = /^"(.*)"$/.exec(q);
    return exact ? exact[1] : q.split(/\s+/)[0] || '';
  }
}
