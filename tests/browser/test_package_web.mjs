// Issue 49: the static page of a release (dist/visprobe-web-<version>.zip, scripts/package.sh) unzipped
// into a fresh folder and served by `python3 -m http.server` (a host that knows nothing of visprobe)
// shows its version and builds the sample in Chromium; its one-file visprobe.html opens from disk.
//   node --test tests/browser/test_package_web.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { launchChromium, openPage, root } from './harness.mjs';

const dist = process.env.VISPROBE_DIST || join(root, 'dist');
let tmp, dir, version, server, origin, browser;

const freePort = () => new Promise((ok) => {
  const s = createServer();
  s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => ok(p)); });
});

before(async () => {
  const zips = readdirSync(dist).filter((f) => /^visprobe-web-.+\.zip$/.test(f))
    .sort((a, b) => statSync(join(dist, a)).mtimeMs - statSync(join(dist, b)).mtimeMs);
  assert.ok(zips.length, `no visprobe-web-*.zip in ${dist}: run scripts/package.sh web`);
  const zip = zips[zips.length - 1];
  version = /^visprobe-web-(.+)\.zip$/.exec(zip)[1];
  tmp = mkdtempSync(join(tmpdir(), 'visprobe_webzip_'));
  execFileSync('unzip', ['-q', join(dist, zip), '-d', tmp]);
  dir = join(tmp, `visprobe-web-${version}`);
  const port = await freePort();
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], { stdio: 'ignore' });
  origin = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; ++i) {
    try { await fetch(origin + '/index.html'); break; } catch { await new Promise((r) => setTimeout(r, 100)); }
  }
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
  rmSync(tmp, { recursive: true, force: true });
});

test('the web zip on a plain static host: its version, and the sample builds', async () => {
  const { page, context, errors } = await openPage(browser, origin + '/index.html', { viewport: { width: 1600, height: 1000 } });
  assert.equal(await page.textContent('[data-testid=app-version]'), version);
  await page.click('#load-sample');
  await page.waitForFunction(() => !document.getElementById('run').disabled, null, { timeout: 60000 });
  await page.click('#run');
  await page.waitForFunction(() => /^(ready|failed)/.test(document.getElementById('status').textContent), null, { timeout: 180000 });
  assert.match(await page.textContent('#status'), /^ready/);
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the one-file visprobe.html of the zip opens from disk with its version', async () => {
  const { page, context, errors } = await openPage(browser, 'file://' + join(dir, 'visprobe.html'));
  assert.equal(await page.textContent('[data-testid=app-version]'), version);
  await page.waitForSelector('#pick-target', { state: 'attached' });
  assert.deepEqual(errors, []);
  await context.close();
});
