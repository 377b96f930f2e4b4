// @ts-check
// A/B trend comparison (web-ui BEY-11, trend-analyzer §10.9 / §13.3): the heat-map rows of two
// .trend.db files aligned cell by cell, and the views A, B and A − B derived from the alignment.
// x is the step or rank, y the target by its unique key (name, vpp_stage, micro_step) or the rank;
// ids are per file (§8.4) and never compared. Pure: rows in, arrays out.
import { kindOf, SPECIAL } from './scales.js';
import { moduleLabel, targetKey, heatRows } from './queries.js';

/** @typedef {'a'|'b'|'diff'} View */
/** @typedef {import('../engine/protocol.js').SqlValue} SqlValue */
/** @typedef {import('./queries.js').HeatRow} HeatRow */
/** @typedef {{key: string, text: string, fill: string|null}} SpecialDef  fill null = the "no data" hatch */

/**
 * Cell kinds of every comparison view (index + 1 = kind; 0 is a finite value). The first three are
 * the single-file kinds of scales.kindOf; the rest only exist when two files are compared.
 * @type {readonly SpecialDef[]}
 */
export const COMPARE_SPECIALS = Object.freeze([
  { key: 'null', text: 'no data', fill: null },
  { key: 'pos', text: '+inf', fill: SPECIAL.pos },
  { key: 'neg', text: '-inf', fill: SPECIAL.neg },
  { key: 'onlyA', text: 'only in A', fill: '#3b3b3b' },
  { key: 'onlyB', text: 'only in B', fill: '#c98a00' },
  { key: 'inf', text: '±inf in A or B', fill: '#ff3dbb' },
]);
export const KIND = Object.freeze({ FINITE: 0, NULL: 1, POS: 2, NEG: 3, ONLY_A: 4, ONLY_B: 5, INF: 6 });

/**
 * @typedef {{key: string, id: number, idA: number|null, idB: number|null, label: string, name: string, vpp?: number, micro?: number}} AlignedY
 *   id: A's target id, or minus B's id for a target only B has (ranks: the rank)
 * @typedef {{xs: number[], ys: AlignedY[], xi: Int32Array, yi: Int32Array, va: Float64Array, vb: Float64Array,
 *            side: Uint8Array, rows: number, byModule: boolean}} Aligned  side: 1 A only, 2 B only, 3 both; NaN = NULL or absent
 */

/**
 * alignHeatRows of Q6 rows as the worker returns them (`[rank, step, target_id, value, target_name,
 * vpp_stage, micro_step]`; the tests write them so), made HeatRows by queries.js.
 * @param {SqlValue[][]} rowsA @param {SqlValue[][]} rowsB @param {'step'|'rank'|'module_name'} dimension
 */
export const alignRows = (rowsA, rowsB, dimension) => alignHeatRows(heatRows(rowsA), heatRows(rowsB), dimension);

/**
 * Q6 rows of A and B (the same metric, statistic and fixed value) as one grid over the union of
 * both files' categories. Targets keep A's model order; a target only B has follows the target B
 * lists before it.
 * @param {HeatRow[]} rowsA @param {HeatRow[]} rowsB @param {'step'|'rank'|'module_name'} dimension
 * @returns {Aligned}
 */
export function alignHeatRows(rowsA, rowsB, dimension) {
  const byModule = dimension !== 'module_name';
  // x: the rank when the step is fixed, else the step; y: the target, or the rank when the module is fixed.
  const xOf = (/** @type {HeatRow} */ r) => (dimension === 'step' ? r.rank : r.step);
  const yOf = (/** @type {HeatRow} */ r) => (byModule ? r.targetId : r.rank);
  /** @typedef {{key: string, idA: number|null, idB: number|null, name: string, vpp: number, micro: number}} Y */
  /** @type {Map<string, Y>} */
  const ym = new Map();
  // per side, the y of each id (target id or rank): the string key is built once per id, not per row
  const bySide = [new Map(), new Map()];
  const xSet = new Set();
  [rowsA, rowsB].forEach((rows, side) => {
    const ids = bySide[side];
    for (const r of rows) {
      xSet.add(xOf(r));
      const id = yOf(r);
      if (ids.has(id)) continue;
      const k = byModule ? targetKey(r.name, r.vpp, r.micro) : String(id);
      let y = ym.get(k);
      if (!y) {
        y = { key: k, idA: null, idB: null, name: byModule ? r.name : String(id), vpp: r.vpp, micro: r.micro };
        ym.set(k, y);
      }
      if (side) y.idB = id; else y.idA = id;
      ids.set(id, y);
    }
  });
  const all = [...ym.values()];
  let order;
  if (byModule) {
    const inA = all.filter((y) => y.idA !== null).sort((p, q) => /** @type {number} */ (p.idA) - /** @type {number} */ (q.idA));
    const inB = all.filter((y) => y.idB !== null).sort((p, q) => /** @type {number} */ (p.idB) - /** @type {number} */ (q.idB));
    order = mergeOrder(inA.map((y) => y.key), inB.map((y) => y.key)).map((k) => /** @type {Y} */ (ym.get(k)));
  } else {
    order = all.sort((p, q) => Number(p.key) - Number(q.key));
  }
  /** @type {AlignedY[]} */
  const ys = order.map((y) => (byModule
    ? { key: y.key, id: y.idA !== null ? y.idA : -(/** @type {number} */ (y.idB)), idA: y.idA, idB: y.idB, name: y.name,
        label: moduleLabel(y.idA !== null ? y.idA : `B${y.idB}`, y.vpp, y.name, y.micro), vpp: y.vpp, micro: y.micro }
    : { key: y.key, id: Number(y.key), idA: Number(y.key), idB: Number(y.key), name: y.name, label: y.name }));
  const xs = [...xSet].sort((p, q) => p - q);
  const xIndex = new Map(xs.map((x, i) => [x, i]));
  /** @type {Map<Y, number>} */
  const yIndex = new Map(order.map((y, i) => [y, i]));
  const ny = ys.length;
  // cell of a category pair: a dense grid while it stays small, else a map
  const grid = xs.length * ny <= 4e6 ? new Int32Array(xs.length * ny).fill(-1) : null;
  /** @type {Map<number, number>} */
  const cellOf = new Map();
  const cap = rowsA.length + rowsB.length;
  const xi = new Int32Array(cap), yi = new Int32Array(cap), side = new Uint8Array(cap);
  const va = new Float64Array(cap).fill(NaN), vb = new Float64Array(cap).fill(NaN);
  let n = 0;
  [rowsA, rowsB].forEach((rows, s) => {
    const ids = bySide[s];
    const vals = s ? vb : va;
    for (const r of rows) {
      const x = /** @type {number} */ (xIndex.get(xOf(r)));
      const y = /** @type {number} */ (yIndex.get(ids.get(yOf(r))));
      const cell = x * ny + y;
      let i = grid ? grid[cell] : (cellOf.get(cell) ?? -1);
      if (i < 0) {
        i = n++;
        if (grid) grid[cell] = i; else cellOf.set(cell, i);
        xi[i] = x;
        yi[i] = y;
      }
      side[i] |= s + 1;
      vals[i] = r.value === null ? NaN : r.value;
    }
  });
  return { xs, ys, xi: xi.slice(0, n), yi: yi.slice(0, n), va: va.slice(0, n), vb: vb.slice(0, n), side: side.slice(0, n), rows: n, byModule };
}

/**
 * A's order with B's extra keys inserted after the key B lists before them (at the start when
 * none). Visible for testing.
 * @param {string[]} a @param {string[]} b
 */
export function mergeOrder(a, b) {
  const inA = new Set(a);
  /** @type {Map<string|null, string[]>} */
  const after = new Map();
  let anchor = /** @type {string|null} */ (null);
  for (const k of b) {
    if (inA.has(k)) { anchor = k; continue; }
    if (!after.has(anchor)) after.set(anchor, []);
    /** @type {string[]} */ (after.get(anchor)).push(k);
  }
  const out = [...(after.get(null) || [])];
  for (const k of a) out.push(k, ...(after.get(k) || []));
  return out;
}

/**
 * A − B of one cell: a number when both sides hold a finite value, else the kind that says why
 * not. NULL and the ±1e9+1 sentinels are never subtracted.
 * @param {number} a @param {number} b @param {number} side
 * @returns {{kind: number, value: number}}
 */
export function cellDiff(a, b, side) {
  if (side === 1) return { kind: KIND.ONLY_A, value: NaN };
  if (side === 2) return { kind: KIND.ONLY_B, value: NaN };
  const ka = kindOf(a), kb = kindOf(b);
  if (ka === KIND.NULL || kb === KIND.NULL) return { kind: KIND.NULL, value: NaN };
  if (ka || kb) return { kind: KIND.INF, value: NaN };
  return { kind: KIND.FINITE, value: a - b };
}

/**
 * One view of the alignment as a heat-map cube with per-cell kinds, and the values its colour
 * scale spans: A and B share one scale (over the finite values of both); A − B is diverging.
 * @param {Aligned} al @param {View} view
 * @returns {{cube: import('./queries.js').Cube & {kinds: Uint8Array}, domain: Float64Array, diverging: boolean}}
 */
export function viewOf(al, view) {
  const n = al.rows;
  const v = new Float64Array(n);
  const kinds = new Uint8Array(n);
  for (let i = 0; i < n; ++i) {
    const s = al.side[i];
    if (view === 'diff') {
      const d = cellDiff(al.va[i], al.vb[i], s);
      v[i] = d.value;
      kinds[i] = d.kind;
    } else {
      const mine = view === 'a' ? 1 : 2;
      v[i] = view === 'a' ? al.va[i] : al.vb[i];
      kinds[i] = s & mine ? kindOf(v[i]) : mine === 1 ? KIND.ONLY_B : KIND.ONLY_A;
    }
  }
  let domain = v;
  if (view !== 'diff') {
    domain = new Float64Array(2 * n);
    domain.set(al.va, 0);
    domain.set(al.vb, n);
  }
  return { cube: { xs: al.xs, ys: al.ys, xi: al.xi, yi: al.yi, v, rows: n, kinds }, domain, diverging: view === 'diff' };
}

/**
 * A and B's values at cell i, and A − B (for the tooltip and the tests).
 * @param {Aligned} al @param {number} i
 */
export function cellValues(al, i) {
  const s = al.side[i];
  return { a: s & 1 ? al.va[i] : undefined, b: s & 2 ? al.vb[i] : undefined, ...cellDiff(al.va[i], al.vb[i], s) };
}

/**
 * B's series on A's x positions. For the Module Name dimension x is the target id, which differs
 * per file: B's points move to A's id of the same target key, points of targets A lacks are
 * dropped (counted). Otherwise x (step or rank) is shared and the series is unchanged.
 * @param {{xs: number[], values: (number|null)[], labels: string[], keys: string[]}} b
 * @param {Map<string, number>|null} idOfKeyInA  null: x is shared
 */
export function seriesOnA(b, idOfKeyInA) {
  if (!idOfKeyInA) return { xs: b.xs, values: b.values, labels: b.labels, dropped: 0 };
  const pts = [];
  for (let i = 0; i < b.xs.length; ++i) {
    const x = idOfKeyInA.get(b.keys[i]);
    if (x !== undefined) pts.push({ x, v: b.values[i], l: b.labels[i] });
  }
  pts.sort((p, q) => p.x - q.x);
  return { xs: pts.map((p) => p.x), values: pts.map((p) => p.v), labels: pts.map((p) => p.l), dropped: b.xs.length - pts.length };
}

/**
 * A − B point by point over the union of x (sorted); null where a side lacks the point or holds
 * NULL or a sentinel.
 * @param {{xs: number[], values: (number|null)[], labels: string[]}} a @param {{xs: number[], values: (number|null)[], labels: string[]}} b
 */
export function seriesDiff(a, b) {
  /** @type {Map<number, {a?: number|null, b?: number|null, l: string}>} */
  const at = new Map();
  a.xs.forEach((x, i) => at.set(x, { a: a.values[i], l: a.labels[i] }));
  b.xs.forEach((x, i) => { const p = at.get(x); if (p) p.b = b.values[i]; else at.set(x, { b: b.values[i], l: b.labels[i] }); });
  const xs = [...at.keys()].sort((p, q) => p - q);
  const num = (/** @type {number|null|undefined} */ v) => (v === null || v === undefined ? NaN : v);
  const values = xs.map((x) => {
    const p = /** @type {{a?: number|null, b?: number|null, l: string}} */ (at.get(x));
    const d = cellDiff(num(p.a), num(p.b), (p.a === undefined ? 0 : 1) | (p.b === undefined ? 0 : 2));
    return d.kind === KIND.FINITE ? d.value : null;
  });
  return { xs, values, labels: xs.map((x) => /** @type {{l: string}} */ (at.get(x)).l) };
}
