// @ts-check
// The trend queries Q1-Q8 (trend-analyzer.md §9) over one database the worker holds, named per
// instance (the A/B comparison keeps two open, BEY-11). Every value is a bound parameter; the one interpolated identifier, the statistic column, is checked against
// PRAGMA table_info(trend_data) and the supported list first (§8.6).
import { t } from '../i18n.js';

export const SUPPORTED_STATS = Object.freeze(['norm', 'min', 'max', 'zeros', 'nans', 'mean', 'entropy', 'softmax_max', 'sr',
  'kernel_norm', 'std_x', 'jacobian', 'proxy', 'token_similarity']);
const AXIS_COLUMNS = new Set(['max_rank', 'min_step', 'max_step']);
const CATEGORY_ORDER = ['default', 'function', 'index', 'layer', 'module'];

/** @typedef {'step'|'rank'|'module_name'} Dimension */
export const DIMENSIONS = Object.freeze([
  { value: 'step', text: 'Step' }, { value: 'rank', text: 'Rank' }, { value: 'module_name', text: 'Module Name' }]);

/** Axis names of the heat map for a fixed dimension (§10.4). */
export const AXES = Object.freeze({
  step: { x: 'Rank', y: 'Module Name' },
  rank: { x: 'Step', y: 'Module Name' },
  module_name: { x: 'Step', y: 'Rank' },
});

/** `<target_id>_<vpp_stage>_<target_name>_<micro_step>` (Q4). @param {SqlValue} id @param {SqlValue} vpp @param {SqlValue} name @param {SqlValue} micro */
export const moduleLabel = (id, vpp, name, micro) => `${id}_${vpp}_${name}_${micro}`;

/**
 * Issue 46: a target as the user knows it: its module name, with the VPP stage and micro step (call
 * index) only when they are not 0 — never the internal `<id>_<vpp>_<name>_<micro>` key.
 * @param {SqlValue} name @param {SqlValue} vpp @param {SqlValue} micro  (as the database stores them)
 */
export const moduleText = (name, vpp, micro) => `${name}${Number(vpp) ? ` · vpp${vpp}` : ''}${Number(micro) ? ` · µ${micro}` : ''}`;

/** What identifies a target across files (its UNIQUE key, §8.2; ids are per file). @param {SqlValue} name @param {SqlValue} vpp @param {SqlValue} micro */
export const targetKey = (name, vpp, micro) => `${vpp}\u0000${micro}\u0000${name}`;

/**
 * @typedef {{xs: number[], ys: {id: number, label: string, name: string, vpp?: number, micro?: number}[], xi: Int32Array, yi: Int32Array,
 *            v: Float64Array, rows: number}} Cube  one heat map: categories and cells (v NaN = NULL)
 */

/** @typedef {import('../engine/protocol.js').SqlValue} SqlValue */
/**
 * A Q6 row (a cell of the heat map of one fixed dimension value): its rank, step, target (id, name,
 * VPP stage, micro step) and the statistic's value (null: NULL).
 * @typedef {{rank: number, step: number, targetId: number, value: number|null, name: string, vpp: number, micro: number}} HeatRow
 */

/** Q6 rows `[rank, step, target_id, value, target_name, vpp_stage, micro_step]` as HeatRows. @param {SqlValue[][]} rows @returns {HeatRow[]} */
export const heatRows = (rows) => rows.map(([rank, step, targetId, value, name, vpp, micro]) => ({
  rank: Number(rank), step: Number(step), targetId: Number(targetId), value: value === null ? null : Number(value),
  name: String(name), vpp: Number(vpp), micro: Number(micro) }));
/** @typedef {{query: (sql: string, params?: SqlValue[], db?: string) => Promise<import('../engine/protocol.js').QueryResult>}} QueryEngine */

/**
 * A failure shown to the user, in the page's language (X-01); `code` tells callers what failed
 * without reading the text ('missing': the file has no such metric or statistic).
 * @param {string} code @param {string} key @param {...unknown} args
 */
function trendError(code, key, ...args) {
  const e = /** @type {Error & {code: string}} */ (new Error(t(key, ...args)));
  e.code = code;
  return e;
}

export class TrendQueries {
  /**
   * @param {QueryEngine} engine
   * @param {string} [db] the database's name in the worker; none = the worker's current database
   * @param {() => Promise<void>} [reopen] opens it again when the worker lost it (a restarted engine)
   */
  constructor(engine, db, reopen) {
    this.engine = engine;
    this.db = db;
    this.reopen = reopen;
    /** @type {Set<string>} */
    this.statColumns = new Set();
    /** @type {Set<string>} */
    this.tables = new Set();
    /** @type {Map<string, number>} */
    this.metricIds = new Map();
    /** @type {Map<number, {original: number, micro: number}>|null} */
    this.stepMap = null;
  }

  /** @param {string} sql @param {SqlValue[]} [params] */
  async query(sql, params) {
    try {
      return await this.engine.query(sql, params || [], this.db);
    } catch (e) {
      if (!this.reopen || /** @type {Error} */ (e).name !== 'DbNotOpen') throw e;
      await this.reopen();
      return this.engine.query(sql, params || [], this.db);
    }
  }

  /** @param {string} sql @param {SqlValue[]} [params] */
  async rows(sql, params) {
    return (await this.query(sql, params)).values;
  }

  /** Schema facts the other queries rely on; call once after the database opened. */
  async open() {
    this.tables = new Set((await this.rows("SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => String(r[0])));
    this.statColumns = new Set();
    if (this.tables.has('trend_data'))
      for (const r of await this.rows('PRAGMA table_info(trend_data)')) if (SUPPORTED_STATS.includes(/** @type {string} */ (r[1]))) this.statColumns.add(/** @type {string} */ (r[1]));
    this.metricIds.clear();
    /** @type {Map<string, number>|null} */
    this.idsByKey = null;
    this.stepMap = null;
    if (this.tables.has('trend_step_map')) {
      this.stepMap = new Map();
      for (const [s, o, m] of await this.rows('SELECT step, original_step, micro_step FROM trend_step_map'))
        this.stepMap.set(Number(s), { original: Number(o), micro: Number(m) });
    }
  }

  /** Q1: metrics (column order) and their statistics (list order). */
  async catalogue() {
    const r = await this.query('SELECT * FROM global_stats ORDER BY ROWID DESC LIMIT 1');
    if (!r.values.length) return [];
    /** @type {{name: string, stats: string[]}[]} */
    const out = [];
    r.columns.forEach((c, i) => {
      const v = r.values[0][i];
      if (AXIS_COLUMNS.has(c) || typeof v !== 'string' || !v) return;
      out.push({ name: c, stats: v.split(',') });
    });
    return out;
  }

  /** Q2: step and rank values (every integer of the ranges, with or without data). */
  async extents() {
    const r = await this.rows('SELECT max_rank, min_step, max_step FROM global_stats ORDER BY ROWID DESC LIMIT 1');
    if (!r.length) return { steps: [], ranks: [] };
    const [maxRank, minStep, maxStep] = r[0].map(Number);
    const range = (/** @type {number} */ a, /** @type {number} */ b) => (Number.isFinite(a) && Number.isFinite(b) && b >= a ? Array.from({ length: b - a + 1 }, (_, i) => a + i) : []);
    return { steps: range(minStep, maxStep), ranks: range(0, maxRank) };
  }

  /** `Step 4 (iter 1, µ1)` when trend_step_map knows the slot (§10.9). @param {number} step */
  stepText(step) {
    const m = this.stepMap && this.stepMap.get(step);
    return m ? t('trStepText', step, m.original, m.micro) : `Step${step}`;
  }

  /** Issue 19: the x tick of a step slot: its iteration (and micro step) when trend_step_map knows it. @param {number} step */
  stepTick(step) {
    const m = this.stepMap && this.stepMap.get(step);
    if (!m) return String(step);
    return Number.isFinite(m.micro) ? t('trIterTick', m.original, m.micro) : t('trIterOnly', m.original);
  }

  /** Q3. @param {string} metric */
  async metricId(metric) {
    if (this.metricIds.has(metric)) return /** @type {number} */ (this.metricIds.get(metric));
    const r = await this.rows('SELECT metric_id FROM monitoring_metrics WHERE metric_name = ?', [metric]);
    if (!r.length) throw trendError('missing', 'trNoSuchMetric', metric);
    this.metricIds.set(metric, Number(r[0][0]));
    return Number(r[0][0]);
  }

  /** The validated column identifier (§8.6). @param {string} stat */
  statColumn(stat) {
    if (!SUPPORTED_STATS.includes(stat) || !this.statColumns.has(stat)) throw trendError('missing', 'trInvalidStat', stat);
    return `"${stat}"`;
  }

  /** One `IN (…)` clause per tag name, combined with AND (Q4). @param {string} column @param {string[]} tags */
  tagGroup(column, tags) {
    const names = [...new Set(tags)];
    if (!names.length) return { sql: '', params: [] };
    const one = `${column} IN (SELECT ttm.target_id FROM tag_target_mapping ttm JOIN monitoring_tags mtags ON ttm.tag_id = mtags.tag_id WHERE mtags.tag_name = ?)`;
    return { sql: ` AND (${names.map(() => one).join(' AND ')})`, params: names };
  }

  /** Q4: module-name values of a metric carrying every tag. @param {string} metric @param {string[]} tags */
  async modules(metric, tags) {
    let id = null;
    try { id = await this.metricId(metric); } catch { id = null; }   // unknown metric: all targets (reference quirk)
    const where = [];
    const params = [];
    if (id !== null) {
      where.push('mt.target_id IN (SELECT DISTINCT target_id FROM trend_data WHERE metric_id = ?)');
      params.push(id);
    }
    const g = this.tagGroup('mt.target_id', tags);
    const sql = 'SELECT DISTINCT mt.target_id, mt.vpp_stage, mt.target_name, mt.micro_step FROM monitoring_targets mt' +
      (where.length ? ' WHERE ' + where.join(' AND ') : ' WHERE 1') + g.sql + ' ORDER BY mt.target_id';
    return (await this.rows(sql, [...params, ...g.params])).map(([tid, vpp, name, micro]) =>
      ({ id: Number(tid), name: String(name), label: moduleLabel(tid, vpp, name, micro) }));
  }

  /** Q5 (the cheap form): the metric's tags, by category then name. @param {string} metric */
  async tags(metric) {
    if (!this.tables.has('monitoring_tags')) return [];
    const id = await this.metricId(metric);
    const r = await this.rows('SELECT DISTINCT tag_name, category FROM monitoring_tags WHERE metric_id = ? ORDER BY category, tag_name', [id]);
    const rank = (/** @type {string} */ c) => { const i = CATEGORY_ORDER.indexOf(c); return i < 0 ? CATEGORY_ORDER.length : i; };
    return r.map(([name, category]) => ({ name: String(name), category: String(category) }))
      .sort((a, b) => rank(a.category) - rank(b.category) || (a.category < b.category ? -1 : a.category > b.category ? 1 : 0));
  }

  /**
   * Q6: the heat map of one fixed dimension value.
   * @param {{metric: string, stat: string, dimension: Dimension, value: number, tags: string[]}} s
   * @returns {Promise<Cube>}
   */
  async heatmap(s) {
    return cubeOf(await this.q6(s), s.dimension);
  }

  /**
   * Q6 as HeatRows (the comparison aligns them by name, §8.4: ids are per file).
   * @param {{metric: string, stat: string, dimension: Dimension, value: number, tags: string[]}} s
   * @returns {Promise<HeatRow[]>}
   */
  async heatmapRows(s) {
    return heatRows(await this.q6(s));
  }

  /**
   * Q6 rows `[rank, step, target_id, value, target_name, vpp_stage, micro_step]`, read here by
   * position (cubeOf makes a heat map of many cells without an object per row).
   * @param {{metric: string, stat: string, dimension: Dimension, value: number, tags: string[]}} s
   * @returns {Promise<SqlValue[][]>}
   */
  async q6(s) {
    if (!s.metric || !s.stat || !s.dimension || s.value === null || s.value === undefined) throw trendError('params', 'trInvalidParams');
    const col = this.statColumn(s.stat);
    const id = await this.metricId(s.metric);
    const cond = { step: 't.step = ?', rank: 't.rank = ?', module_name: 'm.target_id = ?' }[s.dimension];
    if (!cond) throw trendError('params', 'trInvalidParams');
    const g = this.tagGroup('t.target_id', s.tags);
    const sql = `SELECT t.rank, t.step, t.target_id, t.${col}, m.target_name, m.vpp_stage, m.micro_step
      FROM trend_data t JOIN monitoring_targets m ON t.target_id = m.target_id
      WHERE t.metric_id = ? AND ${cond}${g.sql}`;
    return this.rows(sql, [id, s.value, ...g.params]);
  }

  /** The target id of (name, vpp_stage, micro_step) in this file, or null. @param {{name: string, vpp: number, micro: number}} t */
  async targetId(t) {
    const r = await this.rows('SELECT target_id FROM monitoring_targets WHERE target_name = ? AND vpp_stage = ? AND micro_step = ?', [t.name, t.vpp, t.micro]);
    return r.length ? Number(r[0][0]) : null;
  }

  /** Every target's id by its key (targetKey), read once per file. */
  async targetIds() {
    if (!this.idsByKey) {
      /** @type {Map<string, number>} */
      const m = new Map();
      for (const [id, name, vpp, micro] of await this.rows('SELECT target_id, target_name, vpp_stage, micro_step FROM monitoring_targets'))
        m.set(targetKey(String(name), Number(vpp), Number(micro)), Number(id));
      this.idsByKey = m;
    }
    return this.idsByKey;
  }

  /** The target key of an id in this file, or null. @param {number} id */
  async targetKey(id) {
    const r = await this.rows('SELECT target_name, vpp_stage, micro_step FROM monitoring_targets WHERE target_id = ?', [id]);
    return r.length ? { name: String(r[0][0]), vpp: Number(r[0][1]), micro: Number(r[0][2]) } : null;
  }

  /**
   * Q7: the series of a clicked cell.
   * @param {{metric: string, stat: string, dimension: Dimension, x: number, yId: number, tags: string[]}} s
   * @returns {Promise<{xs: number[], values: (number|null)[], labels: string[], keys: string[]}>}
   */
  async trend(s) {
    const col = this.statColumn(s.stat);
    const id = await this.metricId(s.metric);
    const spec = {
      step: { cond: 't.rank = ? AND t.target_id = ?', order: 't.step', x: 0 },
      rank: { cond: 't.step = ? AND t.target_id = ?', order: 't.rank', x: 1 },
      module_name: { cond: 't.step = ? AND t.rank = ?', order: 't.target_id', x: 2 },
    }[s.dimension];
    if (!spec) throw trendError('params', 'trInvalidParams');
    const g = s.dimension === 'module_name' ? this.tagGroup('t.target_id', s.tags) : { sql: '', params: [] };
    const sql = `SELECT t.step, t.rank, t.target_id, t.${col}, m.target_name, m.vpp_stage, m.micro_step
      FROM trend_data t JOIN monitoring_targets m ON t.target_id = m.target_id
      WHERE t.metric_id = ? AND ${spec.cond}${g.sql} ORDER BY ${spec.order}`;
    const rows = await this.rows(sql, [id, s.x, s.yId, ...g.params]);
    return {
      xs: rows.map((r) => Number(r[spec.x])),
      values: rows.map((r) => (r[3] === null ? null : Number(r[3]))),
      labels: rows.map((r) => (s.dimension === 'module_name' ? moduleText(r[4], r[5], r[6])
        : s.dimension === 'step' ? this.stepText(Number(r[0])) : `Rank${r[1]}`)),
      keys: rows.map((r) => targetKey(r[4], r[5], r[6])),
    };
  }

  /**
   * Issue 46: the run's shape for the parallelism form: ranks (max_rank + 1 of global_stats) and
   * layers (the highest `<name>.N` layer tag + 1, `layers.N` preferred; 0 when the file has none).
   */
  async runShape() {
    let ranks = 0;
    let layers = 0;
    try { ranks = Number((await this.rows('SELECT max_rank FROM global_stats ORDER BY ROWID DESC LIMIT 1'))[0][0]) + 1; } catch { ranks = 0; }
    if (this.tables.has('monitoring_tags')) {
      /** @type {Map<string, number>} prefix -> highest index + 1 */
      const top = new Map();
      for (const [name] of await this.rows("SELECT DISTINCT tag_name FROM monitoring_tags WHERE category = 'layer'")) {
        const m = /^(.*)\.(\d+)$/.exec(String(name));
        if (m) top.set(m[1], Math.max(top.get(m[1]) || 0, Number(m[2]) + 1));
      }
      layers = top.get('layers') || Math.max(0, ...top.values());
    }
    return { ranks: Number.isFinite(ranks) && ranks > 0 ? ranks : 0, layers };
  }

  /** The catalogue shown beside the toolbar (counts and the global_stats row). */
  async info() {
    /** @type {[string, string][]} */
    const out = [];
    for (const [label, sql] of [['trend_data rows', 'SELECT count(*) FROM trend_data'],
                                ['targets', 'SELECT count(*) FROM monitoring_targets'],
                                ['metrics', "SELECT group_concat(metric_name, ', ') FROM monitoring_metrics"]]) {
      try { out.push([label, String((await this.rows(sql))[0][0])]); } catch { /* table absent */ }
    }
    try {
      const g = await this.query('SELECT * FROM global_stats ORDER BY ROWID DESC LIMIT 1');
      if (g.values.length) g.columns.forEach((c, i) => out.push([c, String(g.values[0][i] ?? 'NULL')]));
    } catch { /* no global_stats */ }
    return out;
  }
}

/**
 * Q6 rows -> categories sorted numerically and one cell per row (§10.4 axes table).
 * @param {SqlValue[][]} rows  [rank, step, target_id, value, target_name, vpp_stage, micro_step]
 * @param {Dimension} dimension
 * @returns {Cube}
 */
export function cubeOf(rows, dimension) {
  const xCol = dimension === 'step' ? 0 : 1;
  const byModule = dimension !== 'module_name';
  const xSet = new Set();
  /** @type {Map<number, {id: number, label: string, name: string, vpp?: number, micro?: number}>} */
  const yMap = new Map();
  for (const r of rows) {
    xSet.add(Number(r[xCol]));
    const yid = Number(byModule ? r[2] : r[0]);
    if (!yMap.has(yid)) yMap.set(yid, byModule ? { id: yid, label: moduleLabel(r[2], r[5], r[4], r[6]), name: String(r[4]), vpp: Number(r[5]), micro: Number(r[6]) }
      : { id: yid, label: String(yid), name: String(yid) });
  }
  const xs = [...xSet].sort((a, b) => a - b);
  const ys = [...yMap.values()].sort((a, b) => a.id - b.id);
  const xIndex = new Map(xs.map((x, i) => [x, i]));
  const yIndex = new Map(ys.map((y, i) => [y.id, i]));
  const n = rows.length;
  const xi = new Int32Array(n);
  const yi = new Int32Array(n);
  const v = new Float64Array(n);
  for (let i = 0; i < n; ++i) {
    const r = rows[i];
    xi[i] = /** @type {number} */ (xIndex.get(Number(r[xCol])));
    yi[i] = /** @type {number} */ (yIndex.get(Number(byModule ? r[2] : r[0])));
    v[i] = r[3] === null ? NaN : Number(r[3]);
  }
  return { xs, ys, xi, yi, v, rows: n };
}
