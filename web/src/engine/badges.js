// @ts-check
// Problem badges (web-ui BEY-08) in the worker. Databases written by the engine carry them in the
// extension table vp_badges (core/db/badges.h); for databases made by msProbe the same rows are
// computed here from tb_nodes, once per (step, rank), and kept in memory (the file is not changed).
// After a manual match the stored rows of that (step, rank) are recomputed the same way, so an
// exported database stays consistent. The semantics are those of core/db/badges.cc:
// a leaf (no children) counts for every ancestor on its up_node chain; error: precision >= the
// legend's error bound; warning: >= the warning bound and below the error bound (precision clamped
// to [0, 1]); unmatched: compare graphs only; overflow: any level. A module that is itself an
// error or a warning counts in its own badge and its ancestors' (its precision in their worst).
// Only nodes with a counted node at or below them get a row.

const LEVEL = { medium: 1, high: 2, critical: 3 };
const SIDES = ['NPU', 'Bench'];

/**
 * Lower bounds of the warning and error buckets from the file's colour legend (tb_config
 * node_colors): the bucket named "error" (else the one reaching 1) starts the errors; the lowest
 * bucket above the pass bucket (the one starting at 0) starts the warnings. Default 0.3 / 0.6.
 * @param {string|null} json
 */
export function badgeThresholds(json) {
  /** @type {Array<{lo: number, hi: number, level: string}>} */
  let buckets = [];
  try {
    const table = JSON.parse(json || 'null');
    if (table && typeof table === 'object')
      for (const k of Object.keys(table)) {
        const v = table[k];
        if (k === '__proto__' || !v || !Array.isArray(v.value) || v.value.length !== 2) continue;
        const lo = Number(v.value[0]);
        const hi = Number(v.value[1]);
        if (Number.isFinite(lo) && Number.isFinite(hi)) buckets.push({ lo, hi, level: String(v.accuracy_level || '') });
      }
  } catch { buckets = []; }
  if (buckets.length < 2) return { warning: 0.3, error: 0.6 };
  buckets.sort((a, b) => a.lo - b.lo);
  const named = buckets.find((b) => b.level === 'error');
  const error = named ? named.lo : buckets[buckets.length - 1].lo;
  const above = buckets.filter((b) => b.lo > buckets[0].lo && b.lo <= error);
  const warning = above.length ? above[0].lo : error;
  return { warning, error };
}

/**
 * Badge rows of one graph. rows: [node_name, up_node, is_leaf, precision_index, overflow_level, unmatched].
 * @param {any[][]} rows @param {boolean} compare @param {{warning: number, error: number}} t
 * @returns {Array<[string, number|null, number, number, number, number, number]>}
 *          [name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow]
 */
export function computeBadges(rows, compare, t) {
  const n = rows.length;
  /** @type {Map<string, number>} */
  const index = new Map();
  for (let i = 0; i < n; ++i) if (!index.has(String(rows[i][0]))) index.set(String(rows[i][0]), i);
  const parent = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; ++i) {
    const up = rows[i][1];
    const p = up ? index.get(String(up)) : undefined;
    if (p !== undefined && p !== i) parent[i] = p;
  }
  const worst = new Float64Array(n).fill(-1);
  const counts = new Uint32Array(4 * n);
  const worstOv = new Uint8Array(n);
  const has = new Uint8Array(n);
  for (let i = 0; i < n; ++i) {
    const [, , leaf, precision, overflow, unmatchedFlag] = rows[i];
    const hasP = precision !== null && precision !== undefined && !Number.isNaN(Number(precision)) && Number(precision) >= 0;
    const p = hasP ? Math.min(1, Number(precision)) : -1;
    const error = hasP && p >= t.error;
    const warning = hasP && !error && p >= t.warning;
    const unmatched = !!leaf && compare && !!unmatchedFlag;
    const ov = leaf ? LEVEL[/** @type {'medium'} */ (String(overflow))] || 0 : 0;
    const counted = error || warning || unmatched || ov > 0;
    if (!counted && !(leaf && hasP)) continue;
    // A leaf counts for its ancestors; a module that is an error or a warning for itself too.
    for (let a = leaf ? parent[i] : i, guard = 0; a >= 0 && guard < n; a = parent[a], ++guard) {
      if (hasP && p > worst[a]) worst[a] = p;
      if (!counted) continue;
      has[a] = 1;
      counts[4 * a] += error ? 1 : 0;
      counts[4 * a + 1] += warning ? 1 : 0;
      counts[4 * a + 2] += unmatched ? 1 : 0;
      counts[4 * a + 3] += ov > 0 ? 1 : 0;
      if (ov > worstOv[a]) worstOv[a] = ov;
    }
  }
  /** @type {Array<[string, number|null, number, number, number, number, number]>} */
  const out = [];
  for (let i = 0; i < n; ++i)
    if (has[i]) out.push([String(rows[i][0]), worst[i] < 0 ? null : worst[i], counts[4 * i], counts[4 * i + 1],
                          counts[4 * i + 2], counts[4 * i + 3], worstOv[i]]);
  return out;
}

/** @param {any} db @param {string} sql @param {any[]} params @returns {any[][]} */
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

/** @param {any} db */
function hasTable(db, name) {
  return all(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).length > 0;
}

/** @param {any} db */
function configOf(db) {
  const r = all(db, 'SELECT graph_type, node_colors FROM tb_config LIMIT 1', []);
  return { compare: !!r.length && r[0][0] === 'compare', thresholds: badgeThresholds(r.length ? r[0][1] : null) };
}

/** The rows of one (step, rank, side) computed from tb_nodes. @param {any} db */
function computeScope(db, step, rank, side) {
  const { compare, thresholds } = configOf(db);
  const rows = all(db,
    `SELECT node_name, up_node, (sub_nodes IS NULL OR sub_nodes IN ('', '[]')), precision_index, overflow_level,
            (matched_node_link IS NULL OR matched_node_link IN ('', '[]'))
     FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?`, [step, rank, side]);
  return computeBadges(rows, compare, thresholds);
}

/** @type {WeakMap<any, Map<string, any[]>>} computed rows of databases without vp_badges */
const cache = new WeakMap();

/**
 * The badge rows of one (step, rank, side): [name, worst, n_error, n_warning, n_unmatched,
 * n_overflow, worst_overflow][], and where they came from ('stored' or 'computed').
 * @param {any} db @param {{step: number, rank: number, side: string}} a
 */
export function badgesOf(db, a) {
  const step = Number(a.step);
  const rank = Number(a.rank);
  const side = SIDES.includes(a.side) ? a.side : 'NPU';
  if (hasTable(db, 'vp_badges')) {
    const rows = all(db, `SELECT node_name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow
                          FROM vp_badges WHERE step = ? AND rank = ? AND data_source = ?`, [step, rank, side]);
    return { source: 'stored', rows };
  }
  let m = cache.get(db);
  if (!m) { m = new Map(); cache.set(db, m); }
  const key = `${step}|${rank}|${side}`;
  let rows = m.get(key);
  if (!rows) { rows = computeScope(db, step, rank, side); m.set(key, rows); }
  return { source: 'computed', rows };
}

/**
 * After a manual match or unmatch in (step, rank): stored rows are recomputed and rewritten (in
 * the caller's transaction, if any), computed ones forgotten.
 * @param {any} db @param {number} step @param {number} rank
 */
export function refreshBadges(db, step, rank) {
  const m = cache.get(db);
  if (m) for (const side of SIDES) m.delete(`${Number(step)}|${Number(rank)}|${side}`);
  if (!hasTable(db, 'vp_badges')) return;
  db.run('DELETE FROM vp_badges WHERE step = ? AND rank = ?', [step, rank]);
  const st = db.prepare(`INSERT INTO vp_badges (step, rank, data_source, node_name, worst, n_error, n_warning, n_unmatched,
                         n_overflow, worst_overflow) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  try {
    for (const side of SIDES)
      for (const r of computeScope(db, step, rank, side)) st.run([step, rank, side, ...r]);
  } finally {
    st.free();
  }
}
