// Issue 45 in the page: PyTorch real-tensor dumps (.pt files written by msProbe's own dumper,
// ../shared/fixtures/msprobe-real-dumper) compared in the browser give the native CLI's rows (the
// engine reads the .pt files from the dropped folders on WORKERFS); the detail panel shows the
// metrics; tensor-mode manual matching re-reads the pair's files, from the build's folders or from
// folders chosen for a database opened from a file, and writes the rows the engine wrote.
//   node --test tests/browser/test_pt_tensor.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { browserSuite, fixture, graphDb, sqlJson, runBuild, download, openGraphDb, assertNoErrors } from './harness.mjs';

const dumps = (side) => fixture('msprobe-real-dumper', side, 'step0', 'rank0');
const NODE = 'Module.encoder.layers.0.mlp.dense_h_to_4h.Linear.forward.0';
let cliDb;

const nodeRows = (db) => sqlJson(db, 'SELECT id, precision_index, input_data, output_data, matched_node_link FROM tb_nodes ORDER BY id');

const suite = browserSuite({
  prefix: 'visprobe_pt_',
  setup: (s) => { cliDb = graphDb(join(s.tmp, 'cli'), ['-tp', dumps('pt_tensor_target'), '-gp', dumps('pt_tensor_golden')]); },
});

/** The page's database, downloaded. */
const downloaded = async (page) => (await download(page, '#download', suite.tmp, `page_${Date.now()}_`)).path;

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
  const { page, context, errors } = await suite.open();
  await page.setInputFiles('#pick-target', dumps('pt_tensor_target'));
  await page.setInputFiles('#pick-golden', dumps('pt_tensor_golden'));
  assert.match(await runBuild(page), /^ready/);
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
  assertNoErrors(errors);
  await context.close();
});

test('a CLI-made .pt compare opened from a file: tensor matching asks for the dump folders, then reads them', async () => {
  const { page, context, errors } = await suite.open();
  await openGraphDb(page, cliDb);
  const before = await itemCells(page);
  assert.equal(before.item.Cosine, '1.0');
  await matching(page);
  assert.match(await page.textContent('[data-testid=tensor-state]'), /No dump folders yet/);
  // Without the folders the match is refused with the way out.
  assert.match(await unmatchAndMatch(page), /choose the debug and the bench dump folders/);
  const unmatched = await itemCells(page);
  assert.equal(unmatched.item.Cosine, undefined, 'the unmatch stripped the metrics');
  // The folders chosen: the same pair now matches with the engine's rows.
  await page.setInputFiles('#ws-debug-folder', dumps('pt_tensor_target'));
  await page.setInputFiles('#ws-bench-folder', dumps('pt_tensor_golden'));
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
  assertNoErrors(errors);
  await context.close();
});
