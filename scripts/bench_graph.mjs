// Benchmark (not a test) of the graph workspace in headless Chromium (web-ui §11): opens a .vis.db
// and times expand / collapse, search (from the last keystroke), filter lists, the matching lists,
// the detail panel, reveal from a list, and pan / zoom frame rates with a given number of boxes in
// the extended window, for the SVG and the canvas renderer.
//   node scripts/bench_graph.mjs path/to/compare.vis.db [--boxes 3000] [--laid 20000] [--web build/web]
import { spawn } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const db = resolve(args[0]);
const opt = (name, d) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : d; };
const BOXES = opt('--boxes', 3000);
const LAID = opt('--laid', 20000);
const server = spawn('python3', [join(root, 'scripts', 'static_server.py'), args.includes('--web') ? resolve(args[args.indexOf('--web') + 1]) : join(root, 'build', 'web'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((res) => server.stdout.on('data', (d) => { const m = /serving (http:\/\/[^/]+)\//.exec(String(d)); if (m) res(m[1]); }));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
page.on('pageerror', (e) => console.error('page error:', e.message));
await page.goto(origin + '/');
const out = {};
const now = () => page.evaluate(() => performance.now());
const timed = async (fn, done, arg) => { const t0 = await now(); await fn(); await page.waitForFunction(done, arg, { timeout: 120000 }); return Math.round((await now()) - t0); };

let t = Date.now();
await page.setInputFiles('#pick-db', db);
await page.waitForSelector('[data-testid=pane-debug] g.node', { timeout: 600000 });
out.open_s = (Date.now() - t) / 1000;
out.rows = Number(await page.textContent('[data-testid=rows]'));
// The user's first look: both sides' search name lists load in the background (400,000 names on
// the §11 fixture take seconds on a slow machine); the timings below are of a settled page.
await page.evaluate(() => Promise.all([window.visprobeGraph.names(0), window.visprobeGraph.names(1)]).then(() => true));
out.names_s = (Date.now() - t) / 1000;
await page.waitForTimeout(500);

// PERF-G1: expand / collapse the biggest root child (until its boxes are drawn).
// The widest root child of the §11 fixture (2,000 children), or the model of a generated dump.
const big = await page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.map((g) => g.dataset.name).filter((n) => /GPTModel\.forward|Wide\.forward/.test(n))[0]);
const sel = `[data-testid=pane-debug] g.node[data-name="${big}"] rect.header`;
const before = await page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.length);
// Two figures: from Playwright's double-click call (its two clicks and round trips included), and,
// in the page, from the dblclick event to the first animation frame at which both panes show the
// change (the Debug pane's boxes and, with Sync expansion on, the Bench pane's): what the user waits for.
const beforeBench = await page.$$eval('[data-testid=pane-bench] g.node', (gs) => gs.length);
const armFrame = (expanding) => page.evaluate(({ expanding, b0, b1 }) => {
  window.__frame = new Promise((resolve) => {
    document.addEventListener('dblclick', () => {
      const t0 = performance.now();
      const count = (side) => document.querySelectorAll(`[data-testid=pane-${side}] g.node`).length;
      const done = () => (expanding ? count('debug') > b0 && (b1 === 0 || count('bench') > b1) : count('debug') <= b0 && count('bench') <= b1);
      const tick = (ts) => { if (done()) resolve(Math.round(ts - t0)); else requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    }, { capture: true, once: true });
  });
}, { expanding, b0: before, b1: beforeBench });
await armFrame(true);
out.expand_ms = await timed(() => page.dblclick(sel), (b) => document.querySelectorAll('[data-testid=pane-debug] g.node').length > b, before);
out.expand_frame_ms = await page.evaluate(() => window.__frame);
out.expand_children = await page.evaluate((b) => document.querySelectorAll('[data-testid=pane-debug] g.node').length - b, before);
await page.waitForTimeout(300);
await armFrame(false);
out.collapse_ms = await timed(() => page.dblclick(sel), (b) => document.querySelectorAll('[data-testid=pane-debug] g.node').length <= b, before);
out.collapse_frame_ms = await page.evaluate(() => window.__frame);
await page.dblclick(sel);
await page.waitForTimeout(300);

// PERF-G3: from the last keystroke to the results shown (debounce included).
await page.click('[data-testid=rail-search]');
await page.waitForSelector('[data-testid=search-list][data-query=""]', { timeout: 60000 });
await page.evaluate(() => { document.getElementById('ws-search').addEventListener('input', () => { window.__lastInput = performance.now(); }); });
const searchOnce = async (q) => {
  await page.fill('#ws-search', '');
  await page.waitForSelector('[data-testid=search-list][data-query=""]');
  await page.click('#ws-search');
  await page.keyboard.type(q, { delay: 40 });
  await page.waitForFunction((qq) => document.querySelector('[data-testid=search-list]').dataset.query === qq, q, { polling: 'raf' });
  return page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(performance.now() - window.__lastInput))));
};
const searches = [];
for (const q of ['linear.12', 'layers.1', 'forward', 'block3 linear']) searches.push(await searchOnce(q));
out.search_ms = searches.map((v) => Math.round(v));
out.search_hits = await page.textContent('[data-testid=search] .ws-count');

// PERF-G6 / PERF-G5: reveal a deep node from the list, then a click on a node in the graph.
await page.fill('#ws-search', 'linear.12');
await page.waitForSelector('[data-testid=search-list][data-query="linear.12"]');
const revealed = await page.textContent('.ws-results li >> nth=0');
out.reveal_ms = await timed(() => page.click('.ws-results li >> nth=0'), (n) => document.querySelector('[data-testid=detail]').textContent.includes(n), revealed);
const target = await page.evaluate(() => {
  const p = window.visprobeGraph.panes[0];
  const sel = p.selected;
  const n = p.drawn.find((d) => d !== sel && d.subNames.length === 0 && p.screenBox(d.name) && p.screenBox(d.name).y > 20 && p.screenBox(d.name).x > 0 && p.screenBox(d.name).x < p.width - 130);
  const r = p.host.getBoundingClientRect();
  const b = p.screenBox(n.name);
  return { name: n.name, x: r.left + b.x + b.w / 2, y: r.top + b.y + b.h / 2 };
});
out.detail_ms = await timed(() => page.mouse.click(target.x, target.y), (n) => document.querySelector('[data-testid=detail]').textContent.includes(n), target.name);

// PERF-G4: filter list (unmatched Debug leaves) and the matching lists.
await page.click('[data-testid=rail-filter]');
out.filter_ms = await timed(() => page.check('[data-testid=filter-unmatched]'), () => document.querySelector('[data-testid=filter] .ws-count[data-done]') !== null);
out.filter_rows = await page.textContent('[data-testid=filter] .ws-count');
out.filter_dom_rows = await page.evaluate(() => document.querySelectorAll('[data-testid=filter-list] li').length);
if (await page.$('[data-testid=rail-matching]')) {
  out.matching_lists_ms = await timed(() => page.click('[data-testid=rail-matching]'), () => document.querySelector('[data-testid=matching][data-ready]') !== null);
  out.matching_counts = await page.$$eval('.ws-picker', (ps) => ps.map((p) => Number(p.dataset.count)));
}

// PERF-G2: expand breadth-first until LAID nodes are laid out, then zoom so that about BOXES boxes
// are in the extended window, and count frames while the wheel scrolls (and, separately, zooms).
await page.evaluate(async (laid) => {
  // Depth-first: expand whole subtrees in execution order, so the top of the graph is as dense
  // as a fully expanded model (rows of five leaves), until `laid` nodes are laid out.
  const p = window.visprobeGraph.panes[0];
  let count = 0;
  const stack = [p.root];
  while (stack.length && count < laid) {
    const n = stack.pop();
    count += 1;
    if (n.subNames.length === 0) continue;
    if (!n.expanded) await p.expand(n);
    for (let i = n.children.length - 1; i >= 0; --i) stack.push(n.children[i]);
  }
  p.render();
}, LAID);
out.laid = await page.evaluate(() => window.visprobeGraph.panes[0].laid.length);
const fps = async (threshold, boxes, mode) => page.evaluate(async ({ threshold, boxes, mode }) => {
  const p = window.visprobeGraph.panes[0];
  p.threshold = threshold;
  // Find the zoom that puts about `boxes` boxes in the extended window (top of the graph).
  let lo = 0.05;
  let hi = 4;
  for (let i = 0; i < 30; ++i) {
    const k = Math.sqrt(lo * hi);
    p.t = { x: 20, y: 20, k };
    p.draw(true);
    if (Number(p.host.dataset.boxes) > boxes) lo = k; else hi = k;
  }
  p.t = { x: 20, y: 20, k: hi };
  p.draw(true);
  const shown = Number(p.host.dataset.boxes);
  const renderer = p.host.dataset.renderer;
  const svg = p.svg;
  const gaps = [];
  let last = performance.now();
  const t0 = last;
  let i = 0;
  while (performance.now() - t0 < 3000) {
    const r = p.host.getBoundingClientRect();
    const zoom = mode === 'zoom';
    svg.dispatchEvent(new WheelEvent('wheel', { deltaY: zoom ? (i % 40 < 20 ? -100 : 100) : 100, ctrlKey: zoom, clientX: r.left + r.width / 2,
                                               clientY: r.top + r.height / 2, bubbles: true, cancelable: true }));
    await new Promise((res) => requestAnimationFrame(res));
    const tt = performance.now();
    gaps.push(tt - last);
    last = tt;
    i += 1;
  }
  gaps.sort((a, b) => a - b);
  const median = gaps[gaps.length >> 1];
  return { boxes: shown, renderer, k: Number(p.t.k.toFixed(3)), frames: gaps.length, mean_fps: Number((gaps.length / ((last - t0) / 1000)).toFixed(1)),
           median_fps: Number((1000 / median).toFixed(1)), p95_frame_ms: Number(gaps[Math.floor(gaps.length * 0.95)].toFixed(1)) };
}, { threshold, boxes, mode });
if (args.includes('--svg-sweep')) {
  out.svg_sweep = [];
  for (const b of [300, 600, 1000, 1500, 2000]) out.svg_sweep.push(await fps(1e9, b, 'pan'));
}
out.pan_svg = await fps(1e9, BOXES, 'pan');
out.pan_canvas = await fps(0, BOXES, 'pan');
out.zoom_svg = await fps(1e9, BOXES, 'zoom');
out.zoom_canvas = await fps(0, BOXES, 'zoom');
out.pan_default = await fps(3000, BOXES, 'pan');
out.zoom_default = await fps(3000, BOXES, 'zoom');
out.pan_all_laid = await fps(3000, 1e9, 'pan');
await page.screenshot({ path: join(root, 'build', 'bench_graph.png') });
console.log(JSON.stringify(out, null, 1));
await browser.close();
server.kill();
