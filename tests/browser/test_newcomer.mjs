// Issue 46, the first things a newcomer meets (the items fixed so far): a folder that lacks one of
// the files a build needs is named as such and Build stays off; a failed build started from the
// app's drawer closes the drawer onto its message (the error bar is what the eye finds there);
// "Load the sample" on a page with no sample beside it says so plainly; `/` focuses the search box,
// Enter there jumps to the first hit, Esc closes the shortcuts overlay.
//   node --test tests/browser/test_newcomer.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, webDir, workedExample as worked, graphDb, generatedCompare, openGraphDb, panesSettled, setToggle,
         assertNoErrors } from './harness.mjs';

let db, cmpDb;

const suite = browserSuite({
  prefix: 'visprobe_newcomer_',
  setup: (s) => {
    // The page without any sample beside it (a copy of build/web).
    const web = join(s.tmp, 'web');
    cpSync(webDir, web, { recursive: true, filter: (p) => !p.includes(`${webDir}/sample`) });
    rmSync(join(web, 'sample'), { recursive: true, force: true });
    // noconstruct: dump.json and stack.json only; badconstruct: all three, construct.json broken.
    for (const [name, drop] of [['noconstruct', 'construct.json'], ['badconstruct', '']]) {
      const d = join(s.tmp, name);
      mkdirSync(d, { recursive: true });
      for (const f of ['construct.json', 'dump.json', 'stack.json']) if (f !== drop) cpSync(join(worked('npu'), f), join(d, f));
    }
    writeFileSync(join(s.tmp, 'badconstruct', 'construct.json'), '{"Module.fc1": ');
    db = graphDb(join(s.tmp, 'out'), ['-tp', worked('npu')]);
    // A compare with a diverging layer and an overflow, built without -oc (as a dropped pair builds
    // unless the option is set).
    ({ db: cmpDb } = generatedCompare(join(s.tmp, 'gen'), ['--layers', '6', '--hidden', '64', '--diverge-layer', '3', '--overflow-layer', '1',
                                                           '--seed', '7']));
  },
  web: () => join(suite.tmp, 'web'),
});

test('a folder without construct.json is named as such and Build stays off', async () => {
  const { page, context, errors } = await suite.open();
  await page.setInputFiles('#pick-target', join(suite.tmp, 'noconstruct'));
  await page.waitForSelector('[data-testid=missing-target]');
  const summary = await page.textContent('[data-testid=layout-target]');
  assert.match(summary, /one rank folder, .* — missing construct\.json: the build needs construct\.json, dump\.json and stack\.json/);
  assert.doesNotMatch(summary, /\(construct\.json, dump\.json, stack\.json\)/, 'no claim of files that are not there');
  assert.equal(await page.isDisabled('#run'), true);
  // A complete folder: nothing missing, Build on (once the page knows the storage it has: until the
  // worker has said, main.js's refresh() counts the folder as too big and keeps Build off).
  await page.setInputFiles('#pick-target', worked('npu'));
  await page.waitForFunction(() => !document.querySelector('[data-testid=missing-target]'));
  await page.waitForFunction(() => !document.getElementById('run').disabled);
  // A missing file on the golden side keeps Compare off too.
  await page.setInputFiles('#pick-golden', join(suite.tmp, 'noconstruct'));
  await page.waitForSelector('[data-testid=missing-golden]');
  assert.equal(await page.isDisabled('#run'), true);
  assertNoErrors(errors);
  await context.close();
});

test('a failed build from the drawer closes it onto the message; the previous result is marked', async () => {
  const { page, context, errors } = await suite.open();
  await openGraphDb(page, db);
  await page.click('[data-testid=toolbar-intake]');
  await page.waitForFunction(() => document.body.classList.contains('drawer-open'));
  await page.setInputFiles('#pick-target', join(suite.tmp, 'badconstruct'));
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
  assertNoErrors(errors);
  await context.close();
});

test('"Load the sample" on a page without a sample says so plainly', async () => {
  const { page, context, errors } = await suite.open();
  await page.click('#load-sample');
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  const text = await page.textContent('#error');
  assert.match(text, /This page has no sample beside it/);
  assert.doesNotMatch(text, /Unexpected token|JSON/);
  // The page looked for the sample's index and got the 404 that it reports.
  assertNoErrors(errors, [/^console: Failed to load resource: the server responded with a status of 404 .*\/sample\/index\.json\)$/]);
  await context.close();
});

test('keys: / focuses the search box, Enter jumps to the first hit, Esc closes the shortcuts overlay', async () => {
  const { page, context, errors } = await suite.open();
  await openGraphDb(page, db);
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
  assertNoErrors(errors);
  await context.close();
});

/** A page with the compare database open, its boxes coloured. */
async function openCompare(contextOptions = {}) {
  const opened = await suite.open({ contextOptions });
  await openGraphDb(opened.page, cmpDb, { bench: true, badges: true });
  return opened;
}

test('the start screen says what to do in one sentence; the flags sit folded under Options, each explained', async () => {
  const { page, context, errors } = await suite.open();
  const lead = await page.textContent('[data-testid=start-lead]');
  assert.match(lead, /Drop or choose .*rankN\/, stepN\/rankN\/ or a monitor run.*\.vis\.db \/ \.trend\.db.*sample/);
  assert.equal(await page.isVisible('[data-testid=start-lead]'), true);
  assert.equal(await page.getAttribute('[data-testid=options-fold]', 'open'), null, 'the options start folded');
  assert.equal(await page.isVisible('#opt-oc'), false);
  await page.click('[data-testid=options-fold] > summary');
  const text = await page.textContent('[data-testid=options-fold]');
  for (const re of [/-oc.*off, as in msprobe/s, /-fm.*exact name/s, /-lm.*mapping file/s, /graph merge.*TP \/ PP \/ VPP/s]) assert.match(text, re);
  assert.equal(await page.isVisible('#opt-oc'), true);
  assertNoErrors(errors);
  await context.close();
});

test('a compare at 1600 x 1000 gives the panes over 55 % of the window: one toolbar row, status in the header, minimaps hidden', async () => {
  const { page, context, errors } = await openCompare();
  await page.click('[data-testid=bar-first]');
  await page.waitForFunction(() => window.visprobeGraph.panes[0].selected);
  const g = await page.evaluate(() => {
    const panes = [...document.querySelectorAll('.ws-pane')].map((e) => e.getBoundingClientRect());
    const bar = document.querySelector('.workspace .ws-bar');
    const kids = [...bar.children].map((c) => c.getBoundingClientRect()).filter((r) => r.height > 0);
    const mid = (r) => (r.top + r.bottom) / 2;
    return { share: panes.reduce((a, r) => a + r.width * r.height, 0) / (innerWidth * innerHeight),
             barH: bar.getBoundingClientRect().height, oneRow: kids.every((r) => kids.every((q) => mid(r) > q.top && mid(r) < q.bottom)),
             statusInHeader: !!document.querySelector('header #status'),
             minimaps: [...document.querySelectorAll('.ws-minimap')].map((m) => m.checkVisibility()) };
  });
  assert.ok(g.share >= 0.55, `panes take ${(g.share * 100).toFixed(1)} % of the window`);
  assert.ok(g.oneRow && g.barH < 40, JSON.stringify(g));
  assert.ok(g.statusInHeader);
  assert.deepEqual(g.minimaps, [false, false]);
  // The minimaps, when wanted, are small insets; Fit keeps every box clear of them.
  await page.locator('[data-testid=pane-debug]').hover();
  await page.keyboard.press('m');
  await page.click('[data-testid=fit]');
  await panesSettled(page);
  const clear = await page.evaluate(() => [...document.querySelectorAll('.ws-pane')].map((host) => {
    const m = host.querySelector('.ws-minimap').getBoundingClientRect();
    const hit = [...host.querySelectorAll('g.node rect.header, g.node ellipse')].some((e) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.left < m.right && m.left < r.right && r.top < m.bottom && m.top < r.bottom;
    });
    return { w: m.width, h: m.height, hit };
  }));
  for (const c of clear) assert.ok(c.w <= 80 && c.h <= 240 && !c.hit, JSON.stringify(clear));
  assertNoErrors(errors);
  await context.close();
});

test('the detail dock leads with the verdict (level, the rows that set it, their Err_message); its table scrolls, not its header', async () => {
  const { page, context, errors } = await openCompare();
  await page.click('[data-testid=bar-first]');
  await page.waitForSelector('[data-testid=verdict]');
  const v = await page.evaluate(() => {
    const panel = document.querySelector('[data-testid=panel-details]');
    const verdict = panel.querySelector('[data-testid=verdict]');
    const r = verdict.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + 20, r.top + r.height / 2);
    const heads = [...panel.querySelectorAll('thead th')].map((th) => th.textContent);
    return { text: verdict.textContent, onScreen: !!at && verdict.contains(at) && r.bottom <= innerHeight, heads,
             beforeTable: !!(verdict.compareDocumentPosition(panel.querySelector('table')) & Node.DOCUMENT_POSITION_FOLLOWING) };
  });
  assert.ok(v.onScreen && v.beforeTable, JSON.stringify(v));
  assert.match(v.text, /precision index 1 → Error \[0\.6, 1\]/);
  assert.match(v.text, /output\.\d+ Error.*—.*/, 'the flagged row with its message');
  assert.match(v.text, /overflow: not checked \(built without -oc\)/);
  assert.deepEqual(v.heads.slice(0, 4), ['Side', 'name', 'Result', 'Err_message']);
  const rel = v.heads.findIndex((h) => /RelativeErr/.test(h));
  const raw = v.heads.indexOf('Max');
  assert.ok(rel > 0 && raw > rel, `errors before raw statistics: ${v.heads}`);
  // Scrolling the table moves its rows, not the tabs or the verdict.
  const before = await page.$eval('[data-testid=tab-details]', (e) => e.getBoundingClientRect().top);
  await page.$eval('[data-testid=panel-details] .ws-table-wrap', (w) => { w.scrollTop = 400; w.scrollLeft = 900; });
  await page.waitForFunction(() => document.querySelector('[data-testid=panel-details] .ws-table-wrap').scrollLeft > 0);
  const after = await page.evaluate(() => ({ tab: document.querySelector('[data-testid=tab-details]').getBoundingClientRect().top,
                                             verdictLeft: document.querySelector('[data-testid=verdict]').getBoundingClientRect().left,
                                             dock: document.querySelector('[data-testid=detail-dock]').scrollTop }));
  assert.equal(after.tab, before);
  assert.ok(after.verdictLeft >= 0 && after.dock === 0, JSON.stringify(after));
  assertNoErrors(errors);
  await context.close();
});

test('labels are cut only when the measured text does not fit; zoomed in, a cut label shows whole; exports carry the same labels', async () => {
  const { page, context, errors } = await openCompare({ acceptDownloads: true });
  await page.selectOption('[data-testid=expand-depth]', '4');
  await page.waitForFunction(() => window.visprobeGraph.host.dataset.depth === '4');
  // At zoom 1 (no sync: the Debug pane alone).
  await setToggle(page, '#ws-sync-view', false);
  await page.evaluate(() => { const p = window.visprobeGraph.panes[0]; p.t = { x: 20, y: 20, k: 1 }; p.draw(true); });
  await panesSettled(page);
  // Every drawn label: whole when its measured width fits its box; a cut one really did not fit.
  const check = () => page.evaluate(() => [...document.querySelectorAll('[data-testid=pane-debug] g.node')].map((g) => {
    const text = g.querySelector('text:not(.marker)');
    const shape = g.querySelector('ellipse') || g.querySelector('rect.header');
    const shown = text.textContent;
    const full = g.__data__._label;
    text.textContent = full;
    const fullW = text.getComputedTextLength();
    text.textContent = shown;
    const boxW = Number(shape.getAttribute('rx') ? 2 * Number(shape.getAttribute('rx')) : shape.getAttribute('width'));
    return { name: g.dataset.name, shown, full, fits: fullW <= boxW - 4, cut: shown !== full };
  }));
  const k1 = await check();
  assert.ok(k1.length > 20);
  for (const l of k1) if (l.fits) assert.equal(l.shown, l.full, `${l.name} fits and is whole`);
  const cut = k1.filter((l) => l.cut && l.shown.includes('…'));
  assert.ok(k1.some((l) => !l.cut && /\.forward/.test(l.full) && l.name.split('.').length > 3), 'long leaf names are shown whole where they fit');
  assert.ok(cut.length > 0, 'some names are too long for their box at zoom 1');
  // Zoomed in on a cut leaf, the text stays at a readable size while the box grows: it shows whole.
  {
    const name = cut.find((l) => l.name.length < 40)?.name || cut[0].name;
    await page.evaluate((n) => { const p = window.visprobeGraph.panes[0]; const node = p.nodes.get(n); p.t.k = 4; p.centre(node); p.draw(true); }, name);
    await page.waitForFunction((n) => {
      const t = document.querySelector(`[data-testid=pane-debug] g.node[data-name="${n}"] text`);
      return t && !t.textContent.includes('…');
    }, name);
  }
  // The SVG export of the pane carries the labels on screen.
  const onScreen = await page.$$eval('[data-testid=pane-debug] g.node text:not(.marker)', (ts) => ts.map((t) => t.textContent));
  await page.click('[data-testid=export-menu] > summary');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export-menu] button >> text=SVG')]);
  const svg = readFileSync(await download.path(), 'utf8');
  const exported = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
  for (const label of exported) if (label && !/^[↗↙⇄⊕•]+$/.test(label) && !/^[A-Z]\d*$/.test(label)) assert.ok(onScreen.includes(label), `exported ${label} as on screen`);
  assertNoErrors(errors);
  await context.close();
});

test('a search jump after Fit zooms to a readable scale; toasts stay clear of the Download button', async () => {
  const { page, context, errors } = await openCompare();
  await page.click('[data-testid=fit]');
  await panesSettled(page);
  const k0 = await page.evaluate(() => window.visprobeGraph.panes[0].t.k);
  await page.mouse.click(5, 995);
  await page.keyboard.press('/');
  await page.keyboard.type('linear');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => { const p = window.visprobeGraph.panes[0]; return p.selected && /linear/i.test(p.selected.name); });
  const k1 = await page.evaluate(() => window.visprobeGraph.panes[0].t.k);
  assert.ok(k1 >= 1.5 || k1 > k0 * 2, `zoom after the jump: ${k0} -> ${k1}`);
  // A toast (the copied link) never covers the header's Download button.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.click('[data-testid=copy-link]');
  await page.waitForSelector('[data-testid=toast]');
  const overlap = await page.evaluate(() => {
    const d = document.getElementById('download').getBoundingClientRect();
    return [...document.querySelectorAll('[data-testid=toast]')].some((t) => {
      const r = t.getBoundingClientRect();
      return r.left < d.right && d.left < r.right && r.top < d.bottom && d.top < r.bottom;
    });
  });
  assert.equal(overlap, false);
  assert.equal(await page.textContent('[data-testid=copy-link]'), 'Link', 'a word, not an emoji that needs a font');
  assertNoErrors(errors);
  await context.close();
});

test('Chinese mode: the legend names the levels in Chinese, no English level left', async () => {
  const { page, context, errors } = await openCompare({ locale: 'zh-CN' });
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  const legend = await page.textContent('[data-testid=legend]');
  for (const word of ['通过', '警告', '错误', '未匹配']) assert.ok(legend.includes(word), `${word} in ${legend}`);
  assert.doesNotMatch(legend, /\b(pass|warning|error)\b/i);
  assertNoErrors(errors);
  await context.close();
});
