// Issue 45 in the page: PyTorch real-tensor dumps (.pt files written by msProbe's own dumper,
// ../shared/fixtures/msprobe-real-dumper) compared in the browser give the native CLI's rows (the
// engine reads the .pt files from the dropped folders on WORKERFS); the detail panel shows the
// metrics; tensor-mode manual matching re-reads the pair's files, from the build's folders or from
// folders chosen for a database opened from a file, and writes the rows the engine wrote.
//   node --test tests/browser/test_pt_tensor.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer, launchChromium, openPage as openAt, root } from './harness.mjs';

const shared = resolve(process.env.VISPROBE_SHARED || join(root, '..', 'shared'));
const fixture = (side) => join(shared, 'fixtures', 'msprobe-real-dumper', side, 'step0', 'rank0');
const native = join(root, 'build', 'native', 'visprobe');
const NODE = 'Module.encoder.layers.0.mlp.dense_h_to_4h.Linear.forward.0';
let server, origin, browser, tmp, cliDb;

const sqlRows = (db, q) => JSON.parse(execFileSync('sqlite3', ['-json', db, q], { maxBuffer: 1 << 28 }).toString() || '[]');
const nodeRows = (db) => sqlRows(db, 'SELECT id, precision_index, input_data, output_data, matched_node_link FROM tb_nodes ORDER BY id');

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'visprobe_pt_'));
  const out = join(tmp, 'cli');
  execFileSync(native, ['graph_visualize', '-tp', fixture('pt_tensor_target'), '-gp', fixture('pt_tensor_golden'), '-o', out], { stdio: 'pipe' });
  cliDb = join(out, readdirSync(out).find((f) => f.endsWith('.vis.db')));
  ({ server, origin } = await startServer(join(root, 'build', 'web')));
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const openPage = () => openAt(browser, origin + '/', { acceptDownloads: true, viewport: { width: 1600, height: 1000 } });

async function downloaded(page) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  const saved = join(tmp, `page_${Date.now()}_${download.suggestedFilename()}`);
  await download.saveAs(saved);
  return saved;
}

/** The stored cells of NODE's first input item, read by the page's own engine. */
const itemCells = (page) => page.evaluate(async (n) => {
  const r = await window.visprobeGraph.engine.query("SELECT input_data, precision_index FROM tb_nodes WHERE data_source = 'NPU' AND node_name = ?", [n]);
  const items = JSON.parse(r.values[0][0] || '{}');
  return { item: items[n + '.input.0'] || null, precision: r.values[0][1] };
}, NODE);

async function matching(page) {
  await page.click('[data-testid=rail-matching]');
  await page.waitForSelector('[data-testid=matching][data-ready]');
}

/** Unmatch NODE (selected in the Debug pane), then match it again with its bench node. */
async function unmatchAndMatch(page) {
  const pick = async (id, name) => {
    await page.click(id);
    await page.fill(id, name);
    await page.click(`[data-testid=picker-${id.slice(4)}] li[title="${name}"]`);
  };
  await pick('#ws-dbg-matched', NODE);
  await page.waitForFunction(() => document.querySelector('#ws-bch-matched').value !== '');
  await page.click('#ws-unmatch');
  await page.waitForFunction(() => /Unmatch successful/.test(document.querySelector('[data-testid=match-msg]').textContent));
  await pick('#ws-dbg-unmatched', NODE);
  await pick('#ws-bch-unmatched', NODE);
  await page.click('#ws-match');
  await page.waitForFunction(() => {
    const t = document.querySelector('[data-testid=match-msg]').textContent;
    return t !== '' && !/^Unmatch/.test(t);
  });
  return page.textContent('[data-testid=match-msg]');
}

test('a .pt real-tensor compare built in the page equals the CLI, metrics on screen, manual match re-reads the files', async () => {
  const { page, context, errors } = await openPage();
  await page.setInputFiles('#pick-target', fixture('pt_tensor_target'));
  await page.setInputFiles('#pick-golden', fixture('pt_tensor_golden'));
  await page.waitForFunction(() => !document.getElementById('run').disabled);
  await page.click('#run');
  await page.waitForFunction(() => /^(ready|failed)/.test(document.getElementById('status').textContent), null, { timeout: 120000 });
  assert.match(await page.textContent('#status'), /^ready/);
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  const saved = await downloaded(page);
  // The page's rows are the CLI's, but for the folder names in dump_data_dir.
  assert.deepEqual(nodeRows(saved), nodeRows(cliDb));
  const before = await itemCells(page);
  assert.ok(before.item, 'the node has its input item');
  assert.equal(before.item.Cosine, '1.0');
  assert.equal(before.item.EucDist, '0.023799335063320236');
  assert.equal(before.item.MaxAbsErr, '0.003323674202');
  // On screen: the node selected, its detail panel holds the metrics read from the .pt pair.
  await page.evaluate((n) => window.visprobeGraph.selectFromList(window.visprobeGraph.panes[0], n), NODE);
  await page.waitForFunction(() => /0\.023799335063320236/.test(document.querySelector('[data-testid=detail]').textContent)
                                   && /0\.003323674202/.test(document.querySelector('[data-testid=detail]').textContent));

  // Manual matching in tensor mode: the build's own folders; the pair gets its metrics again.
  await matching(page);
  await page.waitForFunction(() => /From this build/.test(document.querySelector('[data-testid=tensor-state]').textContent));
  assert.match(await unmatchAndMatch(page), /Match successful/);
  assert.deepEqual(await itemCells(page), before);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a CLI-made .pt compare opened from a file: tensor matching asks for the dump folders, then reads them', async () => {
  const { page, context, errors } = await openPage();
  await page.setInputFiles('#pick-db', cliDb);
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  const before = await itemCells(page);
  assert.equal(before.item.Cosine, '1.0');
  await matching(page);
  assert.match(await page.textContent('[data-testid=tensor-state]'), /No dump folders yet/);
  // Without the folders the match is refused with the way out.
  assert.match(await unmatchAndMatch(page), /choose the debug and the bench dump folders/);
  const unmatched = await itemCells(page);
  assert.equal(unmatched.item.Cosine, undefined, 'the unmatch stripped the metrics');
  // The folders chosen: the same pair now matches with the engine's rows.
  await page.setInputFiles('#ws-debug-folder', fixture('pt_tensor_target'));
  await page.setInputFiles('#ws-bench-folder', fixture('pt_tensor_golden'));
  await page.waitForFunction(() => /Chosen: rank0 and rank0/.test(document.querySelector('[data-testid=tensor-state]').textContent));
  const pick = async (id, name) => {
    await page.click(id);
    await page.fill(id, name);
    await page.click(`[data-testid=picker-${id.slice(4)}] li[title="${name}"]`);
  };
  await pick('#ws-dbg-unmatched', NODE);
  await pick('#ws-bch-unmatched', NODE);
  await page.click('#ws-match');
  await page.waitForFunction(() => /Match successful/.test(document.querySelector('[data-testid=match-msg]').textContent));
  assert.deepEqual(await itemCells(page), before);
  assert.deepEqual(errors, []);
  await context.close();
});
