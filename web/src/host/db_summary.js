// @ts-check
// The drawer's summary of an open database (row count, tb_config, number of graphs) and its
// all-graphs node table. Queries chosen for large files read lazily: see the comments.
import { setText } from '../graph/dom.js';

/**
 * @param {import('../engine/client.js').EngineClient} engine @param {HTMLElement} summary
 */
export async function fillSummary(engine, summary) {
  summary.textContent = '';
  // Table and column names stay as they are; the labels of this page follow the language.
  const add = (/** @type {string} */ k, /** @type {unknown} */ v, key = '') => {
    const dt = document.createElement('dt');
    if (key) setText(dt, key); else dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = String(v);
    if (k === 'tb_nodes rows') dd.dataset.testid = 'rows';
    summary.append(dt, dd);
  };
  // The largest rowid is the row count of these files (rows are only ever added): one seek, where
  // count(*) read 176 MB of a 3.3 GB file opened lazily.
  const count = await engine.query('SELECT coalesce(max(rowid), 0) FROM tb_nodes');
  add('tb_nodes rows', count.values[0][0], 'summaryRows');
  const cfg = await engine.query('SELECT graph_type, task, micro_steps, overflow_check, rank_list, step_list FROM tb_config');
  if (cfg.values.length) cfg.columns.forEach((c, i) => add(c, cfg.values[0][i] ?? 'NULL'));
  // Distinct (step, rank, side): index seeks along index3, where DISTINCT over the table read
  // 379 MB of a 3.3 GB file opened lazily. Each seek is a strict `>` on one column after equal
  // ones: a row-value `(step, rank, data_source) > (?, ?, ?)` walks every index entry of the
  // current graph before it reaches the next (22 MB per graph of a 2 GB file over HTTP).
  const nextGraph = async (/** @type {import('../engine/protocol.js').SqlValue[]|null} */ at) => {
    /** @type {[string, import('../engine/protocol.js').SqlValue[]][]} */
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
  let graphCount = 0;
  for (let at = await nextGraph(null); at; at = await nextGraph(at)) graphCount++;
  add('graphs', graphCount, 'summaryGraphs');
}

/**
 * The all-graphs node table: up to 200 names containing `needle`, worst first.
 * @param {import('../engine/client.js').EngineClient} engine @param {string} needle @param {HTMLTableSectionElement} body
 */
export async function listNodes(engine, needle, body) {
  const res = await engine.query(
    `SELECT data_source, step, rank, node_name, node_type, precision_index, overflow_level FROM tb_nodes
     WHERE node_name LIKE ? ESCAPE '\\' ORDER BY (precision_index IS NULL), precision_index DESC, (overflow_level IS NULL), step, rank, node_order LIMIT 200`,
    ['%' + needle.replace(/[\\%_]/g, '\\$&') + '%']);   // "%" and "_" in a name are text, not wildcards
  body.textContent = '';
  for (const row of res.values) {
    const tr = document.createElement('tr');
    row.forEach((v, i) => {
      const td = document.createElement('td');
      td.textContent = v === null ? '' : String(v);
      if (i === 1 || i === 2 || i === 5) td.className = 'num';
      tr.append(td);
    });
    body.append(tr);
  }
}
