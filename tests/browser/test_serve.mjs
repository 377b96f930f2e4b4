// Issue 48 in Chromium: the page served by `visprobe serve LOGDIR` starts with the run list (graph and
// trend databases, dump and monitor folders), opens a database in one click (read lazily over HTTP
// Range), opens two trend databases together, and starts a build and a data2db on the server from
// the page: progress shown, the result listed and equal row for row to the CLI's, and a cancel that
// leaves nothing. Without the token the page is refused.
//   node --test tests/browser/test_serve.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launchChromium, openPage as openAt, root } from './harness.mjs';

const shared = resolve(process.env.VISPROBE_SHARED || join(root, '..', 'shared'));
const fixture = (side) => join(shared, 'fixtures', 'msprobe-real-dumper', side);
const native = join(root, 'build', 'native', 'visprobe');
let server, url, browser, tmp, logdir;

const rowsOf = (db) => ['tb_nodes ORDER BY id', 'tb_stack ORDER BY id', 'tb_config']
  .map((q) => execFileSync('sqlite3', [db, `SELECT * FROM ${q}`], { maxBuffer: 1 << 30 }).toString());

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'visprobe_serve_page_'));
  logdir = join(tmp, 'logs');
  mkdirSync(join(logdir, 'runs'), { recursive: true });
  cpSync(fixture('pt_tensor_target'), join(logdir, 'dumps', 'target'), { recursive: true });
  cpSync(fixture('pt_tensor_golden'), join(logdir, 'dumps', 'golden'), { recursive: true });
  cpSync(fixture('dist_tp2pp2_target'), join(logdir, 'dumps', 'dist'), { recursive: true });
  execFileSync(native, ['graph_visualize', '-tp', join(logdir, 'dumps', 'dist'), '-o', join(logdir, 'runs')], { stdio: 'pipe' });
  execFileSync(native, ['data2db', '--data', join(logdir, 'dumps', 'dist'), '--db', join(logdir, 'runs', 'a')], { stdio: 'pipe' });
  execFileSync(native, ['data2db', '--data', join(logdir, 'dumps', 'dist'), '--db', join(logdir, 'runs', 'b')], { stdio: 'pipe' });
  server = spawn(native, ['serve', logdir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  url = await new Promise((ok, fail) => {
    let text = '';
    server.stdout.on('data', (d) => {
      text += d;
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/.exec(text);
      if (m) ok(m[0]);
    });
    server.on('exit', (c) => fail(new Error(`visprobe serve exited with ${c}: ${text}`)));
  });
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const openPage = (address = url) => openAt(browser, address, { viewport: { width: 1600, height: 1000 } });

const row = (kind, path) => `[data-testid=server-runs] tr[data-kind=${kind}][data-path="${path}"]`;

test('the run list: every kind under LOGDIR, searchable; a graph database opens in one click', async () => {
  const { page, context, errors } = await openPage();
  await page.waitForSelector(row('dump', 'dumps/dist'));
  const kinds = await page.$$eval('[data-testid=server-runs] tr', (rs) => rs.map((r) => `${r.dataset.kind} ${r.dataset.path}`));
  assert.ok(kinds.includes('dump dumps/target') && kinds.includes('dump dumps/golden'), kinds.join('\n'));
  assert.ok(kinds.includes('trend runs/a/dump_data.trend.db') && kinds.includes('trend runs/b/dump_data.trend.db'), kinds.join('\n'));
  const graph = kinds.find((k) => k.startsWith('graph runs/build_'));
  assert.ok(graph, kinds.join('\n'));
  await page.fill('#server-search', 'trend');
  assert.deepEqual(await page.$$eval('[data-testid=server-runs] tr', (rs) => rs.map((r) => r.dataset.kind)), ['trend', 'trend']);
  await page.fill('#server-search', '');
  await page.click(`${row('graph', graph.slice(6))} button`);
  await page.waitForSelector('[data-testid=pane-debug] g.node', { timeout: 60000 });
  const stats = await page.evaluate(() => window.visprobeEngine.dbStats());
  assert.equal(stats.lazy, true, 'read lazily over HTTP Range');
  assert.deepEqual(errors, []);
  await context.close();
});

test('two trend databases open together (A/B)', async () => {
  const { page, context, errors } = await openPage();
  await page.waitForSelector(row('trend', 'runs/a/dump_data.trend.db'));
  await page.check(`${row('trend', 'runs/a/dump_data.trend.db')} input[type=checkbox]`);
  await page.check(`${row('trend', 'runs/b/dump_data.trend.db')} input[type=checkbox]`);
  assert.match(await page.textContent('#server-open-selected'), /\(2\)/);
  await page.click('#server-open-selected');
  await page.waitForFunction(() => !document.getElementById('trend').hidden, null, { timeout: 60000 });
  await page.waitForFunction(() => window.__visprobeTrend && window.__visprobeTrend.idle() && document.querySelectorAll('#tr-db option').length === 2,
                             null, { timeout: 60000 });
  assert.deepEqual((await page.$$eval('#tr-db option', (os) => os.map((o) => o.textContent))).sort(),
                   ['a_dump_data.trend.db', 'b_dump_data.trend.db']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a build and a data2db started from the page run on the server; the result is listed and equals the CLI', async () => {
  const { page, context, errors } = await openPage();
  await page.waitForSelector(row('dump', 'dumps/target'));
  await page.click(`${row('dump', 'dumps/target')} button`);   // Build…: chosen as the target
  assert.equal(await page.inputValue('#server-target'), 'dumps/target');
  await page.selectOption('#server-golden', 'dumps/golden');
  await page.check('#server-fm');
  await page.fill('#server-output', 'runs');
  await page.click('#server-build-go');
  await page.waitForSelector('[data-testid=server-jobs] .server-job[data-state=done]', { timeout: 120000 });
  assert.match(await page.textContent('[data-testid=server-jobs] .server-job[data-state=done]'), /done/);
  const built = readdirSync(join(logdir, 'runs')).find((f) => f.startsWith('compare_'));
  assert.ok(built, 'the compare was written under the log folder');
  await page.waitForSelector(row('graph', `runs/${built}`), { timeout: 60000 });   // the list reloads when the job ends (a hang guard)
  const cli = join(tmp, 'cli');
  execFileSync(native, ['graph_visualize', '-tp', join(logdir, 'dumps', 'target'), '-gp', join(logdir, 'dumps', 'golden'), '-fm', '-o', cli], { stdio: 'pipe' });
  const want = rowsOf(join(cli, readdirSync(cli).find((f) => f.endsWith('.vis.db'))));
  assert.deepEqual(rowsOf(join(logdir, 'runs', built)), want);
  // Its Open button shows it.
  await page.click('[data-testid=server-jobs] .server-job[data-state=done] button.primary');
  await page.waitForSelector('[data-testid=pane-debug] g.node', { timeout: 60000 });

  // data2db from the list.
  await page.click('[data-testid=toolbar-intake]');
  await page.click(`${row('dump', 'dumps/dist')} button:has-text("Trend")`);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=server-jobs] .server-job[data-state=done]').length === 2,
                             null, { timeout: 120000 });
  const trendDb = readdirSync(join(logdir, 'runs')).find((f) => f.endsWith('.trend.db'));   // the form's output folder
  assert.ok(trendDb, readdirSync(join(logdir, 'runs')).join(','));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a build cancelled from the page leaves nothing; no token, no page', async () => {
  const { page, context } = await openPage();
  await page.waitForSelector(row('dump', 'dumps/dist'));
  const before = readdirSync(logdir).sort();
  await page.selectOption('#server-target', 'dumps/dist');
  await page.click('#server-build-go');
  const job = '[data-testid=server-jobs] .server-job:first-child';
  await page.waitForSelector(`${job}[data-state]`);
  await page.click(`${job} button:has-text("Cancel")`).catch(() => {});   // it may have finished already
  await page.waitForSelector(`${job}[data-state=cancelled], ${job}[data-state=done]`, { timeout: 120000 });
  const state = await page.getAttribute(job, 'data-state');
  if (state === 'cancelled') assert.deepEqual(readdirSync(logdir).sort(), before);
  await context.close();
  const bare = await openPage(url.replace(/\?token=.*/, ''));
  assert.match(await bare.page.textContent('body'), /open the URL with its token/);
  await bare.context.close();
});
