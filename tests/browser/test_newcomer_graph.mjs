// Issue 46, what a newcomer met in the graph workspace: the hover card names what gave a box its
// colour (precision index and bucket, or the overflow level) and stays inside the window; "pass"
// boxes are dark in the dark theme; the filter's Warning / Error lists count what the navigator
// flags; a .vis.config records manual unmatches too; the one-file page carries the sample.
// Real Chromium, the real engine: inputs from scripts/gen_dump.py built by build/native/visprobe.
//   node --test tests/browser/test_newcomer_graph.mjs      (after node web/build.mjs build/web)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, webDir, generatedCompare, sqlJson, openGraphDb, panesSettled as settled, runBuild, download,
         assertNoErrors } from './harness.mjs';

let db;

const suite = browserSuite({
  prefix: 'visprobe_newcomer_graph_',
  // A compare whose golden drifts from layer 2 on (errors and warnings, modules among them) and
  // whose target overflows in layer 1, built with overflow checking.
  setup: (s) => {
    ({ db } = generatedCompare(s.tmp, ['--layers', '4', '--hidden', '64', '--diverge-layer', '2', '--overflow-layer', '1', '--seed', '7'], ['-oc']));
  },
});

/** Rows of the built database (sqlite3 -json). @param {string} q */
const sql = (q) => sqlJson(db, q);

/** The page at 1600 x 1000 with `file` open, both panes drawn. @param {string} [file] @param {object} [contextOptions] */
async function openDb(file = db, contextOptions = {}) {
  const app = await suite.open({ contextOptions });
  await openGraphDb(app.page, file, { bench: true });
  return app;
}

/**
 * The window point over node `name` of pane `i` (a fraction `fx` along its header), once nothing
 * else covers it there.
 */
const pointOver = (page, i, name, fx = 0.5) => page.waitForFunction(([k, n, f]) => {
  const p = window.visprobeGraph.panes[k];
  const b = p.screenBox(n);
  const r = p.host.getBoundingClientRect();
  const pt = b && { x: r.left + b.x + Math.max(3, Math.min(b.w - 3, b.w * f)), y: r.top + b.y + b.h / 2 };
  const hit = pt && document.elementFromPoint(pt.x, pt.y);
  return hit && hit.closest('g.node') && hit.closest('g.node').dataset.name === n ? pt : null;
}, [i, name, fx]).then((h) => h.jsonValue());

/** Moves the pointer onto `at` and waits for the hover card of `name`; returns its text. */
async function hoverAt(page, at, name) {
  await page.mouse.move(2, 2);
  await page.waitForSelector('[data-testid=hover-card]', { state: 'hidden' });
  await page.mouse.move(at.x, at.y);
  await page.waitForFunction((n) => {
    const c = document.querySelector('[data-testid=hover-card]');
    return c && !c.hidden && c.querySelector('.ws-card-name')?.textContent === n;
  }, name);
  return page.textContent('[data-testid=hover-card]');
}

/** Reveals and selects `name` in pane `i` (as a list does), then hovers it. */
async function hoverNode(page, i, name) {
  await page.evaluate(([k, n]) => window.visprobeGraph.selectFromList(window.visprobeGraph.panes[k], n), [i, name]);
  await settled(page);
  return hoverAt(page, await pointOver(page, i, name), name);
}

test('the hover card says which number gave the box its colour: precision index and bucket, the rows behind it; overflow level in overflow mode', async () => {
  const { page, context, errors } = await openDb();
  // A module in error by its own outputs, and the leaf of layer 2 in warning.
  const [mod] = sql("SELECT node_name, precision_index FROM tb_nodes WHERE data_source = 'NPU' AND node_name = 'Module.module.module.GPTModel.forward.0'");
  assert.equal(mod.precision_index, 1);
  let card = await hoverNode(page, 0, mod.node_name);
  assert.match(card, /precision index 1 → error \(≥ 0\.6\)/, card);
  // The row whose Result set it, with the metric its message names.
  assert.match(card, /output\.0: NormRelativeErr 60\.0% — error: The NormRelativeErr of output is greater than 0\.5\./, card);
  const [warn] = sql("SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND precision_index = 0.5 AND sub_nodes IN ('', '[]') ORDER BY node_order LIMIT 1");
  card = await hoverNode(page, 0, warn.node_name);
  assert.match(card, /precision index 0\.5 → warning \(≥ 0\.3, < 0\.6\)/, card);
  assert.match(card, /warning: The norm relative error of output is 10 times that of input\./, card);
  const [pass] = sql("SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND precision_index = 0 AND sub_nodes IN ('', '[]') AND matched_node_link NOT IN ('', '[]') ORDER BY node_order LIMIT 1");
  card = await hoverNode(page, 0, pass.node_name);
  assert.match(card, /precision index 0 → pass \(< 0\.3\)/, card);
  // The Bench box is white: the card says the colour is on its Debug node, and names the same number.
  card = await hoverNode(page, 1, mod.node_name);
  assert.match(card, /white here: the colour is on the Debug node, whose precision index 1 → error \(≥ 0\.6\)/, card);
  // Overflow mode: the overflow level is what colours the box.
  const [crit] = sql("SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND overflow_level = 'critical' AND sub_nodes IN ('', '[]') ORDER BY node_order LIMIT 1");
  await page.click('[data-testid=rail-filter]');
  await page.click('[data-testid=mode-overflow]');
  await page.waitForSelector('[data-testid=filter-critical]');
  card = await hoverNode(page, 0, crit.node_name);
  assert.match(card, /overflow level critical/, card);
  assert.doesNotMatch(card, /→ error/);
  // In Chinese the words follow.
  await page.click('[data-testid=lang-toggle]');
  card = await hoverNode(page, 0, crit.node_name);
  assert.match(card, /溢出等级 严重/, card);
  await page.click('[data-testid=lang-toggle]');
  assertNoErrors(errors);
  await context.close();
});

/** The card's box and whether it lies inside the window. */
const cardBox = (page) => page.$eval('[data-testid=hover-card]', (c) => {
  const r = c.getBoundingClientRect();
  const inner = [...c.querySelectorAll('*')].map((e) => e.getBoundingClientRect());
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, vw: innerWidth, vh: innerHeight,
           // rows wider than the card run past its edge (or are cut by it)
           rowsRight: Math.max(...inner.map((x) => x.right)), rowsBottom: Math.max(...inner.map((x) => x.bottom)) };
});

test('a hover card near the right and bottom edges of the Bench pane stays inside the 1600 x 1000 window', async () => {
  const { page, context, errors } = await openDb();
  // A box of the Bench pane moved to the pane's bottom right corner (the card holds both sides' rows).
  const name = 'Module.module.module.GPTModel.forward.0';
  assert.equal(sql(`SELECT count(*) AS n FROM tb_nodes WHERE data_source = 'Bench' AND node_name = '${name}' AND output_data LIKE '%Max%'`)[0].n, 1);
  await page.evaluate((n) => {
    const p = window.visprobeGraph.panes[1];
    const b = p.screenBox(n);
    p.t.x += p.width - 6 - (b.x + b.w);
    p.t.y += p.height - 4 - (b.y + b.h);
    p.draw(true);
  }, name);
  const at = await pointOver(page, 1, name, 0.97);
  const pane = await page.$eval('[data-testid=pane-bench]', (e) => { const r = e.getBoundingClientRect(); return { right: r.right, bottom: r.bottom }; });
  assert.ok(pane.right - at.x < 60 && pane.bottom - at.y < 40, `the pointer is at the pane's corner: ${JSON.stringify({ at, pane })}`);
  await hoverAt(page, at, name);
  const box = await cardBox(page);
  const where = JSON.stringify(box);
  assert.equal(box.vw, 1600);
  assert.ok(box.left >= 0 && box.top >= 0 && box.right <= 1600 && box.bottom <= 1000, `card inside the window: ${where}`);
  assert.ok(box.rowsRight <= box.right && box.rowsBottom <= box.bottom, `no row runs past the card: ${where}`);
  // Flipped: left of and above the pointer, not under it.
  assert.ok(box.right <= at.x, `left of the pointer: ${where}`);
  // Below the pointer it would cross the bottom edge: above it instead.
  if (at.y + 16 + (box.bottom - box.top) > 1000 - 8) assert.ok(box.bottom <= at.y, `above the pointer: ${where}`);
  assertNoErrors(errors);
  await context.close();
});

/** Relative luminance (0..1) of #RRGGBB. */
function luminance(hex) {
  const v = parseInt(hex.slice(1), 16);
  const lin = (c) => { const s = c / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin((v >> 16) & 255) + 0.7152 * lin((v >> 8) & 255) + 0.0722 * lin(v & 255);
}

test('dark theme: a pass box is a dark fill of the pass hue, apart from "no precision"; light theme unchanged', async () => {
  const { page, context, errors } = await openDb(db, { colorScheme: 'dark' });
  assert.equal(await page.getAttribute('html', 'data-theme'), 'dark');
  const [pass] = sql("SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND precision_index = 0 AND node_type = '0' AND up_node = 'DefaultModel' AND matched_node_link NOT IN ('', '[]') ORDER BY node_order LIMIT 1");
  const fillOf = (pane, n) => page.getAttribute(`[data-testid=${pane}] g.node[data-name="${n}"] rect.header`, 'fill');
  const fill = await fillOf('pane-debug', pass.node_name);
  assert.ok(luminance(fill) < 0.08, `pass fill ${fill} is dark`);
  const v = parseInt(fill.slice(1), 16);
  assert.ok(((v >> 16) & 255) > (v & 255) + 8, `pass fill ${fill} keeps the warm hue of the pass colour`);
  const none = await fillOf('pane-bench', pass.node_name);   // bench side: "no colour"
  assert.notEqual(fill.toUpperCase(), none.toUpperCase(), 'pass is not the "no precision" fill');
  // The label stays readable (white on the dark fill).
  assert.equal(await page.getAttribute(`[data-testid=pane-debug] g.node[data-name="${pass.node_name}"] text`, 'fill'), '#FFFFFF');
  // The filter's Pass swatch is the node's fill (GR-07).
  await page.click('[data-testid=rail-filter]');
  const swatch = await page.$eval('[data-testid=filter-pass] + i', (i) => getComputedStyle(i).backgroundColor);
  assert.equal(swatch, `rgb(${(v >> 16) & 255}, ${(v >> 8) & 255}, ${v & 255})`);
  // Light: msProbe's cream.
  await page.click('[data-testid=theme-toggle]');
  await page.waitForFunction((n) => document.querySelector(`[data-testid=pane-debug] g.node[data-name="${n}"] rect.header`)?.getAttribute('fill') === '#FFFCF3', pass.node_name);
  assert.equal(await page.$eval('[data-testid=filter-pass] + i', (i) => getComputedStyle(i).backgroundColor), 'rgb(255, 252, 243)');
  assertNoErrors(errors);
  await context.close();
});

/** The navigator's flagged rows with only the `kinds` boxes checked. */
async function navigatorRows(page, kinds) {
  await page.click('[data-testid=rail-navigator]');
  for (const k of ['error', 'warning', 'unmatched', 'overflow']) {
    const box = `[data-testid=nav-${k}]`;
    if (!(await page.$(box))) continue;
    const done = await page.$eval('[data-testid=navigator] .ws-count', (c) => Number(c.dataset.done || 0));
    if ((await page.isChecked(box)) === kinds.includes(k)) continue;
    await page.setChecked(box, kinds.includes(k));
    await page.waitForFunction((d) => Number(document.querySelector('[data-testid=navigator] .ws-count').dataset.done || 0) > d, done);
  }
  await page.waitForFunction(() => document.querySelector('[data-testid=navigator] .ws-count').dataset.done);
  return page.evaluate(() => window.visprobeGraph.navigator.rows.map((r) => r.name));
}

/** The filter's rows with only the `keys` boxes checked. */
async function filterRows(page, keys) {
  await page.click('[data-testid=rail-filter]');
  for (const k of ['pass', 'warning', 'error', 'unmatched']) {
    if ((await page.isChecked(`[data-testid=filter-${k}]`)) === keys.includes(k)) continue;
    const done = await page.$eval('[data-testid=filter] .ws-count', (c) => Number(c.dataset.done || 0));
    await page.setChecked(`[data-testid=filter-${k}]`, keys.includes(k));
    await page.waitForFunction((d) => Number(document.querySelector('[data-testid=filter] .ws-count').dataset.done || 0) > d, done);
  }
  return page.evaluate(() => window.visprobeGraph.filter.rows.map((r) => r.name));
}

const countOf = async (page, panel) => Number(/\((\d+)\)/.exec(await page.textContent(`[data-testid=${panel}] .ws-count`))[1]);

test('the Error / Warning filter lists what the navigator flags, modules by their own precision index included', async () => {
  const { page, context, errors } = await openDb();
  const want = (q) => sql(`SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND ${q} ORDER BY node_order`).map((r) => r.node_name);
  // API lists and fused operators draw white (GR-04): neither list flags them.
  const errorsDb = want('precision_index >= 0.6 AND CAST(node_type AS INTEGER) NOT IN (8, 9)');
  const modules = want("precision_index >= 0.6 AND CAST(node_type AS INTEGER) NOT IN (8, 9) AND sub_nodes NOT IN ('', '[]')");
  assert.ok(modules.length > 0 && modules.length < errorsDb.length, 'the file has errors on modules and on leaves');
  for (const kinds of [['error'], ['warning'], ['error', 'warning']]) {
    const nav = await navigatorRows(page, kinds);
    const navCount = await countOf(page, 'navigator');
    const filter = await filterRows(page, kinds);
    const filterCount = await countOf(page, 'filter');
    assert.equal(filterCount, navCount, `${kinds}: the filter counts what the navigator counts`);
    assert.deepEqual(filter, nav, `${kinds}: the same nodes in the same order`);
  }
  // Error alone: every node at or above the legend's error bound, modules included.
  await filterRows(page, ['error']);
  assert.deepEqual(await page.evaluate(() => window.visprobeGraph.filter.rows.map((r) => r.name)), errorsDb);
  for (const m of modules) assert.ok(errorsDb.includes(m));
  // Pass stays a list of leaves (nothing the navigator flags).
  const passLeaves = want("precision_index >= 0 AND precision_index < 0.3 AND sub_nodes IN ('', '[]')");
  assert.deepEqual(await filterRows(page, ['pass']), passLeaves);
  // The "?" says which nodes the boxes list and with which bounds.
  assert.match(await page.getAttribute('[data-testid=filter-help]', 'title'), /Error \(precision ≥ 0\.6\): every node by its own precision index, modules included/);
  assertNoErrors(errors);
  await context.close();
});

/** Chooses `name` in a matching picker (a virtualised list: a click on its row). */
async function pick(page, id, name) {
  await page.click(id);
  await page.fill(id, name);
  await page.click(`[data-testid=picker-${id.slice(4)}] li[title="${name}"]`);
}

/** Clicks a matching button and waits for its message. */
async function matchAction(page, button, message) {
  await page.evaluate(() => { document.querySelector('[data-testid=match-msg]').textContent = ''; });
  await page.click(button);
  await page.waitForFunction(() => document.querySelector('[data-testid=match-msg]').textContent !== '');
  const text = await page.textContent('[data-testid=match-msg]');
  assert.match(text, message);
  return text;
}

/** The stored link of a Debug node in the page's database. */
const linkOf = (page, name) => page.evaluate(async (n) => {
  const r = await window.visprobeEngine.query("SELECT matched_node_link FROM tb_nodes WHERE data_source = 'NPU' AND node_name = ?", [n]);
  return JSON.parse(r.values[0][0] || '[]');
}, name);

test('a .vis.config saved after match + unmatch records the unmatch (msProbe\'s flat format); applied to a fresh open, the pair is unmatched', async () => {
  const node = 'Functional.layer_norm.4.forward';
  const twin = 'Functional.layer_norm.4.backward';   // unmatched with it (MAT-04)
  const { page, context, errors } = await openDb();
  await page.click('[data-testid=rail-matching]');
  await page.waitForSelector('[data-testid=matching][data-ready]');
  await page.setChecked('#ws-descendants', false);
  await page.setChecked('#ws-descendants-unmatch', false);
  // The build matched it; unmatch it, match it again, unmatch it again.
  await pick(page, '#ws-dbg-matched', node);
  await page.waitForFunction((n) => document.querySelector('#ws-bch-matched').value === n, node);
  await matchAction(page, '#ws-unmatch', /Unmatch successful/);
  await pick(page, '#ws-dbg-unmatched', node);
  await pick(page, '#ws-bch-unmatched', node);
  await matchAction(page, '#ws-match', /^Match successful/);
  await pick(page, '#ws-dbg-matched', node);
  await page.waitForFunction((n) => document.querySelector('#ws-bch-matched').value === n, node);
  await matchAction(page, '#ws-unmatch', /Unmatch successful/);
  assert.deepEqual(await linkOf(page, node), []);
  // Saved: the file says the node is unmatched, in the {debug: bench} object msProbe reads.
  const { path: file } = await download(page, '#ws-gen-config', suite.tmp);
  const cfg = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(cfg, { [node]: '', [twin]: '' });
  assert.ok(Object.values(cfg).every((v) => typeof v === 'string'), 'flat object of names');
  assertNoErrors(errors);
  await context.close();
  // A fresh open of the same file: the build's pair is there; applying the config undoes it.
  const fresh = await openDb();
  await fresh.page.click('[data-testid=rail-matching]');
  await fresh.page.waitForSelector('[data-testid=matching][data-ready]');
  assert.equal((await linkOf(fresh.page, node)).at(-1), node);
  const unmatchedBefore = Number(await fresh.page.getAttribute('[data-testid=picker-dbg-unmatched]', 'data-count'));
  await fresh.page.setInputFiles('#ws-apply-config', file);
  await fresh.page.waitForFunction(() => /Matched by configuration file/.test(document.querySelector('[data-testid=match-msg]').textContent));
  assert.equal(await fresh.page.textContent('[data-testid=match-msg]'), 'Matched by configuration file: total 2, succeeded 2, failed 0');
  assert.deepEqual(await linkOf(fresh.page, node), []);
  assert.deepEqual(await linkOf(fresh.page, twin), []);
  await fresh.page.waitForFunction((n) => Number(document.querySelector('[data-testid=picker-dbg-unmatched]').dataset.count) === n, unmatchedBefore + 2);
  // The pair drawn grey once revealed (unmatched).
  await fresh.page.evaluate((n) => window.visprobeGraph.selectFromList(window.visprobeGraph.panes[0], n), node);
  await fresh.page.waitForFunction((n) => document.querySelector(`[data-testid=pane-debug] g.node[data-name="${n}"] ellipse`)?.getAttribute('fill') === '#C7C7C7', node);
  // A pair that fails is named with the reason; the rest of the file still applies.
  const bad = join(suite.tmp, 'bad.vis.config');
  writeFileSync(bad, JSON.stringify({ [node]: 'Functional.no_such_node.0.forward', [twin]: '' }));
  await fresh.page.evaluate(() => { document.querySelector('[data-testid=match-msg]').textContent = ''; });
  await fresh.page.setInputFiles('#ws-apply-config', bad);
  await fresh.page.waitForFunction(() => /Matched by configuration file/.test(document.querySelector('[data-testid=match-msg]').textContent));
  const msg = await fresh.page.textContent('[data-testid=match-msg]');
  assert.match(msg, /^Matched by configuration file: total 2, succeeded 1, failed 1\nFunctional\.layer_norm\.4\.forward → Functional\.no_such_node\.0\.forward: \S/);
  assertNoErrors(fresh.errors);
  await fresh.context.close();
});

test('the one-file visprobe.html opened from disk has the sample one click away: the compare builds, the trend sample opens', async () => {
  const file = 'file://' + join(webDir, 'visprobe.html');
  // Opened from disk: every request not to a file is foreign.
  const { page, context, errors, foreign: requests } = await suite.open({ url: file });
  assert.equal(await page.isVisible('#load-sample'), true, 'the button is offered');
  await page.click('#load-sample');
  assert.match(await runBuild(page, { timeout: 300000 }), /^ready/, await page.textContent('#error'));
  await page.waitForSelector('[data-testid=pane-bench] g.node');
  assertNoErrors(errors);
  await context.close();
  // The trend sample: its monitor run goes through data2db in the tab, the trend views open.
  const trend = await suite.open({ url: file });
  await trend.page.click('#load-trend-sample');
  await trend.page.waitForFunction(() => window.__visprobeTrend && window.__visprobeTrend.idle() && window.__visprobeTrend.loads() > 0, null, { timeout: 300000 });
  assertNoErrors(trend.errors);
  await trend.context.close();
  assert.deepEqual(trend.foreign, [], 'nothing fetched from a network by the trend sample either');
  assert.deepEqual(requests, [], 'nothing fetched from a network');
});

test('each compare pane names its side in its corner, without taking clicks; the filter\'s empty list says to tick a level; the language buttons read without a CJK font', async () => {
  const { page, context, errors } = await openDb();
  // The labels, in the top-left corner of their pane, in the page's language.
  const labels = await page.$$eval('[data-testid=pane-label]', (ls) => ls.map((l) => {
    const r = l.getBoundingClientRect();
    const host = l.closest('.ws-pane').getBoundingClientRect();
    return { text: l.textContent, pane: l.closest('.ws-pane').dataset.testid, dx: r.left - host.left, dy: r.top - host.top,
             events: getComputedStyle(l).pointerEvents };
  }));
  assert.deepEqual(labels.map((l) => [l.pane, l.text, l.events]), [['pane-debug', 'Debug', 'none'], ['pane-bench', 'Bench', 'none']]);
  for (const l of labels) assert.ok(l.dx >= 0 && l.dx < 20 && l.dy >= 0 && l.dy < 20, JSON.stringify(l));
  // The filter panel with no level ticked: the hint, not 'No data'; a ticked level with no node: 'No data'.
  await page.click('[data-testid=rail-filter]');
  await page.waitForFunction(() => /Tick a level above/.test(document.querySelector('[data-testid=filter]').textContent));
  await page.check('[data-testid=filter-error]');
  await page.waitForFunction(() => !/Tick a level above/.test(document.querySelector('[data-testid=filter]').textContent)
    && document.querySelectorAll('.ws-filter-list li').length > 0);
  // Chinese: the labels follow; the language buttons carry Latin letters (ZH / EN) beside any CJK.
  const langButtons = () => page.$$eval('[data-pref=language]', (bs) => bs.map((b) => b.textContent));
  assert.ok((await langButtons()).every((s) => /ZH/.test(s)), JSON.stringify(await langButtons()));
  await page.click('[data-testid=rail-language]');
  await page.waitForFunction(() => document.documentElement.lang === 'zh' || document.documentElement.lang === 'zh-CN');
  assert.deepEqual(await page.$$eval('[data-testid=pane-label]', (ls) => ls.map((l) => l.textContent)), ['调试侧', '标杆侧']);
  assert.ok((await langButtons()).every((s) => /EN|English/.test(s)), JSON.stringify(await langButtons()));
  assertNoErrors(errors);
  await context.close();
});
