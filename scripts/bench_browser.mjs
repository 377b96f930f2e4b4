// Benchmark (not a test): time from "drop" (folders chosen) to database ready in headless
// Chromium for a generated compare, and the peak memory of the browser's processes.
//   node scripts/bench_browser.mjs TARGET_DIR GOLDEN_DIR   (serves build/web itself)
import { spawn, execSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { openOptions } from '../tests/browser/harness.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [target, golden] = process.argv.slice(2).map((p) => resolve(p));
const server = spawn('python3', [join(root, 'scripts', 'static_server.py'), join(root, 'build', 'web'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((res) => server.stdout.on('data', (d) => { const m = /serving (http:\/\/[^/]+)\//.exec(String(d)); if (m) res(m[1]); }));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
let peak = 0;
const sampler = setInterval(() => {
  try {
    const kb = execSync("ps -C chromium -o rss= | awk '{s+=$1} END {print s}'").toString().trim();
    peak = Math.max(peak, Number(kb) || 0);
  } catch { /* no process yet */ }
}, 200);
const page = await browser.newPage();
await page.goto(origin + '/');
const t0 = Date.now();
await page.setInputFiles('#pick-target', target);
if (golden) await page.setInputFiles('#pick-golden', golden);
await openOptions(page);
await page.check('#opt-oc');
await page.click('#run');
await page.waitForFunction(() => /^(ready|failed)/.test(document.getElementById('status').textContent), null, { timeout: 600000 });
const seconds = (Date.now() - t0) / 1000;
const status = await page.textContent('#status');
const rows = await page.textContent('[data-testid=rows]').catch(() => '?');
clearInterval(sampler);
console.log(JSON.stringify({ status, rows, seconds, peakBrowserRssMB: Math.round(peak / 1024) }));
await browser.close();
server.kill();
