// Issue 46, the trend views as a new user met them, in real Chromium at 1600 x 1000 with the real
// engine: a 4-rank, 4-layer dump run (10 steps of 4 micro steps) made by scripts/gen_trend_data.py
// and imported with `visprobe data2db`, opened through the page's "Open .db file" input. Each test
// waits for the final state (no time budget) and compares it with the database (sqlite3 CLI).
//   node --test tests/browser/test_newcomer_trend.mjs   (serves build/web; run `node web/build.mjs build/web` first;
//   VISPROBE_WEB_DIR=<dir> serves another build)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { browserSuite, genTrendData, data2db, sqlJson, openTrendDbs, trendSettled as settle, assertNoErrors } from './harness.mjs';

const HINT_EN = 'Click a cell of the heat map to plot its line here.';
const HINT_ZH = '点击热力图中的单元格，在此绘制它的折线。';
/** The internal target key `<id>_<vpp>_<name>...` (Q4 labels), which no tooltip may show. */
const INTERNAL_KEY = /\b\d+_\d+_[A-Za-z]/;
let db;

/** Rows of a query on the run's database as objects (sqlite3 -json). @param {string} q */
const sql = (q) => sqlJson(db, q);

const suite = browserSuite({
  prefix: 'visprobe_newcomer_trend_',
  setup: (s) => {
    const input = join(s.tmp, 'run');
    genTrendData('dump', input, ['--layers', '4', '--ranks', '4', '--steps', '10', '--micro', '4', '--seed', '46']);
    db = data2db(input, join(s.tmp, 'db'), 'dump');
  },
});

/** The page at 1600 x 1000 with the run's database (or `file`) opened, its first heat map drawn. */
async function openRun(file = db) {
  const app = await suite.open();
  await openTrendDbs(app.page, [file]);
  return app;
}

const heat = (page) => page.evaluate(() => window.__visprobeTrend.heat());
const line = (page) => page.evaluate(() => window.__visprobeTrend.line());

/** Clicks the centre of a heat-map cell given by display indices, and waits for the series query. */
async function clickCell(page, dx, dy) {
  const p = await page.evaluate(([x, y]) => window.__visprobeTrend.cellPoint(x, y), [dx, dy]);
  await page.mouse.click(p.x, p.y);
  await settle(page);
}

/** Display indices of the cell (x, yId), which must be inside the shown window. */
async function cellIndex(page, x, yId) {
  const h = await heat(page);
  const at = { dx: h.xValues.indexOf(x), dy: h.yIds.indexOf(yId) };
  assert.ok(at.dx >= h.wx[0] && at.dx < h.wx[1] && at.dy >= h.wy[0] && at.dy < h.wy[1], `cell ${x}/${yId} on screen: ${JSON.stringify(at)}`);
  return at;
}

/** Hovers heat-map cell (dx, dy) and returns the lines of its tooltip once shown. */
async function heatTip(page, dx, dy) {
  const p = await page.evaluate(([x, y]) => window.__visprobeTrend.cellPoint(x, y), [dx, dy]);
  await page.mouse.move(p.x, p.y);
  await page.waitForFunction(() => !document.querySelector('[data-testid=heat-tip]').hidden);
  return page.$$eval('[data-testid=heat-tip] > *', (es) => es.map((e) => e.textContent));
}

/** Hovers the line chart at x value `x` and returns its tooltip once its header is `header`. */
async function lineTip(page, x, header) {
  const p = await page.evaluate((v) => window.__visprobeTrend.linePoint(v), x);
  await page.mouse.move(p.x, p.y);
  await page.waitForFunction((want) => {
    const tip = document.querySelector('[data-testid=line-tip]');
    return !tip.hidden && tip.firstElementChild && tip.firstElementChild.textContent === want;
  }, header, { timeout: 10000 });
  return page.textContent('[data-testid=line-tip]');
}

/** `iter <original step> µ<micro step>` of a step slot, from trend_step_map. */
function iterOf() {
  const map = new Map(sql('SELECT step, original_step, micro_step FROM trend_step_map').map((r) => [r.step, r]));
  return (s) => `iter ${map.get(s).original_step} µ${map.get(s).micro_step}`;
}

/** A target of the forward metric: its id, name, vpp stage and micro step. @param {string} where */
function target(where) {
  return sql(`SELECT target_id AS id, target_name AS name, vpp_stage AS vpp, micro_step AS micro FROM monitoring_targets WHERE ${where} ORDER BY target_id LIMIT 1`)[0];
}

test('issue 46: the Model parallelism form starts from the loaded run (its ranks and layers) and stays editable', async () => {
  const ranks = sql('SELECT max_rank + 1 AS n FROM global_stats')[0].n;
  const layers = sql("SELECT count(DISTINCT tag_name) AS n FROM monitoring_tags WHERE category = 'layer'")[0].n;
  assert.deepEqual([ranks, layers], [4, 4], 'the run has 4 ranks and 4 layers');
  const { page, context, errors } = await openRun();
  await page.click('[data-testid=tab-parallel]');
  await page.waitForFunction(([r, l]) => document.getElementById('par-world_size').value === String(r) &&
    document.getElementById('par-num_layers').value === String(l), [ranks, layers], { timeout: 10000 });
  await page.click('[data-testid=parallel-draw]');
  await page.waitForFunction(() => document.querySelector('.tr-par-title') || document.querySelector('[data-testid=parallel-msg]').textContent);
  assert.equal(await page.textContent('[data-testid=parallel-msg]'), '');
  assert.match(await page.textContent('.tr-par-title'), /Total Layers: 4 \| DP=1 \| TP=2 \| PP=2 /);
  assert.equal(await page.locator('.tr-par-ylabel').count(), 2, 'two TP groups of the 4 ranks');
  // the user edits from there
  await page.fill('#par-world_size', '8');
  await page.click('[data-testid=parallel-draw]');
  await page.waitForFunction(() => /Total Layers: 4 \| DP=2 \| TP=2 \| PP=2 /.test((document.querySelector('.tr-par-title') || {}).textContent || ''));
  assert.equal(await page.inputValue('#par-world_size'), '8');
  assertNoErrors(errors);
  await context.close();
});

test('issue 46: the empty line chart says to click a heat-map cell, in English and in Chinese', async () => {
  const { page, context, errors } = await openRun();
  const shown = (text) => page.waitForFunction((want) => {
    const h = document.querySelector('[data-testid=line-hint]');
    return !!h && !h.hidden && h.offsetParent !== null && h.textContent === want;
  }, text, { timeout: 10000 });
  await shown(HINT_EN);
  const hint = await page.locator('[data-testid=line-hint]').boundingBox();
  const chart = await page.locator('[data-testid=linechart]').boundingBox();
  assert.ok(hint.x >= chart.x && hint.y >= chart.y && hint.x + hint.width <= chart.x + chart.width && hint.y + hint.height <= chart.y + chart.height,
            `the hint is inside the line chart: ${JSON.stringify({ hint, chart })}`);
  await page.click('[data-testid=lang-toggle]');
  await shown(HINT_ZH);
  await page.click('[data-testid=lang-toggle]');
  await shown(HINT_EN);
  // a series replaces the hint; Clear brings it back
  await clickCell(page, 0, 0);
  await page.waitForFunction(() => window.__visprobeTrend.line().series === 1 && document.querySelector('[data-testid=line-hint]').offsetParent === null);
  await page.click('[data-testid=line-clear]');
  await shown(HINT_EN);
  assertNoErrors(errors);
  await context.close();
});

test('issue 46: axes and tooltips number steps the same way, by the iteration and micro step of the database', async () => {
  const iter = iterOf();
  const { page, context, errors } = await openRun();
  // Dimension Step: a click draws the cell over every step slot; the x ticks and the tooltip name its iteration.
  await clickCell(page, 0, 0);
  await page.waitForFunction(() => window.__visprobeTrend.line().series === 1);
  const ticks = await page.$$eval('[data-testid=linechart] .tr-xaxis .tick', (gs) => gs.map((g) => ({ v: g.__data__, text: g.textContent })));
  assert.ok(ticks.length >= 3, JSON.stringify(ticks));
  assert.deepEqual(ticks.map((t) => t.text), ticks.map((t) => iter(t.v)));
  const at = ticks[Math.floor(ticks.length / 2)].v;
  await lineTip(page, at, `Step: ${iter(at)}`);
  // Dimension Rank: the heat map's x axis is the steps; the tooltip of a cell names the step as its tick does.
  await page.selectOption('#tr-dimension', 'rank');
  await settle(page);
  const h = await heat(page);
  const dx = Math.min(6, h.xValues.length - 1);
  const tickTexts = await page.$$eval('.tr-xt', (ts) => ts.map((t) => t.textContent));
  assert.ok(tickTexts.includes(iter(h.xValues[dx])), `${iter(h.xValues[dx])} in ${tickTexts.join()}`);
  const tip = await heatTip(page, dx, 0);
  assert.equal(tip[1], `Step: ${iter(h.xValues[dx])}`, tip.join(' | '));
  assertNoErrors(errors);
  await context.close();
});

test('issue 46: tooltips name the module as the user knows it, never by the internal target key', async () => {
  const { page, context, errors } = await openRun();
  // Dimension Step (rank x module): a module with a call index (micro step 1) and one without.
  const called = target(`micro_step = 1 AND target_id IN (SELECT target_id FROM trend_data WHERE step = 0 AND rank = 0 AND metric_id = 1)`);
  const plain = target(`micro_step = 0 AND vpp_stage = 0 AND target_id IN (SELECT target_id FROM trend_data WHERE step = 0 AND rank = 0 AND metric_id = 1)`);
  assert.ok(called && plain, 'the run has both kinds of module');
  let at = await cellIndex(page, 0, plain.id);
  let tip = await heatTip(page, at.dx, at.dy);
  assert.deepEqual(tip.slice(0, 2), [`Module Name: ${plain.name}`, 'Rank: 0']);
  at = await cellIndex(page, 0, called.id);
  tip = await heatTip(page, at.dx, at.dy);
  assert.deepEqual(tip.slice(0, 2), [`Module Name: ${called.name} · µ1`, 'Rank: 0']);
  assert.doesNotMatch(tip.join('\n'), INTERNAL_KEY);
  // its series: the legend keeps the id (TR-10); its title and the line tooltip give the name
  await clickCell(page, at.dx, at.dy);
  const legend = page.locator('[data-testid=series] .tr-legend-name');
  assert.match(await legend.textContent(), new RegExp(`^Rank: 0 / Module Name: ${called.id} `));
  const title = await legend.getAttribute('title');
  assert.ok(title.includes(`Rank: 0 / Module Name: ${called.name} · µ1`) && !INTERNAL_KEY.test(title), title);
  let text = await lineTip(page, 0, `Step: ${iterOf()(0)}`);
  assert.ok(text.includes(`Module Name: ${called.name} · µ1`) && !INTERNAL_KEY.test(text), text);
  // Dimension Module Name: the series runs over the modules; the tooltip heads with the module's name.
  await page.selectOption('#tr-dimension', 'module_name');
  await settle(page);
  await page.selectOption('#tr-value', String(plain.id));
  await settle(page);
  tip = await heatTip(page, 0, 0);
  assert.match(tip[0], /^Rank: \d+$/);
  assert.doesNotMatch(tip.join('\n'), INTERNAL_KEY);
  await clickCell(page, 0, 0);
  text = await lineTip(page, called.id, `Module Name: ${called.name} · µ1`);
  assert.doesNotMatch(text, INTERNAL_KEY);
  assertNoErrors(errors);
  await context.close();
});

test('issue 46: a reload restores the line chart (its clicked cells) and the colour range with the rest of the view', async () => {
  const { page, context, errors } = await openRun();
  await page.waitForFunction(() => /^(opfs|opfs-run|indexeddb):/.test(document.querySelector('[data-testid=trend]').dataset.session || ''), null, { timeout: 60000 });
  await clickCell(page, 0, 0);
  await clickCell(page, 2, 3);
  // narrow the colour range with the bar's upper handle
  const bar = page.locator('[data-testid=colorbar]');
  const lo = await page.locator('[data-testid=colorbar-lo]').boundingBox();
  const hi = await page.locator('[data-testid=colorbar-hi]').boundingBox();
  await page.mouse.move(hi.x + hi.width / 2, hi.y + hi.height / 2);
  await page.mouse.down();
  await page.mouse.move(lo.x + (hi.x - lo.x) * 0.6, hi.y + hi.height / 2, { steps: 6 });
  await page.mouse.up();
  await settle(page);
  const max = Number(await bar.getAttribute('data-max'));
  const want = { keys: (await line(page)).keys, lo: await bar.getAttribute('data-lo'), hi: await bar.getAttribute('data-hi'), shown: (await heat(page)).shown };
  assert.equal(want.keys.length, 2);
  assert.ok(Number(want.hi) < max, `the range was narrowed: ${want.hi} < ${max}`);
  await page.waitForFunction(() => location.hash.includes('trend.cells=') && location.hash.includes('trend.range='), null, { timeout: 10000 });
  await page.reload();
  await page.waitForFunction(() => document.querySelector('[data-testid=trend]').dataset.restored === '1' && window.__visprobeTrend.idle(),
                             null, { timeout: 60000 });
  await page.waitForFunction((keys) => JSON.stringify(window.__visprobeTrend.line().keys) === JSON.stringify(keys), want.keys, { timeout: 10000 });
  assert.equal(await page.locator('[data-testid=series-path]').count(), 2);
  assert.deepEqual([await bar.getAttribute('data-lo'), await bar.getAttribute('data-hi')], [want.lo, want.hi]);
  assert.equal((await heat(page)).shown, want.shown);
  // Clear is kept too: after another reload the chart is empty (and says what to do)
  await page.click('[data-testid=line-clear]');
  await page.waitForFunction(() => !location.hash.includes('trend.cells=') && location.hash.includes('trend.range='), null, { timeout: 10000 });
  await page.reload();
  await page.waitForFunction(() => document.querySelector('[data-testid=trend]').dataset.restored === '1' && window.__visprobeTrend.idle(),
                             null, { timeout: 60000 });
  assert.equal((await line(page)).series, 0);
  assert.equal(await bar.getAttribute('data-hi'), want.hi);
  assert.equal(await page.textContent('#error'), '');
  assertNoErrors(errors);
  await context.close();
});

test('issue 46: legend and axis texts follow the language both ways (no 模块名 left in English)', async () => {
  const { page, context, errors } = await openRun();
  await clickCell(page, 0, 0);
  const legend = () => page.$$eval('[data-testid=series] .tr-legend-name', (ns) => ns.map((n) => n.textContent));
  const names = () => page.$$eval('.tr-xname, .tr-yname, .tr-line-svg text[font-size="12"]', (ts) => ts.map((t) => t.textContent));
  assert.match((await legend())[0], /^Rank: 0 \/ Module Name: \d+ /);
  await page.click('[data-testid=lang-toggle]');
  await page.waitForFunction(() => /^Rank: 0 \/ 模块名: \d+ /.test(document.querySelector('[data-testid=series] .tr-legend-name').textContent), null, { timeout: 10000 });
  assert.deepEqual(await names(), ['Rank', '模块名', 'Step', 'norm']);
  assert.match(await page.getAttribute('[data-testid=series] .tr-legend-name', 'title'), /模块名: .* — 点击隐藏 \/ 显示$/);
  await lineTip(page, 4, `Step: 迭代 1 µ0`);
  await page.mouse.move(5, 5);
  await page.click('[data-testid=lang-toggle]');
  await page.waitForFunction(() => /^Rank: 0 \/ Module Name: \d+ /.test(document.querySelector('[data-testid=series] .tr-legend-name').textContent), null, { timeout: 10000 });
  assert.deepEqual(await names(), ['Rank', 'Module Name', 'Step', 'norm']);
  // the parallelism chart too: drawn in English, drawn again in Chinese (title, group labels, legend), and back
  await page.click('[data-testid=tab-parallel]');
  await page.click('[data-testid=parallel-draw]');
  await page.waitForSelector('.tr-par-title');
  const chart = () => page.$$eval('.tr-par-ylabel, .tr-par-title, .tr-par-legend text', (ts) => ts.map((x) => x.textContent));
  const english = ['Group0: Ranks0-1', 'Group1: Ranks2-3', 'Model Parallelism Configuration | Total Layers: 4 | DP=1 | TP=2 | PP=2 | VPP=1',
                   'Model Copies', 'Model Copy 1'];
  assert.deepEqual(await chart(), english);
  await page.click('[data-testid=lang-toggle]');
  await page.waitForFunction(() => document.querySelector('.tr-par-title').textContent.startsWith('模型并行配置'), null, { timeout: 10000 });
  assert.deepEqual(await chart(), ['第 0 组：Rank 0-1', '第 1 组：Rank 2-3', '模型并行配置 | 总层数：4 | DP=1 | TP=2 | PP=2 | VPP=1', '模型副本', '模型副本 1']);
  await page.click('[data-testid=lang-toggle]');
  await page.waitForFunction(() => document.querySelector('.tr-par-title').textContent.startsWith('Model Parallelism'));
  assert.deepEqual(await chart(), english);
  // nothing of the trend views is left in Chinese (the run's names have no CJK text)
  const cjk = await page.evaluate(() => {
    const box = document.querySelector('[data-testid=trend]');
    const texts = [...box.querySelectorAll('*')].filter((e) => !e.hidden && e.offsetParent !== null || e instanceof SVGElement)
      .flatMap((e) => [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).concat(e.getAttribute('title') || []));
    return texts.filter((x) => /[\u3400-\u9fff]/.test(x));
  });
  assert.deepEqual(cjk, []);
  assertNoErrors(errors);
  await context.close();
});

test('issue 46: in the dark theme the heat-map and line-chart tooltips (and the charts\' texts) follow the theme tokens', async () => {
  const { page, context, errors } = await openRun();
  await clickCell(page, 0, 0);
  for (let i = 0; i < 2 && (await page.evaluate(() => document.documentElement.dataset.theme)) !== 'dark'; ++i) await page.click('[data-testid=theme-toggle]');
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
  const tokens = await page.evaluate(() => {
    const probe = document.createElement('div');
    probe.style.background = 'var(--tr-bg)';
    probe.style.color = 'var(--tr-fg)';
    document.querySelector('[data-testid=trend]').append(probe);
    const cs = getComputedStyle(probe);
    const out = { bg: cs.backgroundColor, fg: cs.color };
    probe.remove();
    return out;
  });
  assert.deepEqual(tokens, { bg: 'rgb(26, 26, 26)', fg: 'rgb(230, 230, 230)' });
  // the charts drawn before the switch are drawn again in its colours (their texts were #222 on #1a1a1a)
  await page.waitForFunction(() => {
    const ts = [...document.querySelectorAll('.tr-xname, .tr-yname, .tr-xt, .tr-line-svg .tr-xaxis text, .tr-line-svg .tr-yaxis text')];
    return ts.length > 6 && ts.every((x) => x.getAttribute('fill') === '#e6e6e6');
  }, null, { timeout: 10000 });
  const colours = (sel) => page.$eval(sel, (e) => ({ bg: getComputedStyle(e).backgroundColor, fg: getComputedStyle(e).color }));
  await heatTip(page, 0, 0);
  assert.deepEqual(await colours('[data-testid=heat-tip]'), tokens);
  await lineTip(page, 0, `Step: ${iterOf()(0)}`);
  assert.deepEqual(await colours('[data-testid=line-tip]'), tokens);
  assertNoErrors(errors);
  await context.close();
});

test('issue 46: a linear scale flattened by one extreme value says so and offers the quantile scale; the hint goes with it and in Segmented mode', async () => {
  // The run's norms spread evenly over 0..9 (by target and rank): no hint.
  const spread = join(suite.tmp, 'spread.trend.db');
  execFileSync('cp', [db, spread]);
  execFileSync('sqlite3', [spread, 'UPDATE trend_data SET norm = (target_id + rank) % 10']);
  {
    const { page, context, errors } = await openRun(spread);
    assert.deepEqual([(await heat(page)).stats.min, (await heat(page)).stats.max], [0, 9]);
    assert.equal(await page.isHidden('[data-testid=flat-hint]'), true);
    assertNoErrors(errors);
    await context.close();
  }
  // The same with one cell of every heat map (rank 0, the first target, every step and metric)
  // clipped at 1e9, as msProbe writes a huge norm: every other cell in the first colour.
  const flat = join(suite.tmp, 'flat.trend.db');
  execFileSync('cp', [spread, flat]);
  execFileSync('sqlite3', [flat, 'UPDATE trend_data SET norm = 1000000000 WHERE rank = 0 AND target_id = (SELECT MIN(target_id) FROM trend_data)']);
  const { page, context, errors } = await openRun(flat);
  assert.equal((await heat(page)).stats.max, 1e9);
  await page.waitForSelector('[data-testid=flat-hint]:not([hidden])');
  assert.match(await page.textContent('[data-testid=flat-hint]'), /Nearly every cell has the same colour/);
  await page.click('[data-testid=flat-hint-quantile]');
  await settle(page);
  assert.equal(await page.inputValue('[data-testid=tr-scale]'), 'quantile');
  assert.equal(await page.isHidden('[data-testid=flat-hint]'), true);
  // Linear again (the user's choice): the hint is back; Segmented mode has no linear scale: gone.
  await page.selectOption('[data-testid=tr-scale]', 'linear');
  await page.waitForSelector('[data-testid=flat-hint]:not([hidden])');
  await page.selectOption('[data-testid=tr-mode]', 'segmented');
  await settle(page);
  await page.waitForSelector('[data-testid=flat-hint]', { state: 'hidden' });
  assertNoErrors(errors);
  await context.close();
});
