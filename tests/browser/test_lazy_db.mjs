// Issue 20 in the page: a multi-GB .vis.db made by the CLI opens lazily, from a dropped file and from
// index.html?db=URL (HTTP Range requests to scripts/static_server.py): the graph is drawn within
// 15 s, all of this test's Chromium processes together stay under 2,000 MB resident (their Pss
// from /proc, sampled every 100 ms from the drop to the end: a sum of Rss counts shared pages once
// per process), and expand, search and First divergence each answer within 1 s (a guard with the
// harness's slack, x 3, more under load, unless VISPROBE_STRICT_PERF=1: other suites share the 2 cores). On the
// dropped file every statement the views ran is checked with EXPLAIN QUERY PLAN (no table scan of
// tb_nodes, vp_badges or tb_stack), and the same holds over HTTP (the page keeps no session copy
// of a hosted file, which read all of it: 2 GB and 27 s in the background).
// The database is a compare of 5 ranks (one generated rank pair, hard-linked into rank
// folders) of about 64 MB of dump.json a side each (2.1 GB); it is made here and deleted after.
//   node --test tests/browser/test_lazy_db.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, statSync, linkSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, webDir, genDump, graphDb, startVisprobeServe, pane, timing, contention, assertNoErrors } from './harness.mjs';

const RANKS = 5;
// Playwright's default window: the size the memory bound and the timings were measured at.
const VIEWPORT = { width: 1280, height: 720 };
let db, hostedName;

/**
 * Resident memory (MB) of this test's Chromium: every Chromium process below this test process,
 * each counted by its proportional share (Pss, smaps_rollup) so that pages shared between them are
 * not counted twice; VmRSS sums, which count them in every process, are returned beside it.
 */
function chromiumMemMb() {
  const parent = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const top = process.pid;   // this test process: the Chromium it launched is below it
  let pss = 0, rss = 0;
  for (const pid of parent.keys()) {
    let p = pid;
    while (p > 1 && p !== top) p = parent.get(p) ?? 0;
    if (p !== top) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('chromium')) continue;   // not the static server
      const roll = readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1');
      pss += Number((/^Pss:\s+(\d+) kB/m.exec(roll) || [0, 0])[1]);
      rss += Number((/^Rss:\s+(\d+) kB/m.exec(roll) || [0, 0])[1]);
    } catch { /* gone */ }
  }
  return { pss: pss / 1024, rss: rss / 1024 };
}

function sampler() {
  let peak = 0, peakRss = 0;
  const tick = () => { const m = chromiumMemMb(); peak = Math.max(peak, m.pss); peakRss = Math.max(peakRss, m.rss); };
  tick();
  const timer = setInterval(tick, 100);
  timer.unref();   // never what keeps the test process alive
  return { stop: () => { clearInterval(timer); tick(); return peak; }, rss: () => peakRss };
}

const suite = browserSuite({
  prefix: 'visprobe_lazy_',
  setup: (s) => {
    // VISPROBE_LAZY_DB=FILE reuses a database made before (development only).
    if (process.env.VISPROBE_LAZY_DB) db = process.env.VISPROBE_LAZY_DB;
    else makeDb(s.tmp);
    // The same file hosted beside the page, for ?db=URL.
    hostedName = `lazy-test-${process.pid}.vis.db`;
    symlinkSync(db, join(webDir, hostedName));
  },
  teardown: () => { try { unlinkSync(join(webDir, hostedName)); } catch { /* not made */ } },
});

/** One generated rank pair, hard-linked into RANKS rank folders a side, compared by the CLI. @param {string} tmp */
function makeDb(tmp) {
  const one = join(tmp, 'one');
  genDump(join(one, 'target'), ['--golden', join(one, 'golden'), '--noise', '0.001', '--diverge-layer', '2', '--target-mb', '64', '--seed', '3',
                                '--layout', 'files', '--manifest', join(tmp, 'manifest.json')]);
  for (const side of ['target', 'golden']) {
    for (let r = 0; r < RANKS; r++) {
      const dir = join(tmp, side, `rank${r}`);
      mkdirSync(dir, { recursive: true });
      for (const f of ['construct.json', 'dump.json', 'stack.json']) linkSync(join(one, side, f), join(dir, f));
    }
  }
  db = graphDb(join(tmp, 'out'), ['-tp', join(tmp, 'target'), '-gp', join(tmp, 'golden')]);
}

// The waits for an end state give up after 5 minutes: a guard against a hang, not a budget (a loaded
// machine stretches these reads over HTTP to tens of seconds: the name list over HTTP took more than
// 30 s at a load of 7 x the cores). The times that matter are printed (timing(); held to their budgets only under VISPROBE_STRICT_PERF=1).
const HANG = { timeout: 300000 };

/** Opens the database (a drop, or ?db=), then times expand, search and First divergence. */
async function exercise(open, how) {
  const size = statSync(db).size;
  assert.ok(size > 2e9, `the database is multi-GB (${(size / 1e9).toFixed(2)} GB)`);
  const { page, context, errors } = await suite.open({ url: null, viewport: VIEWPORT });
  const mem = sampler();
  const t0 = Date.now();
  await open(page);
  await page.waitForSelector('[data-testid=pane-debug] g.node', HANG);
  const drawn = Date.now() - t0;
  assert.equal(await page.evaluate(() => document.getElementById('error').hidden), true, await page.textContent('#error'));
  timing('graph drawn', drawn, 15000);
  const stats = await page.evaluate(() => window.visprobeEngine.dbStats());
  assert.equal(stats.lazy, true);
  // The all-graphs LIKE table (a full scan) is not offered on a file this size.
  assert.equal(await page.isHidden('#search'), true);
  assert.ok(stats.bytesRead < size / 3, `read ${(stats.bytesRead / 1e6).toFixed(0)} MB of ${(size / 1e6).toFixed(0)} MB to draw`);

  // Expand: the first module with children.
  const shown = await page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.map((g) => g.dataset.name));
  const module = await pane(page, 0, (p, names) => names.find((n) => {
    const node = p.nodes.get(n);
    return node && node.subNames.length && !node.expanded;
  }), shown);
  assert.ok(module, 'a module to expand');
  let t = Date.now();
  await page.dblclick(`[data-testid=pane-debug] g.node[data-name="${module}"] rect.header`);
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].nodes.get(n).expanded, module, HANG);
  const expand = Date.now() - t;

  // Search: a substring of many names.
  await page.click('[data-testid=rail-search]');
  await page.waitForSelector('[data-testid=search-list][data-query=""]', HANG);
  t = Date.now();
  await page.fill('#ws-search', 'linear');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-list]').dataset.query === 'linear', null, HANG);
  const search = Date.now() - t;
  assert.ok(Number(/\((\d+)\)/.exec(await page.textContent('[data-testid=search] .ws-count'))[1]) > 0, 'search found nodes');

  // The engine module loads in the background once the database is open (no view asked for it
  // yet), so First divergence, whose legend thresholds come from the engine, does not wait for it.
  let engineState = '';
  for (const t1 = Date.now(); Date.now() - t1 < HANG.timeout; await new Promise((r) => setTimeout(r, 100))) {
    engineState = (await page.evaluate(() => window.visprobeEngine.dbStats())).engine;
    if (engineState === 'loaded') break;
  }
  assert.equal(engineState, 'loaded', 'the engine module loaded in the background after the database opened');
  // First divergence: the generated drift from layer 2 on.
  t = Date.now();
  await page.click('[data-testid=bar-first]');
  await page.waitForFunction(() => window.visprobeGraph.panes[0].selected, null, HANG);
  const first = Date.now() - t;
  const peak = mem.stop();
  await otherViews(page);
  checkPlans(await page.evaluate(() => window.visprobeEngine.queryPlans()));
  console.log(`# ${(size / 1e9).toFixed(2)} GB ${how}: drawn ${drawn} ms, expand ${expand} ms, search ${search} ms, first divergence ${first} ms, ` +
              `read ${(stats.bytesRead / 1e6).toFixed(0)} MB to draw, Chromium peak ${peak.toFixed(0)} MB (Pss; Rss sum ${mem.rss().toFixed(0)} MB), ` +
              `load ${contention().toFixed(2)}x the cores`);
  timing('expand', expand, 1000);
  timing('search', search, 1000);
  timing('first divergence', first, 1000);
  assert.ok(peak < 2000, `all Chromium processes together ${peak.toFixed(0)} MB resident (< 2,000 MB)`);
  assertNoErrors(errors);
  await context.close();
}

/** The other views that query the database: the detail and its cross-rank strip, filter, worst nodes, matching. */
async function otherViews(page) {
  await page.waitForSelector('[data-testid=detail] [data-testid=strip]', HANG);
  const settled = (n) => page.waitForFunction((k) => window.__queries >= k, n, HANG);
  await page.evaluate(() => {
    // Counts the answers the views receive, so each step below waits for its own query.
    window.__queries = 0;
    const e = window.visprobeEngine;
    const q = e.query.bind(e);
    e.query = (...a) => q(...a).finally(() => { window.__queries++; });
  });
  await page.click('[data-testid=rail-filter]');
  await page.check('[data-testid=filter-error]');
  await settled(1);
  await page.click('[data-testid=rail-navigator]');
  await page.evaluate(() => { document.querySelector('[data-testid=worst]').open = true; });
  await settled(2);
  await page.click('[data-testid=rail-matching]');
  // Its four name lists loaded (data-ready is set once they are): their statements are planned too.
  await page.waitForSelector('[data-testid=matching][data-ready]', HANG);
}

/**
 * Issue 20: every statement the views ran on the file uses an index. SQLite's plan names a table
 * it reads row by row as `SCAN <table or alias>` (a `SCAN ... COVERING INDEX` too reads a whole
 * index); a lookup or a range along an index is `SEARCH`. tb_config (one row) may be scanned.
 */
function checkPlans(plans) {
  const big = /\b(tb_nodes|vp_badges|tb_stack)\b(?:\s+(?:AS\s+)?(?!WHERE|ON|LEFT|JOIN|CROSS|INNER|ORDER|GROUP|LIMIT|SET|USING)([A-Za-z_]\w*))?/gi;
  const bad = [];
  let tables = 0;
  for (const { sql, plan } of plans) {
    const names = new Set();
    for (const m of sql.matchAll(big)) { names.add(m[1].toLowerCase()); if (m[2]) names.add(m[2].toLowerCase()); }
    if (!names.size) continue;
    tables++;
    console.log(`# plan: ${sql.slice(0, 160)}${sql.length > 160 ? '...' : ''}\n#   ${plan.join('\n#   ')}`);
    for (const line of plan) {
      const m = /^(?:SCAN|ERROR)\s+(\S+)/.exec(line);
      if (line.startsWith('ERROR') || (m && names.has(m[1].toLowerCase()))) bad.push(`${line}  <=  ${sql}`);
    }
  }
  assert.ok(tables >= 12, `the views ran ${tables} statements on tb_nodes / vp_badges / tb_stack`);
  assert.deepEqual(bad, [], 'every statement on the large tables uses an index');
}

test('a multi-GB .vis.db dropped on the page opens lazily', async () => {
  await exercise(async (page) => {
    await page.goto(suite.home);
    await page.setInputFiles('#pick-db', db);
  }, 'dropped');
});

test('index.html?db=URL opens a hosted multi-GB .vis.db lazily over HTTP Range requests', async () => {
  await exercise(async (page) => { await page.goto(`${suite.origin}/?db=${hostedName}`); }, 'over HTTP');
});

test('visprobe serve lists the multi-GB .vis.db and opens it lazily from the run list', async () => {
  // Issue 48: the same file, served by the native server over its folder; one click in the run list.
  const folder = join(suite.tmp, 'served');
  mkdirSync(folder, { recursive: true });
  linkSync(db, join(folder, 'big.vis.db'));
  const serve = await startVisprobeServe(folder);
  try {
    await exercise(async (page) => {
      await page.goto(serve.url);
      await page.click('[data-testid=server-runs] tr[data-path="big.vis.db"] button');
    }, 'from visprobe serve');
  } finally {
    serve.stop();
  }
});

test('?db= on another site, or on a server without Range support, says which and what to do', async () => {
  const { page, context, errors } = await suite.open({ url: `${suite.origin}/?db=${encodeURIComponent('https://example.org/x.vis.db')}`, viewport: VIEWPORT });
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  assert.match(await page.textContent('#error'), /another site.*download the file/);
  // A server that ignores Range (python's plain http.server) on the page's own origin is simulated
  // by a path the static server answers without a file: a 404 names the status.
  await page.goto(`${suite.origin}/?db=missing-${process.pid}.vis.db`);
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  assert.match(await page.textContent('#error'), /404/);
  // The missing file's 404 is the one failed load.
  assertNoErrors(errors, [/^console: Failed to load resource: the server responded with a status of 404 .*missing-\d+\.vis\.db/]);
  await context.close();
});
