// The README's screenshots (issue 19): the main views at 1600 x 1000 CSS pixels, light and dark,
// saved at half scale as PNG into docs/img/ (small enough to commit). Inputs are generated here
// (scripts/gen_dump.py, scripts/gen_trend_data.py) and built with the native CLI.
//   node scripts/screenshots.mjs            (needs build/native and build/web)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launchChromium, root } from '../tests/browser/harness.mjs';

const native = join(root, 'build', 'native', 'visprobe');
const outDir = join(root, 'docs', 'img');
mkdirSync(outDir, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'visprobe_shots_'));

const gen = join(tmp, 'gen');
execFileSync('python3', [join(root, 'scripts', 'gen_dump.py'), join(gen, 't'), '--golden', join(gen, 'g'), '--layers', '12',
                         '--hidden', '64', '--diverge-layer', '7', '--overflow-layer', '2', '--seed', '7'], { stdio: 'pipe' });
execFileSync(native, ['graph_visualize', '-tp', join(gen, 't'), '-gp', join(gen, 'g'), '-o', join(tmp, 'out'), '-oc'], { stdio: 'pipe' });
const db = join(tmp, 'out', readdirSync(join(tmp, 'out')).find((f) => f.endsWith('.vis.db')));
const trendIn = join(tmp, 'trend_in');
execFileSync('python3', [join(root, 'scripts', 'gen_trend_data.py'), 'dump', trendIn, '--seed', '5', '--layers', '4', '--ranks', '8',
                         '--steps', '6'], { stdio: 'pipe' });
execFileSync(native, ['data2db', '--data', trendIn, '--db', join(tmp, 'trend'), '--format', 'dump'], { stdio: 'pipe' });
const trendDb = join(tmp, 'trend', 'dump_data.trend.db');

const { server, origin } = await startServer(join(root, 'build', 'web'));
const browser = await launchChromium();
try {
  for (const scheme of ['light', 'dark']) {
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 0.5, colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(origin + '/');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    const shot = (name) => page.screenshot({ path: join(outDir, `${name}_${scheme}.png`) });
    await shot('start');
    await page.setInputFiles('#pick-db', db);
    await page.waitForSelector('[data-testid=pane-bench] g.node');
    await page.evaluate(() => Promise.all(window.visprobeGraph.panes.map((p) => p.badgesReady)));
    // First divergence: the diverging layer revealed on both sides, its details docked below.
    await page.click('[data-testid=bar-first]');
    await page.waitForFunction(() => window.visprobeGraph.panes[1].highlight);
    await page.waitForTimeout(400);
    await shot('graph_compare');
    await page.setInputFiles('#pick-db', trendDb);
    const idle = () => page.waitForFunction(() => window.__visprobeTrend && window.__visprobeTrend.idle() && window.__visprobeTrend.loads() > 0);
    await idle();
    // The generated run has a clipped 1e9 value: the quantile scale shows the structure the linear
    // one flattens; two cells clicked give the line chart two series.
    await page.selectOption('[data-testid=tr-scale]', 'quantile');
    await idle();
    for (const [x, y] of [[0, 0], [3, 0]]) {
      const p = await page.evaluate(([dx, dy]) => window.__visprobeTrend.cellPoint(dx, dy), [x, y]);
      await page.mouse.click(p.x, p.y);
      await idle();
    }
    await page.mouse.move(2, 2);
    await page.waitForTimeout(300);
    await shot('trend_heatmap');
    await context.close();
  }
} finally {
  await browser.close();
  server.kill();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`screenshots in ${outDir}: ${readdirSync(outDir).join(', ')}`);
