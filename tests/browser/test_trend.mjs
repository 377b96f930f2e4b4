// The trend workspace in real Chromium (trend-analyzer.md §9-§11, web-ui TR-01..TR-11): opens
// .trend.db files written by scripts/gen_trend_db.py through the page's "Open .db file" input and
// compares what the page lists and draws with the database, read here with the sqlite3 CLI.
//   node --test tests/browser/test_trend.mjs      (serves build/web; run `node web/build.mjs build/web` first)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, sqlJson as sql, genTrendDb, genTrendData, data2db, openTrendDbs, trendSettled as settle, download, timing,
         assertNoErrors } from './harness.mjs';

const EVIL = 'Module.<img src=x onerror=alert(1)>.Foo.output.0';
const POS_INF = 1000000001;
const dbs = {};

/** scripts/gen_trend_db.py into the suite's folder. @param {string} name @param {...string} args */
const gen = (name, ...args) => genTrendDb(join(suite.tmp, name), args);

const suite = browserSuite({
  prefix: 'visprobe_trend_',
  setup: () => {
    dbs.dump = gen('a_dump.trend.db', '--targets', '40', '--ranks', '4', '--steps', '3', '--micro-steps', '2', '--seed', '3', '--extra-target', EVIL);
    dbs.monitor = gen('b_monitor.trend.db', '--format', 'monitor', '--targets', '30', '--ranks', '3', '--steps', '4', '--seed', '4');
  },
});

/** A page with the given .trend.db files opened; waits for the first heat map. */
function openTrend(...files) {
  return openTrendAt({ width: 1600, height: 1200 }, ...files);
}

/** openTrend in a window of the given size. @param {{width: number, height: number}} viewport */
async function openTrendAt(viewport, ...files) {
  const app = await suite.open({ viewport });
  await openTrendDbs(app.page, files);
  return app;
}

const T = (page, expr) => page.evaluate(expr);
const options = (page, sel) => page.$$eval(`${sel} option`, (os) => os.map((o) => ({ value: o.value, text: o.textContent })));
const metricId = (db, m) => sql(db, `SELECT metric_id FROM monitoring_metrics WHERE metric_name = '${m}'`)[0].metric_id;

/** Clicks / hovers the centre of a heat-map cell given by its display indices. */
async function cellPoint(page, dx, dy) {
  return page.evaluate(([x, y]) => window.__visprobeTrend.cellPoint(x, y), [dx, dy]);
}
async function clickCell(page, dx, dy) {
  const p = await cellPoint(page, dx, dy);
  await page.mouse.click(p.x, p.y);
  await settle(page);
}

/** Tag names per target for a metric, from the raw tables. */
function tagsByTarget(db, metric) {
  const map = new Map();
  for (const r of sql(db, `SELECT ttm.target_id AS t, mt.tag_name AS n FROM tag_target_mapping ttm JOIN monitoring_tags mt ON mt.tag_id = ttm.tag_id WHERE mt.metric_id = ${metricId(db, metric)}`)) {
    if (!map.has(r.t)) map.set(r.t, new Set());
    map.get(r.t).add(r.n);
  }
  return map;
}

test('toolbar lists match the database; heat-map cells equal the rows of the selection', async () => {
  const db = dbs.dump;
  const { page, context, foreign, errors } = await openTrend(db);
  const g = sql(db, 'SELECT * FROM global_stats')[0];
  const metrics = Object.keys(g).filter((k) => !['max_rank', 'min_step', 'max_step'].includes(k) && g[k]);
  assert.deepEqual((await options(page, '#tr-metric')).map((o) => o.value), metrics);
  assert.deepEqual((await options(page, '#tr-stat')).map((o) => o.value), g[metrics[0]].split(','));
  assert.deepEqual((await options(page, '#tr-dimension')).map((o) => o.text), ['Step', 'Rank', 'Module Name']);
  // Step values: every slot min..max, with iteration and micro step from trend_step_map (§10.9)
  const map = sql(db, 'SELECT * FROM trend_step_map ORDER BY step');
  assert.deepEqual((await options(page, '#tr-value')).map((o) => o.text),
                   map.map((r) => `Step${r.step} (iter ${r.original_step}, µ${r.micro_step})`));
  const state = await T(page, () => window.__visprobeTrend.state());
  assert.deepEqual([state.metric, state.stat, state.dimension, state.value, state.tags], ['forward', 'norm', 'step', '0', []]);
  const fwd = metricId(db, 'forward');
  const count = (where) => sql(db, `SELECT count(*) AS n FROM trend_data WHERE metric_id = ${fwd} AND ${where}`)[0].n;
  assert.equal((await T(page, () => window.__visprobeTrend.heat())).cells, count('step = 0'));
  // the catalogue of the file stays visible beside the toolbar
  assert.equal(await page.textContent('[data-testid=trend-trend_data-rows]'), String(sql(db, 'SELECT count(*) AS n FROM trend_data')[0].n));
  // Rank dimension: Rank0..max_rank; Rank2 draws the rows of rank 2
  await page.selectOption('#tr-dimension', 'rank');
  await settle(page);
  assert.deepEqual((await options(page, '#tr-value')).map((o) => o.text), Array.from({ length: g.max_rank + 1 }, (_, i) => `Rank${i}`));
  await page.selectOption('#tr-value', '2');
  await settle(page);
  const heat = await T(page, () => window.__visprobeTrend.heat());
  assert.equal(heat.cells, count('rank = 2'));
  assert.deepEqual(heat.xValues, sql(db, `SELECT DISTINCT step FROM trend_data WHERE metric_id = ${fwd} AND rank = 2 ORDER BY step`).map((r) => r.step));
  // Module Name: Q4 labels in target order; the heat map of one module is steps x ranks
  await page.selectOption('#tr-dimension', 'module_name');
  await settle(page);
  const mods = sql(db, `SELECT target_id, vpp_stage, target_name, micro_step FROM monitoring_targets WHERE target_id IN (SELECT target_id FROM trend_data WHERE metric_id = ${fwd}) ORDER BY target_id`);
  assert.deepEqual((await options(page, '#tr-value')).map((o) => o.text), mods.map((m) => `${m.target_id}_${m.vpp_stage}_${m.target_name}_${m.micro_step}`));
  assert.equal((await T(page, () => window.__visprobeTrend.heat())).cells, count(`target_id = ${mods[0].target_id}`));
  // the value filter is a case-insensitive substring of the label
  await page.fill('#tr-value-search', 'RMSNORM.INPUT');
  const filtered = (await options(page, '#tr-value')).map((o) => o.text).filter((t) => t !== (mods[0] && `${mods[0].target_id}_0_${mods[0].target_name}_0`));
  assert.ok(filtered.length > 0 && filtered.every((t) => t.includes('RMSNorm.input')), filtered.join());
  assert.deepEqual(foreign, []);
  assertNoErrors(errors);
  await context.close();
});

test('Chinese / English in the trend views: toolbar, help, options, titles, tooltip, series, parallelism form (X-01)', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrend(db);
  const labels = () => page.$$eval('.tr-toolbar .tr-field-head label', (ls) => ls.map((l) => l.textContent));
  const english = await labels();
  assert.deepEqual(english, ['Database file', 'Compare with', 'Comparison view', 'Metric', 'Statistic', 'Dimension', 'Value', 'Tags',
                             'Heat map mode', 'Colour scale']);
  await page.click('[data-testid=lang-toggle]');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.deepEqual(await labels(), ['数据库文件', '比较对象', '比较视图', '指标', '统计量', '维度', '取值', '标签', '热力图模式', '色阶']);
  assert.match(await page.getAttribute('.tr-toolbar .tr-field:nth-of-type(4) .tr-help', 'title'), /^数值类别/);
  assert.deepEqual((await options(page, '#tr-dimension')).map((o) => o.text), ['Step', 'Rank', '模块名']);
  assert.deepEqual((await options(page, '#tr-mode')).map((o) => o.text), ['渐变', '分段']);
  assert.deepEqual((await options(page, '#tr-scale')).map((o) => o.text), ['线性', '对数', '分位数']);
  assert.equal((await options(page, '#tr-compare'))[0].text, '— 无 —');
  assert.deepEqual(await page.$$eval('.tr-tab', (ts) => ts.map((x) => x.textContent)), ['热力图与趋势', '模型并行']);
  assert.equal(await page.textContent('.tr-heat-pane .tr-pane-title'), '热力图 — forward / norm / Rank × 模块名');
  assert.equal(await page.textContent('.tr-line-pane .tr-pane-title'), '趋势');
  assert.equal(await page.getAttribute('#tr-tags-search', 'placeholder'), '筛选标签…');
  assert.match(await page.textContent('.tr-tags-count'), /^(未选择|没有标签)$/);
  assert.equal(await page.getAttribute('[data-testid=heat-export-png]', 'title'), '将热力图导出为 PNG');
  assert.equal(await page.textContent('#status'), '数据库已打开');
  // drawn texts: the axis names, the tooltip, a new series and the parallelism form
  assert.deepEqual(await page.$$eval('.tr-xname, .tr-yname', (ts) => ts.map((x) => x.textContent)), ['Rank', '模块名']);
  const p = await cellPoint(page, 0, 0);
  await page.mouse.move(p.x, p.y);
  await page.waitForSelector('[data-testid=heat-tip]:not([hidden])');
  const tip = await page.textContent('[data-testid=heat-tip]');
  assert.match(tip, /^模块名: /);
  assert.match(tip, /数值：/);
  await clickCell(page, 0, 0);
  assert.match((await T(page, () => window.__visprobeTrend.line())).names[0], /^Rank: 0 \/ 模块名: \d+ /);
  assert.match(await page.textContent('[data-testid=line-clear]'), /清除/);
  await page.click('[data-testid=tab-parallel]');
  assert.match(await page.textContent('[data-testid=parallel-form]'), /设备总数.*层数.*顺序.*独立嵌入阶段/);
  assert.equal(await page.textContent('[data-testid=parallel-draw]'), '绘制');
  const untranslated = await page.$$eval('[data-i18n]', (es) => es.filter((e) => e.textContent === e.dataset.i18n).map((e) => e.dataset.i18n));
  assert.deepEqual(untranslated, []);
  // and back: English again, the drawn names included
  await page.click('[data-testid=lang-toggle]');
  assert.deepEqual(await labels(), english);
  assert.equal(await page.textContent('.tr-heat-pane .tr-pane-title'), 'Heat map — forward / norm / Rank × Module Name');
  assert.deepEqual(await page.$$eval('.tr-xname, .tr-yname', (ts) => ts.map((x) => x.textContent)), ['Rank', 'Module Name']);
  assert.equal(await page.textContent('[data-testid=parallel-draw]'), 'Draw');
  assertNoErrors(errors);
  await context.close();
});

test('trend messages through i18n: invalid parameters, iteration ticks and step texts in both languages (X-01)', async () => {
  process.removeAllListeners('warning');   // web/src is ESM without a package.json "type"
  const i18n = await import('../../web/src/i18n.js');
  const { TrendQueries } = await import('../../web/src/trend/queries.js');
  const stub = typeof globalThis.document === 'undefined';   // setLanguage re-translates the page
  if (stub) globalThis.document = { documentElement: {}, querySelectorAll: () => [] };
  try {
    const q = new TrendQueries({ query: async () => ({ columns: [], values: [] }) });
    q.statColumns = new Set(['norm']);
    q.metricIds.set('forward', 1);
    q.stepMap = new Map([[3, { original: 1, micro: 1 }], [4, { original: 2, micro: NaN }]]);
    for (const [lang, bad, tick, tickNoMicro, text, noMetric] of [
      ['en', 'Invalid parameters', 'iter 1 µ1', 'iter 2', 'Step3 (iter 1, µ1)', 'No metric found with name: fw<d>'],
      ['zh', '参数无效', '迭代 1 µ1', '迭代 2', 'Step3（迭代 1，µ1）', '没有名为 fw<d> 的指标']]) {
      i18n.setLanguage(lang);
      const sel = { metric: 'forward', stat: 'norm', tags: [] };
      await assert.rejects(q.heatmapRows({ ...sel, dimension: 'step' }), { message: bad, code: 'params' });
      await assert.rejects(q.heatmapRows({ ...sel, dimension: 'x', value: 0 }), { message: bad });
      await assert.rejects(q.trend({ ...sel, dimension: 'x', x: 0, yId: 1 }), { message: bad });
      await assert.rejects(q.heatmapRows({ ...sel, metric: 'fw<d>', dimension: 'step', value: 0 }), { message: noMetric, code: 'missing' });
      assert.equal(q.stepTick(3), tick);
      assert.equal(q.stepTick(4), tickNoMicro);
      assert.equal(q.stepTick(7), '7', 'a slot trend_step_map does not know stays a number');
      assert.equal(q.stepText(3), text);
    }
  } finally {
    if (stub) delete globalThis.document;
  }
});

test('tags: module values carry all selected tags, reload per metric (U-3), Step value kept (U-8)', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrend(db);
  const tagRows = (m) => sql(db, `SELECT DISTINCT tag_name, category FROM monitoring_tags WHERE metric_id = ${metricId(db, m)} ORDER BY category, tag_name`)
    .map((r) => `${r.tag_name}::${r.category}`);
  const shownTags = () => page.$$eval('[data-testid=tag-option]', (cs) => cs.map((c) => c.value));
  assert.deepEqual(await shownTags(), tagRows('forward'));
  // U-8: a tag selected with dimension Step keeps the chosen step; the heat map keeps only tagged modules
  await page.selectOption('#tr-value', '2');
  await settle(page);
  await page.check('[data-testid=tag-option][value="layers.1::layer"]');
  await settle(page);
  assert.equal((await T(page, () => window.__visprobeTrend.state())).value, '2');
  const byTarget = tagsByTarget(db, 'forward');
  const withAll = (names) => [...byTarget].filter(([, s]) => names.every((n) => s.has(n))).map(([t]) => t).sort((a, b) => a - b);
  const fwd = metricId(db, 'forward');
  const atStep2 = new Set(sql(db, `SELECT DISTINCT target_id AS t FROM trend_data WHERE metric_id = ${fwd} AND step = 2`).map((r) => r.t));
  assert.deepEqual((await T(page, () => window.__visprobeTrend.heat())).yIds, withAll(['layers.1']).filter((t) => atStep2.has(t)));
  // Module Name values: modules carrying every selected tag (AND, names only: U-4)
  await page.selectOption('#tr-dimension', 'module_name');
  await settle(page);
  await page.check('[data-testid=tag-option][value="output.0::index"]');
  await settle(page);
  const expected = withAll(['layers.1', 'output.0']);
  assert.ok(expected.length > 0);
  assert.deepEqual((await options(page, '#tr-value')).map((o) => Number(o.value)), expected);
  // statistic change clears the tags and lists every module again
  await page.selectOption('#tr-stat', 'max');
  await settle(page);
  assert.deepEqual((await T(page, () => window.__visprobeTrend.state())).tags, []);
  assert.equal((await options(page, '#tr-value')).length, new Set(sql(db, `SELECT target_id FROM trend_data WHERE metric_id = ${fwd}`).map((r) => r.target_id)).size);
  // U-3: another metric reloads its own tags
  await page.selectOption('#tr-metric', 'backward');
  await settle(page);
  assert.deepEqual(await shownTags(), tagRows('backward'));
  assert.equal((await T(page, () => window.__visprobeTrend.state())).stat, 'norm');
  assertNoErrors(errors);
  await context.close();
});

test('clicks add series without duplicates; ✕, Clear and a value change empty the chart; null is a gap', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrend(db);
  const line = () => T(page, () => window.__visprobeTrend.line());
  await clickCell(page, 0, 0);
  await clickCell(page, 1, 0);
  assert.equal((await line()).series, 2);
  await clickCell(page, 0, 0);
  assert.equal((await line()).series, 2, 'a cell already shown adds nothing');
  const heat = await T(page, () => window.__visprobeTrend.heat());
  assert.deepEqual((await line()).keys, [`${heat.xValues[0]}|${heat.yIds[0]}`, `${heat.xValues[1]}|${heat.yIds[0]}`]);
  assert.match((await line()).names[0], /^Rank: 0 \/ Module Name: \d+ /);
  assert.equal(await page.locator('[data-testid=series-path]').count(), 2);
  // the series is Q7: that rank and module over every step
  const fwd = metricId(db, 'forward');
  const steps = sql(db, `SELECT step FROM trend_data WHERE metric_id = ${fwd} AND rank = ${heat.xValues[0]} AND target_id = ${heat.yIds[0]} ORDER BY step`);
  const legend = page.locator('[data-testid=series]');
  assert.equal(await legend.count(), 2);
  // legend click hides, ✕ removes one, Clear removes all
  await legend.nth(0).locator('.tr-legend-name').click();
  assert.equal((await line()).visible, 1);
  await legend.nth(1).locator('[data-testid=series-remove]').click();
  assert.equal((await line()).series, 1);
  await page.click('[data-testid=line-clear]');
  assert.equal((await line()).series, 0);
  assert.ok(steps.length > 1);
  // a series with a NULL in the middle: drawn with a gap, the tooltip prints null (U-7)
  const holes = sql(db, `SELECT t.rank, t.target_id, t.step FROM trend_data t WHERE t.metric_id = ${fwd} AND t.norm IS NULL AND t.step > 0 AND t.step < 5
    AND EXISTS (SELECT 1 FROM trend_data u WHERE u.metric_id = t.metric_id AND u.rank = t.rank AND u.target_id = t.target_id AND u.step = 0 AND u.norm IS NOT NULL) LIMIT 1`);
  assert.equal(holes.length, 1, 'the generator writes NULLs');
  const hole = holes[0];
  await T(page, () => window.__visprobeTrend.showAll());
  const h2 = await T(page, () => window.__visprobeTrend.heat());
  await clickCell(page, h2.xValues.indexOf(hole.rank), h2.yIds.indexOf(hole.target_id));
  assert.equal((await line()).series, 1);
  assert.ok(((await page.getAttribute('[data-testid=series-path]', 'd')).match(/M/g) || []).length >= 2, 'the path breaks at the NULL');
  const p = await page.evaluate((x) => window.__visprobeTrend.linePoint(x), hole.step);
  await page.mouse.move(p.x, p.y);
  await page.waitForSelector('[data-testid=line-tip]:not([hidden])');
  assert.match(await page.textContent('[data-testid=line-tip]'), /null$/);
  // any change of the value clears the line chart
  await page.selectOption('#tr-value', '1');
  await settle(page);
  assert.equal((await line()).series, 0);
  assertNoErrors(errors);
  await context.close();
});

test('segmented mode: 3-sigma pieces of the finite values; a piece click hides its cells', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrend(db);
  const fwd = metricId(db, 'forward');
  const vals = sql(db, `SELECT norm AS v FROM trend_data WHERE metric_id = ${fwd} AND step = 0`).map((r) => r.v);
  const finite = vals.filter((v) => v !== null && Math.abs(v) !== POS_INF);
  const mean = finite.reduce((a, b) => a + b, 0) / finite.length;
  const std = Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / finite.length);
  const t = [mean - 3 * std, mean - 2 * std, mean - std, mean + std, mean + 2 * std, mean + 3 * std];
  const e = (v) => v.toExponential(2);
  const labels = [`< ${e(t[0])}`, ...t.slice(0, 5).map((a, i) => `${e(a)} ~ ${e(t[i + 1])}`), `> ${e(t[5])}`];
  await page.selectOption('#tr-mode', 'segmented');
  const heat = await T(page, () => window.__visprobeTrend.heat());
  assert.deepEqual(heat.pieces, labels);
  assert.deepEqual(await page.$$eval('[data-testid=piece] text', (ts) => ts.map((x) => x.textContent)), labels);
  // the piece (μ-σ, μ+σ] holds most values; hiding it hides exactly those cells
  const inMiddle = finite.filter((v) => v > t[2] && v <= t[3]).length;
  await page.click('[data-testid=piece][data-index="3"]');
  assert.equal((await T(page, () => window.__visprobeTrend.heat())).shown, vals.length - inMiddle);
  assert.equal(await page.getAttribute('[data-testid=piece][data-index="3"]', 'class'), 'tr-piece off');
  // mode change re-colours only: same cells, same state
  await page.selectOption('#tr-mode', 'gradient');
  assert.equal((await T(page, () => window.__visprobeTrend.heat())).shown, vals.length);
  assertNoErrors(errors);
  await context.close();
});

test('colour bar: dragging a handle keeps the cells in range and recomputes both axes (U-5)', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrend(db);
  const bar = page.locator('[data-testid=colorbar]');
  const min = Number(await bar.getAttribute('data-min'));
  const max = Number(await bar.getAttribute('data-max'));
  const fwd = metricId(db, 'forward');
  const rows = sql(db, `SELECT rank, target_id, norm AS v FROM trend_data WHERE metric_id = ${fwd} AND step = 0`);
  const finite = rows.filter((r) => r.v !== null && Math.abs(r.v) !== POS_INF).map((r) => r.v);
  assert.equal(min, Math.min(...finite));   // U-1 / U-2: over finite values only
  assert.equal(max, Math.max(...finite));
  const hi = await page.locator('[data-testid=colorbar-hi]').boundingBox();
  const lo = await page.locator('[data-testid=colorbar-lo]').boundingBox();
  // drag the upper handle to 3 % of the bar: most of this data lies near the minimum
  await page.mouse.move(hi.x + hi.width / 2, hi.y + hi.height / 2);
  await page.mouse.down();
  await page.mouse.move(lo.x + (hi.x - lo.x) * 0.5, hi.y + hi.height / 2, { steps: 4 });
  await page.mouse.move(lo.x + 4 + (hi.x - lo.x) * 0.03, hi.y + hi.height / 2, { steps: 4 });
  await page.mouse.up();
  const a = Number(await bar.getAttribute('data-lo'));
  const b = Number(await bar.getAttribute('data-hi'));
  assert.ok(b < max && b >= a, `${a} ${b}`);
  // kept: values in [a, b], plus NULL and ±inf cells (they have their own legend toggles)
  const kept = rows.filter((r) => r.v === null || Math.abs(r.v) === POS_INF || (r.v >= a && r.v <= b));
  const heat = await T(page, () => window.__visprobeTrend.heat());
  assert.equal(heat.shown, kept.length);
  assert.ok(kept.length < rows.length);
  assert.deepEqual(heat.yIds, [...new Set(kept.map((r) => r.target_id))].sort((x, y) => x - y));
  assert.deepEqual(heat.xValues, [...new Set(kept.map((r) => r.rank))].sort((x, y) => x - y));
  assertNoErrors(errors);
  await context.close();
});

/** Canvas pixel [r, g, b] under a client point (the heat-map cells are drawn on the canvas). */
function canvasPixel(page, p) {
  return page.evaluate(([x, y]) => {
    const c = document.querySelector('.tr-heat-canvas');
    const r = c.getBoundingClientRect();
    const k = c.width / r.width;
    const d = c.getContext('2d').getImageData(Math.floor((x - r.left) * k), Math.floor((y - r.top) * k), 1, 1).data;
    return [d[0], d[1], d[2]];
  }, [p.x, p.y]);
}
const noPageScroll = (page) => page.evaluate(() => {
  const s = document.scrollingElement;
  return { h: s.scrollHeight, w: s.scrollWidth, ih: innerHeight, iw: innerWidth, ok: s.scrollHeight <= innerHeight && s.scrollWidth <= innerWidth };
});

test('issue 19 at 1600 x 1000: a small run whole in the first window (+inf cell on screen), iteration ticks, a colour-bar drag never pans, line chart >= 220 px, no page scroll', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrendAt({ width: 1600, height: 1000 }, db);
  const fwd = metricId(db, 'forward');
  const heat = () => T(page, () => window.__visprobeTrend.heat());
  // The first window holds every rank and module of a run with up to 64 of them (the first 30 %
  // hid ranks and outliers): the Step value holding the first +inf sentinel shows it on screen.
  const inf = sql(db, `SELECT step, rank, target_id FROM trend_data WHERE metric_id = ${fwd} AND norm = ${POS_INF} ORDER BY step, rank, target_id LIMIT 1`)[0];
  assert.ok(inf, 'the generator writes +inf sentinels');
  await page.selectOption('#tr-value', String(inf.step));
  await settle(page);
  let h = await heat();
  const modules = sql(db, `SELECT DISTINCT target_id AS t FROM trend_data WHERE metric_id = ${fwd} AND step = ${inf.step} ORDER BY t`).map((r) => r.t);
  const ranks = sql(db, `SELECT DISTINCT rank AS r FROM trend_data WHERE metric_id = ${fwd} AND step = ${inf.step} ORDER BY r`).map((r) => r.r);
  assert.ok(modules.length > 30 && modules.length <= 64, `${modules.length} modules: a run the 30 % window cut`);
  assert.deepEqual(h.yIds, modules);
  assert.deepEqual(h.xValues, ranks);
  assert.deepEqual([h.wx, h.wy], [[0, ranks.length], [0, modules.length]], 'the first window is every category');
  assert.equal(h.drawn, h.cells, 'every cell of the selection is drawn');
  const at = await cellPoint(page, h.xValues.indexOf(inf.rank), h.yIds.indexOf(inf.target_id));
  const canvasBox = await page.locator('.tr-heat-canvas').boundingBox();
  assert.ok(at.y > canvasBox.y && at.y < canvasBox.y + canvasBox.height && at.y < 1000, `+inf cell at y ${at.y}`);
  assert.deepEqual(await canvasPixel(page, at), [0xff, 0x3d, 0xbb], 'the +inf cell is painted in its colour where it is shown');
  assert.match(await page.textContent('[data-testid=special-pos]'), /^\+inf \(\d+\)$/);
  // The line chart keeps a readable height; nothing of the page scrolls in the heat-map view.
  const lineBox = await page.locator('[data-testid=linechart]').boundingBox();
  assert.ok(lineBox.height >= 220, `line chart ${lineBox.height} px tall`);
  assert.ok(lineBox.y + lineBox.height <= 1000, `line chart ends at ${lineBox.y + lineBox.height}`);
  let scroll = await noPageScroll(page);
  assert.ok(scroll.ok, `the heat-map view scrolls: ${JSON.stringify(scroll)}`);

  // Zoomed in, a drag of a colour-bar handle (through the plot) changes the colour range but not
  // the row / column window; a drag inside the plot pans it.
  const plot = await page.locator('[data-testid=heat-hit]').boundingBox();
  await page.mouse.move(plot.x + plot.width / 2, plot.y + plot.height / 2);
  await page.mouse.wheel(0, -600);
  await page.waitForFunction(() => window.__visprobeTrend.heat().wy[1] - window.__visprobeTrend.heat().wy[0] < window.__visprobeTrend.heat().y);
  const view = () => page.evaluate(() => {
    const x = window.__visprobeTrend.heat();
    const top = [...document.querySelectorAll('.tr-yt')].sort((a, b) => Number(a.getAttribute('y')) - Number(b.getAttribute('y')))[0];
    return { wx: x.wx, wy: x.wy, x: x.x, y: x.y, top: top ? top.textContent : '' };
  });
  const before = await view();
  assert.ok(before.wy[0] > 0 && before.wy[1] < before.y, `zoomed: ${before.wy}`);
  const bar = page.locator('[data-testid=colorbar]');
  const min = Number(await bar.getAttribute('data-min'));
  const loBox = await page.locator('[data-testid=colorbar-lo]').boundingBox();
  const hiBox = await page.locator('[data-testid=colorbar-hi]').boundingBox();
  await page.mouse.move(loBox.x + loBox.width / 2, loBox.y + loBox.height / 2);
  await page.mouse.down();
  const dragX = loBox.x + (hiBox.x - loBox.x) * 0.4;
  await page.mouse.move(dragX, plot.y + plot.height / 2, { steps: 6 });
  await page.mouse.move(dragX, plot.y + plot.height * 0.2, { steps: 6 });
  assert.ok((await page.locator('[data-testid=colorbar-lo]').boundingBox()).x > loBox.x + 20, 'the handle follows the pointer');
  assert.deepEqual(await view(), before, 'the window moved while a colour-bar handle was dragged');
  await page.mouse.up();
  await settle(page);
  const lo = Number(await bar.getAttribute('data-lo'));
  assert.ok(lo > min, `the range was applied: ${min} -> ${lo}`);
  // the cells below the new minimum are gone; no rank or module lost all its cells here
  const gone = sql(db, `SELECT count(*) AS n FROM trend_data WHERE metric_id = ${fwd} AND step = ${inf.step} AND norm IS NOT NULL AND abs(norm) != ${POS_INF} AND norm < ${lo}`)[0].n;
  assert.ok(gone > 0);
  h = await heat();
  assert.equal(h.shown, h.cells - gone);
  assert.deepEqual([h.x, h.y], [before.x, before.y], 'the filter left every rank and module on the axes (else the window may move)');
  assert.deepEqual(await view(), before, 'a colour-bar drag moved the row / column window');
  const c = { x: plot.x + plot.width / 2, y: plot.y + plot.height / 2 };
  await page.mouse.move(c.x, c.y);
  await page.mouse.down();
  await page.mouse.move(c.x - 40, c.y - 60, { steps: 6 });
  await page.mouse.up();
  const panned = await view();
  assert.ok(panned.wy[0] > before.wy[0], `a drag in the plot pans the rows: ${before.wy} -> ${panned.wy}`);
  assert.notEqual(panned.top, before.top, 'the first visible row changed');

  // Dimension Rank: the x axis (steps) shows the iteration and micro step of trend_step_map.
  await page.selectOption('#tr-dimension', 'rank');
  await settle(page);
  h = await heat();
  const map = new Map(sql(db, 'SELECT step, original_step, micro_step FROM trend_step_map ORDER BY step').map((r) => [r.step, r]));
  assert.ok(h.xValues.length > 1 && h.xValues.every((s) => map.has(s)), h.xValues.join());
  const ticks = () => page.$$eval('.tr-xt', (ts) => ts.map((t) => ({ text: t.textContent, x: Number(/translate\(([-\d.]+)/.exec(t.getAttribute('transform'))[1]) }))
    .sort((a, b) => a.x - b.x).map((t) => t.text));
  assert.deepEqual(await ticks(), h.xValues.map((s) => `iter ${map.get(s).original_step} µ${map.get(s).micro_step}`));
  await page.click('[data-testid=lang-toggle]');
  assert.deepEqual(await ticks(), h.xValues.map((s) => `迭代 ${map.get(s).original_step} µ${map.get(s).micro_step}`));
  await page.selectOption('#tr-dimension', 'step');
  await settle(page);
  assert.deepEqual((await options(page, '#tr-value')).map((o) => o.text).slice(0, 2),
                   [...map.values()].slice(0, 2).map((r) => `Step${r.step}（迭代 ${r.original_step}，µ${r.micro_step}）`));
  await page.click('[data-testid=lang-toggle]');
  assert.deepEqual((await options(page, '#tr-value')).map((o) => o.text).slice(0, 2),
                   [...map.values()].slice(0, 2).map((r) => `Step${r.step} (iter ${r.original_step}, µ${r.micro_step})`));
  scroll = await noPageScroll(page);
  assert.ok(scroll.ok, `the heat-map view scrolls: ${JSON.stringify(scroll)}`);

  // The parallelism view with a layout taller than the window (128 ranks in 64 TP groups): the
  // chart scrolls inside its panel, the page does not.
  await page.click('[data-testid=tab-parallel]');
  for (const [k, x] of Object.entries({ world_size: 128, num_layers: 48, tensor_parallel_size: 2, pipeline_parallel_size: 4, num_layers_per_virtual_pipeline_stage: 3 }))
    await page.fill(`#par-${k}`, String(x));
  await page.click('[data-testid=parallel-draw]');
  await page.waitForFunction(() => document.querySelector('[data-testid=parallel-svg]') || document.querySelector('[data-testid=parallel-msg]').textContent);
  if (!(await page.$('[data-testid=parallel-svg]'))) {
    // an engine built before parallelLayout: draw a layout of that size directly
    await T(page, () => window.__visprobeTrend.drawParallel({ world_size: 128, num_layers: 48, tp: 2, pp: 4, vpp: 4, dp: 16, order: 'tp-cp-ep-dp-pp', title: 'Model Parallelism',
      rows: Array.from({ length: 64 }, (_, r) => ({ index: r, label: `Group${r}: Ranks${2 * r}-${2 * r + 1}`, ranks: [2 * r, 2 * r + 1],
                                                  model_copy: r % 16, cells: ['L1-3', 'L13-15', 'L25-27', 'L37-39'] })) }));
  }
  assert.equal(await page.locator('.tr-par-ylabel').count(), 64);
  const par = await page.$eval('[data-testid=parallel-svg]', (svg) => ({ svg: Number(svg.getAttribute('height')), ih: innerHeight }));
  assert.ok(par.svg > par.ih, `the chart (${par.svg} px) is taller than the window (${par.ih} px)`);
  scroll = await noPageScroll(page);
  assert.ok(scroll.ok, `the parallelism view scrolls: ${JSON.stringify(scroll)}`);
  assertNoErrors(errors);
  await context.close();
});

test('hostile module names stay text: tag list, axis, tooltip', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrend(db);
  await page.fill('#tr-tags-search', '<img');
  const opts = page.locator('[data-testid=tag-option]');
  assert.equal(await opts.count(), 1);
  await opts.first().check();
  await settle(page);
  const heat = await T(page, () => window.__visprobeTrend.heat());
  assert.equal(heat.y, 1);
  const p = await cellPoint(page, 0, 0);
  await page.mouse.move(p.x, p.y);
  await page.waitForSelector('[data-testid=heat-tip]:not([hidden])');
  const tip = await page.textContent('[data-testid=heat-tip]');
  // Issue 46: the tooltip names the module as the user knows it, never the internal key.
  assert.ok(tip.includes(`Module Name: ${EVIL}`) && !tip.includes(`${heat.yIds[0]}_0_`), tip);
  assert.match(tip, /Rank: 0/);
  assert.match(tip, /Value: /);
  assert.equal(await page.textContent('.tr-yt title'), `${heat.yIds[0]}_0_${EVIL}_0`);
  assert.equal(await page.locator('img').count(), 0);
  assert.deepEqual(errors.filter((e) => e.startsWith('dialog: ')), [], 'no dialog');
  assertNoErrors(errors);
  await context.close();
});

test('two databases: a dropdown sorted by name; switching resets every selection', async () => {
  const { page, context, errors } = await openTrend(dbs.monitor, dbs.dump);
  assert.deepEqual((await options(page, '#tr-db')).map((o) => o.value), ['a_dump.trend.db', 'b_monitor.trend.db']);
  assert.equal(await page.inputValue('#tr-db'), 'a_dump.trend.db');   // the first by name is current
  await page.selectOption('#tr-metric', 'backward');
  await settle(page);
  await page.selectOption('#tr-dimension', 'rank');
  await settle(page);
  await page.selectOption('#tr-value', '1');
  await settle(page);
  await page.check('[data-testid=tag-option][value="layers.0::layer"]');
  await settle(page);
  await page.selectOption('#tr-mode', 'segmented');
  await clickCell(page, 0, 0);
  assert.equal((await T(page, () => window.__visprobeTrend.line())).series, 1);
  await page.selectOption('#tr-db', 'b_monitor.trend.db');
  await settle(page);
  const mon = dbs.monitor;
  const g = sql(mon, 'SELECT * FROM global_stats')[0];
  const metrics = Object.keys(g).filter((k) => !['max_rank', 'min_step', 'max_step'].includes(k));
  assert.deepEqual((await options(page, '#tr-metric')).map((o) => o.value), metrics);
  let s = await T(page, () => window.__visprobeTrend.state());
  assert.deepEqual([s.db, s.metric, s.stat, s.dimension, s.value, s.tags, s.mode],
                   ['b_monitor.trend.db', metrics[0], g[metrics[0]].split(',')[0], 'step', '0', [], 'gradient']);
  assert.equal(await page.inputValue('#tr-mode'), 'gradient');
  assert.equal((await T(page, () => window.__visprobeTrend.line())).series, 0);
  const act = sql(mon, `SELECT count(*) AS n FROM trend_data WHERE metric_id = ${metricId(mon, metrics[0])} AND step = 0`)[0].n;
  assert.equal((await T(page, () => window.__visprobeTrend.heat())).cells, act);
  // monitor tags follow §7.2 (module / layer only)
  const cats = new Set(await page.$$eval('.tr-tag-cat', (xs) => xs.map((x) => x.textContent)));
  assert.deepEqual([...cats].sort(), ['layer', 'module']);
  await page.selectOption('#tr-db', 'a_dump.trend.db');
  await settle(page);
  s = await T(page, () => window.__visprobeTrend.state());
  assert.deepEqual([s.db, s.metric, s.stat, s.dimension, s.value, s.tags], ['a_dump.trend.db', 'forward', 'norm', 'step', '0', []]);
  assertNoErrors(errors);
  await context.close();
});

test('exports: heat-map CSV and SVG, line-chart PNG', async () => {
  const db = dbs.dump;
  const { page, context, errors } = await openTrend(db);
  const save = (id) => download(page, `[data-testid=${id}]`, suite.tmp);
  const csv = await save('heat-export-csv');
  assert.match(csv.name, /^a_dump_forward_norm_step_0_heatmap\.csv$/);
  const lines = readFileSync(csv.path, 'utf8').trim().split('\r\n');
  assert.equal(lines[0], 'Rank,Module Name id,Module Name,norm');
  assert.equal(lines.length - 1, (await T(page, () => window.__visprobeTrend.heat())).cells);
  const svg = readFileSync((await save('heat-export-svg')).path, 'utf8');
  assert.ok((svg.match(/<rect /g) || []).length >= (await T(page, () => window.__visprobeTrend.heat())).drawn);
  assert.match(svg, /Module Name/);
  await clickCell(page, 0, 0);
  const png = readFileSync((await save('line-export-png')).path);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  // an export that fails says so in the page's language (toBlob without a blob, an image
  // that does not load)
  await page.evaluate(() => { HTMLCanvasElement.prototype.toBlob = function (cb) { cb(null); }; });
  const shown = (text) => page.waitForFunction((x) => document.getElementById('error').textContent === x, text);
  await page.click('[data-testid=line-export-png]');
  await shown('PNG export failed');
  await page.click('[data-testid=lang-toggle]');
  await page.click('[data-testid=heat-export-png]');
  await shown('PNG 导出失败');
  await page.evaluate(() => { URL.createObjectURL = () => `blob:${location.origin}/00000000-0000-0000-0000-000000000000`; });
  await page.click('[data-testid=heat-export-png]');
  await shown('图表无法转换为图片');
  await page.click('[data-testid=lang-toggle]');
  await page.click('[data-testid=line-export-png]');
  await shown('the chart could not be rasterised');
  // The only failed loads are the images of the made-up blob URL the test put there.
  assertNoErrors(errors, [/^console: .*blob:http:\/\/127\.0\.0\.1:\d+\/00000000-0000-0000-0000-000000000000/]);
  await context.close();
});

test('model parallelism chart: the engine layout drawn as §11.5 (example A), errors shown', async () => {
  const { page, context, errors } = await openTrend(dbs.dump);
  await page.click('[data-testid=tab-parallel]');
  const fill = async (v) => {
    for (const [k, x] of Object.entries(v)) await page.fill(`#par-${k}`, String(x));
    await page.click('[data-testid=parallel-draw]');
  };
  await fill({ world_size: 32, num_layers: 48, tensor_parallel_size: 4, pipeline_parallel_size: 4, num_layers_per_virtual_pipeline_stage: 3 });
  await page.waitForFunction(() => document.querySelector('[data-testid=parallel-svg]') || document.querySelector('[data-testid=parallel-msg]').textContent);
  const msg = await page.textContent('[data-testid=parallel-msg]');
  if (/no parallelLayout/.test(msg)) {
    // An engine built before parallelLayout: the message says so; draw the §11.6 example B layout directly.
    await T(page, () => window.__visprobeTrend.drawParallel({ world_size: 8, num_layers: 24, tp: 2, pp: 2, vpp: 1, dp: 2, order: 'tp-cp-ep-dp-pp',
      title: 'Model Parallelism Configuration | Total Layers: 24 | DP=2 | TP=2 | PP=2 | VPP=1',
      rows: [{ index: 0, label: 'Group0: Ranks0-1', ranks: [0, 1], model_copy: 0, cells: ['Embed+L1-12'] },
             { index: 1, label: 'Group1: Ranks2-3', ranks: [2, 3], model_copy: 1, cells: ['Embed+L1-12'] },
             { index: 2, label: 'Group2: Ranks4-5', ranks: [4, 5], model_copy: 0, cells: ['L13-24+Out'] },
             { index: 3, label: 'Group3: Ranks6-7', ranks: [6, 7], model_copy: 1, cells: ['L13-24+Out'] }] }));
    assert.equal(await page.textContent('.tr-par-title'), 'Model Parallelism Configuration | Total Layers: 24 | DP=2 | TP=2 | PP=2 | VPP=1');
    await context.close();
    return;
  }
  assert.equal(msg, '');
  assert.equal(await page.textContent('.tr-par-title'), 'Model Parallelism Configuration | Total Layers: 48 | DP=2 | TP=4 | PP=4 | VPP=4');
  // rows bottom to top: Group0 at the bottom
  const labels = await page.$$eval('.tr-par-ylabel', (ts) => ts.map((t) => ({ text: t.textContent, y: Number(t.getAttribute('y')) })));
  assert.deepEqual(labels.sort((a, b) => b.y - a.y).map((l) => l.text), Array.from({ length: 8 }, (_, r) => `Group${r}: Ranks${4 * r}-${4 * r + 3}`));
  const cells = (r) => page.$$eval(`.tr-par-cell[data-row="${r}"]`, (gs) => gs.map((g) => (g.querySelector('text') || { textContent: '' }).textContent));
  assert.deepEqual(await cells(0), ['Embed+L1-3', 'L13-15', 'L25-27', 'L37-39']);
  assert.deepEqual(await cells(7), ['L10-12', 'L22-24', 'L34-36', 'L46-48+Out']);
  const fills = await page.$$eval('.tr-par-cell[data-col="0"] rect', (rs) => rs.filter((_, i) => i % 2 === 0 || true).map((r) => r.getAttribute('fill')));
  assert.ok(fills.includes('#1f77b4') && fills.includes('#aec7e8'));   // tab20 colours of copies 1 and 2
  assert.match(await page.textContent('.tr-par-legend'), /Model Copies.*Model Copy 1.*Model Copy 2/);
  await fill({ world_size: 10, num_layers: 24, tensor_parallel_size: 3, pipeline_parallel_size: 3, num_layers_per_virtual_pipeline_stage: '' });
  await page.waitForFunction(() => /not divisible/.test(document.querySelector('[data-testid=parallel-msg]').textContent));
  assert.equal(await page.$('[data-testid=parallel-svg]'), null, 'an invalid setting leaves no old chart');
  // Issue 19: 8 x 24: the title inside the chart; the dark theme paints the chart dark.
  await fill({ world_size: 8, num_layers: 24, tensor_parallel_size: 2, pipeline_parallel_size: 2, num_layers_per_virtual_pipeline_stage: '' });
  await page.waitForSelector('[data-testid=parallel-svg]');
  const box = await page.$eval('[data-testid=parallel-svg]', (svg) => {
    const b = svg.querySelector('.tr-par-title').getBBox();
    return { x: b.x, right: b.x + b.width, w: Number(svg.getAttribute('width')) };
  });
  assert.ok(box.x >= 0 && box.right <= box.w, `title ${box.x}..${box.right} in 0..${box.w}`);
  await page.click('[data-testid=theme-toggle]');
  const dark = await page.evaluate(() => document.documentElement.dataset.theme);
  assert.equal(await page.getAttribute('.tr-par-bg', 'fill'), dark === 'dark' ? '#1a1a1a' : '#fff');
  await page.click('[data-testid=theme-toggle]');
  assert.equal(await page.getAttribute('.tr-par-bg', 'fill'), dark === 'dark' ? '#fff' : '#1a1a1a');
  assertNoErrors(errors);
  await context.close();
});

test('a 1,000 targets x 64 ranks heat map (dimension Step) redraws every cell through mode, range, show-all and scale changes (timed: budget 100 ms)', async () => {
  const big = gen('big.trend.db', '--targets', '1000', '--ranks', '64', '--steps', '2', '--seed', '9');
  const { page, context, errors } = await openTrend(big);
  const heat = await T(page, () => window.__visprobeTrend.heat());
  assert.equal(heat.cells, 64000);
  const r = await page.evaluate(async () => {
    const t = window.__visprobeTrend;
    const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
    const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
    const run = async (fn) => {
      const script = [];
      const painted = [];
      for (let i = 0; i < 5; ++i) {
        const t0 = performance.now();
        script.push(fn(i));
        await frame();
        painted.push(performance.now() - t0);
      }
      return { script: median(script), painted: median(painted) };
    };
    const out = {};
    out.mode = await run((i) => t.setMode(i % 2 ? 'gradient' : 'segmented'));
    const s = t.heat().stats;
    out.range = await run((i) => t.setRange(s.min, s.max - (s.max - s.min) * (i + 1) / 10));
    t.setRange(s.min, s.max);
    out.allCells = await run(() => t.showAll());
    out.allMode = await run((i) => t.setMode(i % 2 ? 'gradient' : 'segmented'));
    out.allScale = await run((i) => t.setScale(['quantile', 'log', 'linear'][i % 3]));
    out.drawn = t.heat().drawn;
    out.load = t.timings();
    return out;
  });
  console.log(`# redraw ms (median of 5; script / until painted): mode switch ${r.mode.script.toFixed(1)} / ${r.mode.painted.toFixed(1)}, ` +
              `range ${r.range.script.toFixed(1)} / ${r.range.painted.toFixed(1)}, all 64,000 cells shown ${r.allCells.script.toFixed(1)} / ${r.allCells.painted.toFixed(1)}, ` +
              `mode switch with all cells ${r.allMode.script.toFixed(1)} / ${r.allMode.painted.toFixed(1)}, ` +
              `colour scale switch with all cells ${r.allScale.script.toFixed(1)} / ${r.allScale.painted.toFixed(1)}; load: query ${r.load.query.toFixed(0)} ms, build ${r.load.build.toFixed(0)} ms`);
  assert.equal(r.drawn, 64000);
  for (const k of ['mode', 'range', 'allCells', 'allMode', 'allScale']) timing(`heat-map redraw (${k})`, r[k].script, 100);
  assertNoErrors(errors);
  await context.close();
});

/** Every row of a .trend.db's main tables, as text, for comparing databases. */
function trendDigest(db) {
  const tables = ['monitoring_metrics', 'monitoring_targets', 'monitoring_tags', 'tag_target_mapping', 'trend_data', 'global_stats'];
  return Object.fromEntries(tables.map((t) => [t, execFileSync('sqlite3', [db, `SELECT * FROM ${t}`]).toString().split('\n').sort()]));
}

test('data2db in the page: a dropped monitor run and dump run give the CLI\'s databases and open in the trend views', async () => {
  for (const kind of ['monitor', 'dump']) {
    const input = join(suite.tmp, `ingest_${kind}`);
    const extra = kind === 'dump' ? ['--layers', '2', '--ranks', '2', '--steps', '2', '--micro', '2'] : ['--ranks', '2', '--steps', '6', '--layers', '2'];
    genTrendData(kind, input, ['--seed', '5', ...extra]);
    const cliDb = data2db(input, join(suite.tmp, `cli_${kind}`), kind);

    const { page, context, errors } = await suite.open({ viewport: { width: 1600, height: 1200 } });
    await page.setInputFiles('#pick-target', input);
    if (kind === 'monitor') assert.match(await page.textContent('[data-testid=layout-target]'), /monitor run: 2 rank folder/);
    // The button is enabled once the page has asked the worker what storage it has (a first
    // worker start: a second on a busy machine), not when the folder's layout is shown.
    await page.waitForFunction(() => !document.getElementById('run-trend').disabled, null, { timeout: 30000 });
    await page.selectOption('#trend-format', kind);
    await page.click('#run-trend');
    await page.waitForFunction(() => /trend database ready|failed/.test(document.getElementById('status').textContent), null, { timeout: 120000 });
    assert.match(await page.textContent('#status'), /trend database ready/, await page.textContent('#error'));
    await page.waitForFunction(() => window.__visprobeTrend && window.__visprobeTrend.idle() && window.__visprobeTrend.loads() > 0);
    assert.equal(await T(page, () => window.__visprobeTrend.state().db), `${kind}_data.trend.db`);
    assert.ok((await T(page, () => window.__visprobeTrend.heat().cells)) > 0);
    // The database the page made, downloaded, holds the CLI's rows.
    const { path: saved } = await download(page, '[data-testid=trend-download]', suite.tmp, `page_${kind}_`);
    assert.deepEqual(trendDigest(saved), trendDigest(cliDb));
    if (kind === 'dump') {
      // Issue 19: a second run keeps the first one's database beside it (for A/B), under the name
      // the CLI gives a repeated run; the page is a full-window app (nothing scrolls).
      assert.ok(await page.evaluate(() => document.scrollingElement.scrollHeight <= innerHeight), 'the page scrolls');
      await page.click('[data-testid=toolbar-intake]');
      await page.click('#run-trend');
      await page.waitForFunction(() => document.querySelectorAll('#tr-db option').length === 2, null, { timeout: 120000 });
      assert.deepEqual((await page.$$eval('#tr-db option', (os) => os.map((o) => o.value))).sort(), ['dump_data.trend.db', 'dump_data_1.trend.db']);
      // Both runs can be compared A/B: run B is the other one, and the view shows both. The same
      // input twice: every cell is in both, A − B is 0, and a tooltip gives both with the CLI's value.
      await page.waitForFunction(() => /trend database ready/.test(document.getElementById('status').textContent) && window.__visprobeTrend.idle(),
                                 null, { timeout: 120000 });
      const cur = (await T(page, () => window.__visprobeTrend.state())).db;
      const other = cur === 'dump_data.trend.db' ? 'dump_data_1.trend.db' : 'dump_data.trend.db';
      assert.deepEqual((await options(page, '#tr-compare')).map((o) => o.value), ['', other]);
      await page.selectOption('#tr-compare', other);
      await settle(page);
      const st = await T(page, () => window.__visprobeTrend.state());
      assert.deepEqual([st.db, st.compare, st.view], [cur, other, 'diff']);
      assert.ok((await page.textContent('.tr-heat-pane .tr-pane-title')).includes(`A − B (A: ${cur}, B: ${other})`),
                await page.textContent('.tr-heat-pane .tr-pane-title'));
      const mid = sql(cliDb, `SELECT metric_id AS id FROM monitoring_metrics WHERE metric_name = '${st.metric}'`)[0].id;
      const rows = sql(cliDb, `SELECT t.rank, m.target_name AS name, m.micro_step AS micro, t.${st.stat} AS v FROM trend_data t
        JOIN monitoring_targets m ON m.target_id = t.target_id WHERE t.metric_id = ${mid} AND t.step = ${Number(st.value)}`);
      const got = await T(page, () => window.__visprobeTrend.cells());
      assert.equal(got.length, rows.length, 'one cell per row of the run');
      assert.deepEqual(got.filter((c) => c.kind === 'onlyA' || c.kind === 'onlyB').map((c) => c.label), [], 'a cell of one run only');
      const same = got.filter((c) => c.kind === '');
      assert.ok(same.length > 0);
      assert.deepEqual(same.filter((c) => c.v !== 0).map((c) => c.v), [], 'A − B of the same input');
      await T(page, () => window.__visprobeTrend.showAll());
      const hm = await T(page, () => window.__visprobeTrend.heat());
      const cell = same[0];
      const want = rows.find((r) => r.rank === cell.x && r.name === cell.name && String(r.micro) === cell.label.split('_').at(-1));
      const pt = await cellPoint(page, hm.xValues.indexOf(cell.x), hm.yIds.indexOf(cell.yId));
      await page.mouse.move(pt.x, pt.y);
      await page.waitForSelector('[data-testid=heat-tip]:not([hidden])');
      const tip = await page.textContent('[data-testid=heat-tip]');
      assert.ok(tip.includes(`A (${cur}): ${want.v}`) && tip.includes(`B (${other}): ${want.v}`) && tip.includes('A − B: 0'), tip);
    }
    assertNoErrors(errors);
    await context.close();
  }
});

test('deep link and session: a reload restores the trend view (with run B) from browser storage; Forget removes it (BEY-03/04)', async () => {
  const other = gen('c_dump2.trend.db', '--targets', '40', '--ranks', '4', '--steps', '3', '--micro-steps', '2', '--seed', '5');
  const { page, context, errors } = await openTrend(dbs.dump, other);
  const kept = () => page.waitForFunction(() => /^(opfs|opfs-run|indexeddb):/.test(document.querySelector('[data-testid=trend]').dataset.session || ''), null, { timeout: 60000 });
  await kept();
  await page.selectOption('#tr-metric', 'backward');
  await settle(page);
  const stats = (await options(page, '#tr-stat')).map((o) => o.value);
  assert.ok(stats.length > 1, stats.join());
  await page.selectOption('#tr-stat', stats[1]);
  await settle(page);
  await page.selectOption('#tr-dimension', 'rank');
  await settle(page);
  await page.selectOption('#tr-value', '1');
  await settle(page);
  await page.check('[data-testid=tag-option][value="layers.0::layer"]');
  await settle(page);
  await page.selectOption('#tr-mode', 'segmented');
  await page.selectOption('#tr-scale', 'log');
  await page.selectOption('#tr-compare', 'c_dump2.trend.db');
  await settle(page);
  await page.selectOption('#tr-view', 'a');
  const state = () => T(page, () => window.__visprobeTrend.state());
  const want = await state();
  assert.deepEqual([want.db, want.metric, want.stat, want.dimension, want.value, want.tags, want.mode, want.compare, want.view],
                   ['a_dump.trend.db', 'backward', stats[1], 'rank', '1', ['layers.0::layer'], 'segmented', 'c_dump2.trend.db', 'a']);
  const cells = (await T(page, () => window.__visprobeTrend.heat())).cells;
  assert.ok(cells > 0);
  await page.waitForFunction(() => /^(opfs|opfs-run|indexeddb):/.test(document.querySelector('[data-testid=trend]').dataset.session || '') &&
    /[#&]db=/.test(location.hash) && location.hash.includes('trend.mode=segmented') && location.hash.includes('trend.view=a') &&
    location.hash.includes('trend.compare=c_dump2.trend.db'), null, { timeout: 60000 });
  assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem('visprobe.recent')).find((e) => e.name === 'a_dump.trend.db').more.map((m) => m.name)), ['c_dump2.trend.db']);
  // Reload: no file is picked again; the kept databases and the fragment give the same view.
  await page.reload();
  await page.waitForFunction(() => document.querySelector('[data-testid=trend]').dataset.restored === '1' && window.__visprobeTrend.idle(), null, { timeout: 60000 });
  assert.deepEqual(await state(), want);
  assert.equal((await T(page, () => window.__visprobeTrend.heat())).cells, cells);
  assert.equal(await page.inputValue('#tr-scale'), 'log');
  assert.equal(await page.inputValue('#tr-mode'), 'segmented');
  assert.deepEqual((await options(page, '#tr-db')).map((o) => o.value), ['a_dump.trend.db', 'c_dump2.trend.db']);
  assert.equal(await page.textContent('#error'), '');
  // Invalid values in a link fall back to the defaults silently. The fragment is rewritten 250 ms
  // after the last change (debounced): start from the restored view's fragment, not a stale one.
  await page.waitForFunction(() => location.hash.includes('trend.mode=segmented') && location.hash.includes('trend.view=a') &&
    location.hash.includes('trend.dimension=rank'));
  const url = new URL(page.url());
  const bad = new URLSearchParams(url.hash.slice(1));
  bad.set('trend.metric', 'nope'); bad.set('trend.dimension', 'x'); bad.set('trend.tags', '["zz::q"]'); bad.set('trend.compare', 'gone.db');
  const tab = await context.newPage();
  await tab.goto(`${suite.origin}/#${bad}`);
  await tab.waitForFunction(() => document.querySelector('[data-testid=trend]').dataset.restored === '1' && window.__visprobeTrend.idle(), null, { timeout: 60000 });
  const s2 = await tab.evaluate(() => window.__visprobeTrend.state());
  assert.deepEqual([s2.db, s2.metric, s2.dimension, s2.tags, s2.compare, s2.mode], ['a_dump.trend.db', 'forward', 'step', [], '', 'segmented']);
  assert.equal(await tab.textContent('#error'), '');
  await tab.close();
  // Forget (confirmed in its dialog): nothing is restored any more.
  await page.click('[data-testid=forget-stored]');
  await page.click('[data-testid=forget-confirm]');
  await page.waitForFunction(() => !/[#&]db=/.test(location.hash) && localStorage.getItem('visprobe.recent') === null);
  await page.reload();
  // The page decides at start-up (host/views.js restoreFromUrl, before the load event): with no kept
  // session it starts no restore, so none is under way ('Restoring…' notice) and none was made.
  assert.deepEqual(await page.evaluate(() => ({ restored: document.querySelector('[data-testid=trend]').dataset.restored || '',
                                                  notice: document.getElementById('notice').textContent, trend: !!window.__visprobeTrend })),
                   { restored: '', notice: '', trend: false });
  assertNoErrors(errors);
  await context.close();
});
