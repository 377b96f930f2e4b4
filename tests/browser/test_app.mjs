// Issue 19 in real Chromium: the page as a full-window analysis app, on a generated compare whose
// answers follow from how it was generated (scripts/gen_dump.py: the golden side drifts from one
// layer on, the target overflows in one layer). At 1600 x 1000: after Compare nothing of the page
// scrolls and the graph's first box is within the top 300 px; the intake is a drawer of the
// toolbar; the detail panel is docked and resizable; every jump (search, navigator, First
// divergence, Worst nodes, filter, breadcrumb) reveals the matched node in the Bench pane; expand
// all / collapse all / expand to depth N; hover cards with both sides; one shortcut overlay;
// middle-ellipsis labels; dark-mode fills from one table; the Build button and the scope bar in
// Chinese. Screenshots of the main views, light and dark, go to build/screenshots.
//   node --test tests/browser/test_app.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { browserSuite, generatedCompare, sqlJson as sql, screenshot, openGraphDb, pane, panesSettled, setToggle,
         assertNoErrors, APP_VIEWPORT } from './harness.mjs';

const H = APP_VIEWPORT.height;
let db, manifest;

const suite = browserSuite({
  prefix: 'visprobe_app_',
  setup: (s) => {
    ({ db, manifest } = generatedCompare(join(s.tmp, 'gen'), ['--layers', '6', '--hidden', '64', '--diverge-layer', '3',
                                                               '--overflow-layer', '1', '--seed', '7'], ['-oc']));
  },
});

/** The compare open at 1600 x 1000, both panes drawn with their badges. @param {object} [contextOptions] */
async function openDb(contextOptions = {}) {
  const app = await suite.open({ contextOptions });
  await openGraphDb(app.page, db, { bench: true, badges: true });
  return app;
}

/** Nothing of the page scrolls: the document is no taller or wider than the window. */
async function pageScrolls(page) {
  return page.evaluate(() => {
    const d = document.scrollingElement;
    return { h: d.scrollHeight - window.innerHeight, w: d.scrollWidth - window.innerWidth, overflow: getComputedStyle(document.body).overflow };
  });
}

/**
 * After a jump to `name` in the Debug pane: it is selected and on screen there, and its matched node
 * is highlighted and on screen in the Bench pane (revealed: its ancestors expanded).
 */
async function bothRevealed(page, name) {
  await page.waitForFunction((n) => {
    const [d, b] = window.visprobeGraph.panes;
    return d.selected && d.selected.name === n && b.highlight && b.screenBox(b.highlight);
  }, name).catch(async (e) => {
    const st = await page.evaluate(() => {
      const [d, b] = window.visprobeGraph.panes;
      return { selected: d.selected && d.selected.name, link: d.selected && d.selected.link, highlight: b.highlight,
               box: b.highlight && b.screenBox(b.highlight), laid: b.laid.length };
    });
    throw new Error(`${name}: ${e.message}: ${JSON.stringify(st)}`);
  });
  return page.evaluate(() => {
    const [d, b] = window.visprobeGraph.panes;
    const inside = (p, name) => { const s = p.screenBox(name); return !!s && s.x + s.w > 0 && s.x < p.width && s.y + s.h > 0 && s.y < p.height; };
    return { debug: inside(d, d.selected.name), bench: inside(b, b.highlight), counterpart: b.highlight,
             link: d.selected.link[d.selected.link.length - 1] };
  });
}

/** Collapses both panes back to the root's children and drops the selection (so the next jump has to reveal and select). */
const collapseBoth = (page) => page.evaluate(async () => {
  await window.visprobeGraph.expandDepth(1);
  for (const p of window.visprobeGraph.panes) { p.selected = null; p.highlight = null; p.restyle(); }
  return window.visprobeGraph.panes.map((p) => p.laid.length);
});

test('full window: after Compare nothing scrolls, the first box is within the top 300 px, the detail dock resizes, the intake is a drawer', async () => {
  const { page, context, errors } = await openDb();
  const s = await pageScrolls(page);
  assert.ok(s.h <= 0 && s.w <= 0, `the page scrolls: ${JSON.stringify(s)}`);
  assert.equal(s.overflow, 'hidden');
  const first = await page.$eval('[data-testid=pane-debug] g.node', (g) => g.getBoundingClientRect().top);
  assert.ok(first >= 0 && first < 300, `first box at ${first} px`);
  const rects = await page.evaluate(() => Object.fromEntries(['pane-debug', 'pane-bench', 'detail-dock', 'app-bar'].map((id) => {
    const r = document.querySelector(`[data-testid=${id}]`).getBoundingClientRect();
    return [id, { top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: r.height }];
  })));
  for (const [id, r] of Object.entries(rects)) assert.ok(r.bottom <= H + 0.5 && r.h > 10, `${id} on screen: ${JSON.stringify(r)}`);
  assert.ok(rects['pane-debug'].h > 400, `the graph has the window: ${rects['pane-debug'].h} px`);
  assert.ok(rects['detail-dock'].top > rects['pane-debug'].bottom, 'the detail panel is docked under the graph');
  assert.ok(rects['pane-bench'].left > rects['pane-debug'].right - 1, 'the two panes side by side');
  // The dock: dragging its splitter up by 150 px gives it 150 px more and the graph 150 less.
  const split = await page.locator('[data-testid=dock-splitter]').boundingBox();
  await page.mouse.move(split.x + 200, split.y + 2);
  await page.mouse.down();
  await page.mouse.move(split.x + 200, split.y - 148, { steps: 4 });
  await page.mouse.up();
  const after = await page.evaluate(() => ({ dock: document.querySelector('[data-testid=detail-dock]').getBoundingClientRect().height,
                                              pane: document.querySelector('[data-testid=pane-debug]').getBoundingClientRect().height }));
  assert.ok(Math.abs(after.dock - rects['detail-dock'].h - 150) < 12, `dock ${rects['detail-dock'].h} -> ${after.dock}`);
  assert.ok(Math.abs(rects['pane-debug'].h - after.pane - 150) < 12, `pane ${rects['pane-debug'].h} -> ${after.pane}`);
  assert.ok((await pageScrolls(page)).h <= 0);
  // The panes redraw at their new size (the layer follows the host).
  await page.waitForFunction(() => window.visprobeGraph.panes.every((p) => p.layer && Math.abs(p.layer.h - p.host.clientHeight) < 2));
  // Intake: hidden behind the toolbar, opened by its button and by I, closed by Escape.
  assert.equal(await page.isVisible('#run'), false);
  await page.click('[data-testid=toolbar-intake]');
  assert.equal(await page.isVisible('#run'), true);
  assert.equal(await page.getAttribute('[data-testid=toolbar-intake]', 'aria-expanded'), 'true');
  assert.ok((await pageScrolls(page)).h <= 0, 'the drawer lies over the workspace');
  await page.keyboard.press('Escape');
  assert.equal(await page.isVisible('#run'), false);
  await page.locator('[data-testid=pane-debug]').hover();
  await page.keyboard.press('i');
  assert.equal(await page.isVisible('[data-testid=drawer]'), true);
  await page.keyboard.press('i');
  assert.equal(await page.isVisible('[data-testid=drawer]'), false);
  // Download from the toolbar (Ctrl+S too).
  const [dl] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Control+s')]);
  assert.match(dl.suggestedFilename(), /\.vis\.db$/);
  await page.screenshot({ path: screenshot('app_compare_light.png') });
  assertNoErrors(errors);
  await context.close();
});

test('every jump reveals the node and its matched node in the Bench pane; breadcrumb (issue 19 point 2)', async () => {
  const { page, context, errors } = await openDb();
  const drift = manifest.anomalies.find((a) => a.type === 'diverge').first_node;
  const deep = sql(db, `SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND sub_nodes = '' AND matched_node_link != '[]'
                        AND node_name LIKE '%layers.4.%' ORDER BY node_order LIMIT 1`)[0].node_name;
  const check = async (how, name) => {
    const r = await bothRevealed(page, name);
    assert.ok(r.debug, `${how}: ${name} on screen in the Debug pane`);
    assert.ok(r.bench, `${how}: ${r.counterpart} on screen in the Bench pane`);
    assert.equal(r.counterpart, r.link, how);
  };
  // Search.
  let laid = await collapseBoth(page);
  await page.click('[data-testid=rail-search]');
  await page.fill('#ws-search', `"${deep}"`);
  await page.waitForFunction((q) => document.querySelector('[data-testid=search-list]').dataset.query === q, `"${deep}"`);
  await page.click('.ws-results li >> nth=0');
  await check('search', deep);
  assert.ok((await pane(page, 1, (p) => p.laid.length)) > laid[1], 'the Bench pane expanded to show it');
  // Breadcrumb: root ... node; an ancestor is one click away and is revealed on both sides.
  const crumbs = await page.$$eval('[data-testid=breadcrumb] .ws-crumb', (bs) => bs.map((b) => b.title));
  assert.equal(crumbs[crumbs.length - 1], deep);
  const chain = await pane(page, 0, (p) => { const c = []; for (let a = p.selected; a; a = a.parent) c.unshift(a.name); return c; });
  assert.deepEqual(crumbs, chain);
  await page.click(`[data-testid=breadcrumb] .ws-crumb >> nth=${crumbs.length - 2}`);
  await check('breadcrumb', crumbs[crumbs.length - 2]);
  // First divergence (toolbar and F).
  await collapseBoth(page);
  await page.click('[data-testid=bar-first]');
  const first = await page.waitForFunction(() => window.visprobeGraph.panes[0].selected?.name).then((h) => h.jsonValue());
  await check('first divergence', first);
  await collapseBoth(page);
  await page.locator('[data-testid=pane-debug]').hover();
  await page.keyboard.press('f');
  await check('F', first);
  // Navigator list.
  await collapseBoth(page);
  await page.click('[data-testid=rail-navigator]');
  // The flagged list loaded (its count is marked done) and drawn three rows deep.
  await page.waitForFunction(() => document.querySelector('[data-testid=navigator] .ws-count[data-done]') &&
                                   document.querySelectorAll('[data-testid=nav-list] li').length >= 3);
  const before = await pane(page, 0, (p) => p.selected && p.selected.name);
  const li = page.locator('[data-testid=nav-list] li').nth(2);
  const navName = await li.textContent();
  await li.click();
  await page.waitForFunction((b) => window.visprobeGraph.panes[0].selected?.name !== b, before);
  assert.equal(await pane(page, 0, (p) => p.selected.name), navName, 'the clicked row is selected');
  await check('navigator', navName);
  // Worst nodes.
  await collapseBoth(page);
  await page.click('[data-testid=worst] summary');
  await page.waitForSelector('[data-testid=worst] tbody tr');
  const worstName = await page.getAttribute('[data-testid=worst] tbody tr >> nth=0', 'data-name');
  await page.click('[data-testid=worst] tbody tr >> nth=0 >> button');
  await check('worst nodes', worstName);
  // Filter list (errors).
  await collapseBoth(page);
  await page.click('[data-testid=rail-filter]');
  await page.check('[data-testid=filter-error]');
  await page.waitForSelector('[data-testid=filter-list] li');
  const filterName = await page.getAttribute('[data-testid=filter-list] li >> nth=0', 'title');
  await page.click('[data-testid=filter-list] li >> nth=0');
  await check('filter', filterName);
  assert.ok(drift, 'the fixture drifts');
  assertNoErrors(errors);
  await context.close();
});

test('expand all / collapse all / expand to depth N, synced pan and zoom, hover cards, the shortcut overlay', async () => {
  const { page, context, errors } = await openDb();
  const total = sql(db, "SELECT count(*) AS n FROM tb_nodes WHERE data_source = 'NPU'")[0].n;
  const benchTotal = sql(db, "SELECT count(*) AS n FROM tb_nodes WHERE data_source = 'Bench'")[0].n;
  await page.click('[data-testid=expand-all]');
  await page.waitForFunction((n) => window.visprobeGraph.host.dataset.depth === 'Infinity' && window.visprobeGraph.panes[0].laid.length === n, total);
  assert.equal(await pane(page, 1, (p) => p.laid.length), benchTotal);
  await page.click('[data-testid=collapse-all]');
  await page.waitForFunction(() => window.visprobeGraph.panes.every((p) => p.laid.every((n) => n.depth <= 1)));
  await page.selectOption('[data-testid=expand-depth]', '3');
  await page.waitForFunction(() => window.visprobeGraph.host.dataset.depth === '3');
  const d3 = await pane(page, 0, (p) => ({ max: Math.max(...p.laid.map((n) => n.depth)),
                                          open: p.laid.filter((n) => n.expanded).every((n) => n.depth < 3),
                                          closed: p.laid.filter((n) => n.depth < 3 && n.subNames.length).every((n) => n.expanded) }));
  assert.deepEqual(d3, { max: 3, open: true, closed: true });
  // Keys: 2 = depth 2, E = all, C = collapse all.
  await page.locator('[data-testid=pane-debug]').hover();
  await page.keyboard.press('2');
  await page.waitForFunction(() => window.visprobeGraph.host.dataset.depth === '2');
  assert.equal(await pane(page, 0, (p) => Math.max(...p.laid.map((n) => n.depth))), 2);
  await page.keyboard.press('e');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].laid.length === n, total);
  await page.keyboard.press('c');
  await page.waitForFunction(() => window.visprobeGraph.panes[0].laid.every((n) => n.depth <= 1));
  // Synced pan / zoom: on by default in a compare (issue 46); off, the panes zoom apart; on, a zoom
  // in one pane moves the other with it; the choice is remembered after a reload.
  assert.equal(await page.isChecked('#ws-sync-view'), true);
  await page.keyboard.press('y');
  assert.equal(await page.isChecked('#ws-sync-view'), false);
  assert.equal(await page.evaluate(() => localStorage.getItem('visprobe.syncView')), '0');
  await page.keyboard.press('w');
  let ts = await page.evaluate(() => window.visprobeGraph.panes.map((p) => p.t.k));
  assert.notEqual(ts[0], ts[1]);
  await page.keyboard.press('y');
  assert.equal(await page.isChecked('#ws-sync-view'), true);
  assert.equal(await page.evaluate(() => localStorage.getItem('visprobe.syncView')), '1');
  await page.keyboard.press('w');
  await page.mouse.move(300, 500);
  ts = await page.evaluate(() => window.visprobeGraph.panes.map((p) => `${p.t.x},${p.t.y},${p.t.k}`));
  assert.equal(ts[0], ts[1]);
  // Hover card: full name, shapes and dtypes, both sides.
  await page.keyboard.press('e');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].laid.length === n, total);
  await page.click('[data-testid=fit]');
  const leaf = sql(db, `SELECT node_name, output_data FROM tb_nodes WHERE data_source = 'NPU' AND sub_nodes = '' AND matched_node_link != '[]'
                        AND node_name LIKE '%linear%forward%' ORDER BY node_order LIMIT 1`)[0];
  // At the fitted zoom of the whole expanded graph a leaf is a few pixels wide: zoom to 1 on it.
  await page.evaluate(async (n) => {
    const g = window.visprobeGraph;
    await g.selectFromList(g.panes[0], n);
    g.panes[0].zoomTo(1, g.panes[0].width / 2, g.panes[0].height / 2);
    g.panes[0].centre(g.panes[0].nodes.get(n));
  }, leaf.node_name);
  // The mouse on the centre of the leaf's box (at the fitted zoom a parent's header may cover the
  // centre of the element's bounding box, labels included).
  // Waits for the centring pan to settle: the point is on the leaf itself.
  const at = await page.waitForFunction((n) => {
    const p = window.visprobeGraph.panes[0];
    const b = p.screenBox(n);
    const r = p.host.getBoundingClientRect();
    const pt = b && { x: r.left + b.x + b.w / 2, y: r.top + b.y + b.h / 2 };
    const hit = pt && document.elementFromPoint(pt.x, pt.y);
    return hit && hit.closest('g.node') && hit.closest('g.node').dataset.name === n ? pt : null;
  }, leaf.node_name).then((h) => h.jsonValue());
  await page.mouse.move(at.x, at.y);
  await page.waitForSelector('[data-testid=hover-card]:not([hidden])');
  const card = await page.textContent('[data-testid=hover-card]');
  assert.ok(card.startsWith(leaf.node_name), card);
  assert.match(card, /Debug/);
  assert.match(card, /Bench/);
  const out = JSON.parse(leaf.output_data);
  const item = out[Object.keys(out)[0]];
  const shape = Array.isArray(item.shape) ? `[${item.shape.join(', ')}]` : String(item.shape);
  assert.ok(card.includes(shape), `shape ${shape} in ${card}`);
  assert.ok(card.includes(String(item.dtype)), 'dtype');
  assert.match(card, /Max /);
  const precision = await pane(page, 0, (p, n) => p.nodes.get(n).precision, leaf.node_name);
  assert.equal(typeof precision, 'number');
  assert.ok(card.includes(` · precision_index ${precision}`), `the leaf's precision in ${card}`);
  await page.mouse.move(5, 5);
  await page.waitForSelector('[data-testid=hover-card]', { state: 'hidden' });
  // In Chinese the card's labels follow (the node name stays as written).
  await page.click('[data-testid=lang-toggle]');
  await page.mouse.move(at.x, at.y);
  await page.waitForSelector('[data-testid=hover-card]:not([hidden])');
  const zh = await page.textContent('[data-testid=hover-card]');
  assert.ok(zh.startsWith(leaf.node_name), zh);
  assert.ok(zh.includes(` · 精度指标 ${precision}`), zh);
  assert.doesNotMatch(zh, /precision_index|overflow|Non-expandable/);
  await page.mouse.move(5, 5);
  await page.waitForSelector('[data-testid=hover-card]', { state: 'hidden' });
  await page.click('[data-testid=lang-toggle]');
  // One overlay lists every shortcut (? opens it).
  await page.locator('[data-testid=pane-debug]').hover();
  await page.keyboard.press('?');
  assert.equal(await page.getAttribute('[data-testid=shortcuts]', 'open'), '');
  const listed = await page.textContent('[data-testid=shortcuts] dl');
  for (const k of ['Expand all', 'Collapse all', 'Expand to depth N', 'First divergence', 'Fit to screen', 'Sync pan / zoom', 'Build / open data', 'Ctrl+S', 'Alt+S',
                   'Next / previous warning', 'Minimaps on / off', 'Sync expansion'])
    assert.ok(listed.includes(k), `${k} listed`);
  await page.keyboard.press('Escape');
  // The toolbar's toggles have keys too: M turns both minimaps off and on, X the expansion sync.
  const toggles = () => page.evaluate(() => ['ws-minimap-0', 'ws-minimap-1', 'ws-sync'].map((id) => document.getElementById(id).checked));
  const minimapShown = () => page.$$eval('.ws-minimap', (m) => m.map((x) => x.checkVisibility()));
  const [m0, m1, sync0] = await toggles();
  assert.ok(!m0 && !m1, 'both minimaps start hidden (issue 46: shown when wanted)');
  assert.ok((await minimapShown()).every((shown) => !shown));
  await page.locator('[data-testid=pane-debug]').hover();
  await page.keyboard.press('m');
  assert.deepEqual((await toggles()).slice(0, 2), [true, true]);
  assert.deepEqual(await minimapShown(), [true, true], 'M showed both minimaps');
  await page.keyboard.press('m');
  assert.deepEqual((await toggles()).slice(0, 2), [false, false]);
  assert.ok((await minimapShown()).every((shown) => !shown), 'M hid the minimaps again');
  await page.keyboard.press('x');
  assert.equal((await toggles())[2], !sync0);
  await page.keyboard.press('x');
  assert.equal((await toggles())[2], sync0);
  assertNoErrors(errors);
  await context.close();
});

test('Fit to screen fits the graph beside the minimap, inside the pane (issue 19)', async () => {
  const { page, context, errors } = await openDb();
  await setToggle(page, '#ws-minimap-0', true);
  await setToggle(page, '#ws-minimap-1', true);
  // The boxes' bounding box (headers, outlines, leaves) and the minimap's rectangle of each pane.
  const geometry = () => page.evaluate(() => ['debug', 'bench'].map((side) => {
    const host = document.querySelector(`[data-testid=pane-${side}]`);
    const h = host.getBoundingClientRect();
    const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
    for (const e of host.querySelectorAll('g.node rect.header, g.node rect.outline:not([display]), g.node ellipse')) {
      const r = e.getBoundingClientRect();
      if (!r.width) continue;
      box.left = Math.min(box.left, r.left); box.top = Math.min(box.top, r.top);
      box.right = Math.max(box.right, r.right); box.bottom = Math.max(box.bottom, r.bottom);
    }
    const mm = host.querySelector('[data-testid=minimap]');
    const m = mm.hidden ? null : mm.getBoundingClientRect();
    return { pane: { left: h.left, top: h.top, right: h.right, bottom: h.bottom }, box,
             minimap: m && { left: m.left, top: m.top, right: m.right, bottom: m.bottom } };
  }));
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const fitted = async () => {
    await page.click('[data-testid=fit]');
    await panesSettled(page);
    return geometry();
  };
  // The graph as loaded (the root's children, collapsed) is wider than tall: Fit is bounded by the width.
  for (const [i, g] of (await fitted()).entries()) {
    const { pane: p, box, minimap: m } = g;
    const where = `pane ${i}: ${JSON.stringify(g)}`;
    assert.ok(m, where);
    assert.ok(box.left >= p.left && box.right <= p.right && box.top >= p.top && box.bottom <= p.bottom, `inside the pane: ${where}`);
    assert.ok(!overlaps(box, m), `clear of the minimap: ${where}`);
    // Width-bound: the picture reaches (within the 16 px padding) the minimap's left edge.
    assert.ok(box.right > m.left - 40, `fitted to the width beside the minimap: ${where}`);
  }
  // Without the minimap Fit uses the whole width, past where the minimap was.
  const before = await geometry();
  await setToggle(page, '#ws-minimap-0', false);
  const [d] = await fitted();
  assert.equal(d.minimap, null);
  assert.ok(d.box.right > before[0].minimap.left + 40 && d.box.right <= d.pane.right, `whole width: ${JSON.stringify(d)}`);
  // Expanded to depth 3 the picture is taller than wide: still inside the pane and clear of the minimap.
  await setToggle(page, '#ws-minimap-0', true);
  await page.selectOption('[data-testid=expand-depth]', '3');
  await page.waitForFunction(() => window.visprobeGraph.host.dataset.depth === '3');
  for (const [i, g] of (await fitted()).entries()) {
    const { pane: p, box, minimap: m } = g;
    const where = `depth 3, pane ${i}: ${JSON.stringify(g)}`;
    assert.ok(box.left >= p.left && box.right <= p.right && box.top >= p.top && box.bottom <= p.bottom, `inside the pane: ${where}`);
    assert.ok(!overlaps(box, m), `clear of the minimap: ${where}`);
  }
  assertNoErrors(errors);
  await context.close();
});

test('the canvas layer keeps its backing store bounded on a dense screen and draws at the scale it has (issue 19 point 5)', async () => {
  // devicePixelRatio 3: the layer (two panes wide, three high) would need 6 x 9 x the pane's area.
  const { page, context, errors } = await openDb({ deviceScaleFactor: 3 });
  const MAX_PIXELS = 16 * 1024 * 1024, MAX_SIDE = 8192;   // render_canvas.js
  const layers = await page.evaluate(() => window.visprobeGraph.panes.map((p) => {
    p.threshold = 0;   // draw on the canvas
    p.draw(true);
    const c = p.canvas;
    // A collapsed module whose fill stands out from the background (the Debug side's precision colours).
    const bg = (p.bg || '').toUpperCase();
    const n = p.laid.find((m) => m.depth === 1 && m.subNames.length && !m.expanded && p.fill(m).toUpperCase() !== bg && p.fill(m).toUpperCase() !== '#FFFFFF');
    if (!n) return { renderer: p.renderer, w: c.width, h: c.height, pane: [p.width, p.height], dpr: devicePixelRatio, sy: c.height / (3 * p.height) };
    // The layer pixel inside the left end of the node's header: (world * k + t + (w/2, h)) * scale.
    const s = c.width / (2 * p.width);
    const px = Math.floor(((n.x + 3) * p.t.k + p.t.x + p.width / 2) * s);
    const py = Math.floor(((n.y + 7.5) * p.t.k + p.t.y + p.height) * s);
    const d = c.getContext('2d').getImageData(px, py, 1, 1).data;
    const hex = '#' + [...d.slice(0, 3)].map((v) => v.toString(16).padStart(2, '0')).join('').toUpperCase();
    return { renderer: p.renderer, w: c.width, h: c.height, pane: [p.width, p.height], dpr: devicePixelRatio, name: n.name, hex,
             fill: p.fill(n).toUpperCase(), sy: c.height / (3 * p.height) };
  }));
  for (const l of layers) {
    const where = JSON.stringify(l);
    assert.equal(l.renderer, 'canvas', where);
    assert.equal(l.dpr, 3);
    assert.ok(6 * l.pane[0] * l.pane[1] * 9 > MAX_PIXELS, `at the device's scale the layer would exceed the bound: ${where}`);
    assert.ok(l.w * l.h <= MAX_PIXELS && l.w <= MAX_SIDE && l.h <= MAX_SIDE && l.w > 2 * l.pane[0], `bounded backing store: ${where}`);
    assert.ok(Math.abs(l.w / (2 * l.pane[0]) - l.sy) < 0.01, `one scale both ways: ${where}`);
    if (l.name) assert.equal(l.hex, l.fill, `the header is drawn where the scale puts it: ${where}`);
  }
  assert.ok(layers[0].name, 'a coloured header in the Debug pane to read back');
  assertNoErrors(errors);
  await context.close();
});

test('labels keep the distinguishing end; dark fills from one table; Chinese Build button and scope bar; screenshots', async () => {
  const { page, context, errors } = await openDb({ colorScheme: 'dark' });
  await page.click('[data-testid=expand-all]');
  const total = sql(db, "SELECT count(*) AS n FROM tb_nodes WHERE data_source = 'NPU'")[0].n;
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].laid.length === n, total);
  // Leaves of one parent whose names differ keep different labels (the counter or the end survives the cut).
  const labels = await page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.map((g) => [g.dataset.name, g.querySelector('text')?.textContent || '']));
  const cut = labels.filter(([, t]) => t.includes('…'));
  assert.ok(cut.length > 0, 'some labels are cut');
  for (const [name, text] of cut) {
    const tail = text.slice(text.indexOf('…') + 1);
    const short = name.replace(/\.forward(?=\.|$)/g, '.fwd').replace(/\.backward(?=\.|$)/g, '.bwd');
    assert.ok(short.endsWith(tail), `${text} keeps the end of ${name}`);
  }
  const byParent = await pane(page, 0, (p) => {
    const dup = [];
    for (const n of p.laid) {
      const seen = new Map();
      for (const c of n.children && n.expanded ? n.children : []) {
        if (!c._fit) continue;
        if (seen.has(c._fit) && c.name !== seen.get(c._fit)) dup.push([c._fit, c.name, seen.get(c._fit)]);
        seen.set(c._fit, c.name);
      }
    }
    return dup;
  });
  assert.deepEqual(byParent, [], 'siblings keep distinct labels');
  // Dark: no-precision and unmatched fills come from the theme table, not white and light grey.
  const fills = await page.evaluate(() => {
    const [, b] = window.visprobeGraph.panes;
    return { benchFill: b.fill(b.root), pass: window.visprobeGraph.colors[0].colour, bg: getComputedStyle(document.body).backgroundColor };
  });
  assert.equal(fills.benchFill, '#303030');
  assert.notEqual(fills.benchFill, fills.pass);
  await page.screenshot({ path: screenshot('app_compare_dark.png') });
  await page.click('[data-testid=theme-toggle]');
  assert.equal(await pane(page, 1, (p) => p.fill(p.root)), '#FFFFFF');
  // Chinese: the Build button (before any files), the toolbar and the scope bar; the detail
  // panel's column head and precision line (drawn in English, re-translated by the toggle).
  const picked = await pane(page, 0, async (p) => {
    const n = p.laid.find((m) => m.subNames.length === 0 && m.precision !== null && !m.overflow && m.link.length);
    await window.visprobeGraph.select(p, n);
    return { name: n.name, precision: n.precision };
  });
  await page.waitForSelector('[data-testid=paired] thead th');
  const heads = () => page.$$eval('[data-testid=paired] thead th', (ths) => ths.slice(0, 2).map((th) => th.textContent));
  assert.deepEqual(await heads(), ['Side', 'name']);
  assert.equal(await page.textContent('[data-testid=detail-precision]'), `precision_index: ${picked.precision}   overflow: -`);
  await page.click('[data-testid=lang-toggle]');
  assert.deepEqual(await heads(), ['侧', '名称']);
  assert.equal(await page.textContent('[data-testid=detail-precision]'), `精度指标：${picked.precision}   溢出：-`);
  assert.ok((await page.textContent('[data-testid=paired] .ws-paired-head')).includes(picked.name), 'the node name stays as written');
  assert.equal(await page.textContent('#run'), '构图');
  assert.equal(await page.textContent('[data-testid=toolbar-intake]'), '构建 / 打开数据');
  assert.match(await page.textContent('[data-testid=scope]'), /步 0 · 卡 0/);
  assert.equal(await page.getAttribute('[data-testid=expand-all]', 'title'), '全部展开');
  await page.click('[data-testid=lang-toggle]');
  assertNoErrors(errors);
  await context.close();
});

test('search rows: every term highlighted in one run of text that stays inside its row; the detail table has a side column; the view controls are one line', async () => {
  const { page, context, errors } = await openDb();
  // The view controls and the scope fit one line at 1600 px (the bar is one button high).
  const bar = await page.$eval('.workspace .ws-bar', (b) => {
    // One line: every item's vertical middle lies within every other item's box.
    const boxes = [...b.children].map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0);
    const oneLine = boxes.every((r) => boxes.every((q) => (r.top + r.bottom) / 2 > q.top && (r.top + r.bottom) / 2 < q.bottom));
    return { h: b.getBoundingClientRect().height, oneLine, n: boxes.length };
  });
  assert.ok(bar.oneLine && bar.n >= 3, `view controls on one line: ${JSON.stringify(bar)}`);
  assert.ok(bar.h < 40, `bar ${bar.h} px high`);
  // Issue 46: the side panel is resizable (its splitter dragged) and keeps its width after a reload.
  const sideW = () => page.$eval('.ws-side', (e) => Math.round(e.getBoundingClientRect().width));
  const w0 = await sideW();
  const sp = await page.$eval('[data-testid=side-splitter]', (e) => { const r = e.getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; });
  await page.mouse.move(sp.x, sp.y);
  await page.mouse.down();
  await page.mouse.move(sp.x + 140, sp.y, { steps: 4 });
  await page.mouse.up();
  await page.waitForFunction(() => localStorage.getItem('visprobe.sideWidth') !== null);
  const w1 = await sideW();
  const left = await page.$eval('.ws-side', (e) => e.getBoundingClientRect().left);
  assert.ok(w1 > w0 + 100 && Math.abs(w1 - (sp.x + 140 - left)) <= 2, `the side panel's edge follows the drag: ${w0} -> ${w1}`);
  assert.equal(Number(await page.evaluate(() => localStorage.getItem('visprobe.sideWidth'))), w1);
  // Search with two terms: each row is one span with both terms marked, inside the row's box.
  await page.click('[data-testid=rail-search]');
  await page.fill('#ws-search', 'layers.2 linear');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-list]').dataset.query === 'layers.2 linear');
  await page.waitForSelector('.ws-results li');
  const rows = await page.$$eval('.ws-results li', (lis) => lis.filter((li) => li.offsetParent).map((li) => {
    const r = li.getBoundingClientRect();
    const sp = li.querySelector('.vl-text');
    const s = sp ? sp.getBoundingClientRect() : null;
    return { kids: li.childNodes.length, span: !!sp, marks: sp ? [...sp.querySelectorAll('mark')].map((m) => m.textContent.toLowerCase()) : [],
             inside: !!s && s.top >= r.top - 1 && s.bottom <= r.bottom + 1 && s.right <= r.right + 1, title: li.title, text: sp ? sp.textContent : '' };
  }));
  assert.ok(rows.length > 3, 'several results');
  for (const r of rows) {
    assert.equal(r.kids, 1, `${r.title}: one child`);
    assert.ok(r.span, r.title);
    assert.ok(r.inside, `${r.title}: the text stays inside its row`);
    assert.ok(r.marks.includes('linear'), `${r.title}: the second term is highlighted too (${r.marks})`);
  }
  assert.ok(rows.some((r) => r.marks.includes('layers.2')), 'the first term is highlighted');
  const cut = rows.filter((r) => r.text !== r.title);
  // A name cut to fit keeps its start and its end around one ellipsis (.forward / .backward shortened).
  for (const r of cut) {
    const short = r.title.replace(/\.forward(?=\.|$)/g, '.fwd').replace(/\.backward(?=\.|$)/g, '.bwd');
    const [head, tail, more] = r.text.split('…');
    if (tail === undefined) { assert.equal(r.text, short, r.title); continue; }
    assert.equal(more, undefined, r.text);
    assert.ok(short.startsWith(head) && short.endsWith(tail) && tail.length >= head.length, `${r.text} from ${r.title}`);
  }
  // Detail table: the first column names the side of every row.
  await page.click('.ws-results li >> nth=0');
  await page.waitForSelector('[data-testid=paired] tbody tr');
  const table = await page.$$eval('[data-testid=paired] tr', (trs) => trs.map((tr) => [tr.dataset.side || '', tr.children[0].textContent]));
  assert.equal(table[0][1], 'Side');
  assert.ok(table.length > 2);
  for (const [side, cell] of table.slice(1)) assert.equal(cell, side === 'Bench' ? 'Bench' : 'Debug');
  assert.ok(table.slice(1).some(([side]) => side === 'Bench'), 'the matched node has rows');
  assertNoErrors(errors);
  await context.close();
});

test('a fresh page in Chinese says Build in Chinese before anything is chosen', async () => {
  const { page, context, errors } = await suite.open({ contextOptions: { locale: 'zh-CN' } });
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.equal(await page.textContent('#run'), '构图');
  assert.equal(await page.textContent('#load-sample'), '加载示例');
  await page.screenshot({ path: screenshot('app_intake.png') });
  assertNoErrors(errors);
  await context.close();
});
