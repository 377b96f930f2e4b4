// The trend queries Q1-Q7 (web/src/trend/queries.js, trend-analyzer §9): the SQL text and bound
// parameters each builds, the validated statistic column (§8.6), and what it makes of the rows. The
// worker is a stand-in that records every statement and answers from a table of canned results.
// The page's language is pinned to English by a localStorage stand-in read when i18n.js loads.
//   node --test tests/web/queries.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: (k) => (k === 'visprobe.lang' ? 'en' : null), setItem() {} };
const { TrendQueries, cubeOf, moduleLabel, targetKey, AXES, SUPPORTED_STATS } = await import('../../web/src/trend/queries.js');

/** A worker stand-in: answers a statement by the first rule whose pattern it matches; records every call. */
function engine(rules) {
  const calls = [];
  return {
    calls,
    async query(sql, params, db) {
      calls.push({ sql: sql.replace(/\s+/g, ' ').trim(), params, db });
      for (const [re, answer] of rules) if (re.test(sql)) return typeof answer === 'function' ? answer(sql, params) : answer;
      throw new Error(`unexpected statement: ${sql}`);
    },
  };
}
const res = (columns, values) => ({ columns, values });

/** The schema a typical .trend.db answers open() with. */
const SCHEMA = [
  [/sqlite_master/, res(['name'], [['trend_data'], ['monitoring_targets'], ['monitoring_metrics'], ['monitoring_tags'], ['global_stats']])],
  [/PRAGMA table_info/, res(['cid', 'name'], [[0, 'rank'], [1, 'step'], [2, 'target_id'], [3, 'metric_id'], [4, 'norm'], [5, 'max'], [6, 'evil"col']])],
  [/FROM monitoring_metrics WHERE metric_name/, (sql, p) => res(['metric_id'], p[0] === 'forward' ? [[7]] : [])],
];

test('labels and keys: Q4\'s <id>_<vpp>_<name>_<micro>; the target key ignores the per-file id', () => {
  assert.equal(moduleLabel(3, 0, 'Module.model.layers.0.Layer.input.0', 0), '3_0_Module.model.layers.0.Layer.input.0_0');
  assert.equal(targetKey('Module.a', 1, 2), '1\u00002\u0000Module.a');
  assert.notEqual(targetKey('Module.a', 1, 2), targetKey('Module.a', 2, 1));
  assert.deepEqual(AXES.step, { x: 'Rank', y: 'Module Name' });
  assert.deepEqual(AXES.module_name, { x: 'Step', y: 'Rank' });
});

test('§8.6: only a supported statistic the table has is a column; it is quoted', async () => {
  const q = new TrendQueries(engine(SCHEMA));
  await q.open();
  assert.deepEqual([...q.statColumns], ['norm', 'max']);
  assert.equal(q.statColumn('max'), '"max"');
  for (const bad of ['mean', 'evil"col', 'max; DROP TABLE trend_data', '']) {
    assert.throws(() => q.statColumn(bad), (e) => e.code === 'missing' && e.message === `Invalid stat: ${bad}`, bad);
  }
  assert.ok(SUPPORTED_STATS.includes('mean'));
});

test('Q1: metrics in column order with their statistics, axis columns and empty values skipped', async () => {
  const q = new TrendQueries(engine([[/global_stats/, res(
    ['max_rank', 'min_step', 'max_step', 'forward', 'backward', 'empty', 'number'], [[3, 0, 5, 'max,min,norm', 'norm', '', 12]])]]));
  assert.deepEqual(await q.catalogue(), [{ name: 'forward', stats: ['max', 'min', 'norm'] }, { name: 'backward', stats: ['norm'] }]);
  const none = new TrendQueries(engine([[/global_stats/, res(['max_rank'], [])]]));
  assert.deepEqual(await none.catalogue(), []);
});

test('Q2: every step of min..max and every rank of 0..max_rank, with or without data', async () => {
  const q = new TrendQueries(engine([[/global_stats/, res(['max_rank', 'min_step', 'max_step'], [[3, 2, 5]])]]));
  assert.deepEqual(await q.extents(), { steps: [2, 3, 4, 5], ranks: [0, 1, 2, 3] });
  const empty = new TrendQueries(engine([[/global_stats/, res([], [])]]));
  assert.deepEqual(await empty.extents(), { steps: [], ranks: [] });
  const reversed = new TrendQueries(engine([[/global_stats/, res([], [[1, 5, 2]])]]));
  assert.deepEqual(await reversed.extents(), { steps: [], ranks: [0, 1] });   // min_step > max_step: no step
});

test('Q3: the metric id, asked once; an unknown metric is the error of the spec', async () => {
  const e = engine(SCHEMA);
  const q = new TrendQueries(e, 'a.trend.db');
  assert.equal(await q.metricId('forward'), 7);
  assert.equal(await q.metricId('forward'), 7);
  assert.equal(e.calls.length, 1);
  assert.deepEqual(e.calls[0], { sql: 'SELECT metric_id FROM monitoring_metrics WHERE metric_name = ?', params: ['forward'], db: 'a.trend.db' });
  await assert.rejects(q.metricId('nope'), (err) => err.code === 'missing' && err.message === 'No metric found with name: nope');
});

test('Q4 tag group: one IN clause per distinct tag name, combined with AND; none without tags', () => {
  const q = new TrendQueries(engine([]));
  assert.deepEqual(q.tagGroup('t.target_id', []), { sql: '', params: [] });
  const g = q.tagGroup('t.target_id', ['layers.0', 'attn', 'layers.0']);
  assert.deepEqual(g.params, ['layers.0', 'attn']);
  const one = 't.target_id IN (SELECT ttm.target_id FROM tag_target_mapping ttm JOIN monitoring_tags mtags ON ttm.tag_id = mtags.tag_id WHERE mtags.tag_name = ?)';
  assert.equal(g.sql, ` AND (${one} AND ${one})`);
});

test('Q4: module names of a metric with tags; an unknown metric lists every target (reference quirk)', async () => {
  const e = engine([...SCHEMA, [/FROM monitoring_targets mt/, res([], [[2, 0, 'Module.b', 0], [5, 1, 'Module.e', 3]])]]);
  const q = new TrendQueries(e);
  assert.deepEqual(await q.modules('forward', ['attn']), [
    { id: 2, name: 'Module.b', label: '2_0_Module.b_0' }, { id: 5, name: 'Module.e', label: '5_1_Module.e_3' }]);
  const sql = e.calls.at(-1);
  assert.match(sql.sql, /^SELECT DISTINCT mt\.target_id, mt\.vpp_stage, mt\.target_name, mt\.micro_step FROM monitoring_targets mt WHERE mt\.target_id IN \(SELECT DISTINCT target_id FROM trend_data WHERE metric_id = \?\) AND \(mt\.target_id IN \(SELECT ttm\.target_id .* WHERE mtags\.tag_name = \?\)\) ORDER BY mt\.target_id$/);
  assert.deepEqual(sql.params, [7, 'attn']);
  await q.modules('unknown', []);
  const all = e.calls.at(-1);
  assert.equal(all.sql, 'SELECT DISTINCT mt.target_id, mt.vpp_stage, mt.target_name, mt.micro_step FROM monitoring_targets mt WHERE 1 ORDER BY mt.target_id');
  assert.deepEqual(all.params, []);
});

test('Q5: tags by category default < function < index < layer < module (others after), then name', async () => {
  const rows = [['x', 'custom'], ['f', 'function'], ['l0', 'layer'], ['d', 'default'], ['i', 'index'], ['m', 'module'], ['a', 'aaa']];
  const e = engine([...SCHEMA, [/FROM monitoring_tags WHERE metric_id/, res([], rows)]]);
  const q = new TrendQueries(e);
  await q.open();
  assert.deepEqual((await q.tags('forward')).map((t) => t.category), ['default', 'function', 'index', 'layer', 'module', 'aaa', 'custom']);
  assert.deepEqual(e.calls.at(-1).params, [7]);
  const noTags = new TrendQueries(engine([[/sqlite_master/, res([], [['trend_data']])], [/PRAGMA/, res([], [])]]));
  await noTags.open();
  assert.deepEqual(await noTags.tags('forward'), []);
});

test('Q6: the condition of each fixed dimension, the statistic as a column, values bound', async () => {
  const e = engine([...SCHEMA, [/FROM trend_data t JOIN/, res([], [])]]);
  const q = new TrendQueries(e);
  await q.open();
  const base = 'SELECT t.rank, t.step, t.target_id, t."max", m.target_name, m.vpp_stage, m.micro_step FROM trend_data t JOIN monitoring_targets m ON t.target_id = m.target_id WHERE t.metric_id = ? AND ';
  for (const [dimension, cond] of [['step', 't.step = ?'], ['rank', 't.rank = ?'], ['module_name', 'm.target_id = ?']]) {
    await q.heatmapRows({ metric: 'forward', stat: 'max', dimension, value: 4, tags: [] });
    assert.deepEqual(e.calls.at(-1), { sql: base + cond, params: [7, 4], db: undefined }, dimension);
  }
  await q.heatmapRows({ metric: 'forward', stat: 'max', dimension: 'step', value: 0, tags: ['a', 'b'] });
  assert.deepEqual(e.calls.at(-1).params, [7, 0, 'a', 'b']);
  assert.match(e.calls.at(-1).sql, /t\.step = \? AND \(t\.target_id IN .* AND t\.target_id IN .*\)$/);
  for (const bad of [{ stat: '' }, { dimension: '' }, { value: null }, { value: undefined }, { metric: '' }]) {
    await assert.rejects(q.heatmapRows({ metric: 'forward', stat: 'max', dimension: 'step', value: 0, tags: [], ...bad }),
      (err) => err.code === 'params' && err.message === 'Invalid parameters', JSON.stringify(bad));
  }
  await assert.rejects(q.heatmapRows({ metric: 'forward', stat: 'max', dimension: 'layer', value: 0, tags: [] }), (err) => err.code === 'params');
  await assert.rejects(q.heatmapRows({ metric: 'forward', stat: 'mean', dimension: 'step', value: 0, tags: [] }), (err) => err.code === 'missing');
});

test('cubeOf (§10.4 axes): categories present in the cells, sorted numerically; NULL is NaN', () => {
  // dimension step fixed: x = rank, y = target id
  const rows = [[10, 0, 3, 1.5, 'Module.c', 0, 0], [2, 0, 1, null, 'Module.a', 0, 0], [2, 0, 3, 2.5, 'Module.c', 0, 0]];
  const c = cubeOf(rows, 'step');
  assert.deepEqual(c.xs, [2, 10]);
  assert.deepEqual(c.ys.map((y) => [y.id, y.label, y.name]), [[1, '1_0_Module.a_0', 'Module.a'], [3, '3_0_Module.c_0', 'Module.c']]);
  assert.deepEqual([...c.xi], [1, 0, 0]);
  assert.deepEqual([...c.yi], [1, 0, 1]);
  assert.deepEqual([...c.v], [1.5, NaN, 2.5]);
  assert.equal(c.rows, 3);
  // rank fixed: x = step; module_name fixed: x = step, y = rank
  assert.deepEqual(cubeOf([[0, 7, 1, 1, 'M', 0, 0], [0, 3, 1, 1, 'M', 0, 0]], 'rank').xs, [3, 7]);
  const m = cubeOf([[4, 7, 1, 1, 'M', 0, 0], [0, 3, 1, 2, 'M', 0, 0]], 'module_name');
  assert.deepEqual([m.xs, m.ys.map((y) => [y.id, y.label, y.name])], [[3, 7], [[0, '0', '0'], [4, '4', '4']]]);
});

test('Q7: the series of a clicked cell, ordered along its x; step labels from trend_step_map', async () => {
  const rows = [[0, 1, 3, 3.0, 'Module.c', 0, 0], [1, 1, 3, null, 'Module.c', 0, 0], [4, 1, 3, 13.0, 'Module.c', 0, 0]];
  const e = engine([
    [/sqlite_master/, res([], [['trend_data'], ['trend_step_map']])],
    [/PRAGMA table_info/, res([], [[0, 'max']])],
    [/FROM trend_step_map/, res([], [[4, 1, 1]])],
    [/metric_name/, res([], [[7]])],
    [/FROM trend_data t JOIN/, res([], rows)],
  ]);
  const q = new TrendQueries(e);
  await q.open();
  const s = await q.trend({ metric: 'forward', stat: 'max', dimension: 'step', x: 1, yId: 3, tags: ['ignored'] });
  assert.deepEqual([s.xs, s.values, s.labels], [[0, 1, 4], [3, null, 13], ['Step0', 'Step1', 'Step4 (iter 1, µ1)']]);
  assert.deepEqual(s.keys, Array(3).fill(targetKey('Module.c', 0, 0)));
  const call = e.calls.at(-1);
  assert.match(call.sql, /WHERE t\.metric_id = \? AND t\.rank = \? AND t\.target_id = \? ORDER BY t\.step$/);
  assert.deepEqual(call.params, [7, 1, 3]);   // no tag filter for Step
  const r = await q.trend({ metric: 'forward', stat: 'max', dimension: 'rank', x: 4, yId: 3, tags: [] });
  assert.deepEqual(r.xs, [1, 1, 1]);          // x is the rank column of the rows
  assert.deepEqual(r.labels, ['Rank1', 'Rank1', 'Rank1']);
  assert.match(e.calls.at(-1).sql, /t\.step = \? AND t\.target_id = \? ORDER BY t\.rank$/);
  await q.trend({ metric: 'forward', stat: 'max', dimension: 'module_name', x: 4, yId: 0, tags: ['t1'] });
  assert.match(e.calls.at(-1).sql, /t\.step = \? AND t\.rank = \? AND \(t\.target_id IN .*\) ORDER BY t\.target_id$/);
  assert.deepEqual(e.calls.at(-1).params, [7, 4, 0, 't1']);
  assert.equal(q.stepTick(4), 'iter 1 µ1');
  assert.equal(q.stepTick(5), '5');
});

test('a worker that lost the database reopens it once and asks again', async () => {
  let opened = 0;
  let first = true;
  const e = {
    async query() {
      if (first) { first = false; throw Object.assign(new Error('gone'), { name: 'DbNotOpen' }); }
      return res(['x'], [[1]]);
    },
  };
  const q = new TrendQueries(e, 'b.trend.db', async () => { opened++; });
  assert.deepEqual(await q.rows('SELECT 1'), [[1]]);
  assert.equal(opened, 1);
  const other = new TrendQueries({ async query() { throw Object.assign(new Error('disk'), { name: 'Other' }); } }, 'c', async () => { opened++; });
  await assert.rejects(other.rows('SELECT 1'), /disk/);
  assert.equal(opened, 1);
});
