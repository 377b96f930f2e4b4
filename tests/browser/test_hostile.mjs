// The hostile-dump corpus (tests/hostile/make_hostile.py, issue #8): module and API names, stack
// frames and dtype strings holding HTML, script, SQL quotes, LIKE wildcards, backslashes and
// control characters. The native CLI must store them byte for byte; the page (Debian's Chromium,
// playwright-core) must build them, show them as written, find them with searches that hold
// quotes and percent signs, and run nothing: no dialog, no injected element, no console error.
// A folder whose own name holds quotes and a percent sign is refused by msProbe's path check in the
// CLI; the page never passes that name to the engine.
//   node --test tests/browser/test_hostile.mjs   (env: VISPROBE_NATIVE, default build/native/visprobe)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, root, native, runBuild, assertNoErrors } from './harness.mjs';

let spec;

const suite = browserSuite({
  prefix: 'visprobe_hostile_',
  setup: (s) => {
    execFileSync('python3', [join(root, 'tests', 'hostile', 'make_hostile.py'), join(s.tmp, 'corpus')], { stdio: 'pipe' });
    spec = JSON.parse(readFileSync(join(s.tmp, 'corpus', 'hostile.json'), 'utf8'));
  },
});

const hex = (s) => Buffer.from(s, 'utf8').toString('hex').toUpperCase();
const sql = (db, q) => execFileSync('sqlite3', ['-separator', '\t', db, q]).toString().split('\n').filter((l) => l !== '');
const sorted = (a) => [...a].sort();

/** Names of the (only) database a CLI run wrote. */
function nativeBuild(folder) {
  const out = suite.tmpDir('native_');
  const r = spawnSync(native, ['graph_visualize', '-tp', folder, '-o', join(out, 'o')], { encoding: 'utf8' });
  const dir = join(out, 'o');
  let files = [];
  try { files = readdirSync(dir); } catch { /* refused before the folder was made */ }
  return { status: r.status, stdout: r.stdout, db: files.length ? join(dir, files.find((f) => f.endsWith('.vis.db'))) : null, files };
}

/** The dtype strings of every tensor item of one rank's rows. */
function dtypesOf(db, rank) {
  const out = new Set();
  for (const line of sql(db, `SELECT input_data, output_data FROM tb_nodes WHERE rank = ${rank}`)) {
    for (const text of line.split('\t')) {
      for (const item of Object.values(JSON.parse(text))) if (item.type === 'torch.Tensor') out.add(item.dtype);
    }
  }
  return out;
}

test('native CLI: the rows hold the hostile names and frames byte for byte, the dtypes as §12 formats them', () => {
  const { status, stdout, db } = nativeBuild(spec.run);
  assert.equal(status, 0, stdout);
  for (const rank of [0, 1]) {
    assert.deepEqual(sorted(sql(db, `SELECT hex(node_name) FROM tb_nodes WHERE rank = ${rank}`)), sorted(spec.names.map(hex)));
    assert.deepEqual(dtypesOf(db, rank), new Set(spec.stored_dtypes));
  }
  // Stack frames: tb_stack holds json.dumps of the frame list (ensure_ascii); decoded it is the list.
  const stacks = sql(db, "SELECT stack_info FROM tb_stack WHERE stack_info != '[]'").map((t) => JSON.parse(t));
  assert.equal(stacks.length, 2);
  for (const s of stacks) assert.deepEqual(s, spec.frames);
  // The node table's query, LIKE with '%', '_' and '\\' escaped, finds exactly the names holding
  // each needle (the needle reaches sqlite3 as char() codes, never as SQL text).
  for (const [q, want] of Object.entries(spec.searches)) {
    const codes = [...('%' + q.replace(/[\\%_]/g, '\\$&') + '%')].map((c) => c.codePointAt(0)).join(',');
    const got = sql(db, `SELECT hex(node_name) FROM tb_nodes WHERE rank = 0 AND node_name LIKE char(${codes}) ESCAPE char(92)`);
    assert.deepEqual(sorted(got), sorted(want.map(hex)), `LIKE ${JSON.stringify(q)}`);
  }
});

test('native CLI: a folder whose name holds quotes and a percent sign is refused by the path check', () => {
  const { status, stdout, files } = nativeBuild(spec.hostile_folder);
  assert.equal(status, 1, stdout);
  const errors = stdout.split('\n').filter((l) => l.includes('[ERROR]'));
  assert.equal(errors.length, 1, stdout);
  assert.ok(errors[0].includes(`The file path ${spec.hostile_folder} contains special characters.`), errors[0]);
  assert.deepEqual(files, []);
});

/**
 * The page at 1500 x 1200, its guards (dialogs, page errors, console errors) in `problems`, and how
 * many script elements it has before any dump is shown.
 */
async function openPage() {
  const { page, context, errors: problems } = await suite.open({ viewport: { width: 1500, height: 1200 } });
  const scripts = await page.locator('script').count();
  return { page, context, problems, scripts };
}

/** Nothing the dumps hold became markup or ran. */
async function assertInert(page, scripts, problems) {
  const injected = await page.evaluate(() => ({
    pwned: typeof window.pwned,
    img: document.querySelectorAll('img').length,
    handlers: document.querySelectorAll('[onerror], [onload], [onclick]').length,
    markup: [...document.querySelectorAll('b, i')].filter((e) => ['float32', 'x'].includes(e.textContent)).length,
    scripts: document.querySelectorAll('script').length,
  }));
  assert.deepEqual(injected, { pwned: 'undefined', img: 0, handlers: 0, markup: 0, scripts });
  assertNoErrors(problems);
}

const paneNames = (page) => page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.map((g) => g.dataset.name));

test('page: hostile names build, render as written, are found by literal searches, and nothing runs', async () => {
  const { page, context, problems, scripts } = await openPage();
  await page.setInputFiles('#pick-target', spec.run);
  assert.match(await runBuild(page), /^ready/, await page.textContent('#error'));

  // The node table: LIKE with the needle bound as a parameter; '%', '_' and '\' match themselves.
  const tableNames = () => page.$$eval('#nodes tbody tr', (trs) => trs.map((tr) => tr.children[3].textContent).sort());
  await page.click('[data-testid=toolbar-intake]');   // the node table is in the app's drawer
  for (const [q, want] of Object.entries(spec.searches)) {
    const expected = sorted([...want, ...want]);   // two ranks
    await page.fill('#search', q);
    await page.waitForFunction((w) => JSON.stringify([...document.querySelectorAll('#nodes tbody tr')]
      .map((tr) => tr.children[3].textContent).sort()) === w, JSON.stringify(expected)).catch(() => {});   // the assert says what differs
    assert.deepEqual(await tableNames(), expected, `node table search ${JSON.stringify(q)}`);
  }

  // The graph workspace: expand both hostile modules, every name shows as written.
  await page.keyboard.press('Escape');   // closes the drawer over the workspace
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  for (const m of spec.modules) {
    const header = await page.evaluateHandle((name) => [...document.querySelectorAll('[data-testid=pane-debug] g.node')]
      .find((g) => g.dataset.name === name)?.querySelector('rect.header'), m);
    assert.ok(header.asElement(), `no box for ${m}`);
    await header.asElement().dblclick();
    // The expand is drawn (its children load first) and its glide is over before the next box is
    // looked for: it moves the boxes below it.
    await page.waitForFunction((name) => window.visprobeGraph.panes[0].nodes.get(name)?.expanded, m);
    await page.evaluate(() => window.visprobeGraph.panes[0].settled());
  }
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=pane-debug] g.node').length === n, spec.names.length);
  assert.deepEqual(sorted(await paneNames(page)), sorted(spec.names));
  const labels = await page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.map((g) => g.textContent).join('\n'));
  assert.ok(labels.includes('<script>'), labels);

  // The search panel: literal substrings, quotes and percent signs included.
  await page.click('[data-testid=rail-search]');
  for (const [q, want] of Object.entries(spec.searches)) {
    await page.fill('#ws-search', q);
    await page.waitForFunction((qq) => document.querySelector('[data-testid=search-list]').dataset.query === qq, q);
    const got = await page.$$eval('.ws-results li', (lis) => lis.map((li) => li.title));
    assert.deepEqual(sorted(got), want, `search panel ${JSON.stringify(q)}`);
  }

  // The detail panel of the <img onerror> API: its dtype strings and stack frames as text.
  await page.fill('#ws-search', 'onerror');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-list]').dataset.query === 'onerror');
  await page.click('.ws-results li');
  const img = spec.names.find((n) => n.includes('<img'));
  await page.waitForFunction((n) => document.querySelector('[data-testid=detail]').textContent.includes(n), img);
  const details = await page.textContent('[data-testid=detail]');
  assert.ok(details.includes('"><svg onload=alert(2)>'), details);
  await page.click('[data-testid=tab-info]');
  const info = await page.textContent('[data-testid=panel-info]');
  for (const frame of spec.frames) assert.ok(info.includes(frame), `frame ${JSON.stringify(frame)} in ${JSON.stringify(info)}`);

  await assertInert(page, scripts, problems);
  await context.close();
});

test('page: a dropped folder whose name holds quotes and a percent sign: the name stays text, the contents build', async () => {
  // The page mounts a dropped folder's contents under its own path (web/src/intake/files.js drops
  // the folder's name), so msProbe's path check never sees the name and the rank folder builds;
  // the CLI refuses the same folder (above). Either way nothing in the name may run.
  const { page, context, problems, scripts } = await openPage();
  await page.setInputFiles('#pick-target', spec.hostile_folder);
  assert.match(await runBuild(page), /^ready: 12 rows/, await page.textContent('#error'));
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  await assertInert(page, scripts, problems);
  await context.close();
});
