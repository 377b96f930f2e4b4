// Problem badges in the worker (web/src/engine/badges.js, web-ui BEY-08). The rules are the
// engine's (core/db/badges.cc through the wasm module); this file checks what the JS owns: tb_nodes
// rows into the typed arrays the engine takes, its answer back into rows, stored (vp_badges) versus
// computed-and-cached rows, and their refresh after a manual match. The database is a real sql.js
// one (the page's own library); the engine is a stand-in that records what it is given.
//   node --test tests/web/engine_badges.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import initSqlJs from 'sql.js/dist/sql-wasm.js';
import { badgeThresholds, computeBadges, hasBadgeTable, badgesOf, refreshBadges, thresholdsOf } from '../../web/src/engine/badges.js';

const SQL = await initSqlJs();

/** The engine's answer shape (bindings.cc Respond). */
const ok = (value) => ({ status: { code: 'ok', message: { id: '', args: {}, text: '' } }, value });

/** A stand-in of the wasm module: one answer row per node with a child, counting what it was given. */
function fakeEngine() {
  const seen = [];
  return {
    seen,
    badgeThresholds: (json) => { seen.push(['thresholds', json]); return ok({ warning: '0.3', error: 0.6 }); },
    computeBadges(parent, precision, flags, overflow, compare, legend) {
      seen.push({ parent: [...parent], precision: [...precision], flags: [...flags], overflow: [...overflow], compare, legend });
      const index = [...new Set([...parent].filter((p) => p >= 0))].sort((a, b) => a - b);
      const n = index.length;
      const counts = new Int32Array(4 * n);
      index.forEach((p, k) => { counts[4 * k] = [...parent].filter((q) => q === p).length; counts[4 * k + 3] = k; });
      return ok({ index: Int32Array.from(index), worst: Float64Array.from(index.map((p, k) => (k === 0 ? -1 : precision[p]))), counts,
                  worstOverflow: Int32Array.from(index.map((p) => overflow[p])) });
    },
  };
}

test('rows -> typed arrays: parents by name (first of a name), NULL precision -1, text NaN, flags, overflow levels', () => {
  const e = fakeEngine();
  const rows = [
    ['root', null, 0, null, null, 0],
    ['m', 'root', 0, 0.2, 'medium', 0],
    ['leaf1', 'm', 1, 0.7, 'critical', 0],
    ['leaf2', 'm', 1, 'nan', null, 1],
    ['orphan', 'not-here', 1, null, 'high', 1],
    ['self', 'self', 0, 0, 'bogus', 0],
    ['m', 'root', 1, 0.9, null, 0],              // a second 'm': children still point at the first
  ];
  computeBadges(e, rows, true, null);
  const got = e.seen[0];
  assert.deepEqual(got.parent, [-1, 0, 1, 1, -1, -1, 0]);
  assert.deepEqual(got.precision, [-1, 0.2, 0.7, NaN, -1, 0, 0.9]);
  assert.deepEqual(got.flags, [0, 0, 1, 3, 3, 0, 1]);       // 1 leaf, 2 unmatched
  assert.deepEqual(got.overflow, [0, 1, 3, 0, 2, 0, 0]);    // medium 1, high 2, critical 3, else 0
  assert.equal(got.compare, true);
  assert.equal(got.legend, '');
});

test('the engine\'s answer back into [name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow]', () => {
  const e = fakeEngine();
  const rows = [['root', null, 0, null, null, 0], ['m', 'root', 0, 0.2, 'medium', 0], ['leaf', 'm', 1, 0.7, null, 0]];
  assert.deepEqual(computeBadges(e, rows, false, '{"x":1}'), [
    ['root', null, 1, 0, 0, 0, 0],    // worst -1: none
    ['m', 0.2, 1, 0, 0, 1, 1],
  ]);
  assert.equal(e.seen[0].legend, '{"x":1}');
});

test('an engine failure is an EngineError carrying the engine\'s message', () => {
  const message = { id: 'InvalidNodeId', args: { id: '7' }, text: 'Invalid node id 7.' };
  const failing = { computeBadges: () => ({ status: { code: 'invalid_input', message }, value: null }) };
  assert.throws(() => computeBadges(failing, [['a', null, 1, null, null, 0]], false, ''),
    (err) => err.name === 'EngineError' && err.message === 'Invalid node id 7.' && err.engineMessage === message);
});

test('thresholds of a legend: the engine\'s answer as numbers, no legend as ""', () => {
  const e = fakeEngine();
  assert.deepEqual(badgeThresholds(e, null), { warning: 0.3, error: 0.6 });
  assert.deepEqual(e.seen, [['thresholds', '']]);
});

/** A small .vis.db: tb_config and the nodes of (step 0, rank 0) on both sides, and optionally vp_badges. */
function visDb({ stored = false, compare = true, colours = '{"#FFFCF3": {"value": [0, 0.3]}}' } = {}) {
  const db = new SQL.Database();
  db.run('CREATE TABLE tb_config (graph_type TEXT, node_colors TEXT)');
  db.run('INSERT INTO tb_config VALUES (?, ?)', [compare ? 'compare' : 'build', colours]);
  db.run(`CREATE TABLE tb_nodes (step INTEGER, rank INTEGER, data_source TEXT, node_name TEXT, up_node TEXT, sub_nodes TEXT,
          precision_index REAL, overflow_level TEXT, matched_node_link TEXT)`);
  const ins = 'INSERT INTO tb_nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)';
  db.run(ins, [0, 0, 'NPU', 'root', '', '["m"]', null, null, '["root"]']);
  db.run(ins, [0, 0, 'NPU', 'm', 'root', '["leaf"]', 0.5, 'high', '["m"]']);
  db.run(ins, [0, 0, 'NPU', 'leaf', 'm', '[]', 0.7, null, '["leaf"]']);
  db.run(ins, [0, 0, 'Bench', 'root', '', '["b"]', null, null, '["root"]']);
  db.run(ins, [0, 0, 'Bench', 'b', 'root', '', null, null, null]);
  db.run(ins, [1, 0, 'NPU', 'other', '', '', null, null, null]);
  if (stored) {
    db.run(`CREATE TABLE vp_badges (step INTEGER, rank INTEGER, data_source TEXT, node_name TEXT, worst REAL, n_error INTEGER,
            n_warning INTEGER, n_unmatched INTEGER, n_overflow INTEGER, worst_overflow INTEGER)`);
    db.run('INSERT INTO vp_badges VALUES (0, 0, ?, ?, ?, 1, 2, 3, 4, 2)', ['NPU', 'root', 0.7]);
    db.run('INSERT INTO vp_badges VALUES (0, 0, ?, ?, ?, 0, 0, 1, 0, 0)', ['Bench', 'root', null]);
    db.run('INSERT INTO vp_badges VALUES (5, 0, ?, ?, ?, 9, 9, 9, 9, 3)', ['NPU', 'stale', 1]);
  }
  return db;
}

test('a database with vp_badges: the stored rows of that scope, the engine not asked', () => {
  const db = visDb({ stored: true });
  const e = fakeEngine();
  assert.equal(hasBadgeTable(db), true);
  assert.deepEqual(badgesOf(e, db, { step: 0, rank: 0, side: 'NPU' }), { source: 'stored', rows: [['root', 0.7, 1, 2, 3, 4, 2]] });
  assert.deepEqual(badgesOf(e, db, { step: '0', rank: '0', side: 'Bench' }), { source: 'stored', rows: [['root', null, 0, 0, 1, 0, 0]] });
  assert.deepEqual(badgesOf(e, db, { step: 0, rank: 1, side: 'NPU' }).rows, []);
  assert.deepEqual(e.seen, []);
  db.close();
});

test('an msProbe database (no vp_badges): computed from tb_nodes once per scope, kept in memory', () => {
  const db = visDb();
  const e = fakeEngine();
  assert.equal(hasBadgeTable(db), false);
  const first = badgesOf(e, db, { step: 0, rank: 0, side: 'NPU' });
  assert.equal(first.source, 'computed');
  assert.deepEqual(first.rows.map((r) => r[0]), ['root', 'm']);
  const given = e.seen[0];
  assert.deepEqual(given.parent, [-1, 0, 1]);                 // '' up_node: no parent
  assert.deepEqual(given.flags, [0, 0, 1]);                   // leaf: sub_nodes '[]'; all matched
  assert.deepEqual(given.precision, [-1, 0.5, 0.7]);
  assert.deepEqual(given.overflow, [0, 2, 0]);
  assert.equal(given.compare, true);
  assert.equal(given.legend, '{"#FFFCF3": {"value": [0, 0.3]}}');
  assert.equal(badgesOf(e, db, { step: 0, rank: 0, side: 'NPU' }).rows, first.rows);
  assert.equal(e.seen.length, 1, 'second read from the cache');
  // an unknown side reads as NPU (the same cached rows); Bench is its own scope
  assert.equal(badgesOf(e, db, { step: 0, rank: 0, side: 'evil; DROP' }).rows, first.rows);
  badgesOf(e, db, { step: 0, rank: 0, side: 'Bench' });
  assert.equal(e.seen.length, 2);
  assert.deepEqual(e.seen[1].flags, [0, 3]);                  // 'b': sub_nodes '' -> leaf, link NULL -> unmatched
  // refresh after a manual match: the computed rows of that (step, rank) are forgotten
  refreshBadges(e, db, 0, 0);
  badgesOf(e, db, { step: 0, rank: 0, side: 'NPU' });
  assert.equal(e.seen.length, 3);
  db.close();
});

test('a single-graph file passes compare = false; no tb_config row: no legend', () => {
  const db = visDb({ compare: false, colours: null });
  const e = fakeEngine();
  badgesOf(e, db, { step: 0, rank: 0, side: 'NPU' });
  assert.deepEqual([e.seen[0].compare, e.seen[0].legend], [false, '']);
  db.run('DELETE FROM tb_config');
  assert.deepEqual(thresholdsOf(e, db), { warning: 0.3, error: 0.6 });
  assert.deepEqual(e.seen.at(-1), ['thresholds', '']);
  db.close();
});

test('refresh with vp_badges: that (step, rank) is rewritten for both sides, other scopes kept', () => {
  const db = visDb({ stored: true });
  const e = fakeEngine();
  refreshBadges(e, db, 0, 0);
  const rows = db.exec('SELECT step, rank, data_source, node_name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow FROM vp_badges ORDER BY step, data_source DESC, node_name')[0].values;
  assert.deepEqual(rows, [
    [0, 0, 'NPU', 'm', 0.5, 1, 0, 0, 1, 2],
    [0, 0, 'NPU', 'root', null, 1, 0, 0, 0, 0],
    [0, 0, 'Bench', 'root', null, 1, 0, 0, 0, 0],
    [5, 0, 'NPU', 'stale', 1, 9, 9, 9, 9, 3],
  ]);
  assert.deepEqual(badgesOf(e, db, { step: 0, rank: 0, side: 'Bench' }).source, 'stored');
  db.close();
});
