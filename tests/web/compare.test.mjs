// A/B trend comparison (web/src/trend/compare.js; web-ui BEY-11, trend-analyzer §8.4 / §10.9): Q6
// rows of two files aligned by target key (ids are per file), over the union of steps / ranks.
//   node --test tests/web/compare.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alignRows, alignHeatRows, mergeOrder, cellDiff, viewOf, cellValues, seriesOnA, seriesDiff, KIND } from '../../web/src/trend/compare.js';
import { targetKey, heatRows } from '../../web/src/trend/queries.js';
import { POS_INF, NEG_INF } from '../../web/src/trend/scales.js';

// Q6 rows: [rank, step, target_id, value, target_name, vpp_stage, micro_step]; dimension 'rank' fixed
// (rank 0): x = step, y = target.
// A: targets a (id 1), b (2), c (3); steps 0 and 1.
const A = [
  [0, 0, 1, 1.0, 'Module.a', 0, 0],
  [0, 1, 1, 2.0, 'Module.a', 0, 0],
  [0, 0, 2, 3.0, 'Module.b', 0, 0],
  [0, 1, 3, null, 'Module.c', 0, 0],
];
// B: other ids for the same targets (a 10, c 12), a target x only B has (11, listed after a), steps 1 and 2.
const B = [
  [0, 1, 10, 1.5, 'Module.a', 0, 0],
  [0, 2, 10, 4.0, 'Module.a', 0, 0],
  [0, 1, 11, 7.0, 'Module.x', 0, 0],
  [0, 1, 12, POS_INF, 'Module.c', 0, 0],
];

/** The cells as {x, y, a, b, side} sorted by (y, x), x and y as category values / names. */
function cells(al) {
  const out = [];
  for (let i = 0; i < al.rows; ++i) {
    const v = cellValues(al, i);
    out.push({ x: al.xs[al.xi[i]], y: al.ys[al.yi[i]].name, side: al.side[i], a: v.a, b: v.b, kind: v.kind, d: v.value });
  }
  const row = (name) => al.ys.findIndex((y) => y.name === name);
  return out.sort((p, q) => row(p.y) - row(q.y) || p.x - q.x);
}

test('targets by key: A\'s order, a B-only target after the one B lists before it; ids kept per side', () => {
  const al = alignRows(A, B, 'rank');
  assert.equal(al.byModule, true);
  assert.deepEqual(al.ys.map((y) => [y.name, y.id, y.idA, y.idB, y.label]), [
    ['Module.a', 1, 1, 10, '1_0_Module.a_0'],
    ['Module.x', -11, null, 11, 'B11_0_Module.x_0'],
    ['Module.b', 2, 2, null, '2_0_Module.b_0'],
    ['Module.c', 3, 3, 12, '3_0_Module.c_0'],
  ]);
  assert.deepEqual(al.ys.map((y) => y.key), ['Module.a', 'Module.x', 'Module.b', 'Module.c'].map((n) => targetKey(n, 0, 0)));
});

test('missing steps: x is the union of both files\' steps; a cell exists only where a side has a row', () => {
  const al = alignRows(A, B, 'rank');
  assert.deepEqual(al.xs, [0, 1, 2]);
  assert.equal(al.rows, 6);
  assert.deepEqual(cells(al), [
    { x: 0, y: 'Module.a', side: 1, a: 1, b: undefined, kind: KIND.ONLY_A, d: NaN },
    { x: 1, y: 'Module.a', side: 3, a: 2, b: 1.5, kind: KIND.FINITE, d: 0.5 },
    { x: 2, y: 'Module.a', side: 2, a: undefined, b: 4, kind: KIND.ONLY_B, d: NaN },
    { x: 1, y: 'Module.x', side: 2, a: undefined, b: 7, kind: KIND.ONLY_B, d: NaN },
    { x: 0, y: 'Module.b', side: 1, a: 3, b: undefined, kind: KIND.ONLY_A, d: NaN },
    { x: 1, y: 'Module.c', side: 3, a: NaN, b: POS_INF, kind: KIND.NULL, d: NaN },   // NULL beats the sentinel
  ]);
  // no cell for (step 2, Module.b): neither file has it
  assert.ok(!cells(al).some((c) => c.x === 2 && c.y === 'Module.b'));
});

test('the same name with another VPP stage or micro step is another target', () => {
  const a = [[0, 0, 1, 1, 'Module.m', 0, 0], [0, 0, 2, 2, 'Module.m', 1, 0], [0, 0, 3, 3, 'Module.m', 0, 1]];
  const b = [[0, 0, 7, 5, 'Module.m', 1, 0]];
  const al = alignRows(a, b, 'rank');
  assert.deepEqual(al.ys.map((y) => [y.idA, y.idB]), [[1, null], [2, 7], [3, null]]);
  const both = cells(al).filter((c) => c.side === 3);
  assert.deepEqual(both.map((c) => [c.a, c.b, c.d]), [[2, 5, -3]]);
});

test('dimension step: x is the rank; module_name: y is the rank, sorted numerically', () => {
  const a = [[2, 5, 1, 1, 'M.a', 0, 0], [10, 5, 1, 2, 'M.a', 0, 0]];
  const b = [[0, 5, 4, 3, 'M.a', 0, 0]];
  const bySteps = alignRows(a, b, 'step');
  assert.deepEqual(bySteps.xs, [0, 2, 10]);
  assert.deepEqual(bySteps.ys.map((y) => y.name), ['M.a']);
  // module_name fixed: rows of one target; x = step, y = rank (10 after 2, not before)
  const r = (rank, step, v) => [rank, step, 9, v, 'M.a', 0, 0];
  const byRank = alignRows([r(10, 0, 1), r(2, 0, 2), r(2, 1, 3)], [r(0, 1, 4), r(10, 1, 5)], 'module_name');
  assert.equal(byRank.byModule, false);
  assert.deepEqual(byRank.xs, [0, 1]);
  assert.deepEqual(byRank.ys.map((y) => [y.key, y.id, y.idA, y.idB, y.label]),
    [['0', 0, 0, 0, '0'], ['2', 2, 2, 2, '2'], ['10', 10, 10, 10, '10']]);
  assert.equal(byRank.rows, 5);
});

test('a repeated row of the same cell keeps one cell, the last value', () => {
  const al = alignRows([[0, 0, 1, 1, 'M', 0, 0], [0, 0, 1, 9, 'M', 0, 0]], [], 'rank');
  assert.equal(al.rows, 1);
  assert.deepEqual([al.va[0], al.side[0]], [9, 1]);
});

test('mergeOrder: B\'s extra keys after the key B lists before them, at the start when none', () => {
  assert.deepEqual(mergeOrder(['a', 'b', 'c'], ['z', 'a', 'x', 'y', 'c', 'w']), ['z', 'a', 'x', 'y', 'b', 'c', 'w']);
  assert.deepEqual(mergeOrder(['a', 'b'], []), ['a', 'b']);
  assert.deepEqual(mergeOrder([], ['p', 'q']), ['p', 'q']);
});

test('cellDiff: a number only when both sides hold a finite value', () => {
  assert.deepEqual(cellDiff(3, 1, 3), { kind: KIND.FINITE, value: 2 });
  assert.deepEqual(cellDiff(3, NaN, 1), { kind: KIND.ONLY_A, value: NaN });
  assert.deepEqual(cellDiff(NaN, 3, 2), { kind: KIND.ONLY_B, value: NaN });
  assert.deepEqual(cellDiff(NaN, 3, 3), { kind: KIND.NULL, value: NaN });
  assert.deepEqual(cellDiff(POS_INF, 3, 3), { kind: KIND.INF, value: NaN });
  assert.deepEqual(cellDiff(1, NEG_INF, 3), { kind: KIND.INF, value: NaN });
  assert.deepEqual(cellDiff(1e9, -1e9, 3), { kind: KIND.FINITE, value: 2e9 });   // clips are finite
});

test('views: A and B share one domain; a cell the side lacks is "only in" the other; A − B diverges', () => {
  const al = alignRows(A, B, 'rank');
  const kindAt = (view, x, y) => {
    const { cube } = viewOf(al, view);
    for (let i = 0; i < cube.rows; ++i) if (al.xs[cube.xi[i]] === x && al.ys[cube.yi[i]].name === y) return [cube.kinds[i], cube.v[i]];
    return null;
  };
  assert.deepEqual(kindAt('a', 2, 'Module.a'), [KIND.ONLY_B, NaN]);
  assert.deepEqual(kindAt('b', 0, 'Module.a'), [KIND.ONLY_A, NaN]);
  assert.deepEqual(kindAt('a', 1, 'Module.c'), [KIND.NULL, NaN]);
  assert.deepEqual(kindAt('b', 1, 'Module.c'), [KIND.POS, POS_INF]);
  assert.deepEqual(kindAt('a', 1, 'Module.a'), [KIND.FINITE, 2]);
  assert.deepEqual(kindAt('diff', 1, 'Module.a'), [KIND.FINITE, 0.5]);
  assert.equal(kindAt('a', 2, 'Module.b'), null);
  const a = viewOf(al, 'a'), d = viewOf(al, 'diff');
  assert.equal(a.diverging, false);
  assert.equal(d.diverging, true);
  assert.equal(a.domain.length, 2 * al.rows);
  assert.deepEqual([...a.domain].filter(Number.isFinite).sort((p, q) => p - q), [1, 1.5, 2, 3, 4, 7, POS_INF]);
  assert.deepEqual([...d.domain].filter(Number.isFinite), [0.5]);
});

test('seriesOnA: B\'s points move to A\'s id of the same target; targets A lacks are dropped', () => {
  const ka = targetKey('Module.a', 0, 0), kx = targetKey('Module.x', 0, 0), kc = targetKey('Module.c', 0, 0);
  const b = { xs: [10, 11, 12], values: [1, 2, null], labels: ['a', 'x', 'c'], keys: [ka, kx, kc] };
  assert.deepEqual(seriesOnA(b, new Map([[kc, 3], [ka, 1]])), { xs: [1, 3], values: [1, null], labels: ['a', 'c'], dropped: 1 });
  assert.deepEqual(seriesOnA(b, null), { xs: b.xs, values: b.values, labels: b.labels, dropped: 0 });
});

test('seriesDiff: A − B over the union of x; null where a side lacks the point, holds NULL or a sentinel', () => {
  const a = { xs: [0, 1, 2, 4], values: [1, null, 5, POS_INF], labels: ['a0', 'a1', 'a2', 'a4'] };
  const b = { xs: [3, 1, 2, 4], values: [4, 1, 2, 1], labels: ['b3', 'b1', 'b2', 'b4'] };
  assert.deepEqual(seriesDiff(a, b), { xs: [0, 1, 2, 3, 4], values: [null, null, 3, null, null], labels: ['a0', 'a1', 'a2', 'b3', 'a4'] });
});

test('Q6 rows read by name: heatRows makes typed rows (NULL stays null) that alignHeatRows aligns (alignRows\' tests above go through both)', () => {
  assert.deepEqual(heatRows([A[3]]), [{ rank: 0, step: 1, targetId: 3, value: null, name: 'Module.c', vpp: 0, micro: 0 }]);
  assert.deepEqual(heatRows([['1', '2', '3', '4.5', 7, '1', '0']]), [{ rank: 1, step: 2, targetId: 3, value: 4.5, name: '7', vpp: 1, micro: 0 }]);
  const al = alignHeatRows(heatRows(A), heatRows(B), 'rank');
  assert.deepEqual(al.ys.map((y) => [y.name, y.idA, y.idB]), [['Module.a', 1, 10], ['Module.x', null, 11], ['Module.b', 2, null], ['Module.c', 3, 12]]);
});
