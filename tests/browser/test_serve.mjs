// Issue 48 in Chromium: the page served by `visprobe serve LOGDIR` starts with the run list (graph and
// trend databases, dump and monitor folders), opens a database in one click (read lazily over HTTP
// Range), opens two trend databases together, and starts a build and a data2db on the server from
// the page: progress shown, the result listed and equal row for row to the CLI's, and a cancel that
// leaves nothing. Without the token the page is refused.
//   node --test tests/browser/test_serve.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, fixture, graphDb, data2db, msprobeRows as rowsOf, startVisprobeServe, assertNoErrors } from './harness.mjs';

const dumps = (side) => fixture('msprobe-real-dumper', side);
let logdir;

const suite = browserSuite({
  prefix: 'visprobe_serve_page_',
  // LOGDIR: three dump folders, a graph database and two trend databases built from one of them.
  setup: (s) => {
    logdir = join(s.tmp, 'logs');
    mkdirSync(join(logdir, 'runs'), { recursive: true });
    cpSync(dumps('pt_tensor_target'), join(logdir, 'dumps', 'target'), { recursive: true });
    cpSync(dumps('pt_tensor_golden'), join(logdir, 'dumps', 'golden'), { recursive: true });
    cpSync(dumps('dist_tp2pp2_target'), join(logdir, 'dumps', 'dist'), { recursive: true });
    graphDb(join(logdir, 'runs'), ['-tp', join(logdir, 'dumps', 'dist')]);
    data2db(join(logdir, 'dumps', 'dist'), join(logdir, 'runs', 'a'));
    data2db(join(logdir, 'dumps', 'dist'), join(logdir, 'runs', 'b'));
  },
  // The page comes from `visprobe serve LOGDIR`, at the address it prints (with its token).
  serve: () => startVisprobeServe(logdir),
});

/** The page at `address` (default: the served page with its token), 1600 x 1000. @param {string} [address] */
const openPage = (address) => suite.open({ url: address });

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
  assertNoErrors(errors);
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
  assertNoErrors(errors);
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
  const want = rowsOf(graphDb(join(suite.tmp, 'cli'), ['-tp', join(logdir, 'dumps', 'target'), '-gp', join(logdir, 'dumps', 'golden'), '-fm']));
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
  assertNoErrors(errors);
  await context.close();
});

test('a build cancelled from the page leaves nothing; no token, no page', async () => {
  const { page, context, errors } = await openPage();
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
  assertNoErrors(errors);
  await context.close();
  const bare = await openPage(suite.home.replace(/\?token=.*/, ''));
  assert.match(await bare.page.textContent('body'), /open the URL with its token/);
  // The refusal itself is the only failure: the 401 of the page (and of the icon Chromium then asks for).
  assertNoErrors(bare.errors, [/^console: Failed to load resource: the server responded with a status of 401 \(Unauthorized\)/]);
  await bare.context.close();
});
