// A/B trend comparison (web-ui BEY-11) in real Chromium: two .trend.db files from
// scripts/gen_trend_db.py with the same seed, B = A plus a known change on one target and one rank
// from a given step, different target ids (B numbered backwards) and one target missing on each
// side. What the page draws is checked against the two databases read with the sqlite3 CLI.
//   node --test tests/browser/test_trend_ab.mjs   (serves build/web; run `node web/build.mjs build/web` first)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, sqlJson as sql, genTrendDb, openTrendDbs, trendSettled as settle, download, timing, assertNoErrors } from './harness.mjs';

const EVIL = 'Module.<img src=x onerror=alert(1)>.Foo.output.0';
const PERT = 'Module.model.layers.0.self_attention.linear_qkv.ColumnParallelLinear.output.0';
const PERT_RANK = 1;
const PERT_STEP = 2;
const DELTA = 0.5;
const ONLY_B = 'Module.model.layers.1.mlp.linear_fc1.ColumnParallelLinear.output.0';   // dropped from A
const ONLY_A = 'Module.model.layers.0.mlp.linear_fc2.RowParallelLinear.input.0';       // dropped from B
const POS_INF = 1000000001;
const dbs = {};

/** scripts/gen_trend_db.py into the suite's folder. @param {string} name @param {...string} args */
const gen = (name, ...args) => genTrendDb(join(suite.tmp, name), args);

const suite = browserSuite({
  prefix: 'visprobe_trend_ab_',
  setup: () => {
    const common = ['--targets', '40', '--ranks', '3', '--steps', '4', '--seed', '11', '--extra-target', EVIL];
    dbs.a = gen('a_run.trend.db', ...common, '--drop-target', ONLY_B);
    dbs.b = gen('b_run.trend.db', ...common, '--drop-target', ONLY_A, '--id-order', 'reverse',
                '--perturb', `${PERT}:${PERT_RANK}:${PERT_STEP}:${DELTA}`);
    dbs.monitor = gen('c_monitor.trend.db', '--format', 'monitor', '--targets', '20', '--ranks', '3', '--steps', '4', '--seed', '4');
  },
});

/** A page at 1600 x 1200 with the given .trend.db files opened; waits for the first heat map. */
async function openTrend(...files) {
  const app = await suite.open({ viewport: { width: 1600, height: 1200 } });
  await openTrendDbs(app.page, files);
  return app;
}

const T = (page, expr, arg) => page.evaluate(expr, arg);
const cells = (page) => T(page, () => window.__visprobeTrend.cells());
const heat = (page) => T(page, () => window.__visprobeTrend.heat());
async function select(page, sel, value) {
  await page.selectOption(sel, value);
  await settle(page);
}

/** Rows of one metric/stat by (rank, step, target key) of a file. */
function rowsByKey(db, metric, stat) {
  const map = new Map();
  for (const r of sql(db, `SELECT t.rank, t.step, m.target_id AS id, m.target_name AS name, m.vpp_stage AS vpp, m.micro_step AS micro, t.${stat} AS v
      FROM trend_data t JOIN monitoring_targets m ON m.target_id = t.target_id JOIN monitoring_metrics mm ON mm.metric_id = t.metric_id
      WHERE mm.metric_name = '${metric}'`)) map.set(`${r.rank}|${r.step}|${r.name}|${r.vpp}|${r.micro}`, r);
  return map;
}
const finite = (v) => v !== null && Math.abs(v) !== POS_INF;

test('pure alignment: order merge, cell kinds, series on A positions, A − B series', async () => {
  process.removeAllListeners('warning');   // web/src is ESM without a package.json "type"
  const m = await import('../../web/src/trend/compare.js');
  assert.deepEqual(m.mergeOrder(['a', 'b', 'c'], ['q', 'b', 'r', 's', 'a']), ['q', 'a', 'b', 'r', 's', 'c']);
  const A = [[0, 0, 1, 1.5, 'x', 0, 0], [1, 0, 1, 2, 'x', 0, 0], [0, 0, 2, null, 'y', 0, 0], [0, 0, 3, 5, 'z', 0, 0]];
  const B = [[0, 0, 7, 1.0, 'x', 0, 0], [1, 0, 7, 2, 'x', 0, 0], [0, 0, 9, 3, 'y', 0, 0], [0, 0, 8, POS_INF, 'w', 0, 0]];
  const al = m.alignRows(A, B, 'step');
  assert.deepEqual(al.ys.map((y) => [y.name, y.idA, y.idB, y.id]), [['x', 1, 7, 1], ['w', null, 8, -8], ['y', 2, 9, 2], ['z', 3, null, 3]]);
  const d = m.viewOf(al, 'diff');
  const byCell = (v) => Array.from({ length: al.rows }, (_, i) => `${al.xs[al.xi[i]]}/${al.ys[al.yi[i]].name}=${v(i)}`).sort();
  assert.deepEqual(byCell((i) => (d.cube.kinds[i] ? `k${d.cube.kinds[i]}` : d.cube.v[i])), ['0/w=k5', '0/x=0.5', '0/y=k1', '0/z=k4', '1/x=0']);
  assert.deepEqual(m.cellDiff(POS_INF, 1, 3), { kind: m.KIND.INF, value: NaN });
  const a = m.viewOf(al, 'a');
  assert.deepEqual(byCell((i) => a.cube.kinds[i]), ['0/w=5', '0/x=0', '0/y=1', '0/z=0', '1/x=0']);
  assert.equal(a.domain.length, 2 * al.rows, 'A and B share one colour scale');
  const onA = m.seriesOnA({ xs: [7, 8, 9], values: [1, 2, 3], labels: ['p', 'q', 'r'], keys: ['kx', 'kw', 'ky'] }, new Map([['kx', 5], ['ky', 2]]));
  assert.deepEqual([onA.xs, onA.values, onA.dropped], [[2, 5], [3, 1], 1]);
  const sd = m.seriesDiff({ xs: [0, 1, 2], values: [1, null, 4], labels: ['0', '1', '2'] }, { xs: [0, 1, 3], values: [0.25, 1, 1], labels: ['0', '1', '3'] });
  assert.deepEqual([sd.xs, sd.values], [[0, 1, 2, 3], [0.75, null, null, null]]);
  const { symmetric } = await import('../../web/src/trend/scales.js');
  assert.deepEqual(symmetric({ min: -1, max: 3 }), { min: -3, max: 3 });
  assert.deepEqual(symmetric({ min: NaN, max: NaN }), { min: NaN, max: NaN });
});

test('A − B: exactly 0 everywhere but DELTA on the changed target and rank; ids differ; one-side cells marked', async () => {
  const { page, context, errors } = await openTrend(dbs.b, dbs.a);
  assert.deepEqual((await page.$$eval('#tr-compare option', (os) => os.map((o) => o.value))), ['', 'b_run.trend.db']);
  assert.equal(await page.isDisabled('#tr-view'), true);
  const single = await heat(page);
  await select(page, '#tr-compare', 'b_run.trend.db');
  let s = await T(page, () => window.__visprobeTrend.state());
  assert.deepEqual([s.db, s.compare, s.view, s.metric, s.stat, s.dimension, s.value], ['a_run.trend.db', 'b_run.trend.db', 'diff', 'forward', 'norm', 'step', '0']);
  assert.match(await page.textContent('.tr-heat-pane .tr-pane-title'), /A − B \(A: a_run\.trend\.db, B: b_run\.trend\.db\)/);
  // ids really differ between the files (B numbered backwards), so alignment is by name
  const idA = sql(dbs.a, `SELECT target_id AS id FROM monitoring_targets WHERE target_name = '${PERT}'`)[0].id;
  const idB = sql(dbs.b, `SELECT target_id AS id FROM monitoring_targets WHERE target_name = '${PERT}'`)[0].id;
  assert.notEqual(idA, idB);
  const A = rowsByKey(dbs.a, 'forward', 'norm');
  const B = rowsByKey(dbs.b, 'forward', 'norm');
  let perturbedSeen = 0;
  for (const step of [0, PERT_STEP - 1, PERT_STEP, PERT_STEP + 1]) {
    await select(page, '#tr-value', String(step));
    const got = await cells(page);
    const keys = new Set([...A.keys(), ...B.keys()].filter((k) => Number(k.split('|')[1]) === step));
    assert.equal(got.length, keys.size, `step ${step}: one cell per (rank, target) of either file`);
    for (const c of got) {
      const k = `${c.x}|${step}|${c.name}|0|${c.label.split('_').at(-1)}`;
      const a = A.get(k), b = B.get(k);
      assert.ok(a || b, k);
      if (!b) { assert.equal(c.kind, 'onlyA', k); assert.equal(c.name, ONLY_A); continue; }
      if (!a) { assert.equal(c.kind, 'onlyB', k); assert.equal(c.name, ONLY_B); assert.equal(c.yId, -b.id); continue; }
      assert.equal(c.yId, a.id, 'rows carry A\'s target id');
      if (a.v === null || b.v === null) { assert.equal(c.kind, 'null', k); continue; }
      if (!finite(a.v) || !finite(b.v)) { assert.equal(c.kind, 'inf', k); continue; }
      assert.equal(c.kind, '', k);
      assert.equal(c.v, a.v - b.v, k);
      if (c.name === PERT && c.x === PERT_RANK && step >= PERT_STEP) {
        assert.ok(Math.abs(c.v + DELTA) < 1e-9, `${k}: ${c.v}`);
        perturbedSeen += 1;
      } else {
        assert.equal(c.v, 0, k);
      }
    }
  }
  assert.ok(perturbedSeen >= 1, 'the changed cell was compared at least once');
  // the legend lists the one-side cells; the diverging bar is centred on 0
  assert.match(await page.textContent('[data-testid=special-onlyA]'), /^only in A \(\d+\)$/);
  assert.match(await page.textContent('[data-testid=special-onlyB]'), /^only in B \(\d+\)$/);
  const bar = page.locator('[data-testid=colorbar]');
  assert.equal(Number(await bar.getAttribute('data-min')), -Number(await bar.getAttribute('data-max')));
  // tooltip of the changed cell: A, B, A − B and both ids; names stay text
  await T(page, () => window.__visprobeTrend.showAll());
  const h = await heat(page);
  const p = await T(page, ([dx, dy]) => window.__visprobeTrend.cellPoint(dx, dy), [h.xValues.indexOf(PERT_RANK), h.yIds.indexOf(idA)]);
  await page.mouse.move(p.x, p.y);
  await page.waitForSelector('[data-testid=heat-tip]:not([hidden])');
  const tip = await page.textContent('[data-testid=heat-tip]');
  const a3 = A.get(`${PERT_RANK}|${PERT_STEP + 1}|${PERT}|0|0`).v, b3 = B.get(`${PERT_RANK}|${PERT_STEP + 1}|${PERT}|0|0`).v;
  assert.ok(tip.includes(`A (a_run.trend.db): ${a3 === null ? 'NaN/null' : a3}`), tip);
  assert.ok(tip.includes(`B (b_run.trend.db): ${b3 === null ? 'NaN/null' : b3}`), tip);
  assert.ok(tip.includes(`target id: A ${idA} · B ${idB}`), tip);
  const evil = h.yIds.indexOf(sql(dbs.a, `SELECT target_id AS id FROM monitoring_targets WHERE target_name = '${EVIL}'`)[0].id);
  const pe = await T(page, ([dx, dy]) => window.__visprobeTrend.cellPoint(dx, dy), [0, evil]);
  await page.mouse.move(pe.x, pe.y);
  await page.waitForFunction((name) => document.querySelector('[data-testid=heat-tip]').textContent.includes(name), EVIL);
  assert.equal(await page.locator('img').count(), 0);
  // A and B views: same grid and zoom, one colour scale over both files, the other side's cells marked
  const before = await heat(page);
  await page.selectOption('#tr-view', 'a');
  const inA = await cells(page);
  assert.deepEqual((await heat(page)).wx, before.wx, 'the zoom is kept across views');
  const k3 = (c) => `${c.x}|${PERT_STEP + 1}|${c.name}|0|${c.label.split('_').at(-1)}`;
  for (const c of inA) {
    const a = A.get(k3(c));
    if (!a) assert.equal(c.kind, 'onlyB');
    else assert.equal(c.v, a.v === null ? null : a.v);
  }
  const both = [...A.values(), ...B.values()].filter((r) => r.step === PERT_STEP + 1 && finite(r.v)).map((r) => r.v);
  assert.equal(Number(await bar.getAttribute('data-min')), Math.min(...both));
  assert.equal(Number(await bar.getAttribute('data-max')), Math.max(...both));
  await page.selectOption('#tr-view', 'b');
  for (const c of await cells(page)) if (c.kind === 'onlyA') assert.equal(c.name, ONLY_A);
  assert.ok((await cells(page)).some((c) => c.kind === 'onlyA'));
  assert.deepEqual(errors.filter((e) => e.startsWith('dialog: ')), [], 'no dialog');
  assertNoErrors(errors);
  // switching the comparison off restores the single view of A
  await select(page, '#tr-compare', '');
  s = await T(page, () => window.__visprobeTrend.state());
  assert.deepEqual([s.compare, s.value], ['', String(PERT_STEP + 1)]);
  const off = await cells(page);
  assert.equal(off.length, [...A.values()].filter((r) => r.step === PERT_STEP + 1).length);
  assert.ok(off.every((c) => !['onlyA', 'onlyB', 'inf'].includes(c.kind)));
  assert.equal(await page.isDisabled('#tr-view'), true);
  assert.doesNotMatch(await page.textContent('.tr-heat-pane .tr-pane-title'), /A − B/);
  await select(page, '#tr-value', '0');
  assert.equal((await heat(page)).cells, single.cells);
  await context.close();
});

test('series pairs: A, B (dashed, same colour) and A − B over steps, and over modules with B\'s ids mapped to A\'s', async () => {
  const { page, context, errors } = await openTrend(dbs.a, dbs.b);
  await select(page, '#tr-compare', 'b_run.trend.db');
  await select(page, '#tr-value', String(PERT_STEP));
  await T(page, () => window.__visprobeTrend.showAll());
  const idA = sql(dbs.a, `SELECT target_id AS id FROM monitoring_targets WHERE target_name = '${PERT}'`)[0].id;
  const h = await heat(page);
  const click = async (dx, dy) => {
    const p = await T(page, ([x, y]) => window.__visprobeTrend.cellPoint(x, y), [dx, dy]);
    await page.mouse.click(p.x, p.y);
    await settle(page);
  };
  await click(h.xValues.indexOf(PERT_RANK), h.yIds.indexOf(idA));
  let series = await T(page, () => window.__visprobeTrend.lineSeries());
  assert.deepEqual(series.map((x) => x.name.split(' · ')[0]), ['A', 'B', 'A−B']);
  assert.equal(new Set(series.map((x) => x.color)).size, 1, 'one colour per pair');
  assert.deepEqual(series.map((x) => x.dash), ['', '6 3', '2 2']);
  const A = rowsByKey(dbs.a, 'forward', 'norm');
  const B = rowsByKey(dbs.b, 'forward', 'norm');
  const steps = [...A.values()].filter((r) => r.name === PERT && r.rank === PERT_RANK).map((r) => r.step).sort((x, y) => x - y);
  assert.deepEqual(series[0].xs, steps);
  assert.deepEqual(series[1].values, steps.map((t) => B.get(`${PERT_RANK}|${t}|${PERT}|0|0`).v));
  series[2].xs.forEach((t, i) => {
    const a = A.get(`${PERT_RANK}|${t}|${PERT}|0|0`).v, b = B.get(`${PERT_RANK}|${t}|${PERT}|0|0`).v;
    assert.equal(series[2].values[i], finite(a) && finite(b) ? a - b : null);
    if (series[2].values[i] !== null) assert.ok(Math.abs(series[2].values[i] - (t >= PERT_STEP ? -DELTA : 0)) < 1e-9);
  });
  await click(h.xValues.indexOf(PERT_RANK), h.yIds.indexOf(idA));
  assert.equal((await T(page, () => window.__visprobeTrend.line())).series, 3, 'a pair already shown adds nothing');
  // the A view adds A and B only
  await page.selectOption('#tr-view', 'a');
  await click(0, 0);
  assert.equal((await T(page, () => window.__visprobeTrend.line())).series, 5);
  // Module Name: the heat map is steps x ranks of the target (B's id looked up by name); a click
  // draws every target at that step and rank, B's points placed at A's ids of the same targets
  await select(page, '#tr-dimension', 'module_name');
  await select(page, '#tr-value', String(idA));
  await page.selectOption('#tr-view', 'diff');
  const got = await cells(page);
  for (const c of got) {
    if (c.kind) continue;
    const expected = c.yId === PERT_RANK && c.x >= PERT_STEP ? -DELTA : 0;
    assert.ok(Math.abs(c.v - expected) < 1e-9, `step ${c.x} rank ${c.yId}: ${c.v}`);
  }
  assert.ok(got.some((c) => !c.kind && c.v !== 0));
  await T(page, () => window.__visprobeTrend.showAll());
  const hm = await heat(page);
  await click(hm.xValues.indexOf(PERT_STEP), hm.yIds.indexOf(PERT_RANK));
  series = await T(page, () => window.__visprobeTrend.lineSeries());
  assert.equal(series.length, 3);
  const idsOfA = new Map(sql(dbs.a, 'SELECT target_id AS id, target_name AS n, micro_step AS m FROM monitoring_targets').map((r) => [`${r.n}|${r.m}`, r.id]));
  const bPoints = sql(dbs.b, `SELECT m.target_name AS n, m.micro_step AS mi, t.norm AS v FROM trend_data t JOIN monitoring_targets m ON m.target_id = t.target_id
    WHERE t.metric_id = 1 AND t.step = ${PERT_STEP} AND t.rank = ${PERT_RANK}`);
  const expectB = bPoints.filter((r) => idsOfA.has(`${r.n}|${r.mi}`)).map((r) => [idsOfA.get(`${r.n}|${r.mi}`), r.v]).sort((x, y) => x[0] - y[0]);
  assert.deepEqual(series[1].xs.map((x, i) => [x, series[1].values[i]]), expectB);
  assert.ok(bPoints.some((r) => r.n === ONLY_B) && !series[1].xs.includes(undefined));
  const d = series[2];
  d.xs.forEach((x, i) => {
    if (d.values[i] === null) return;
    assert.ok(Math.abs(d.values[i] - (x === idA ? -DELTA : 0)) < 1e-9, `target ${x}: ${d.values[i]}`);
  });
  assertNoErrors(errors);
  await context.close();
});

test('a run B without the metric: every cell "only in A", said in the title; CSV has both columns', async () => {
  const { page, context, errors } = await openTrend(dbs.a, dbs.monitor);
  await select(page, '#tr-compare', 'c_monitor.trend.db');
  assert.match(await page.textContent('.tr-heat-pane .tr-pane-title'), /B: No metric found with name: forward/);
  const got = await cells(page);
  assert.ok(got.length > 0 && got.every((c) => c.kind === 'onlyA'));
  assert.equal(await page.textContent('#error'), '');
  const { path, name } = await download(page, '[data-testid=heat-export-csv]', suite.tmp);
  assert.match(name, /_vs_c_monitor\.csv$/);
  const lines = readFileSync(path, 'utf8').trim().split('\r\n');
  assert.equal(lines[0], 'Rank,Module Name id A,Module Name id B,Module Name,norm A,norm B,norm A - B');
  assert.equal(lines.length - 1, got.length);
  assertNoErrors(errors);
  await context.close();
});

test('timing: comparison of two 1,000 targets x 64 ranks files (dimension Step)', async () => {
  const args = ['--targets', '1000', '--ranks', '64', '--steps', '2', '--seed', '9'];
  const big = [gen('big_a.trend.db', ...args), gen('big_b.trend.db', ...args, '--id-order', 'reverse')];
  const { page, context, errors } = await openTrend(...big);
  const single = await T(page, () => window.__visprobeTrend.timings());
  const t0 = Date.now();
  await select(page, '#tr-compare', 'big_b.trend.db');
  const wall = Date.now() - t0;
  const loaded = await T(page, () => window.__visprobeTrend.timings());
  assert.equal((await heat(page)).cells, 64000);
  assert.ok((await cells(page)).every((c) => c.kind !== '' || c.v === 0), 'identical values: A − B is 0');
  const views = await page.evaluate(async () => {
    const out = [];
    for (const v of ['a', 'b', 'diff', 'a', 'diff']) {
      const t = performance.now();
      const sel = document.getElementById('tr-view');
      sel.value = v;
      sel.dispatchEvent(new Event('change'));
      out.push(performance.now() - t);
    }
    return out.sort((a, b) => a - b)[2];
  });
  console.log(`# compare load: single-file query ${single.query.toFixed(0)} ms; compare (two Q6 + align + view) ${loaded.query.toFixed(0)} ms, ` +
              `draw ${loaded.build.toFixed(0)} ms, selector to idle ${wall} ms; view switch median ${views.toFixed(1)} ms`);
  timing('view switch', views, 300);
  assertNoErrors(errors);
  await context.close();
});
