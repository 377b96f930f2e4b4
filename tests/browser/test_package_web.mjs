// Issue 49: the static page of a release (dist/visprobe-web-<version>.zip, scripts/package.sh) unzipped
// into a fresh folder and served by `python3 -m http.server` (a host that knows nothing of visprobe)
// shows its version and builds the sample in Chromium; its one-file visprobe.html opens from disk.
//   node --test tests/browser/test_package_web.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { browserSuite, root, runBuild, graphDrawn, assertNoErrors } from './harness.mjs';

const dist = process.env.VISPROBE_DIST || join(root, 'dist');
let dir, version;

const freePort = () => new Promise((ok) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => ok(p)); });
});

const suite = browserSuite({
  prefix: 'visprobe_webzip_',
  // The newest web zip, unzipped into the suite's folder.
  setup: (s) => {
    const zips = readdirSync(dist).filter((f) => /^visprobe-web-.+\.zip$/.test(f))
      .sort((a, b) => statSync(join(dist, a)).mtimeMs - statSync(join(dist, b)).mtimeMs);
    assert.ok(zips.length, `no visprobe-web-*.zip in ${dist}: run scripts/package.sh web`);
    const zip = zips[zips.length - 1];
    version = /^visprobe-web-(.+)\.zip$/.exec(zip)[1];
    execFileSync('unzip', ['-q', join(dist, zip), '-d', s.tmp]);
    dir = join(s.tmp, `visprobe-web-${version}`);
  },
  // Served by Python's plain http.server (no Range, no MIME types of ours), not the tests' static server.
  serve: async () => {
    const port = await freePort();
    const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], { stdio: 'ignore' });
    const origin = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; ++i) {
      try { await fetch(origin + '/index.html'); break; } catch { await new Promise((r) => setTimeout(r, 100)); }
    }
    return { origin, url: `${origin}/index.html`, stop: () => server.kill() };
  },
});

test('the web zip on a plain static host: its version, and the sample builds', async () => {
  const { page, context, errors } = await suite.open();
  assert.equal(await page.textContent('[data-testid=app-version]'), version);
  await page.click('#load-sample');
  assert.match(await runBuild(page), /^ready/);
  await graphDrawn(page);
  assertNoErrors(errors);
  await context.close();
});

test('the one-file visprobe.html of the zip opens from disk with its version', async () => {
  const { page, context, errors } = await suite.open({ url: 'file://' + join(dir, 'visprobe.html') });
  assert.equal(await page.textContent('[data-testid=app-version]'), version);
  await page.waitForSelector('#pick-target', { state: 'attached' });
  assertNoErrors(errors);
  await context.close();
});
