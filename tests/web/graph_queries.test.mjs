// The graph view's queries (web/src/graph/queries.js, issue 47): each statement run on a real
// SQLite database (sql.js, the page's own library) with the tables core/db/schema.cc writes, and
// the typed rows it returns: columns read by name, JSON lists parsed (bad JSON: empty), values the
// page shows as stored. The engine is a stand-in answering as the worker's QUERY does (the first
// statement's rows) and recording every statement.
//   node --test tests/web/graph_queries.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import initSqlJs from 'sql.js/dist/sql-wasm.js';
import * as q from '../../web/src/graph/queries.js';

const SQL = await initSqlJs();

const NODE_COLUMNS = ['step', 'rank', 'data_source', 'node_name', 'node_type', 'up_node', 'sub_nodes', 'node_order', 'precision_index',
  'overflow_level', 'micro_step_id', 'matched_node_link', 'stack_id', 'parallel_merge_info', 'matched_distributed', 'modified',
  'input_data', 'output_data'];

/** One tb_nodes row with defaults. */
const node = (o) => ({ step: 0, rank: 0, data_source: 'NPU', node_type: '0', up_node: '', sub_nodes: '[]', node_order: 0, precision_index: null,
  overflow_level: null, micro_step_id: 0, matched_node_link: '[]', stack_id: null, parallel_merge_info: null, matched_distributed: null,
  modified: 0, input_data: '{}', output_data: '{}', ...o });

/** The worked example: a Debug graph (root, a module of two leaves, a leaf) and its Bench twin; rank 1 has a Debug root only. */
const NODES = [
  node({ node_name: 'Default', sub_nodes: '["Module.a","Module.b"]', node_order: 4, precision_index: 0.7 }),
  node({ node_name: 'Module.a', up_node: 'Default', sub_nodes: '["Module.a.x","Module.a.y"]', node_order: 3, precision_index: 0.9,
         matched_node_link: '["Module.a"]', parallel_merge_info: '["merged"]', stack_id: 's1' }),
  node({ node_name: 'Module.a.x', up_node: 'Module.a', node_type: '1', node_order: 1, precision_index: 0.4, overflow_level: 'high',
         matched_node_link: '["Module.a.x"]', modified: 1, micro_step_id: 1,
         matched_distributed: '{"communications_type": "send", "nodes_info": {"1": [0.2, "Module.a.x"]}}',
         output_data: '{"out.0": {"MaxRelativeErr": "12.5%", "Cosine": "0.99"}, "out.1": {"MaxRelativeErr": "inf%", "Cosine": "nan"}}' }),
  node({ node_name: 'Module.a.y', up_node: 'Module.a', node_type: '1', node_order: 2, precision_index: 0.1, sub_nodes: '',
         matched_node_link: 'not json', output_data: '{"out.0": {"MaxRelativeErr": "0.5%", "Cosine": "0.5"}}' }),
  node({ node_name: 'Module.b', up_node: 'Default', node_type: '8', node_order: 0, precision_index: 0.95, modified: 1, matched_node_link: '' }),
  node({ data_source: 'Bench', node_name: 'Default', sub_nodes: '["Module.a"]', node_order: 1 }),
  node({ data_source: 'Bench', node_name: 'Module.a', up_node: 'Default', node_order: 0, matched_node_link: '["Module.a"]' }),
  node({ rank: 1, node_name: 'Default', node_order: 0, precision_index: 0.65, sub_nodes: 'not json' }),
];

/** A database with the tables of core/db/schema.cc (the columns the page reads) and their index2 / index3. */
function graphDb({ config = true, nodes = NODES } = {}) {
  const db = new SQL.Database();
  db.run(`CREATE TABLE tb_nodes (step INTEGER NOT NULL, rank INTEGER NOT NULL, data_source TEXT, node_name TEXT NOT NULL, node_type TEXT NOT NULL,
          up_node TEXT, sub_nodes TEXT, node_order INTEGER NOT NULL, precision_index INTEGER, overflow_level TEXT, micro_step_id INTEGER NOT NULL,
          matched_node_link TEXT, stack_id TEXT, parallel_merge_info TEXT, matched_distributed TEXT, modified INTEGER NOT NULL,
          input_data TEXT, output_data TEXT)`);
  db.run('CREATE INDEX index2 ON tb_nodes (step, rank, data_source, node_name)');
  db.run('CREATE INDEX index3 ON tb_nodes (step, rank, data_source, node_order)');
  db.run('CREATE TABLE tb_stack (id TEXT PRIMARY KEY, stack_info TEXT)');
  db.run(`INSERT INTO tb_stack VALUES ('s1', '["a.py:1", "b.py:2"]')`);
  db.run(`CREATE TABLE tb_config (id TEXT PRIMARY KEY, graph_type TEXT NOT NULL, task TEXT, tool_tip TEXT, micro_steps INTEGER,
          overflow_check INTEGER, node_colors TEXT NOT NULL, rank_list TEXT NOT NULL, step_list TEXT NOT NULL)`);
  if (config) {
    db.run(`INSERT INTO tb_config VALUES ('1', 'compare', 'summary', '{"shape": "Shape", "__proto__": "x"}', 2, 1, '{"#fff": {"value": [0, 0.3]}}',
            '[0, 1]', '[0]')`);
  }
  const stmt = db.prepare(`INSERT INTO tb_nodes (${NODE_COLUMNS.join(', ')}) VALUES (${NODE_COLUMNS.map(() => '?').join(', ')})`);
  for (const n of nodes) stmt.run(NODE_COLUMNS.map((c) => n[c]));
  stmt.free();
  return db;
}

/** The worker's QUERY over `db`: the first statement's rows ({columns: [], values: []} when none); every statement recorded. */
function engineOf(db) {
  const calls = [];
  return {
    calls,
    async query(sql, params) {
      calls.push({ sql: sql.replace(/\s+/g, ' ').trim(), params });
      const res = db.exec(sql, params || []);
      return res.length ? { columns: res[0].columns, values: res[0].values } : { columns: [], values: [] };
    },
  };
}

const DEBUG = [0, 0, 'NPU'];

test('tb_config: the workspace\'s typed settings; the defaults when the table has no row', async () => {
  const cfg = await q.graphConfig(engineOf(graphDb()));
  assert.deepEqual(cfg, { compare: true, task: 'summary', microSteps: 2, overflowCheck: true, nodeColors: '{"#fff": {"value": [0, 0.3]}}',
                          ranks: [0, 1], steps: [0], toolTips: { shape: 'Shape' } });
  assert.deepEqual(await q.graphConfig(engineOf(graphDb({ config: false }))),
                   { compare: false, task: '', microSteps: 1, overflowCheck: false, nodeColors: 'null', ranks: [0], steps: [0], toolTips: {} });
});

test('a pane\'s tree: the root, children in node_order, children of many by parent; JSON lists parsed, bad JSON empty', async () => {
  const e = engineOf(graphDb());
  const root = await q.rootNode(e, DEBUG);
  assert.deepEqual(root, { name: 'Default', type: 0, subNames: ['Module.a', 'Module.b'], precision: 0.7, overflow: null, link: [], micro: 0,
                           comm: '', merged: false, modified: false });
  assert.equal(await q.rootNode(e, [5, 0, 'NPU']), null);
  assert.deepEqual((await q.childNodes(e, DEBUG, 'Default')).map((n) => n.name), ['Module.b', 'Module.a']);
  const [x, y] = await q.childNodes(e, DEBUG, 'Module.a');
  assert.deepEqual(x, { name: 'Module.a.x', type: 1, subNames: [], precision: 0.4, overflow: 'high', link: ['Module.a.x'], micro: 1,
                        comm: 'send', merged: false, modified: true });
  assert.deepEqual([y.subNames, y.link], [[], []]);
  assert.deepEqual((await q.rootNode(e, [0, 1, 'NPU'])).subNames, []);
  const a = (await q.childNodes(e, DEBUG, 'Default'))[1];
  assert.equal(a.merged, true);
  const byParent = await q.childNodesByParent(e, DEBUG, ['Module.a', 'Default', 'Module.b']);
  assert.deepEqual([...byParent.keys()].sort(), ['Default', 'Module.a']);
  assert.deepEqual(byParent.get('Module.a').map((n) => n.name), ['Module.a.x', 'Module.a.y']);
  assert.deepEqual(byParent.get('Module.a')[0], x);
  assert.deepEqual(await q.ancestorChain(e, DEBUG, 'Module.a.y'), ['Default', 'Module.a', 'Module.a.y']);
  assert.deepEqual(await q.ancestorChain(e, DEBUG, 'nowhere'), []);
});

test('graph scopes: the rowid range, names in execution order read in chunks, a stale list stops', async () => {
  const e = engineOf(graphDb());
  assert.deepEqual(await q.scopeRowids(e, 0, 0, 'NPU'), [1, 5]);
  assert.deepEqual(await q.scopeRowids(e, 0, 0, 'Bench'), [6, 7]);
  assert.equal(await q.scopeRowids(e, 3, 0, 'NPU'), null);
  const names = await q.nameRows(e, DEBUG);
  assert.deepEqual(names.map((r) => r.name), ['Module.b', 'Module.a.x', 'Module.a.y', 'Module.a', 'Default']);
  assert.deepEqual(names[1], { name: 'Module.a.x', micro: 1, unmatched: false, order: 1 });
  // unmatched: no link at all (a link the page cannot read is still a link).
  assert.deepEqual(names.filter((r) => r.unmatched).map((r) => r.name), ['Module.b', 'Default']);
  await assert.rejects(q.nameRows(e, DEBUG, () => true), (err) => err.stale === true);
  assert.deepEqual(await q.nameRows(e, [3, 0, 'NPU']), []);
});

test('the filter\'s and the navigator\'s lists: the terms they are given, micro-step filtered, in execution order', async () => {
  const e = engineOf(graphDb());
  const range = await q.scopeRowids(e, 0, 0, 'NPU');
  const all = await q.filterRows(e, range, DEBUG, -1, `(${q.LEAF} AND ${q.UNMATCHED})`);
  assert.deepEqual(all, [{ name: 'Module.b', precision: 0.95, level: null, unmatched: true }]);
  assert.deepEqual((await q.filterRows(e, range, DEBUG, 1, 'precision_index >= 0')).map((r) => r.name), ['Module.a.x']);
  const bounds = { warning: 0.3, error: 0.6 };
  const flagged = await q.flaggedRows(e, range, DEBUG, -1, new Set(['error', 'warning']), bounds);
  // Module.b is an API list (type 8): white, so not flagged by its index.
  assert.deepEqual(flagged.map((r) => [r.name, r.order, r.precision]), [['Module.a.x', 1, 0.4], ['Module.a', 3, 0.9], ['Default', 4, 0.7]]);
  const leaves = await q.flaggedRows(e, range, DEBUG, -1, new Set(['unmatched', 'overflow']), bounds);
  assert.deepEqual(leaves, [{ name: 'Module.b', order: 0, precision: 0.95, level: null, unmatched: true },
                            { name: 'Module.a.x', order: 1, precision: 0.4, level: 'high', unmatched: false }]);
  const asked = e.calls.length;
  assert.deepEqual(await q.flaggedRows(e, range, DEBUG, -1, new Set(), bounds), []);
  assert.equal(e.calls.length, asked, 'no kinds: no query');
  assert.equal(await q.nodeOrder(e, DEBUG, 'Module.a'), 3);
  assert.equal(await q.nodeOrder(e, DEBUG, 'nowhere'), null);
});

test('worst nodes: the leaves\' metrics, worst over the outputs, NaN and infinities from the text msProbe writes', async () => {
  const e = engineOf(graphDb());
  const range = await q.scopeRowids(e, 0, 0, 'NPU');
  const rows = await q.worstRows(e, range, DEBUG, -1, [['MaxRelativeErr', 'MaxRelativeErr', 'desc'], ['Cosine', 'Cosine', 'asc']]);
  assert.deepEqual(rows.sort((a, b) => a.order - b.order), [
    { name: 'Module.b', order: 0, precision: 0.95, metrics: [null, null] },
    { name: 'Module.a.x', order: 1, precision: 0.4, metrics: [Infinity, NaN] },
    { name: 'Module.a.y', order: 2, precision: 0.1, metrics: [0.5, 0.5] },
  ]);
  assert.deepEqual((await q.worstRows(e, range, DEBUG, -1, [])).map((r) => r.metrics), [[], [], []]);
});

test('one node: its detail columns as stored, its peers, its link and type, across steps and ranks, after a match', async () => {
  const e = engineOf(graphDb());
  const d = await q.detailColumns(e, DEBUG, 'Module.a');
  assert.deepEqual(d, { input: '{}', output: '{}', stack: '["a.py:1", "b.py:2"]', precision: 0.9, overflow: null, dist: null, merge: '["merged"]' });
  assert.equal(await q.detailColumns(e, DEBUG, 'nowhere'), null);
  assert.match(await q.distributedOf(e, DEBUG, 'Module.a.x'), /communications_type/);
  assert.equal(await q.distributedOf(e, DEBUG, 'Module.a'), null);
  assert.equal(await q.distributedOf(e, DEBUG, 'nowhere'), null);
  assert.deepEqual(await q.linkRow(e, DEBUG, 'Module.a.x'), { link: '["Module.a.x"]', type: '1' });
  assert.equal(await q.linkRow(e, DEBUG, 'nowhere'), undefined);
  assert.deepEqual(await q.handMadeLinks(e, 0, 0), [{ name: 'Module.b', link: '' }, { name: 'Module.a.x', link: '["Module.a.x"]' }]);
  const across = await q.nodeAcross(e, [0], [0, 1, 2], 'NPU', 'Default');
  assert.deepEqual([...across.entries()], [
    ['0|0', { present: true, precision: 0.7, overflow: null, unmatched: true }],
    ['0|1', { present: true, precision: 0.65, overflow: null, unmatched: true }],
    ['0|2', { present: false, precision: null, overflow: null, unmatched: true }],
  ]);
  const states = await q.matchStates(e, DEBUG, ['Module.a', 'Module.a.y', 'nowhere']);
  assert.deepEqual(states.sort((a, b) => a.name.localeCompare(b.name)), [
    { name: 'Module.a', precision: 0.9, link: ['Module.a'], modified: false },
    { name: 'Module.a.y', precision: 0.1, link: [], modified: false },
  ]);
});

test('the drawer\'s summary: row count, tb_config as text, graphs by index seeks, the node table with % and _ as text', async () => {
  const e = engineOf(graphDb());
  assert.equal(await q.rowCount(e), NODES.length);
  assert.deepEqual(await q.configSummary(e), [['graph_type', 'compare'], ['task', 'summary'], ['micro_steps', '2'], ['overflow_check', '1'],
                                              ['rank_list', '[0, 1]'], ['step_list', '[0]']]);
  assert.deepEqual(await q.configSummary(engineOf(graphDb({ config: false }))), []);
  assert.equal(await q.graphCount(e), 3);
  assert.equal(await q.graphCount(engineOf(graphDb({ nodes: [] }))), 0);
  assert.equal(await q.rowCount(engineOf(graphDb({ nodes: [] }))), 0);
  const hits = await q.findNodes(e, 'module.a');
  assert.deepEqual(hits[0], { side: 'NPU', step: 0, rank: 0, name: 'Module.a', type: '0', precision: 0.9, overflow: null });
  assert.deepEqual(hits.map((h) => `${h.side}:${h.name}`), ['NPU:Module.a', 'NPU:Module.a.x', 'NPU:Module.a.y', 'Bench:Module.a']);
  assert.deepEqual(await q.findNodes(e, 'Module_a'), []);
  assert.deepEqual(await q.findNodes(e, '%'), []);
  assert.equal(await q.hasGraphRows(e), true);
  assert.equal(await q.hasGraphRows(engineOf(new SQL.Database())), false);
});

test('loadBadges: the worker\'s rows as a map by node name, numbers as numbers, worst null kept', async () => {
  const asked = [];
  const engine = {
    async badges(a) {
      asked.push(a);
      return { source: 'stored', rows: [['Module.a', 0.7, 1, 2, 3, 4, 2], ['Module.b', null, '0', '0', '5', '0', '0']] };
    },
  };
  const m = await q.loadBadges(engine, [2, 1, 'Bench']);
  assert.deepEqual(asked, [{ step: 2, rank: 1, side: 'Bench' }]);
  assert.deepEqual([...m.entries()], [
    ['Module.a', { worst: 0.7, error: 1, warning: 2, unmatched: 3, overflow: 4, worstOverflow: 2 }],
    ['Module.b', { worst: null, error: 0, warning: 0, unmatched: 5, overflow: 0, worstOverflow: 0 }],
  ]);
  assert.equal((await q.loadBadges({ async badges() { return {}; } }, [0, 0, 'NPU'])).size, 0);
});
