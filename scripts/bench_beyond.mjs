// Benchmark (not a test) of the navigation aids on 200,000 nodes per side (web-ui BEY-08/09): a
// generated compare with one diverging layer, opened in headless Chromium; times the badges of the
// collapsed graph (stored by the engine, and computed by the worker for an msProbe file without
// vp_badges) and First divergence in one action. Moved out of tests/browser/test_beyond.mjs (issue
// 23): a benchmark is not a test. Prints one JSON line.
//   node scripts/bench_beyond.mjs [--db existing.vis.db]     (env VISPROBE_BIG_DB does the same)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, launchChromium } from '../tests/browser/harness.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const native = resolve(root, process.env.VISPROBE_NATIVE || join('build', 'native', 'visprobe'));
const argDb = process.argv.indexOf('--db') >= 0 ? process.argv[process.argv.indexOf('--db') + 1] : '';
if (argDb) process.env.VISPROBE_BIG_DB = resolve(argDb);
const sql = (file, q) => JSON.parse(execFileSync('sqlite3', ['-json', file, q]).toString() || '[]');
const tmp = mkdtempSync(join(tmpdir(), 'visprobe_bench_beyond_'));
const { server, origin } = await startServer(join(root, 'build', 'web'));
const browser = await launchChromium();
const badgesDrawn = (page) => page.evaluate(() => Promise.all(window.visprobeGraph.panes.map((p) => p.badgesReady)));
const pane = (page, i, fn, arg) => page.evaluate(([i2, f, a]) => (0, eval)(f)(window.visprobeGraph.panes[i2], a), [i, fn.toString(), arg]);
async function openDb(file) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.setViewportSize({ width: 1500, height: 1100 });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(origin + '/');
  await page.setInputFiles('#pick-db', file);
  await page.waitForSelector('[data-testid=pane-debug] g.node', { timeout: 600000 });
  await badgesDrawn(page);
  return { page, context, errors };
}
try {

  const big = process.env.VISPROBE_BIG_DB || (() => {
    const dir = join(tmp, 'big');
    execFileSync('python3', [join(root, 'scripts', 'gen_dump.py'), join(dir, 't'), '--golden', join(dir, 'g'), '--layers', '64', '--target-mb', '210',
                             '--diverge-layer', '40', '--seed', '1'], { stdio: 'pipe' });
    execFileSync(native, ['graph_visualize', '-tp', join(dir, 't'), '-gp', join(dir, 'g'), '-o', join(dir, 'out')], { stdio: 'pipe' });
    // The engine's file is 1.3 GB (the items' JSON texts); sql.js holds a database twice while it
    // opens, so the tab gets it without input_data / output_data, which neither the navigator nor
    // the badges read (580 MB).
    const file = join(dir, 'out', readdirSync(join(dir, 'out')).find((f) => f.endsWith('.vis.db')));
    execFileSync('sqlite3', [file, "UPDATE tb_nodes SET input_data = '{}', output_data = '{}'; VACUUM;"]);
    return file;
  })();
  const nodes = sql(big, "SELECT count(*) AS n FROM tb_nodes WHERE data_source = 'NPU'")[0].n;
  const figures = { nodes };
  for (const [label, file] of [['stored', big], ['computed', null]]) {
    let path = file;
    if (!path) {
      path = join(tmp, 'big_msprobe_like.vis.db');
      copyFileSync(big, path);
      execFileSync('sqlite3', [path, 'DROP TABLE vp_badges;']);
    }
    const { page, context, errors } = await openDb(path);
    // Let the session copy (BEY-03) finish first: it holds the worker while it exports.
    await page.waitForFunction(() => document.querySelector('[data-testid=workspace]').dataset.session !== 'pending', null, { timeout: 120000 });
    // Badges of the fully collapsed graph: first load (for msProbe files: computed in the worker),
    // then fetch + draw again.
    figures[`badges_${label}_first_load_ms`] = Number(await page.getAttribute('[data-testid=pane-debug]', 'data-badge-fetch-ms'));
    const ms = await pane(page, 0, async (p) => {
      const t0 = performance.now();
      await p.reloadBadges();
      p.draw(true);
      return { total: performance.now() - t0, pills: p.pills };
    });
    figures[`badges_${label}_ms`] = Number(ms.total.toFixed(0));
    figures[`badges_${label}_pills`] = ms.pills;
    if (label === 'stored') {
      // One action: click, then the first diverging node is selected, revealed and centred.
      const t = await page.evaluate(async () => {
        const t0 = performance.now();
        document.querySelector('[data-testid=bar-first]').click();
        await new Promise((res) => { const poll = () => (window.visprobeGraph.panes[0].selected ? res() : setTimeout(poll, 5)); poll(); });
        await new Promise((res) => requestAnimationFrame(res));
        return performance.now() - t0;
      });
      figures.first_divergence_ms = Number(t.toFixed(0));
      figures.first_node = await pane(page, 0, (p) => p.selected.name);
      const chain = await pane(page, 0, (p) => { const c = []; for (let a = p.selected; a; a = a.parent) c.push(a.name); return c; });
      assert.ok(chain.some((a) => a.includes('decoder.layers.40.')), chain.join(' < '));
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
  console.log(`# beyond: ${JSON.stringify(figures)}`);
} finally {
  await browser.close();
  server.kill();
  rmSync(tmp, { recursive: true, force: true });
}
