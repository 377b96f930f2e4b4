// Benchmark (not a test) of the graph workspace in headless Chromium (web-ui §11): opens a .vis.db
// and times expand/collapse, search, filter lists, the detail panel, and pan/zoom frames with many
// boxes on screen.   node scripts/bench_graph.mjs path/to/compare.vis.db
import { spawn } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const db = resolve(process.argv[2]);
const server = spawn('python3', [join(root, 'scripts', 'static_server.py'), join(root, 'build', 'web'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((res) => server.stdout.on('data', (d) => { const m = /serving (http:\/\/[^/]+)\//.exec(String(d)); if (m) res(m[1]); }));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
await page.goto(origin + '/');
const out = {};
let t = Date.now();
await page.setInputFiles('#pick-db', db);
await page.waitForSelector('[data-testid=pane-debug] g.node', { timeout: 600000 });
out.open_s = (Date.now() - t) / 1000;
out.nodes = await page.textContent('[data-testid=rows]');
await page.waitForTimeout(1500);   // the user's first look: background loads settle
// Expand / collapse the biggest root child (time until the boxes are drawn).
const big = await page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.map((g) => g.dataset.name).filter((n) => /GPTModel\.forward/.test(n))[0]);
const sel = `[data-testid=pane-debug] g.node[data-name="${big}"] rect.header`;
const timed = async (fn, done, arg) => { const t0 = await page.evaluate(() => performance.now()); await fn(); await page.waitForFunction(done, arg); return (await page.evaluate(() => performance.now())) - t0; };
const before = await page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.length);
out.expand_ms = await timed(() => page.dblclick(sel), (b) => document.querySelectorAll('[data-testid=pane-debug] g.node').length > b, before);
out.collapse_ms = await timed(() => page.dblclick(sel), (b) => document.querySelectorAll('[data-testid=pane-debug] g.node').length <= b, before);
await page.dblclick(sel);
await page.waitForTimeout(300);
// Search.
out.search_ms = await timed(() => page.fill('#ws-search', 'linear_fc2'), () => document.querySelectorAll('.ws-results li').length > 0);
// Filter lists (all unmatched Debug leaves).
out.filter_ms = await timed(() => page.check('[data-testid=filter-unmatched]'), () => document.querySelector('.ws-filter h4[data-done]') !== null);
out.filter_rows = await page.evaluate(() => document.querySelectorAll('.ws-filter-list li').length);
// Detail panel.
out.detail_ms = await timed(() => page.click('.ws-results li'), () => document.querySelector('[data-testid=detail]').textContent.includes('linear_fc2'));
// Pan frames: reveal many deep nodes (expanding their ancestors), then scroll with many boxes
// drawn and count frames in 2 s.
await page.fill('#ws-search', 'core_attention');
await page.waitForFunction(() => document.querySelectorAll('.ws-results li').length > 0);
const hits = await page.$$eval('.ws-results li', (lis) => lis.length);
for (let i = 0; i < Math.min(hits, 60); ++i) await page.locator('.ws-results li').nth(i).click();
for (let i = 0; i < 8; ++i) await page.press('[data-testid=pane-debug] svg', 's');
await page.waitForTimeout(300);
out.boxes = await page.evaluate(() => document.querySelectorAll('[data-testid=pane-debug] g.node').length);
out.pan_fps = await page.evaluate(async () => {
  const svg = document.querySelector('[data-testid=pane-debug] svg');
  let frames = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 2000) {
    svg.dispatchEvent(new WheelEvent('wheel', { deltaY: 40, bubbles: true, cancelable: true }));
    await new Promise((r) => requestAnimationFrame(r));
    frames += 1;
  }
  return frames / ((performance.now() - t0) / 1000);
});
console.log(JSON.stringify(out));
await browser.close();
server.kill();
