// @ts-check
// The drawer's summary of an open database (row count, tb_config, number of graphs) and its
// all-graphs node table. The queries (graph/queries.js) are chosen for large files read lazily.
import { setText } from '../graph/dom.js';
import { rowCount, configSummary, graphCount, findNodes } from '../graph/queries.js';

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
  add('tb_nodes rows', await rowCount(engine), 'summaryRows');
  for (const [column, value] of await configSummary(engine)) add(column, value);
  add('graphs', await graphCount(engine), 'summaryGraphs');
}

/**
 * The all-graphs node table: up to 200 names containing `needle`, worst first.
 * @param {import('../engine/client.js').EngineClient} engine @param {string} needle @param {HTMLTableSectionElement} body
 */
export async function listNodes(engine, needle, body) {
  const hits = await findNodes(engine, needle);
  body.textContent = '';
  for (const hit of hits) {
    const tr = document.createElement('tr');
    // The columns as the table's head names them; step, rank and precision index are numbers.
    for (const [v, num] of /** @type {[import('../engine/protocol.js').SqlValue, boolean][]} */ ([[hit.side, false], [hit.step, true], [hit.rank, true],
      [hit.name, false], [hit.type, false], [hit.precision, true], [hit.overflow, false]])) {
      const td = document.createElement('td');
      td.textContent = v === null ? '' : String(v);
      if (num) td.className = 'num';
      tr.append(td);
    }
    body.append(tr);
  }
}
