// Benchmark (not a test): drop-to-drawn on the page's sample in headless Chromium at 1600 x 1000.
// "Load the sample" fills both slots (the generated compare pair of scripts/make_sample.sh); the
// time runs from the Build click to the first frame with boxes in both panes. Prints one JSON line
// per run and the median.
//   node scripts/bench_sample.mjs [--web build/web] [--runs 5]    (the web folder needs sample/)
import { spawn } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, d) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : d; };
const web = resolve(opt('--web', join(root, 'build', 'web')));
const runs = Number(opt('--runs', 5));
const server = spawn('python3', [join(root, 'scripts', 'static_server.py'), web, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const origin = await new Promise((res) => server.stdout.on('data', (d) => { const m = /serving (http:\/\/[^/]+)\//.exec(String(d)); if (m) res(m[1]); }));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const times = [];
try {
  for (let i = 0; i < runs; ++i) {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(origin + '/');
    await page.click('#load-sample');
    // Both slots filled (their summaries name the sample) and the button says Compare.
    await page.waitForFunction(() => /sample target/.test(document.getElementById('layout-target').textContent)
      && /sample golden/.test(document.getElementById('layout-golden').textContent) && !document.getElementById('run').disabled,
    null, { timeout: 60000 });
    // From the click to the first frame where both panes have boxes (checked on every frame).
    await page.evaluate(() => {
      window.__t0 = performance.now();
      // When the engine's run ended (the status line says so), to split engine time from drawing.
      const st = document.getElementById('status');
      new MutationObserver(() => { if (!window.__tr && /rows in/.test(st.textContent)) window.__tr = performance.now(); })
        .observe(st, { childList: true, subtree: true, characterData: true });
      document.getElementById('run').click();
    });
    const ms = await page.waitForFunction(() => ['debug', 'bench'].every((s) => document.querySelector(`[data-testid=pane-${s}] g.node`))
      && Math.round(performance.now() - window.__t0), null, { polling: 'raf', timeout: 120000 }).then((h) => h.jsonValue());
    times.push(ms);
    const engineMs = await page.evaluate(() => (window.__tr ? Math.round(window.__tr - window.__t0) : null));
    console.log(JSON.stringify({ run: i + 1, drop_to_drawn_ms: ms, run_ended_ms: engineMs }));
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
}
const sorted = [...times].sort((a, b) => a - b);
console.log(JSON.stringify({ web, runs, median_ms: sorted[Math.floor(sorted.length / 2)], min_ms: sorted[0], max_ms: sorted[sorted.length - 1] }));
