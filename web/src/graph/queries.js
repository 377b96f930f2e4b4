// @ts-check
// The graph view's SQL (issue 47): every statement the graph workspace, its panes and panels and the
// drawer's database summary run over tb_nodes, tb_config and tb_stack, each a named function that
// binds its values as parameters and returns typed rows. Rows are read by position only here, next
// to the SELECT that fixes their columns; what leaves this module is an object read by name. The
// filter panel's bucket terms (panel_filter.js condOf) are built from LEAF, COLOURED and UNMATCHED.
import { UNCOLOURED_TYPES } from './colours.js';

/** @typedef {import('../engine/protocol.js').SqlValue} SqlValue */
/** @typedef {Pick<import('../engine/client.js').EngineClient, 'query'>} QueryEngine */
/** @typedef {[number, number, string]} Scope  one graph: [step, rank, data_source] */
/** @typedef {[number, number]} RowidRange  [first, last] rowid of one graph (scopeRowids) */

/**
 * A tb_nodes row as a pane's tree reads it (sub_nodes and matched_node_link parsed, bad JSON read
 * as empty); comm: the communication type of matched_distributed ('' when none); merged: it has
 * parallel-merge details.
 * @typedef {{name: string, type: number, subNames: string[], precision: number|null, overflow: string|null, link: string[],
 *            micro: number, comm: string, merged: boolean, modified: boolean}} NodeRow
 */
/**
 * tb_config as the workspace uses it (the defaults when the table has no row). nodeColors: the
 * colour table's JSON as stored.
 * @typedef {{compare: boolean, task: string, microSteps: number, overflowCheck: boolean, nodeColors: string|null,
 *            ranks: number[], steps: number[], toolTips: Record<string, string>}} GraphConfig
 */
/** A node of the drawer's all-graphs table (values as stored). @typedef {{side: SqlValue, step: SqlValue, rank: SqlValue, name: SqlValue, type: SqlValue, precision: SqlValue, overflow: SqlValue}} NodeHit */
/** A name of the search and matching lists. @typedef {{name: string, micro: number|null, unmatched: boolean, order: number}} NameRow */
/** A node the filter lists. @typedef {{name: string, precision: SqlValue, level: SqlValue, unmatched: boolean}} FilterRow */
/** A node the navigator flags. @typedef {{name: string, order: number, precision: number|null, level: SqlValue, unmatched: boolean}} FlaggedRow */
/**
 * A compared leaf of the worst-nodes table: its precision index (as stored) and one value per
 * metric asked (NaN: a NaN in the node's outputs; null: none).
 * @typedef {{name: string, order: number, precision: number|null, metrics: (number|null)[]}} WorstRow
 */
/** A node's detail columns (JSON as stored; precision and overflow as stored). @typedef {{input: SqlValue, output: SqlValue, stack: SqlValue, precision: SqlValue, overflow: SqlValue, dist: SqlValue, merge: SqlValue}} DetailColumns */
/** The node on one (step, rank): present, its precision index, overflow level and whether unmatched. @typedef {{present: boolean, precision: number|null, overflow: SqlValue, unmatched: boolean}} StripCell */
/** A node's state after a manual match. @typedef {{name: string, precision: number|null, link: string[], modified: boolean}} MatchState */
/** A node's stored link (JSON text) and type. @typedef {{link: SqlValue, type: string}} LinkRow */
/** @typedef {import('./badges.js').Badge} Badge */

/** A JSON list from the database (sub_nodes, matched_node_link); bad JSON or no list: empty. @param {SqlValue} text @returns {string[]} */
function listOf(text) {
  let v;
  try { v = text ? JSON.parse(/** @type {string} */ (text)) : []; } catch { v = []; }
  return Array.isArray(v) ? v : [];
}

/** A JSON list of numbers from tb_config (rank_list, step_list), else fallback. @param {string} text @param {number[]} fallback @returns {number[]} */
function numbersOf(text, fallback) {
  try { const v = JSON.parse(text); return Array.isArray(v) && v.length ? v : fallback; } catch { return fallback; }
}

// --- Graph scopes ---------------------------------------------------------------------------------
// Queries that read every row of one graph (step, rank, side) read them along the rowid range the
// graph occupies, not along index3: the rows of a graph lie together in the file, but their rowid
// order (msProbe's) is not execution order, so a walk in node_order touched pages all over the
// graph and, on a database read lazily over HTTP, read them many times (a 10,000-row chunk of a
// 2 GB file read 97 MB). The range comes from index3 (which holds the rowid); rows of another graph
// inside it are skipped by the scope terms, written `+step` so that they filter instead of
// picking index2 over the range. Plan: SEARCH tb_nodes USING INTEGER PRIMARY KEY (rowid>? AND rowid<?).

/**
 * [first, last] rowid of one graph, or null when it has no rows.
 * @param {QueryEngine} engine @param {number} step @param {number} rank @param {string} side
 * @returns {Promise<RowidRange|null>}
 */
export async function scopeRowids(engine, step, rank, side) {
  const r = await engine.query('SELECT min(rowid), max(rowid) FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?', [step, rank, side]);
  const v = r.values[0];
  return v && v[0] !== null ? [Number(v[0]), Number(v[1])] : null;
}

/** The WHERE terms of one graph's rows in its rowid range (alias `a`, e.g. 'n.' or ''); params: lo, hi, step, rank, side. */
export const scopeTerms = (a = '') => `${a}rowid BETWEEN ? AND ? AND +${a}step = ? AND +${a}rank = ? AND +${a}data_source = ?`;

/** A leaf: a node without children (SQL over tb_nodes). */
export const LEAF = "(sub_nodes IS NULL OR sub_nodes IN ('', '[]'))";
/** Nodes whose box takes the precision colour (API lists and fused operators stay white, GR-04: the engine's declaration). */
export const COLOURED = `CAST(node_type AS INTEGER) NOT IN (${UNCOLOURED_TYPES.map(Number).join(', ')})`;
/** A node without a counterpart. */
export const UNMATCHED = "(matched_node_link IS NULL OR matched_node_link IN ('', '[]'))";

// --- The database ---------------------------------------------------------------------------------

/** Whether the worker's current database has a tb_nodes table (a graph's, not a .trend.db). @param {QueryEngine} engine */
export async function hasGraphRows(engine) {
  try { await engine.query('SELECT 1 FROM tb_nodes LIMIT 1'); return true; } catch { return false; }
}

/** tb_config's row as the workspace reads it. @param {QueryEngine} engine @returns {Promise<GraphConfig>} */
export async function graphConfig(engine) {
  const cfg = await engine.query('SELECT graph_type, task, micro_steps, overflow_check, node_colors, rank_list, step_list, tool_tip FROM tb_config');
  const [type, task, micro, overflow, colors, ranks, steps, tips] = cfg.values[0] || ['build', '', 1, 0, 'null', '[0]', '[0]', '{}'];
  /** @type {Record<string, string>} */
  const toolTips = {};
  try {
    const all = JSON.parse(/** @type {string} */ (tips) || '{}');
    if (all && typeof all === 'object') for (const k of Object.keys(all)) if (k !== '__proto__') toolTips[k] = String(all[k]);
  } catch { /* no tooltips */ }
  return { compare: type === 'compare', task: String(task || ''), microSteps: Number(micro) || 1, overflowCheck: Number(overflow) === 1,
           nodeColors: colors === null || colors === undefined ? null : String(colors),
           ranks: numbersOf(/** @type {string} */ (ranks), [0]), steps: numbersOf(/** @type {string} */ (steps), [0]), toolTips };
}

/**
 * The row count of these files: their largest rowid (rows are only ever added): one seek, where
 * count(*) read 176 MB of a 3.3 GB file opened lazily. @param {QueryEngine} engine
 */
export async function rowCount(engine) {
  const r = await engine.query('SELECT coalesce(max(rowid), 0) FROM tb_nodes');
  return /** @type {number} */ (r.values[0][0]);
}

/** tb_config's summary columns as [column, value] (NULL as 'NULL'); none without a row. @param {QueryEngine} engine @returns {Promise<[string, string][]>} */
export async function configSummary(engine) {
  const cfg = await engine.query('SELECT graph_type, task, micro_steps, overflow_check, rank_list, step_list FROM tb_config');
  return cfg.values.length ? cfg.columns.map((c, i) => /** @type {[string, string]} */ ([c, String(cfg.values[0][i] ?? 'NULL')])) : [];
}

/**
 * The number of distinct (step, rank, side): index seeks along index3, where DISTINCT over the table
 * read 379 MB of a 3.3 GB file opened lazily. Each seek is a strict `>` on one column after equal
 * ones: a row-value `(step, rank, data_source) > (?, ?, ?)` walks every index entry of the current
 * graph before it reaches the next (22 MB per graph of a 2 GB file over HTTP).
 * @param {QueryEngine} engine
 */
export async function graphCount(engine) {
  const nextGraph = async (/** @type {SqlValue[]|null} */ at) => {
    /** @type {[string, SqlValue[]][]} */
    const seeks = at ? [['step = ? AND rank = ? AND data_source > ?', at],
                        ['step = ? AND rank > ?', at.slice(0, 2)],
                        ['step > ?', at.slice(0, 1)]]
                     : [['step >= ?', [-1e18]]];
    for (const [where, params] of seeks) {
      const r = await engine.query(`SELECT step, rank, data_source FROM tb_nodes WHERE ${where} ` +
                                   'ORDER BY step, rank, data_source LIMIT 1', params);
      if (r.values.length) return r.values[0];
    }
    return null;
  };
  let graphs = 0;
  for (let at = await nextGraph(null); at; at = await nextGraph(at)) graphs++;
  return graphs;
}

/**
 * The drawer's all-graphs node table: up to 200 nodes whose name contains `needle` ("%" and "_" in it
 * are text, not wildcards), worst first. @param {QueryEngine} engine @param {string} needle @returns {Promise<NodeHit[]>}
 */
export async function findNodes(engine, needle) {
  const res = await engine.query(
    `SELECT data_source, step, rank, node_name, node_type, precision_index, overflow_level FROM tb_nodes
     WHERE node_name LIKE ? ESCAPE '\\' ORDER BY (precision_index IS NULL), precision_index DESC, (overflow_level IS NULL), step, rank, node_order LIMIT 200`,
    ['%' + needle.replace(/[\\%_]/g, '\\$&') + '%']);
  return res.values.map(([side, step, rank, name, type, precision, overflow]) => ({ side, step, rank, name, type, precision, overflow }));
}

// --- A pane's tree --------------------------------------------------------------------------------

const NODE_COLUMNS = `node_name, node_type, sub_nodes, precision_index, overflow_level, matched_node_link, micro_step_id,
  CASE WHEN matched_distributed IS NULL OR matched_distributed IN ('', '{}') OR NOT json_valid(matched_distributed) THEN ''
       ELSE ifnull(json_extract(matched_distributed, '$.communications_type'), '') END,
  (parallel_merge_info IS NOT NULL AND parallel_merge_info NOT IN ('', '[]')), modified`;

/** A NODE_COLUMNS row (from column `at` on) as a NodeRow. @param {SqlValue[]} row @param {number} at @returns {NodeRow} */
function nodeRow(row, at) {
  const [name, type, sub, precision, overflow, link, micro, comm, merged, modified] = at ? row.slice(at) : row;
  return { name: String(name), type: Number(type), subNames: listOf(sub), precision: precision === null ? null : Number(precision),
           overflow: /** @type {string|null} */ (overflow), link: listOf(link), micro: Number(micro),
           comm: /** @type {string} */ (comm || ''), merged: !!merged, modified: !!modified };
}

/** The root of the scope's graph (null: no graph there). @param {QueryEngine} engine @param {Scope} scope */
export async function rootNode(engine, scope) {
  const r = await engine.query(`SELECT ${NODE_COLUMNS} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND up_node = ''`, scope);
  return r.values.length ? nodeRow(r.values[0], 0) : null;
}

/** The direct children of node `name`, in node_order. @param {QueryEngine} engine @param {Scope} scope @param {string} name */
export async function childNodes(engine, scope, name) {
  const r = await engine.query(`SELECT ${NODE_COLUMNS} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND up_node = ? ORDER BY node_order`,
                               [...scope, name]);
  return r.values.map((row) => nodeRow(row, 0));
}

/**
 * The children of the named nodes, by parent name, in node_order: along the
 * (step, rank, data_source, up_node, node_order) index, 400 parents a query.
 * @param {QueryEngine} engine @param {Scope} scope @param {string[]} names @returns {Promise<Map<string, NodeRow[]>>}
 */
export async function childNodesByParent(engine, scope, names) {
  /** @type {Map<string, NodeRow[]>} */
  const byParent = new Map();
  for (let i = 0; i < names.length; i += 400) {
    const part = names.slice(i, i + 400);
    const rows = await engine.query(
      `SELECT up_node, ${NODE_COLUMNS} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?
       AND up_node IN (${part.map(() => '?').join(',')}) ORDER BY up_node, node_order`, [...scope, ...part]);
    for (const row of rows.values) {
      const up = String(row[0]);
      if (!byParent.has(up)) byParent.set(up, []);
      /** @type {NodeRow[]} */ (byParent.get(up)).push(nodeRow(row, 1));
    }
  }
  return byParent;
}

/**
 * The names from the root down to `name` (empty: no such node). One index lookup per level: the
 * CROSS JOIN keeps the chain outer, so each step finds its parent through
 * (step, rank, data_source, node_name) (with a plain JOIN SQLite put tb_nodes outer and read the
 * whole side per step: 0.7-1.4 s on 200,000 nodes).
 * @param {QueryEngine} engine @param {Scope} scope @param {string} name @returns {Promise<string[]>}
 */
export async function ancestorChain(engine, scope, name) {
  const [step, rank, side] = scope;
  const r = await engine.query(
    `WITH RECURSIVE chain(name, up, d) AS (
       SELECT node_name, up_node, 0 FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?
       UNION ALL
       SELECT t.node_name, t.up_node, c.d + 1 FROM chain c CROSS JOIN tb_nodes t
         ON t.step = ? AND t.rank = ? AND t.data_source = ? AND t.node_name = c.up
       WHERE c.up != '' AND c.d < 10000)
     SELECT name FROM chain ORDER BY d DESC`,
    [step, rank, side, name, step, rank, side]);
  return r.values.map((v) => String(v[0]));
}

/**
 * MAT-05: the precision, link and modified flag of the named nodes after a match, 500 a query.
 * @param {QueryEngine} engine @param {Scope} scope @param {string[]} names @returns {Promise<MatchState[]>}
 */
export async function matchStates(engine, scope, names) {
  /** @type {MatchState[]} */
  const out = [];
  for (let i = 0; i < names.length; i += 500) {
    const part = names.slice(i, i + 500);
    const r = await engine.query(
      `SELECT node_name, precision_index, matched_node_link, modified FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?
       AND node_name IN (${part.map(() => '?').join(',')})`, [...scope, ...part]);
    for (const [name, precision, link, modified] of r.values)
      out.push({ name: String(name), precision: precision === null ? null : Number(precision), link: listOf(link), modified: !!modified });
  }
  return out;
}

// --- Lists of names and flagged nodes -------------------------------------------------------------

const NAME_CHUNK = 10000;

/**
 * SRCH-02: every name of one graph in execution order, read along its rowid range in chunks of
 * NAME_CHUNK rowids (the engine answers other queries, an expand or a detail, between two chunks),
 * then sorted by node_order here. `stale` is asked before each chunk: once it says true the load
 * stops with an error whose `stale` is true.
 * @param {QueryEngine} engine @param {Scope} scope @param {() => boolean} [stale] @returns {Promise<NameRow[]>}
 */
export async function nameRows(engine, scope, stale) {
  const range = await scopeRowids(engine, ...scope);
  /** @type {NameRow[]} */
  const rows = [];
  if (range) {
    for (let at = range[0] - 1; at < range[1]; at += NAME_CHUNK) {
      if (stale && stale()) throw Object.assign(new Error('stale name list'), { stale: true });
      const r = await engine.query(
        `SELECT node_name, micro_step_id, ${UNMATCHED}, node_order
         FROM tb_nodes WHERE ${scopeTerms()}`, [at + 1, Math.min(at + NAME_CHUNK, range[1]), ...scope]);
      for (const [name, micro, unmatched, order] of r.values)
        rows.push({ name: String(name), micro: micro === null ? null : Number(micro), unmatched: !!unmatched, order: Number(order) });
    }
  }
  return rows.sort((x, y) => x.order - y.order);
}

/**
 * FLT-04: the Debug nodes of one graph in its rowid range (micro step `micro`, -1: all) that meet
 * `where` (panel_filter.js's bucket terms), in execution order.
 * @param {QueryEngine} engine @param {RowidRange} range @param {Scope} scope @param {number} micro @param {string} where
 * @returns {Promise<FilterRow[]>}
 */
export async function filterRows(engine, range, scope, micro, where) {
  const r = await engine.query(
    `SELECT node_name, precision_index, overflow_level, ${UNMATCHED}
     FROM tb_nodes WHERE ${scopeTerms()} AND (? < 0 OR micro_step_id = ?) AND (${where}) ORDER BY node_order`,
    [...range, ...scope, micro, micro]);
  return r.values.map(([name, precision, level, unmatched]) => ({ name: String(name), precision, level, unmatched: !!unmatched }));
}

/**
 * BEY-09: the flagged nodes of one graph (micro step `micro`, -1: all) in execution order (node_order:
 * a module's row follows its children's). Errors and warnings at every level, by the legend's
 * bounds (a module whose own outputs diverge while its leaves pass is where the divergence shows,
 * issue 19), API lists and fused operators excepted (they draw white, GR-04); unmatched and overflow
 * are leaf notions, as in the badges. No kinds: no rows.
 * @param {QueryEngine} engine @param {RowidRange} range @param {Scope} scope @param {number} micro
 * @param {Set<string>} kinds  of 'error', 'warning', 'unmatched', 'overflow' @param {{warning: number, error: number}} bounds
 * @returns {Promise<FlaggedRow[]>}
 */
export async function flaggedRows(engine, range, scope, micro, kinds, bounds) {
  const conds = [];
  if (kinds.has('error')) conds.push(`(${COLOURED} AND precision_index >= ${Number(bounds.error)})`);
  if (kinds.has('warning')) conds.push(`(${COLOURED} AND precision_index >= ${Number(bounds.warning)} AND precision_index < ${Number(bounds.error)})`);
  if (kinds.has('unmatched')) conds.push(`(${LEAF} AND ${UNMATCHED})`);
  if (kinds.has('overflow')) conds.push(`(${LEAF} AND overflow_level IN ('medium', 'high', 'critical'))`);
  if (!conds.length) return [];
  const r = await engine.query(
    `SELECT node_name, node_order, precision_index, overflow_level, ${UNMATCHED} AND ${LEAF} FROM tb_nodes
     WHERE ${scopeTerms()} AND (? < 0 OR micro_step_id = ?) AND (${conds.join(' OR ')})
     ORDER BY node_order`, [...range, ...scope, micro, micro]);
  return r.values.map(([name, order, precision, level, unmatched]) =>
    ({ name: String(name), order: Number(order), precision: precision === null ? null : Number(precision), level, unmatched: !!unmatched }));
}

/** A node's node_order (null: no such node). @param {QueryEngine} engine @param {Scope} scope @param {string} name */
export async function nodeOrder(engine, scope, name) {
  const r = await engine.query('SELECT node_order FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?', [...scope, name]);
  return r.values.length ? Number(r.values[0][0]) : null;
}

/**
 * SQL of one metric of the worst-nodes table over the items of a node's outputs (j.value): the worst
 * value ('asc': the smallest) and whether any is NaN. Values are stored as text ("12.5%", "0.999",
 * "inf%", "nan%", "N/A"): numbers and infinities count (SQLite's 9e999 is +inf); a NaN anywhere is
 * reported by the flag beside the value, and sorts as the worst (it is the divergence that hides
 * every other). @param {string} key @param {'asc'|'desc'} dir
 */
function metricSql(key, dir) {
  const v = `json_extract(j.value, '$."${key}"')`;
  const num = `CASE WHEN ${v} GLOB '[0-9]*' OR ${v} GLOB '-[0-9]*' OR ${v} GLOB '.[0-9]*' THEN CAST(${v} AS REAL)
               WHEN lower(${v}) GLOB 'inf*' OR lower(${v}) GLOB '+inf*' THEN 9e999 WHEN lower(${v}) GLOB '-inf*' THEN -9e999 END`;
  return `${dir === 'asc' ? 'min' : 'max'}(${num}), max(lower(${v}) GLOB '*nan*')`;
}

/**
 * Worst nodes: every compared leaf of one graph (micro step `micro`, -1: all) with its metrics
 * (worst over its outputs), parsed from the items in SQL.
 * @param {QueryEngine} engine @param {RowidRange} range @param {Scope} scope @param {number} micro
 * @param {Array<[string, string, 'asc'|'desc']>} columns  [item key, label, direction] per metric
 * @returns {Promise<WorstRow[]>}
 */
export async function worstRows(engine, range, scope, micro, columns) {
  const r = await engine.query(
    `SELECT n.node_name, n.node_order, n.precision_index${columns.map(([k, , d]) => ', ' + metricSql(k, d)).join('')}
     FROM tb_nodes n LEFT JOIN json_each(CASE WHEN json_valid(n.output_data) THEN n.output_data ELSE '{}' END) j
     WHERE ${scopeTerms('n.')} AND (n.sub_nodes IS NULL OR n.sub_nodes IN ('', '[]'))
       AND (? < 0 OR n.micro_step_id = ?) AND n.precision_index IS NOT NULL
     GROUP BY n.node_order`, [...range, ...scope, micro, micro]);
  // [name, order, precision, (value, nan flag) per metric]; the precision index as stored.
  return r.values.map((row) => {
    /** @type {(number|null)[]} */
    const metrics = [];
    for (let i = 0; i < columns.length; ++i) {
      const v = row[3 + 2 * i];
      metrics.push(row[4 + 2 * i] ? NaN : v === null ? null : Number(v));
    }
    return { name: String(row[0]), order: Number(row[1]), precision: /** @type {number|null} */ (row[2]), metrics };
  });
}

// --- One node -------------------------------------------------------------------------------------

/** DET-01: a node's detail columns (null: no such node). @param {QueryEngine} engine @param {Scope} scope @param {string} name @returns {Promise<DetailColumns|null>} */
export async function detailColumns(engine, scope, name) {
  const r = await engine.query(
    'SELECT n.input_data, n.output_data, s.stack_info, n.precision_index, n.overflow_level, n.matched_distributed, n.parallel_merge_info ' +
    'FROM tb_nodes n LEFT JOIN tb_stack s ON s.id = n.stack_id WHERE n.step = ? AND n.rank = ? AND n.data_source = ? AND n.node_name = ?',
    [...scope, name]);
  if (!r.values.length) return null;
  const [input, output, stack, precision, overflow, dist, merge] = r.values[0];
  return { input, output, stack, precision, overflow, dist, merge };
}

/** GI-03: a node's matched_distributed as stored (null: none, or no such node). @param {QueryEngine} engine @param {Scope} scope @param {string} name */
export async function distributedOf(engine, scope, name) {
  const r = await engine.query('SELECT matched_distributed FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
                               [...scope, name]);
  return r.values.length ? r.values[0][0] : null;
}

/**
 * BEY-10: the node `name` of one side on every (step, rank) pair, by `${step}|${rank}`: one indexed
 * lookup per pair through index2.
 * @param {QueryEngine} engine @param {number[]} steps @param {number[]} ranks @param {string} side @param {string} name
 * @returns {Promise<Map<string, StripCell>>}
 */
export async function nodeAcross(engine, steps, ranks, side, name) {
  const pairs = [];
  for (const s of steps) for (const r of ranks) pairs.push(s, r);
  const values = steps.flatMap(() => ranks.map(() => '(?, ?)')).join(', ');
  const res = await engine.query(
    `WITH s(step, rank) AS (VALUES ${values})
     SELECT s.step, s.rank, t.node_name IS NOT NULL, t.precision_index, t.overflow_level,
            (t.matched_node_link IS NULL OR t.matched_node_link IN ('', '[]'))
     FROM s LEFT JOIN tb_nodes t ON t.step = s.step AND t.rank = s.rank AND t.data_source = ? AND t.node_name = ?`,
    [...pairs, side, name]);
  return new Map(res.values.map(([step, rank, present, precision, overflow, unmatched]) => [`${step}|${rank}`,
    { present: !!present, precision: precision === null ? null : Number(precision), overflow, unmatched: !!unmatched }]));
}

/**
 * MAT-06: the Debug nodes of one step and rank marked modified (matched or unmatched by hand), in
 * execution order, with their stored links. @param {QueryEngine} engine @param {number} step @param {number} rank
 * @returns {Promise<{name: string, link: SqlValue}[]>}
 */
export async function handMadeLinks(engine, step, rank) {
  const r = await engine.query(
    "SELECT node_name, matched_node_link FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = 'NPU' AND modified = 1 ORDER BY node_order",
    [step, rank]);
  return r.values.map(([name, link]) => ({ name: String(name), link }));
}

/** A node's stored link and type (undefined: no such node). @param {QueryEngine} engine @param {Scope} scope @param {string} name @returns {Promise<LinkRow|undefined>} */
export async function linkRow(engine, scope, name) {
  const r = await engine.query('SELECT matched_node_link, node_type FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
                               [...scope, name]);
  return r.values.length ? { link: r.values[0][0], type: String(r.values[0][1]) } : undefined;
}

/**
 * BEY-08: the badge rows of one graph from the worker (stored by the engine in vp_badges, or
 * computed there for msProbe files), by node name; numbers as numbers, worst null kept.
 * @param {Pick<import('../engine/client.js').EngineClient, 'badges'>} engine @param {Scope} scope
 * @returns {Promise<Map<string, Badge>>}
 */
export async function loadBadges(engine, scope) {
  const [step, rank, side] = scope;
  const r = await engine.badges({ step, rank, side });
  /** @type {Map<string, Badge>} */
  const out = new Map();
  for (const [name, worst, error, warning, unmatched, overflow, worstOverflow] of r.rows || [])
    out.set(String(name), { worst: worst === null ? null : Number(worst), error: Number(error), warning: Number(warning),
                            unmatched: Number(unmatched), overflow: Number(overflow), worstOverflow: Number(worstOverflow) });
  return out;
}
