// @ts-check
// The tb_nodes rows a graph pane reads (web-ui §4): the columns it needs, the root of a
// (step, rank, side) graph, the children of one node, the children of many in batches, and a
// row made into a tree node. Split out of pane.js, behaviour unchanged.
/** @typedef {import('./layout.js').GNode} GNode */
/** @typedef {import('../engine/client.js').EngineClient} EngineClient */
/** @typedef {(number|string)[]} Scope  [step, rank, data_source] */

export const COLS = `node_name, node_type, sub_nodes, precision_index, overflow_level, matched_node_link, micro_step_id,
  CASE WHEN matched_distributed IS NULL OR matched_distributed IN ('', '{}') OR NOT json_valid(matched_distributed) THEN ''
       ELSE ifnull(json_extract(matched_distributed, '$.communications_type'), '') END,
  (parallel_merge_info IS NOT NULL AND parallel_merge_info NOT IN ('', '[]')), modified`;

/** The root row of the scope's graph (none: no graph there). @param {EngineClient} engine @param {Scope} scope */
export const rootRows = (engine, scope) =>
  engine.query(`SELECT ${COLS} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND up_node = ''`, scope);

/** The direct children rows of node `name`, in node_order. @param {EngineClient} engine @param {Scope} scope @param {string} name */
export const childRows = (engine, scope, name) =>
  engine.query(`SELECT ${COLS} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND up_node = ? ORDER BY node_order`,
               [...scope, name]);

/**
 * The child rows (COLS) of the named nodes, by parent name, in node_order: along the
 * (step, rank, data_source, up_node, node_order) index, 400 parents a query.
 * @param {EngineClient} engine @param {Scope} scope @param {string[]} names @returns {Promise<Map<string, import('../engine/protocol.js').SqlValue[][]>>}
 */
export async function childRowsByParent(engine, scope, names) {
  /** @type {Map<string, import('../engine/protocol.js').SqlValue[][]>} */
  const byParent = new Map();
  for (let i = 0; i < names.length; i += 400) {
    const part = names.slice(i, i + 400);
    const rows = await engine.query(
      `SELECT up_node, ${COLS} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ?
       AND up_node IN (${part.map(() => '?').join(',')}) ORDER BY up_node, node_order`, [...scope, ...part]);
    for (const row of rows.values) {
      const up = String(row[0]);
      if (!byParent.has(up)) byParent.set(up, []);
      /** @type {import('../engine/protocol.js').SqlValue[][]} */ (byParent.get(up)).push(row.slice(1));
    }
  }
  return byParent;
}

/**
 * A row (COLS) as a tree node below `parent` (sub_nodes and matched_node_link parsed; bad JSON
 * reads as empty).
 * @param {import('../engine/protocol.js').SqlValue[]} row @param {GNode|null} parent @returns {GNode}
 */
export function nodeFromRow(row, parent) {
  const [name, type, sub, precision, overflow, link, micro, comm, merged, modified] = row;
  /** @type {string[]} */
  let subNames = [];
  /** @type {string[]} */
  let links = [];
  try { subNames = sub ? JSON.parse(/** @type {string} */ (sub)) : []; } catch { subNames = []; }
  try { links = link ? JSON.parse(/** @type {string} */ (link)) : []; } catch { links = []; }
  if (!Array.isArray(subNames)) subNames = [];
  if (!Array.isArray(links)) links = [];
  return { name: String(name), type: Number(type), subNames, children: null, expanded: false,
              precision: precision === null ? null : Number(precision), overflow: /** @type {string|null} */ (overflow), link: links,
              micro: Number(micro), depth: parent ? parent.depth + 1 : 0, parent, x: 0, y: 0, w: 0, h: 0,
              comm: /** @type {string} */ (comm || ''), merged: !!merged, modified: !!modified };
}
