// Benchmark (not a test), issue 20: a compare of two dump folders with about 2 GB of dump.json in
// all (one generated rank pair, hard-linked into RANKS rank folders a side), run three ways:
//   page    drop both folders on the app in Chromium, Compare: the worker's wasm engine reads them
//           from WORKERFS and writes the database into OPFS; timed from the click to the first box
//           of the graph drawn (drop-to-ready), with the peak Pss of all Chromium processes;
//   wasm    the same engine build under Node (build/wasm/visprobe.js graph_visualize);
//   native  build/native/visprobe graph_visualize (threads: one per core).
// Prints one markdown row each: dump.json MB, seconds, MB/s, rows.
//   node scripts/bench_page_build.mjs [--mb-per-side-rank 200] [--ranks 5] [--only page,wasm,native] [--profile disk|private]
// Inputs are generated once into bench-out/page2g/ and reused.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, launchChromium, launchChromiumProfile, root } from '../tests/browser/harness.mjs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

const arg = (name, def) => {
  const i = process.argv.indexOf('--' + name);
  return i > 0 ? process.argv[i + 1] : def;
};
const MB = Number(arg('mb-per-side-rank', '200'));
const RANKS = Number(arg('ranks', '5'));
const only = new Set(String(arg('only', 'page,wasm,native')).split(','));
const base = join(root, 'bench-out', `page2g_${MB}x${RANKS}`);
const native = join(root, 'build', 'native', 'visprobe');
const wasmCli = join(root, 'build', 'wasm', 'visprobe.js');

function inputs() {
  if (existsSync(join(base, 'ready'))) return;
  rmSync(base, { recursive: true, force: true });
  const one = join(base, 'one');
  execFileSync('python3', [join(root, 'scripts', 'gen_dump.py'), join(one, 'target'), '--golden', join(one, 'golden'),
                           '--noise', '0.001', '--diverge-layer', '2', '--target-mb', String(MB), '--seed', '5',
                           '--layout', 'files'], { stdio: 'inherit' });
  for (const side of ['target', 'golden']) {
    for (let r = 0; r < RANKS; r++) {
      const dir = join(base, side, `rank${r}`);
      mkdirSync(dir, { recursive: true });
      for (const f of ['construct.json', 'dump.json', 'stack.json']) linkSync(join(one, side, f), join(dir, f));
    }
  }
  execFileSync('touch', [join(base, 'ready')]);
}

const dumpBytes = () => ['target', 'golden'].reduce((n, side) =>
  n + readdirSync(join(base, side)).reduce((m, r) => m + statSync(join(base, side, r, 'dump.json')).size, 0), 0);

function pssMb() {
  let pss = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('chromium')) continue;
      pss += Number((/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1')) || [0, 0])[1]);
    } catch { /* gone */ }
  }
  return pss / 1024;
}

function cli(cmd, args) {
  const out = join(base, 'out_' + cmd.replace(/\W/g, '_'));
  rmSync(out, { recursive: true, force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd === 'wasm' ? 'node' : native,
    [...(cmd === 'wasm' ? ['--no-experimental-fetch', wasmCli] : []), 'graph_visualize', '-tp', join(base, 'target'),
     '-gp', join(base, 'golden'), '-o', out, ...args],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_PATH: '/usr/share/nodejs' } });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) throw new Error(`${cmd}: ${String(r.stderr).slice(-2000)}`);
  const db = join(out, readdirSync(out).find((f) => f.endsWith('.vis.db')));
  const rows = Number(execFileSync('sqlite3', [db, 'SELECT count(*) FROM tb_nodes']).toString().trim());
  const size = statSync(db).size;
  rmSync(out, { recursive: true, force: true });
  return { s, rows, size };
}

async function page() {
  const { server, origin } = await startServer(join(root, 'build', 'web'));
  // A profile on disk, as a user's browser has (default); --profile private: a private window,
  // whose OPFS lives in memory.
  const priv = arg('profile', 'disk') === 'private';
  const profile = priv ? '' : mkdtempSync(join(tmpdir(), 'visprobe_profile_'));
  const browser = priv ? await launchChromium() : null;
  try {
    const context = browser ? await browser.newContext() : await launchChromiumProfile(profile);
    const p = await context.newPage();
    await p.goto(origin + '/');
    await p.setInputFiles('#pick-target', join(base, 'target'));
    await p.setInputFiles('#pick-golden', join(base, 'golden'));
    await p.waitForFunction(() => !document.getElementById('run').disabled, null, { timeout: 60000 });
    let peak = 0;
    const timer = setInterval(() => { peak = Math.max(peak, pssMb()); }, 250);
    const t0 = Date.now();
    await p.click('#run');
    await p.waitForFunction(() => /^(ready|failed|cancelled)/.test(document.getElementById('status').textContent), null, { timeout: 3600e3 });
    const status = await p.textContent('#status');
    if (!/^ready/.test(status)) throw new Error(`page: ${status}: ${await p.textContent('#error')}`);
    const built = (Date.now() - t0) / 1e3;
    await p.waitForSelector('[data-testid=pane-debug] g.node', { timeout: 120000 });
    const s = (Date.now() - t0) / 1e3;
    clearInterval(timer);
    const stats = await p.evaluate(() => window.visprobeEngine.dbStats());
    const rows = Number(await p.textContent('[data-testid=rows]'));
    await context.close();
    return { s, built, rows, size: stats.size, stored: stats.opfs ? 'OPFS' : 'memory', peak };
  } finally {
    if (browser) await browser.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    server.kill();
  }
}

inputs();
const mb = dumpBytes() / 1e6;
console.log(`# uptime: ${execFileSync('uptime').toString().trim()}`);
console.log('| run | dump.json MB | drop-to-ready s | MB/s | rows | .vis.db MB | notes |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
const row = (name, r, note) => console.log(`| ${name} | ${mb.toFixed(0)} | ${r.s.toFixed(1)} | ${(mb / r.s).toFixed(1)} | ${r.rows} | ${(r.size / 1e6).toFixed(0)} | ${note} |`);
if (only.has('native')) row('native CLI', cli('native', []), 'threads: one per core');
if (only.has('wasm')) row('wasm CLI (Node)', cli('wasm', []), 'one thread');
if (only.has('page')) {
  const r = await page();
  row('page (Chromium)', r, `built in ${r.built.toFixed(1)} s, then drawn; database in ${r.stored}; Chromium peak Pss ${r.peak.toFixed(0)} MB`);
}
