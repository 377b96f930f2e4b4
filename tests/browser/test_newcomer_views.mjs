// Issue 46, item 3 in real Chromium (a profile on disk, so OPFS survives a reload): after a
// compare the trend view opens, and the compare results stay reachable. The app bar's Graph | Trend
// switch shows the other view as it was left; a reload restores the active view and the switch the
// other; the start screen and the app bar list the recent results (name, kind, size, time), each
// reopened by a click and removed by its ×; "Forget stored data" asks first in a dialog (Cancel
// focused) and then clears the list. Real databases: scripts/gen_dump.py + `visprobe
// graph_visualize` (a compare), scripts/gen_trend_data.py + `visprobe data2db` (a .trend.db). The
// single session of earlier versions is migrated into the list.
//   node --test tests/browser/test_newcomer_views.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { browserSuite, generatedCompare, genTrendData, data2db, viewRestored, assertNoErrors } from './harness.mjs';

let graphDb, trendDb;

const suite = browserSuite({
  prefix: 'visprobe_views_',
  setup: (s) => {
    ({ db: graphDb } = generatedCompare(join(s.tmp, 'gen'), ['--layers', '4', '--hidden', '64', '--diverge-layer', '2', '--overflow-layer', '1',
                                                             '--seed', '11'], ['-oc']));
    const input = join(s.tmp, 'monitor');
    genTrendData('monitor', input, ['--seed', '5', '--ranks', '2', '--steps', '6', '--layers', '2']);
    trendDb = data2db(input, join(s.tmp, 'trend'), 'monitor');
  },
});

/** A browser of its own with its profile on disk, at 1600 x 1000, on the start screen (closed by the test). */
const browserProfile = () => suite.open({ profileDir: suite.tmpDir('profile_') });

const graphState = (page) => page.evaluate(() => window.visprobeGraph.viewState());
const trendState = (page) => page.evaluate(() => window.__visprobeTrend.state());

/** The graph shown (not hidden) with the view state `want`. */
function graphShownAs(page, want) {
  return page.waitForFunction((w) => !document.querySelector('[data-testid=workspace]').hidden && document.querySelector('[data-testid=trend]').hidden &&
    window.visprobeGraph && JSON.stringify(window.visprobeGraph.viewState()) === w && window.visprobeGraph.panes[0].selected,
  JSON.stringify(want), { timeout: 60000 }).catch(async (e) => {
    throw new Error(`graph not shown as left: ${JSON.stringify(await page.evaluate(() => window.visprobeGraph && window.visprobeGraph.viewState()))} != ${JSON.stringify(want)}: ${e.message}`);
  });
}

/** The trend view shown with the state `want`, its heat map drawn. */
function trendShownAs(page, want) {
  return page.waitForFunction((w) => !document.querySelector('[data-testid=trend]').hidden && document.querySelector('[data-testid=workspace]').hidden &&
    window.__visprobeTrend && window.__visprobeTrend.idle() && JSON.stringify(window.__visprobeTrend.state()) === w && window.__visprobeTrend.heat().cells > 0,
  JSON.stringify(want), { timeout: 60000 }).catch(async (e) => {
    throw new Error(`trend not shown as left: ${JSON.stringify(await page.evaluate(() => window.__visprobeTrend && window.__visprobeTrend.state()))} != ${JSON.stringify(want)}: ${e.message}`);
  });
}

/** The fragment rewritten (debounced) with the db of this view. @param {'graph'|'trend'} kind */
/**
 * The fragment names the database and holds the view's current state, every field of it (the page
 * rewrites the fragment a moment after a change: a link taken before that would be the state before).
 */
const fragmentOf = (page, kind) => page.waitForFunction((k) => {
  if (!/[#&]db=/.test(location.hash) || !location.hash.includes(`${k}.`)) return false;
  const state = k === 'graph' ? window.visprobeGraph.viewState() : window.__visprobeTrend.state();
  const p = new URLSearchParams(location.hash.slice(1));
  return Object.entries(state).every(([key, v]) => v === undefined || v === null || v === '' || p.get(`${k}.${key}`) === String(v));
}, kind, { timeout: 10000 });

/**
 * The compare opened and kept, its first flagged node selected; then the .trend.db opened and kept,
 * its dimension set to rank. Returns both views' states.
 */
async function openBoth(page) {
  await page.setInputFiles('#pick-db', graphDb);
  await page.waitForFunction(() => /^(opfs|opfs-run|indexeddb):/.test(document.querySelector('[data-testid=workspace]').dataset.session || ''), null, { timeout: 60000 });
  await page.click('[data-testid=bar-first]');
  await page.waitForFunction(() => window.visprobeGraph.panes[0].selected);
  await fragmentOf(page, 'graph');
  const graph = await graphState(page);
  assert.ok(graph.sel && graph.exp0, JSON.stringify(graph));
  await page.setInputFiles('#pick-db', trendDb);
  await page.waitForFunction(() => window.__visprobeTrend && window.__visprobeTrend.idle() && window.__visprobeTrend.loads() > 0 &&
    /^(opfs|opfs-run|indexeddb):/.test(document.querySelector('[data-testid=trend]').dataset.session || ''), null, { timeout: 60000 });
  await page.selectOption('#tr-dimension', 'rank');
  await page.waitForFunction(() => window.__visprobeTrend.idle() && window.__visprobeTrend.state().dimension === 'rank');
  await page.waitForFunction(() => location.hash.includes('trend.dimension=rank'), null, { timeout: 10000 });
  const trend = await trendState(page);
  return { graph, trend };
}

test('Graph | Trend switch: after the trend view opens, the compare comes back with its selection, and the trend view too', async () => {
  const { context, page, errors } = await browserProfile();
  const { graph, trend } = await openBoth(page);
  await page.waitForFunction(() => !document.querySelector('[data-testid=view-switch]').hidden &&
    document.querySelector('[data-testid=view-trend]').getAttribute('aria-pressed') === 'true');
  // Keyboard: the switch's Graph button takes the focus and Enter shows the graph.
  await page.focus('[data-testid=view-graph]');
  await page.keyboard.press('Enter');
  await graphShownAs(page, graph);
  await page.waitForFunction(() => document.querySelector('[data-testid=view-graph]').getAttribute('aria-pressed') === 'true' &&
    location.hash.includes('graph.sel=') && !location.hash.includes('trend.'));
  assert.equal(await page.textContent('[data-testid=app-db]'), graphDb.split('/').pop());
  await page.click('[data-testid=view-trend]');
  await trendShownAs(page, trend);
  await page.waitForFunction(() => location.hash.includes('trend.dimension=rank') && !location.hash.includes('graph.'));
  assertNoErrors(errors);
  await context.close();
});

test('a reload restores the active view; the switch brings back the other as it was', async () => {
  const { context, page, errors } = await browserProfile();
  const { graph, trend } = await openBoth(page);
  await page.reload();
  await viewRestored(page, 'trend');
  await trendShownAs(page, trend);
  await page.waitForSelector('[data-testid=view-switch]:not([hidden])');
  await page.click('[data-testid=view-graph]');
  await graphShownAs(page, graph);
  // And back, then a reload with the graph active: the graph restored, the trend from the switch.
  await page.click('[data-testid=view-trend]');
  await trendShownAs(page, trend);
  await page.click('[data-testid=view-graph]');
  await graphShownAs(page, graph);
  await fragmentOf(page, 'graph');
  await page.reload();
  await viewRestored(page);
  await graphShownAs(page, graph);
  await page.click('[data-testid=view-trend]');
  await trendShownAs(page, trend);
  assertNoErrors(errors);
  await context.close();
});

test('recent results: the start screen and the app bar list both; each reopens as it was; × removes one', async () => {
  const { context, page, errors } = await browserProfile();
  const { graph, trend } = await openBoth(page);
  // A new page without a fragment: the start screen lists the kept results, newest first.
  await page.goto(suite.home);
  await page.waitForSelector('[data-testid=recent]:not([hidden]) [data-testid=recent-item]');
  const items = () => page.$$eval('[data-testid=recent] [data-testid=recent-item]', (li) => li.map((e) => ({
    name: e.querySelector('[data-testid=recent-open]').textContent, kind: e.querySelector('[data-testid=recent-kind]').textContent,
    size: e.querySelector('.recent-size').textContent, time: e.querySelector('time').dateTime })));
  const listed = await items();
  assert.deepEqual(listed.map((i) => [i.name, i.kind]), [[trendDb.split('/').pop(), 'trend'], [graphDb.split('/').pop(), 'graph']]);
  for (const i of listed) {
    assert.match(i.size, /^\d+(\.\d+)? (KB|MB|GB)$/, i.size);
    assert.ok(Math.abs(Date.parse(i.time) - Date.now()) < 10 * 60e3, i.time);
  }
  // The graph from the start screen, with its selection.
  await page.click('[data-testid=recent] [data-kind=graph] [data-testid=recent-open]');
  await graphShownAs(page, graph);
  // The trend from the app bar's list.
  await page.click('[data-testid=toolbar-recent]');
  await page.waitForSelector('[data-testid=recent-menu]:not([hidden]) [data-testid=recent-item]');
  assert.equal(await page.locator('[data-testid=recent-menu] [data-testid=recent-item]').count(), 2);
  await page.click('[data-testid=recent-menu] [data-kind=trend] [data-testid=recent-open]');
  await trendShownAs(page, trend);
  await page.waitForSelector('[data-testid=recent-menu]', { state: 'hidden' });
  // × on the graph: one result left, here and after a reload.
  await page.click('[data-testid=toolbar-recent]');
  await page.click('[data-testid=recent-menu] [data-kind=graph] [data-testid=recent-remove]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=recent-menu] [data-testid=recent-item]').length === 1 &&
    document.querySelectorAll('[data-testid=recent] [data-testid=recent-item]').length === 1);
  await page.goto(suite.home);
  await page.waitForSelector('[data-testid=recent]:not([hidden]) [data-testid=recent-item]');
  assert.deepEqual((await items()).map((i) => i.kind), ['trend']);
  assertNoErrors(errors);
  await context.close();
});

test('"Forget stored data" asks first: Cancel (focused) keeps the results, Delete clears the list', async () => {
  const { context, page, errors } = await browserProfile();
  await openBoth(page);
  await page.click('[data-testid=forget-stored]');
  await page.waitForSelector('[data-testid=forget-dialog][open]');
  assert.match(await page.textContent('[data-testid=forget-text]'), /\b2 stored results\b/);
  assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.dataset.testid), 'forget-cancel');
  await page.keyboard.press('Enter');   // Cancel, the focused button
  await page.waitForSelector('[data-testid=forget-dialog]', { state: 'hidden' });
  await page.click('[data-testid=toolbar-recent]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=recent-menu] [data-testid=recent-item]').length === 2);
  await page.keyboard.press('Escape');
  await page.click('[data-testid=forget-stored]');
  await page.click('[data-testid=forget-confirm]');
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('visprobe.recent') || '[]').length === 0 &&
    document.querySelector('[data-testid=toolbar-recent]').hidden && document.querySelector('[data-testid=recent]').hidden &&
    !/[#&]db=/.test(location.hash));
  await page.goto(suite.home);
  await page.waitForFunction(() => document.querySelector('[data-testid=recent]') && document.querySelector('[data-testid=recent]').hidden);
  assert.equal(await page.locator('[data-testid=recent-item]').count(), 0);
  assertNoErrors(errors);
  await context.close();
});

test('the single session of earlier versions is migrated into the recent results and restored from its link', async () => {
  const { context, page, errors } = await browserProfile();
  await page.setInputFiles('#pick-db', graphDb);
  await page.waitForFunction(() => /^opfs:/.test(document.querySelector('[data-testid=workspace]').dataset.session || ''), null, { timeout: 60000 });
  await page.click('[data-testid=bar-first]');
  await page.waitForFunction(() => window.visprobeGraph.panes[0].selected);
  await fragmentOf(page, 'graph');
  const want = await graphState(page);
  await page.waitForFunction(() => (JSON.parse(localStorage.getItem('visprobe.recent') || '[]')[0] || {}).hash === location.hash);
  // The storage as an earlier version left it: one meta key, the database in session.db.
  const link = await page.evaluate(async () => {
    const [e] = JSON.parse(localStorage.getItem('visprobe.recent'));
    const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle('visprobe-sessions');
    const bytes = await (await (await dir.getFileHandle(e.files[0])).getFile()).arrayBuffer();
    const w = await (await dir.getFileHandle('session.db', { create: true })).createWritable();
    await w.write(bytes);
    await w.close();
    localStorage.setItem('visprobe.session', JSON.stringify({ key: e.key, name: e.name, backend: 'opfs', bytes: e.bytes, kind: 'graph', more: [] }));
    localStorage.removeItem('visprobe.recent');
    return e.hash;
  });
  await page.goto('about:blank');   // (a link to the same page differing in its fragment would not load it again)
  await page.goto(`${suite.origin}/${link}`);
  await viewRestored(page);
  await graphShownAs(page, want);
  const kept = await page.evaluate(() => ({ legacy: localStorage.getItem('visprobe.session'),
                                            list: JSON.parse(localStorage.getItem('visprobe.recent')).map((e) => [e.kind, e.files]) }));
  assert.deepEqual(kept, { legacy: null, list: [['graph', ['session.db']]] });
  await page.waitForSelector('[data-testid=toolbar-recent]:not([hidden])');
  assertNoErrors(errors);
  await context.close();
});
