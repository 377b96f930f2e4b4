// End-to-end tests of the web app in real Chromium (Debian's, driven by playwright-core; no
// browser is downloaded). Serves build/web with scripts/static_server.py and compares what the
// page shows with the native CLI's databases.
//   node --test tests/browser/test_browser.mjs    (env: VISPROBE_SHARED, default ../shared)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync, readFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, root, webDir, fixture, workedExample as worked, genDump, runBuild, download, viewRestored, openOptions,
         recordToasts, toastShown, fragmentFlushed, assertNoErrors } from './harness.mjs';

const samples = fixture('msprobe-samples');
const suite = browserSuite({ prefix: 'visprobe_browser_' });
const countRows = (db) => Number(execFileSync('sqlite3', [db, 'SELECT count(*) FROM tb_nodes']).toString().trim());

const rowsShown = async (page) => Number(await page.textContent('[data-testid=rows]'));

test('a dropped multi-step folder builds the same rows as the native CLI', async () => {
  const { page, context, foreign, errors } = await suite.open();
  await page.setInputFiles('#pick-target', join(samples, 'vis_multi_step_rank'));
  assert.match(await page.textContent('[data-testid=layout-target]'), /3 step folder\(s\)/);
  const status = await runBuild(page);
  assert.match(status, /^ready/, await page.textContent('#error'));
  assert.equal(await rowsShown(page), countRows(suite.nativeDb(['-tp', join(samples, 'vis_multi_step_rank')])));
  assert.deepEqual(foreign, []);
  assertNoErrors(errors);
  await context.close();
});

test('compare of two folders, download and re-open', async () => {
  const { page, context, foreign, errors } = await suite.open();
  await page.setInputFiles('#pick-target', worked('npu'));
  await page.setInputFiles('#pick-golden', worked('bench'));
  await openOptions(page);
  await page.check('#opt-oc');
  assert.match(await runBuild(page), /^ready/);
  const db = suite.nativeDb(['-tp', worked('npu'), '-gp', worked('bench'), '-oc']);
  assert.equal(await rowsShown(page), countRows(db));
  assert.match(await page.textContent('[data-testid=db-name]'), /^compare_\d{14}\.vis\.db$/);
  const { path: saved, name } = await download(page, '#download', suite.tmp);
  assert.match(name, /^compare_\d{14}\.vis\.db$/);
  assert.equal(countRows(saved), countRows(db));
  await page.reload();
  await page.setInputFiles('#pick-db', saved);
  await page.waitForSelector('[data-testid=rows]', { state: 'attached' });   // in the app's drawer
  assert.equal(await rowsShown(page), countRows(db));
  assert.deepEqual(foreign, []);
  assertNoErrors(errors);
  await context.close();
});

test('cross-framework compare with a layer-mapping yaml gives the native rows', async () => {
  const { page, context, errors } = await suite.open();
  const base = join(samples, 'cross_framework_pangu');
  await page.setInputFiles('#pick-target', join(base, 'mindspore_data'));
  await page.setInputFiles('#pick-golden', join(base, 'pytorch_data'));
  await page.setInputFiles('#pick-yaml', join(base, 'layer_mapping.yaml'));
  await page.waitForFunction(() => document.querySelector('[data-testid=yaml-name]').textContent === 'layer_mapping.yaml');
  assert.match(await runBuild(page), /^ready/, await page.textContent('#error'));
  const db = suite.nativeDb(['-tp', join(base, 'mindspore_data'), '-gp', join(base, 'pytorch_data'), '-lm', join(base, 'layer_mapping.yaml')]);
  assert.equal(await rowsShown(page), countRows(db));
  await page.click('[data-testid=toolbar-intake]');   // the node table is in the app's drawer
  await page.fill('#search', '__add__');
  await page.waitForFunction(() => document.querySelector('#nodes tbody').textContent.includes('Tensor.__add__.1.forward'));
  assertNoErrors(errors);
  await context.close();
});

test('a layer-mapping file -lm cannot use is refused when chosen, with the engine\'s reason', async () => {
  // The page asks the engine's own reader (core CheckLayerMappingText), not a second YAML parser.
  const { page, context, errors } = await suite.open();
  const bad = join(suite.tmp, 'not_a_mapping.yaml');
  writeFileSync(bad, '- Cell\n- Module\n');
  await page.setInputFiles('#pick-yaml', bad);
  await page.waitForFunction(() => document.querySelector('#error').textContent.includes('not_a_mapping.yaml'));
  const shown = await page.textContent('#error');
  assert.equal(await page.textContent('[data-testid=yaml-name]'), '');
  assert.equal(await page.isChecked('#opt-lm'), false);
  // The reason is the engine's (core/match/yaml_subset.cc, as tests/core/test_layer_mapping.cc pins it).
  assert.equal(shown, 'not_a_mapping.yaml: not a layer-mapping YAML file (not_a_mapping.yaml:1: sequences are not supported)');
  await page.setInputFiles('#pick-yaml', join(samples, 'cross_framework_pangu', 'layer_mapping.yaml'));
  await page.waitForFunction(() => document.querySelector('[data-testid=yaml-name]').textContent === 'layer_mapping.yaml');
  assert.equal(await page.textContent('#error'), '');
  assert.equal(await page.isChecked('#opt-lm'), true);
  assertNoErrors(errors);
  await context.close();
});

test('a database made by the native CLI opens in the page', async () => {
  const { page, context, errors } = await suite.open();
  const db = suite.nativeDb(['-tp', join(samples, 'vis_multi_step_rank'), '-gp', join(samples, 'vis_multi_step_rank')]);
  await page.setInputFiles('#pick-db', db);
  await page.waitForSelector('[data-testid=rows]', { state: 'attached' });   // in the app's drawer
  assert.equal(await rowsShown(page), countRows(db));
  assertNoErrors(errors);
  await context.close();
});

test('a malformed folder shows one clear error and the page keeps working', async () => {
  const { page, context, errors } = await suite.open();
  const bad = join(suite.tmp, 'bad');
  cpSync(worked('npu'), bad, { recursive: true });
  const text = readFileSync(join(bad, 'dump.json'), 'utf8');
  writeFileSync(join(bad, 'dump.json'), text.slice(0, text.length / 2));
  await page.setInputFiles('#pick-target', bad);
  assert.match(await runBuild(page), /^failed/);
  const error = await page.textContent('[data-testid=error]');
  assert.match(error, /load json file "dump.json" failed/);
  assert.match(error, /dump\.json @ byte \d+/);
  await page.setInputFiles('#pick-target', worked('npu'));
  assert.match(await runBuild(page), /^ready/);
  assert.equal(await rowsShown(page), 10);
  assertNoErrors(errors);
  await context.close();
});

test('a long run can be cancelled and the engine restarts', async () => {
  const big = join(suite.tmp, 'big');
  genDump(big, ['--target-mb', '60', '--seed', '5', '--manifest', join(suite.tmp, 'big-manifest.json')]);
  const { page, context, errors } = await suite.open();
  await page.setInputFiles('#pick-target', big);
  await page.waitForFunction(() => !document.getElementById('run').disabled);
  await page.click('#run');
  await page.waitForFunction(() => /^running/.test(document.getElementById('status').textContent), null, { timeout: 60000 });
  await page.click('#cancel');
  await page.waitForFunction(() => document.getElementById('status').textContent === 'cancelled');
  await page.setInputFiles('#pick-target', worked('npu'));
  assert.match(await runBuild(page), /^ready/);
  assert.equal(await rowsShown(page), 10);
  assertNoErrors(errors);
  await context.close();
});

test('the one-file page works opened from disk (file://)', async () => {
  // Opened from disk, every request not to a file is foreign.
  const { page, context, errors, foreign: requests } = await suite.open({ url: 'file://' + join(webDir, 'visprobe.html') });
  await page.setInputFiles('#pick-target', worked('npu'));
  await page.setInputFiles('#pick-golden', worked('bench'));
  assert.match(await runBuild(page), /^ready/, await page.textContent('#error'));
  assert.equal(await rowsShown(page), 20);
  assertNoErrors(errors);
  assert.deepEqual(requests, []);
  await context.close();
});

test('a .trend.db opens directly', async () => {
  const trend = join(suite.tmp, 'small.trend.db');
  execFileSync('sqlite3', [trend, `CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL);
    CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL, vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, norm REAL, max REAL, min REAL, mean REAL, PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID;
    CREATE TABLE global_stats (max_rank INTEGER DEFAULT 0, min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, forward TEXT);
    INSERT INTO monitoring_metrics (metric_name) VALUES ('forward');
    INSERT INTO monitoring_targets (target_name, vpp_stage) VALUES ('Module.a.A.input.0', 0);
    INSERT INTO trend_data VALUES (0, 0, 1, 1, 1.0, 2.0, 0.0, 0.5), (0, 1, 1, 1, 1.5, 2.5, 0.0, 0.6);
    INSERT INTO global_stats VALUES (0, 0, 1, 'norm,max,min,mean');`]);
  const { page, context, errors } = await suite.open();
  await page.setInputFiles('#pick-db', trend);
  await page.waitForSelector('[data-testid=trend-trend_data-rows]');
  assert.equal(await page.textContent('[data-testid=trend-trend_data-rows]'), '2');
  assert.equal(await page.textContent('[data-testid=trend-max_step]'), '1');
  assertNoErrors(errors);
  await context.close();
});

test('a file that is not a database is refused with its name', async () => {
  const { page, context, errors } = await suite.open();
  const junk = join(suite.tmp, 'junk.vis.db');
  writeFileSync(junk, 'this is not sqlite');
  await page.setInputFiles('#pick-db', junk);
  await page.waitForFunction(() => !document.getElementById('error').hidden);
  assert.match(await page.textContent('[data-testid=error]'), /junk\.vis\.db is not an SQLite database/);
  assertNoErrors(errors);
  await context.close();
});

test('graph workspace: panes, colours, sync expansion, search, details', async () => {
  const { page, context, errors } = await suite.open({ viewport: { width: 1400, height: 1100 } });
  await page.setInputFiles('#pick-target', worked('npu'));
  await page.setInputFiles('#pick-golden', worked('bench'));
  await openOptions(page);
  await page.check('#opt-oc');
  assert.match(await runBuild(page), /^ready/);
  await page.waitForSelector('[data-testid=pane-bench] g.node');
  const names = async (pane) => page.$$eval(`[data-testid=${pane}] g.node`, (gs) => gs.map((g) => g.dataset.name).sort());
  assert.deepEqual(await names('pane-debug'), ['Apis_Between_Modules.0', 'DefaultModel', 'Module.fc1.Linear.backward.0', 'Module.fc1.Linear.forward.0']);
  const fillOf = (pane, name) => page.$eval(`[data-testid=${pane}] g.node[data-name="${name}"] rect.header`, (r) => r.getAttribute('fill'));
  assert.equal(await fillOf('pane-debug', 'Module.fc1.Linear.forward.0'), '#FFDC7F');   // precision 0.5: warning
  assert.equal(await fillOf('pane-debug', 'Apis_Between_Modules.0'), '#FFFFFF');        // API list: always white
  assert.equal(await fillOf('pane-bench', 'Module.fc1.Linear.forward.0'), '#FFFFFF');   // bench side: white
  await page.dblclick('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.forward.0"] rect.header');
  await page.waitForSelector('[data-testid=pane-bench] g.node[data-name="Functional.linear.0.forward"]');
  assert.ok((await names('pane-debug')).includes('Functional.linear.0.forward'));
  await page.click('[data-testid=rail-search]');
  await page.fill('#ws-search', 'relu');
  await page.waitForSelector('[data-testid=search-list][data-query="relu"]');
  await page.click('.ws-results li');
  await page.waitForFunction(() => document.querySelector('[data-testid=detail]').textContent.includes('Functional.relu.0.forward'));
  const detail = await page.textContent('[data-testid=detail]');
  assert.match(detail, /NormRelativeErr/);
  assert.match(detail, /28\.571429%/);
  // DET-01 / DET-05: the node-information tab shows the stack of both sides.
  await page.click('[data-testid=tab-info]');
  assert.match(await page.textContent('[data-testid=panel-info]'), /loss = torch\.relu\(out\)\.sum\(\)/);
  assert.equal(await page.isVisible('[data-testid=panel-details]'), false);
  await page.click('[data-testid=tab-details]');
  // DET-03: paired rows with the node prefix removed.
  const paired = await page.textContent('[data-testid=paired]');
  assert.match(paired, /input\.0/);
  assert.match(paired, /output\.0/);
  // GI-03: Locate matched node from the context menu of a Debug node selects it in Bench.
  await page.click('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.backward.0"] rect.header', { button: 'right' });
  await page.click('.ws-menu li:has-text("Locate matched node")');
  await page.waitForFunction(() => document.querySelector('[data-testid=detail]').textContent.includes('Bench: Module.fc1.Linear.backward.0'));
  // Exports: SVG of each pane, CSV of the detail tables.
  await page.click('[data-testid=export-menu] summary');
  const svg = await download(page, 'button:has-text("SVG")', suite.tmp);
  assert.match(svg.name, /^graph_NPU_step0_rank0\.svg$/);
  assert.match(readFileSync(svg.path, 'utf8'), /Module\.fc1\.Linear\.forward\.0/);
  await page.click('[data-testid=export-menu] summary');
  const csv = await download(page, 'button:has-text("CSV")', suite.tmp);
  assert.match(readFileSync(csv.path, 'utf8'), /NormRelativeErr/);
  // MM-01: a minimap per pane.
  assert.equal(await page.locator('.ws-minimap canvas').count(), 2);
  // §8.1 filter lists: Debug nodes by bucket (API lists, drawn white, are not listed).
  await page.click('[data-testid=rail-filter]');
  await page.check('[data-testid=filter-error]');
  await page.waitForFunction(() => document.querySelectorAll('.ws-filter-list li').length === 1);
  assert.match(await page.textContent('[data-testid=filter]'), /Node list \(1\)/);
  const errorList = await page.$$eval('.ws-filter-list li', (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(errorList, ['Torch.sum.0.forward']);
  // Issue 46: Warning lists what the navigator flags, modules included (Module.fc1 and its linear).
  await page.check('[data-testid=filter-warning]');
  await page.waitForFunction(() => document.querySelectorAll('.ws-filter-list li').length === 3);
  // FLT-05: name filter with highlight, previous / next with the end messages.
  await page.fill('#ws-filter-name', 'SUM');
  assert.match(await page.textContent('[data-testid=filter]'), /Node list \(1\)/);
  assert.equal(await page.textContent('.ws-filter-list mark'), 'sum');
  await page.fill('#ws-filter-name', '');
  for (let i = 0; i < 4; ++i) await page.click('#ws-filter-next');
  await page.waitForFunction(() => /bottom of the list/.test(document.querySelector('.ws-filter-msg').textContent));
  // FLT-01: the Overflow segment (enabled: built with -oc) clears the boxes and the list and
  // switches the colouring; the Precision segment switches back, boxes cleared again.
  assert.equal(await page.isDisabled('[data-testid=mode-overflow] input'), false);
  assert.equal(await page.getAttribute('[data-testid=mode-overflow]', 'title'), null);
  await page.click('[data-testid=mode-overflow]');
  await page.waitForSelector('[data-testid=filter-critical]');
  assert.equal(await page.isChecked('[data-testid=mode-overflow] input'), true);
  assert.equal(await page.$('[data-testid=filter-error]'), null);
  assert.equal(await page.$$eval('[data-testid=filter] .ws-checks input:checked', (c) => c.length), 0);
  assert.match(await page.textContent('[data-testid=filter]'), /Node list \(0\)/);
  assert.equal(await page.$$eval('.ws-filter-list li', (lis) => lis.length), 0);
  assert.equal(await fillOf('pane-debug', 'Module.fc1.Linear.forward.0'), '#FFFFFF');   // no overflow: white
  await page.check('[data-testid=filter-critical]');
  await page.waitForFunction(() => document.querySelectorAll('.ws-filter-list li').length === 1);
  assert.deepEqual(await page.$$eval('.ws-filter-list li', (lis) => lis.map((li) => li.textContent)), ['Torch.sum.0.forward']);
  await page.click('[data-testid=mode-precision]');
  await page.waitForSelector('[data-testid=filter-error]');
  assert.equal(await page.$$eval('[data-testid=filter] .ws-checks input:checked', (c) => c.length), 0);
  assert.equal(await page.$$eval('.ws-filter-list li', (lis) => lis.length), 0);
  assert.equal(await fillOf('pane-debug', 'Module.fc1.Linear.forward.0'), '#FFDC7F');
  await page.click('[data-testid=mode-overflow]');
  await page.check('[data-testid=filter-critical]');
  await page.waitForFunction(() => document.querySelectorAll('.ws-filter-list li').length === 1);
  await page.dblclick('[data-testid=pane-debug] g.node[data-name="Apis_Between_Modules.0"] rect.header').catch(() => {});
  await page.screenshot({ path: join(suite.tmp, 'workspace.png') });
  assertNoErrors(errors);
  await context.close();
});

test('hostile names render as text and nothing executes', async () => {
  const evil = 'Functional.<img src=x onerror="window.pwned=1">.0.forward';
  const dir = join(suite.tmp, 'evil');
  cpSync(worked('npu'), dir, { recursive: true });
  for (const f of ['dump.json', 'construct.json', 'stack.json']) {
    const text = readFileSync(join(dir, f), 'utf8').split('Functional.relu.0.forward').join(evil.replace(/"/g, '\\"'));
    writeFileSync(join(dir, f), text);
  }
  const { page, context, errors } = await suite.open();
  await page.setInputFiles('#pick-target', dir);
  assert.match(await runBuild(page), /^ready/, await page.textContent('#error'));
  await page.click('[data-testid=toolbar-intake]');   // the node table is in the app's drawer
  await page.fill('#search', '<img');
  await page.waitForFunction(() => document.querySelector('#nodes tbody').textContent.includes('<img'));
  await page.keyboard.press('Escape');   // the drawer closes
  await page.click('[data-testid=rail-search]');
  await page.fill('#ws-search', "'%_<");
  await page.fill('#ws-search', '<img src');
  await page.waitForSelector('[data-testid=search-list][data-query="<img src"]');
  assert.equal(await page.textContent('.ws-results li'), evil);
  await page.click('.ws-results li');
  await page.waitForFunction(() => document.querySelector('[data-testid=detail]').textContent.includes('onerror'));
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.locator('img').count(), 0);
  assertNoErrors(errors);
  await context.close();
});

test('the malformed corpus: each folder shows its message and the page keeps working', async () => {
  const corpus = join(root, 'tests', 'malformed', 'cases');
  const expected = JSON.parse(readFileSync(join(root, 'tests', 'malformed', 'expected.json'), 'utf8'));
  const { page, context, errors } = await suite.open();
  let checked = 0;
  for (const [name, must] of Object.entries(expected)) {
    // A browser only receives regular files: missing files, directories and links are CLI cases.
    if (/missing|directory|symlink/.test(name)) continue;
    await page.setInputFiles('#pick-target', join(corpus, name));
    const status = await runBuild(page);
    assert.match(status, /^failed/, name);
    const error = await page.textContent('[data-testid=error]');
    for (const text of must) assert.ok(error.includes(text.replace(/^\.\//, '')), `${name}: ${error}`);
    checked += 1;
  }
  assert.ok(checked >= 30, `only ${checked} cases`);
  await page.setInputFiles('#pick-target', worked('npu'));
  assert.match(await runBuild(page), /^ready/);
  assertNoErrors(errors);
  await context.close();
});

test('manual matching: unmatch with descendants, match again, rows recomputed by the engine', async () => {
  const { page, context, errors } = await suite.open({ viewport: { width: 1400, height: 1100 } });
  await page.setInputFiles('#pick-target', worked('npu'));
  await page.setInputFiles('#pick-golden', worked('bench'));
  assert.match(await runBuild(page), /^ready/);
  await page.click('[data-testid=rail-matching]');
  await page.waitForSelector('[data-testid=matching][data-ready]');
  // The pickers are virtualised lists: their counts are in data-count, a choice is a click on a row.
  const count = async (id) => Number(await page.getAttribute(`[data-testid=picker-${id.slice(4)}]`, 'data-count'));
  const pick = async (id, name) => {
    await page.click(id);
    await page.fill(id, name);
    await page.click(`[data-testid=picker-${id.slice(4)}] li[title="${name}"]`);
  };
  assert.equal(await count('#ws-dbg-matched'), 10);
  assert.equal(await count('#ws-dbg-unmatched'), 0);
  // Select the matched forward module (fills both matched selects), unmatch with descendants:
  // the module, its child API and the backward twin with its children turn unmatched.
  await page.click('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.forward.0"] rect.header');
  assert.equal(await page.$eval('#ws-bch-matched', (s) => s.value), 'Module.fc1.Linear.forward.0');
  await page.click('#ws-unmatch');
  await page.waitForFunction(() => /Unmatch successful/.test(document.querySelector('[data-testid=match-msg]').textContent));
  assert.equal(await count('#ws-dbg-unmatched'), 5);
  const grey = await page.$eval('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.forward.0"] rect.header', (r) => r.getAttribute('fill'));
  assert.equal(grey, '#C7C7C7');
  // Match the pair again with descendants: back to fully matched, precision recomputed.
  await pick('#ws-dbg-unmatched', 'Module.fc1.Linear.forward.0');
  await pick('#ws-bch-unmatched', 'Module.fc1.Linear.forward.0');
  await page.click('#ws-match');
  await page.waitForFunction(() => document.querySelector('[data-testid=match-msg]').textContent !== '' &&
                                   !/Unmatch/.test(document.querySelector('[data-testid=match-msg]').textContent));
  assert.match(await page.textContent('[data-testid=match-msg]'), /Match successful/);
  assert.equal(await count('#ws-dbg-unmatched'), 0);
  const fill = await page.$eval('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.forward.0"] rect.header', (r) => r.getAttribute('fill'));
  assert.equal(fill, '#FFDC7F');   // warning again: the engine recomputed 0.5
  // MAT-06: the manually matched pairs as a .vis.config: downloaded, toasted, and added to the
  // select of the session's files; choosing it there after an unmatch matches the pairs again.
  assert.deepEqual(await page.$$eval('#ws-config option', (os) => os.map((o) => o.value)), ['']);
  assert.equal(await page.isDisabled('#ws-config'), true);
  // Toasts leave after 2.5 s, before a loaded machine looks: every one shown is recorded.
  await recordToasts(page);
  const cfg = await download(page, '#ws-gen-config', suite.tmp);
  assert.match(cfg.name, /^compare_\d{14}_0_0\.vis\.config$/);
  const pairs = JSON.parse(readFileSync(cfg.path, 'utf8'));
  assert.equal(pairs['Module.fc1.Linear.forward.0'], 'Module.fc1.Linear.forward.0');
  await toastShown(page, `File generated: ${cfg.name}`);
  assert.deepEqual(await page.$$eval('#ws-config option', (os) => os.map((o) => o.textContent)), ['Choose match configuration file', cfg.name]);
  await page.click('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.forward.0"] rect.header');
  await page.click('#ws-unmatch');
  await page.waitForFunction(() => /Unmatch successful/.test(document.querySelector('[data-testid=match-msg]').textContent));
  assert.equal(await count('#ws-dbg-unmatched'), 5);
  await page.selectOption('#ws-config', cfg.name);
  await page.waitForFunction(() => /Matched by configuration file/.test(document.querySelector('[data-testid=match-msg]').textContent));
  // Pairs already matched as the forward/backward twin of an earlier pair count as failed.
  const applied = await page.textContent('[data-testid=match-msg]');
  assert.match(applied, /^Matched by configuration file: total 5, succeeded \d, failed \d/);
  // A failed pair is named with the engine's reason.
  if (!/failed 0/.test(applied)) assert.match(applied, /\n\S+ → \S+: Both nodes must be unmatched\./);
  await toastShown(page, applied);
  assert.equal(await count('#ws-dbg-unmatched'), 0);
  assert.equal(await page.$eval('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.forward.0"] rect.header', (r) => r.getAttribute('fill')), '#FFDC7F');
  assert.equal(await page.inputValue('#ws-config'), '');   // back to the prompt: the file can be chosen again
  // A file from disk joins the select and is applied (its pairs are matched already: all fail).
  const other = join(suite.tmp, 'other.vis.config');
  writeFileSync(other, JSON.stringify(pairs));
  await page.setInputFiles('#ws-apply-config', other);
  await page.waitForFunction(() => /total 5, succeeded 0, failed 5/.test(document.querySelector('[data-testid=match-msg]').textContent));
  assert.deepEqual(await page.$$eval('#ws-config option', (os) => os.map((o) => o.value)), ['', cfg.name, 'other.vis.config']);
  // A mismatched type pair is refused with the engine's message.
  await page.click('[data-testid=pane-debug] g.node[data-name="Module.fc1.Linear.forward.0"] rect.header');
  await page.click('#ws-unmatch');
  await page.waitForFunction(() => /Unmatch successful/.test(document.querySelector('[data-testid=match-msg]').textContent));
  await pick('#ws-dbg-unmatched', 'Module.fc1.Linear.forward.0');
  await pick('#ws-bch-unmatched', 'Functional.linear.0.forward');
  await page.click('#ws-match');
  await page.waitForFunction(() => document.querySelector('[data-testid=match-msg]').textContent === 'Node types differ');
  assertNoErrors(errors);
  await context.close();
});

const rowsText = (db) => execFileSync('sqlite3', [db, 'SELECT step, rank, data_source, node_name, node_order, precision_index, input_data, output_data, matched_node_link FROM tb_nodes ORDER BY 1, 2, 3, 4']).toString();

/** The run folders under OPFS visprobe-runs/ and each one's files with their sizes. */
const opfsRuns = (page) => page.evaluate(async () => {
  const out = {};
  const root = await navigator.storage.getDirectory();
  let runs;
  try { runs = await root.getDirectoryHandle('visprobe-runs'); } catch { return out; }
  for await (const [name, h] of runs.entries()) {
    out[name] = {};
    if (h.kind !== 'directory') continue;
    const walk = async (dir, prefix) => {
      for await (const [n, c] of dir.entries()) {
        if (c.kind === 'directory') await walk(c, prefix + n + '/');
        else out[name][prefix + n] = (await c.getFile()).size;
      }
    };
    await walk(h, '');
  }
  return out;
});

test('issue 20: a build in the page writes its database to OPFS, opens it lazily, downloads it from there, keeps it as a session; Forget clears OPFS', async () => {
  const { page, context, errors } = await suite.open();
  assert.equal((await page.evaluate(() => window.visprobeEngine.caps())).opfs, true, 'this Chromium gives workers OPFS sync access handles');
  const build = async () => {
    await page.setInputFiles('#pick-target', worked('npu'));
    await page.setInputFiles('#pick-golden', worked('bench'));
    assert.match(await runBuild(page), /^ready/, await page.textContent('#error'));
    return page.evaluate(() => window.visprobeEngine.dbStats());
  };
  const first = await build();
  assert.equal(first.lazy, true, 'the built database is read lazily, not held in sql.js memory');
  assert.ok(first.opfs, `the database lives in an OPFS run folder (${JSON.stringify(first)})`);
  let runs = await opfsRuns(page);
  // The pool's files are named slot-N (the engine's names live in the worker's FS); the other
  // slots of the run were given back when it ended, so the folder holds the database alone.
  const files = Object.entries(runs[first.opfs] || {});
  assert.equal(files.length, 1, `the run folder holds the database alone: ${JSON.stringify(runs)}`);
  assert.equal(files[0][1], first.size, 'the file in OPFS is the database the views read');
  assert.ok(first.size > 0);
  // The same rows as the native CLI, read from the download (a Blob over the OPFS file).
  const { path: saved } = await download(page, '#download', suite.tmp, 'opfs_');
  assert.equal(readFileSync(saved).length, first.size, 'the download is the whole OPFS file');
  assert.equal(rowsText(saved), rowsText(suite.nativeDb(['-tp', worked('npu'), '-gp', worked('bench')])));
  // The session refers to the OPFS file (no copy) and a reload reopens it from there.
  await page.waitForFunction(() => /^opfs-run:/.test(document.querySelector('[data-testid=workspace]').dataset.session || ''), null, { timeout: 60000 })
    .catch(async (e) => { throw new Error(`session ${await page.evaluate(() => document.querySelector('[data-testid=workspace]').dataset.session)}: ${e.message}`); });
  await fragmentFlushed(page);   // the fragment names the kept database and holds the view
  await page.reload();
  await viewRestored(page);
  const restored = await page.evaluate(() => window.visprobeEngine.dbStats());
  assert.equal(restored.lazy, true);
  assert.equal(restored.opfs, first.opfs, 'the restored session reads the same OPFS run folder');
  // A second build: the first run's folder stays while the session names it; Forget then removes
  // every run folder but the one shown, and a reload with nothing shown removes that one too.
  const second = await build();
  assert.notEqual(second.opfs, first.opfs);
  runs = await opfsRuns(page);
  assert.ok(runs[second.opfs], JSON.stringify(runs));
  await page.click('[data-testid=forget-stored]');
  await page.click('[data-testid=forget-confirm]');   // asked first
  await page.waitForFunction(() => document.querySelector('[data-testid=workspace]').dataset.session === '');
  runs = await opfsRuns(page);
  assert.deepEqual(Object.keys(runs), [second.opfs], 'Forget leaves only the shown database\'s folder');
  await page.reload();
  await page.waitForSelector('[data-testid=forget-stored]');
  // The previous page's worker lets go of its file when it ends (whenever a loaded machine gets to
  // it): Forget again, each time once the last Forget has finished (its toast), until the folders
  // are gone or a minute has passed.
  await recordToasts(page);
  const forgotten = () => page.evaluate(() => window.__toasts.filter((x) => x === 'Stored data removed').length);
  for (const t0 = Date.now(); Date.now() - t0 < 60000 && Object.keys(await opfsRuns(page)).length;) {
    const n = await forgotten();
    await page.click('[data-testid=forget-stored]');
    if (await page.isVisible('[data-testid=forget-dialog]')) await page.click('[data-testid=forget-confirm]');   // asked first
    await page.waitForFunction((k) => window.__toasts.filter((x) => x === 'Stored data removed').length > k, n);
  }
  assert.deepEqual(await opfsRuns(page), {}, 'Forget with nothing shown clears every OPFS run folder');
  assertNoErrors(errors);
  await context.close();
});

test('issue 20: when the storage quota would not hold the result, the page says the numbers and the CLI command', async () => {
  const { page, context, errors } = await suite.open({ url: null });
  // 100 bytes of quota left: the sample's database needs more by the page's estimate.
  await context.addInitScript(() => {
    navigator.storage.estimate = async () => ({ quota: 1e6, usage: 1e6 - 100 });
  });
  await page.goto(suite.home);
  await page.setInputFiles('#pick-target', join(samples, 'vis_multi_step_rank'));
  await page.waitForFunction(() => !document.getElementById('notice').hidden);
  const notice = await page.textContent('#notice');
  assert.match(notice, /database needs about \d+ MB and the browser lets this page store 0 MB more/, notice);
  assert.match(notice, /graph_visualize/, notice);
  assert.equal(await page.isHidden('#subset-box'), false, 'one step at a time is offered');
  assertNoErrors(errors);
  await context.close();
});
