// Issue 46, the first things a newcomer meets (the items fixed so far): a folder that lacks one of
// the files a build needs is named as such and Build stays off; a failed build started from the
// app's drawer closes the drawer onto its message (the error bar is what the eye finds there);
// "Load the sample" on a page with no sample beside it says so plainly; `/` focuses the search box,
// Enter there jumps to the first hit, Esc closes the shortcuts overlay.
//   node --test tests/browser/test_newcomer.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, launchChromium, openPage as openAt, root } from './harness.mjs';

const worked = (side) => join(root, 'tests', 'data', 'worked_example', side, 'step0', 'rank0');
const native = join(root, 'build', 'native', 'visprobe');
let server, origin, browser, tmp, db;

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'visprobe_newcomer_'));
  // The page without any sample beside it (a copy of build/web).
  const web = join(tmp, 'web');
  cpSync(join(root, 'build', 'web'), web, { recursive: true, filter: (p) => !p.includes(`${join(root, 'build', 'web')}/sample`) });
  rmSync(join(web, 'sample'), { recursive: true, force: true });
  // noconstruct: dump.json and stack.json only; badconstruct: all three, construct.json broken.
  for (const [name, drop] of [['noconstruct', 'construct.json'], ['badconstruct', '']]) {
    const d = join(tmp, name);
    mkdirSync(d, { recursive: true });
    for (const f of ['construct.json', 'dump.json', 'stack.json']) if (f !== drop) cpSync(join(worked('npu'), f), join(d, f));
  }
  writeFileSync(join(tmp, 'badconstruct', 'construct.json'), '{"Module.fc1": ');
  const out = join(tmp, 'out');
  execFileSync(native, ['graph_visualize', '-tp', worked('npu'), '-o', out], { stdio: 'pipe' });
  db = join(out, readdirSync(out).find((f) => f.endsWith('.vis.db')));
  ({ server, origin } = await startServer(web));
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const openPage = () => openAt(browser, origin + '/', { viewport: { width: 1600, height: 1000 } });

test('a folder without construct.json is named as such and Build stays off', async () => {
  const { page, context, errors } = await openPage();
  await page.setInputFiles('#pick-target', join(tmp, 'noconstruct'));
  await page.waitForSelector('[data-testid=missing-target]');
  const summary = await page.textContent('[data-testid=layout-target]');
  assert.match(summary, /one rank folder, .* — missing construct\.json: the build needs construct\.json, dump\.json and stack\.json/);
  assert.doesNotMatch(summary, /\(construct\.json, dump\.json, stack\.json\)/, 'no claim of files that are not there');
  assert.equal(await page.isDisabled('#run'), true);
  // A complete folder: nothing missing, Build on.
  await page.setInputFiles('#pick-target', worked('npu'));
  await page.waitForFunction(() => !document.querySelector('[data-testid=missing-target]'));
  assert.equal(await page.isDisabled('#run'), false);
  // A missing file on the golden side keeps Compare off too.
  await page.setInputFiles('#pick-golden', join(tmp, 'noconstruct'));
  await page.waitForSelector('[data-testid=missing-golden]');
  assert.equal(await page.isDisabled('#run'), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a failed build from the drawer closes it onto the message; the previous result is marked', async () => {
  const { page, context, errors } = await openPage();
  await page.setInputFiles('#pick-db', db);
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  await page.click('[data-testid=toolbar-intake]');
  await page.waitForFunction(() => document.body.classList.contains('drawer-open'));
  await page.setInputFiles('#pick-target', join(tmp, 'badconstruct'));
  await page.waitForFunction(() => !document.getElementById('run').disabled);
  await page.click('#run');
  await page.waitForFunction(() => !document.getElementById('error').hidden, null, { timeout: 60000 });
  await page.waitForFunction(() => !document.body.classList.contains('drawer-open'));
  // What is on screen at the middle of the error bar is the error bar.
  const onTop = await page.evaluate(() => {
    const e = document.getElementById('error');
    const r = e.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return { hit: !!at && e.contains(at), h: r.height, text: e.textContent };
  });
  assert.ok(onTop.h > 0 && onTop.hit, JSON.stringify(onTop));
  assert.match(onTop.text, /construct/i);
  assert.match(await page.textContent('#status'), /failed/);
  assert.equal(await page.isHidden('[data-testid=previous-result]'), false, 'the graph still shown is marked as the previous result');
  assert.deepEqual(errors, []);
  await context.close();
});

test('"Load the sample" on a page without a sample says so plainly', async () => {
  const { page, context, errors } = await openPage();
  await page.click('#load-sample');
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  const text = await page.textContent('#error');
  assert.match(text, /This page has no sample beside it/);
  assert.doesNotMatch(text, /Unexpected token|JSON/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('keys: / focuses the search box, Enter jumps to the first hit, Esc closes the shortcuts overlay', async () => {
  const { page, context, errors } = await openPage();
  await page.setInputFiles('#pick-db', db);
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  await page.mouse.click(5, 995);                      // nothing focused that takes keys
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.id), 'ws-search');
  assert.equal(await page.inputValue('#ws-search'), '', 'the slash is not typed into the box');
  await page.keyboard.type('relu');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => {
    const p = window.visprobeGraph.panes[0];
    return p.selected && /relu/i.test(p.selected.name);
  });
  await page.mouse.click(5, 995);
  await page.keyboard.press('?');
  await page.waitForFunction(() => document.querySelector('[data-testid=shortcuts]').open);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.querySelector('[data-testid=shortcuts]').open);
  assert.deepEqual(errors, []);
  await context.close();
});
