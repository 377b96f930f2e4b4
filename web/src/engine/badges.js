// @ts-check
// Problem badges (web-ui BEY-08) in the worker. Databases written by the engine carry them in the
// extension table vp_badges (core/db/badges.h); for databases made by msProbe the same rows are
// computed once per (step, rank) and kept in memory (the file is not changed). After a manual
// match the stored rows of that (step, rank) are recomputed the same way, so an exported database
// stays consistent. The rules and the legend's thresholds are the engine's (core/db/badges.cc,
// ComputeBadgesFlat and BadgeThresholdsFromLegend, through the wasm module): this file only reads
// the rows of tb_nodes into the typed arrays those take and turns the answer back into rows.
import { valueOf } from './engine_call.js';

/** @typedef {import('visprobe-wasm/visprobe_web.mjs').VisprobeModule} VisprobeModule */
/** @typedef {import('sql.js').Database} Database */
/** @typedef {import('./protocol.js').SqlValue} SqlValue */
/** @typedef {import('./protocol.js').BadgeRow} BadgeRow */

const LEVEL = { medium: 1, high: 2, critical: 3 };
const SIDES = ['NPU', 'Bench'];
/** kBadgeLeaf, kBadgeUnmatched (core/db/badges.h) */
const LEAF = 1;
const UNMATCHED = 2;

/**
 * The thresholds of a file's colour legend (tb_config.node_colors), by the engine's rule.
 * @param {VisprobeModule} engine the wasm module @param {string|null} json
 * @returns {{warning: number, error: number}}
 */
export function badgeThresholds(engine, json) {
  const t = valueOf(engine.badgeThresholds(String(json || '')));
  return { warning: Number(t.warning), error: Number(t.error) };
}

/**
 * Badge rows of one graph by the engine's rules. rows: [node_name, up_node, is_leaf,
 * precision_index, overflow_level, unmatched]; legend: tb_config.node_colors.
 * @param {VisprobeModule} engine @param {SqlValue[][]} rows @param {boolean} compare @param {string|null} legend
 * @returns {BadgeRow[]}
 *          [name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow]
 */
export function computeBadges(engine, rows, compare, legend) {
  const n = rows.length;
  /** @type {Map<string, number>} */
  const index = new Map();
  for (let i = 0; i < n; ++i) if (!index.has(String(rows[i][0]))) index.set(String(rows[i][0]), i);
  const parent = new Int32Array(n).fill(-1);
  const precision = new Float64Array(n).fill(-1);
  const flags = new Uint8Array(n);
  const overflow = new Uint8Array(n);
  for (let i = 0; i < n; ++i) {
    const [, up, leaf, p, ov, unmatched] = rows[i];
    const at = up ? index.get(String(up)) : undefined;
    if (at !== undefined && at !== i) parent[i] = at;
    // NULL precision: none (-1); a text value SQLite kept as text ('nan'): NaN, also none.
    if (p !== null && p !== undefined) precision[i] = Number(p);
    flags[i] = (leaf ? LEAF : 0) | (unmatched ? UNMATCHED : 0);
    overflow[i] = LEVEL[/** @type {'medium'} */ (String(ov))] || 0;
  }
  const r = valueOf(engine.computeBadges(parent, precision, flags, overflow, compare, String(legend || '')));
  /** @type {BadgeRow[]} */
  const out = [];
  for (let k = 0; k < r.index.length; ++k) {
    const i = r.index[k];
    out.push([String(rows[i][0]), r.worst[k] < 0 ? null : r.worst[k], r.counts[4 * k], r.counts[4 * k + 1],
              r.counts[4 * k + 2], r.counts[4 * k + 3], r.worstOverflow[k]]);
  }
  return out;
}

/** @param {Database} db @param {string} sql @param {SqlValue[]} params @returns {SqlValue[][]} */
function all(db, sql, params) {
  const st = db.prepare(sql);
  try {
    st.bind(params);
    const out = [];
    while (st.step()) out.push(st.get());
    return out;
  } finally {
    st.free();
  }
}

/** @param {Database} db @param {string} name */
function hasTable(db, name) {
  return all(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).length > 0;
}

/** Whether the engine stored the badges in the file (vp_badges). @param {Database} db */
export function hasBadgeTable(db) {
  return hasTable(db, 'vp_badges');
}

/** @param {Database} db */
function configOf(db) {
  const r = all(db, 'SELECT graph_type, node_colors FROM tb_config LIMIT 1', []);
  return { compare: !!r.length && r[0][0] === 'compare', legend: r.length && r[0][1] !== null ? String(r[0][1]) : '' };
}

/** The legend's warning and error bounds of a database (the navigator's buckets). @param {VisprobeModule} engine @param {Database} db */
export function thresholdsOf(engine, db) {
  return badgeThresholds(engine, configOf(db).legend);
}

/**
 * The rows of one (step, rank, side) computed from tb_nodes.
 * @param {VisprobeModule} engine @param {Database} db @param {number} step @param {number} rank @param {string} side
 */
function computeScope(engine, db, step, rank, side) {
  const { compare, legend } = configOf(db);
  const rows = all(db,
    `SELECT node_name, up_node, (sub_nodes IS NULL OR sub_nodes IN ('', '[]')), precision_index, overflow_level,
            (matched_node_link IS NULL OR matched_node_link IN ('', '[]'))
     FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?`, [step, rank, side]);
  return computeBadges(engine, rows, compare, legend);
}

/** @type {WeakMap<Database, Map<string, BadgeRow[]>>} computed rows of databases without vp_badges */
const cache = new WeakMap();

/**
 * The badge rows of one (step, rank, side): [name, worst, n_error, n_warning, n_unmatched,
 * n_overflow, worst_overflow][], and where they came from ('stored' or 'computed').
 * @param {VisprobeModule|null} engine the wasm module (only used, and loaded, for files without vp_badges)
 * @param {Database} db @param {{step: number, rank: number, side: string}} a
 * @returns {import('./protocol.js').BadgesResult}
 */
export function badgesOf(engine, db, a) {
  const step = Number(a.step);
  const rank = Number(a.rank);
  const side = SIDES.includes(a.side) ? a.side : 'NPU';
  if (hasTable(db, 'vp_badges')) {
    const rows = all(db, `SELECT node_name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow
                          FROM vp_badges WHERE step = ? AND rank = ? AND data_source = ?`, [step, rank, side]);
    return { source: 'stored', rows: /** @type {BadgeRow[]} */ (/** @type {unknown} */ (rows)) };   // the columns of a BadgeRow
  }
  let m = cache.get(db);
  if (!m) { m = new Map(); cache.set(db, m); }
  const key = `${step}|${rank}|${side}`;
  let rows = m.get(key);
  if (!rows) { rows = computeScope(/** @type {VisprobeModule} */ (engine), db, step, rank, side); m.set(key, rows); }
  return { source: 'computed', rows };
}

/**
 * After a manual match or unmatch in (step, rank): stored rows are recomputed and rewritten (in
 * the caller's transaction, if any), computed ones forgotten.
 * @param {VisprobeModule} engine @param {Database} db @param {number} step @param {number} rank
 */
export function refreshBadges(engine, db, step, rank) {
  const m = cache.get(db);
  if (m) for (const side of SIDES) m.delete(`${Number(step)}|${Number(rank)}|${side}`);
  if (!hasTable(db, 'vp_badges')) return;
  db.run('DELETE FROM vp_badges WHERE step = ? AND rank = ?', [step, rank]);
  const st = db.prepare(`INSERT INTO vp_badges (step, rank, data_source, node_name, worst, n_error, n_warning, n_unmatched,
                         n_overflow, worst_overflow) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  try {
    for (const side of SIDES)
      for (const r of computeScope(engine, db, step, rank, side)) st.run([step, rank, side, ...r]);
  } finally {
    st.free();
  }
}
