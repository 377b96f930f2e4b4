// Issue 18 in the page: real Megatron dumps (scripts/gen_dump.py's defaults write the dumper's
// micro steps, -1 on the ranks of a later pipeline stage) build, compare and merge in the page with
// the native CLI's rows; a failed run names the user's own folder and marks the previous result.
//   node --test tests/browser/test_real_dumps.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, genDump, msprobeRows as rowsOf, runBuild, download, openOptions, engineIdle, panesSettled,
         assertNoErrors } from './harness.mjs';

const suite = browserSuite({ prefix: 'visprobe_real_' });

/** A generated Megatron run: target and golden (noise 0.01) under tmp/name, with the generator's manifest. */
function generate(name, ...args) {
  const dir = join(suite.tmp, name);
  genDump(join(dir, 'target'), ['--golden', join(dir, 'golden'), '--noise', '0.01', '--manifest', join(dir, 'manifest.json'), ...args]);
  return dir;
}

/** The page's database, downloaded. */
const downloaded = async (page) => (await download(page, '#download', suite.tmp, `page_${Date.now()}_`)).path;

/** Runs the page on the folders (merge flags as the CLI's), checks it equals the native CLI's rows. */
async function samePageAndNative(dir, { golden = true, flags = {}, cli = [] }) {
  const { page, context, errors } = await suite.open();
  await page.setInputFiles('#pick-target', join(dir, 'target'));
  if (golden) await page.setInputFiles('#pick-golden', join(dir, 'golden'));
  await openOptions(page);
  if (flags.oc) await page.check('#opt-oc');
  if (flags.fm) await page.check('#opt-fm');
  if (flags.rankSize) await page.click('details.merge summary');
  for (const [id, v] of [['#opt-rank-size', flags.rankSize], ['#opt-tp', flags.tp], ['#opt-pp', flags.pp]])
    if (v) await page.fill(id, v);
  const status = await runBuild(page);
  assert.match(status, /^ready/, await page.textContent('#error'));
  const mine = await downloaded(page);
  const theirs = suite.nativeDb(['-tp', join(dir, 'target'), ...(golden ? ['-gp', join(dir, 'golden')] : []), ...cli]);
  const [a, b] = [rowsOf(mine), rowsOf(theirs)];
  assert.ok(a[0].length > 10000, 'the database holds rows');
  assert.equal(a[0], b[0], 'tb_nodes');
  assert.equal(a[1], b[1], 'tb_stack');
  assert.equal(a[2], b[2], 'tb_config');
  assertNoErrors(errors);
  await context.close();
  return theirs;
}

test('TP2 x PP2 x 2 steps (micro step -1 on the second stage): build, compare -oc -fm and merge equal the CLI', async () => {
  const dir = generate('tp2pp2', '--ranks', '4', '--tp', '2', '--pp', '2', '--steps', '2', '--micro-batches', '2');
  const db = await samePageAndNative(dir, { golden: false, flags: { oc: true }, cli: ['-oc'] });
  const minus = execFileSync('sqlite3', [db, 'SELECT DISTINCT rank FROM tb_nodes WHERE micro_step_id = -1 ORDER BY 1'])
    .toString().trim().split('\n');
  assert.deepEqual(minus, ['2', '3'], 'the ranks of the second pipeline stage begin with micro step -1');
  await samePageAndNative(dir, { flags: { oc: true, fm: true }, cli: ['-oc', '-fm'] });
  await samePageAndNative(dir, { flags: { rankSize: '4 4', tp: '2 2', pp: '2 2' },
                                 cli: ['--rank_size', '4', '4', '--tp', '2', '2', '--pp', '2', '2'] });
});

test('PP4 Megatron run: the merge compare equals the CLI', async () => {
  const dir = generate('pp4', '--ranks', '4', '--pp', '4', '--micro-batches', '4');
  await samePageAndNative(dir, { flags: { rankSize: '4 4', tp: '1 1', pp: '4 4' },
                                 cli: ['--rank_size', '4', '4', '--tp', '1', '1', '--pp', '4', '4'] });
});

test('a failed run names the dropped folder, not the mount path, and marks the previous graph', async () => {
  const dir = generate('small', '--ranks', '2', '--tp', '2');
  // All three files (a folder lacking one is refused before Build), dump.json cut short.
  const bad = join(suite.tmp, 'truncated');
  mkdirSync(join(bad, 'step0', 'rank0'), { recursive: true });
  for (const f of ['construct.json', 'dump.json', 'stack.json']) cpSync(join(dir, 'target', 'rank0', f), join(bad, 'step0', 'rank0', f));
  writeFileSync(join(bad, 'step0', 'rank0', 'dump.json'), readFileSync(join(dir, 'target', 'rank0', 'dump.json')).subarray(0, 300));
  const { page, context, errors } = await suite.open();
  await page.setInputFiles('#pick-target', join(dir, 'target'));
  assert.match(await runBuild(page), /^ready/, await page.textContent('#error'));
  const first = await page.textContent('[data-testid=db-name]');
  assert.equal(await page.isVisible('[data-testid=previous-result]'), false);

  await page.setInputFiles('#pick-target', bad);
  assert.match(await runBuild(page), /^failed/);
  const error = await page.textContent('#error');
  assert.match(error, /truncated\/step0\/rank0\/dump\.json @ byte 300/);
  assert.doesNotMatch(error, /\/run\d|\/target\//);
  assert.doesNotMatch(await page.textContent('#log'), /\/run\d+\//);
  assert.equal(await page.isVisible('[data-testid=previous-result]'), true);
  assert.ok((await page.textContent('[data-testid=previous-result]')).includes(first));
  assert.equal(await page.evaluate(() => document.getElementById('workspace').classList.contains('stale')), true);

  await page.setInputFiles('#pick-target', join(dir, 'target'));
  assert.match(await runBuild(page), /^ready/);
  assert.equal(await page.isVisible('[data-testid=previous-result]'), false);
  assert.equal(await page.evaluate(() => document.getElementById('workspace').classList.contains('stale')), false);
  assertNoErrors(errors);
  await context.close();
});

test('hovering and double-clicking through the boxes of a freshly built graph keeps the browser alive (issue 19)', async () => {
  // The setting: a 12-layer compare pair with one diverging layer and an overflow, 1600 x 1000.
  const dir = join(suite.tmp, 'twelve');
  genDump(join(dir, 'target'), ['--golden', join(dir, 'golden'), '--layers', '12', '--diverge-layer', '7', '--overflow-layer', '3',
                                '--manifest', join(dir, 'manifest.json')]);
  let disconnected = false;
  const onGone = () => { disconnected = true; };
  const browser = await suite.browser();
  browser.on('disconnected', onGone);
  const { page, context, errors } = await suite.open();
  let crashed = false;
  page.on('crash', () => { crashed = true; });
  await page.setInputFiles('#pick-target', join(dir, 'target'));
  await page.setInputFiles('#pick-golden', join(dir, 'golden'));
  await openOptions(page);
  await page.check('#opt-oc');
  assert.match(await runBuild(page), /^ready/, await page.textContent('#error'));
  await page.waitForSelector('[data-testid=pane-debug] g.node');
  await page.waitForSelector('[data-testid=pane-bench] g.node');
  // Boxes of both panes in turn (document order within each pane), resting on each one until its
  // hover card is up (hover_card.js shows it 250 ms after the pointer rests, then queries both sides)
  // before the double-click, so each expand / collapse races the card's queries and redraw.
  const visited = { debug: 0, bench: 0 };
  const cards = { debug: 0, bench: 0 };
  const seen = new Set();
  // The i-th box of a pane, in document order, whose header is on screen and not covered (by the
  // minimap, a badge of another node, the dock): the point to hover there, inside its left end.
  const target = (side, i) => page.evaluate(([s, k]) => {
    const host = document.querySelector(`[data-testid=pane-${s}]`).getBoundingClientRect();
    let seen = 0;
    for (const r of document.querySelectorAll(`[data-testid=pane-${s}] g.node rect.header`)) {
      const b = r.getBoundingClientRect();
      const name = r.closest('g.node').dataset.name;
      const pt = { x: b.left + Math.min(12, b.width / 2), y: b.top + b.height / 2 };
      if (pt.x < host.left || pt.x > host.right || pt.y < host.top || pt.y > host.bottom) continue;
      if (document.elementFromPoint(pt.x, pt.y)?.closest('g.node')?.dataset.name !== name) continue;
      if (seen++ === k) return { name, ...pt };
    }
    return null;
  }, [side, i]);
  let failure = null;   // a crash makes the page's calls throw: reported below as the crash
  try {
    for (let round = 0; round < 2; ++round) {
      for (let i = 0; i < 6; ++i) {
        for (const side of ['debug', 'bench']) {
          // The previous double-click's expand (and its synced twin) is drawn (every query it started
          // has answered) and has finished gliding: the box found next stays under the pointer.
          await engineIdle(page);
          await panesSettled(page);
          // The Bench pane three boxes ahead: its twin of the Debug box was just toggled with it
          // (synced expansion), and a second double-click there would only undo that.
          const at = await target(side, side === 'bench' ? (i + 3) % 6 : i);
          if (!at) continue;
          await page.mouse.move(5, 5);   // off the panes: the card of the previous box goes
          await page.mouse.move(at.x, at.y);
          // The card comes 250 ms after the pointer rests, once both sides' rows are read: however
          // long a loaded machine takes for that (nothing else moves the box meanwhile).
          const card = await page.waitForFunction((n) => {
            const c = document.querySelector('[data-testid=hover-card]');
            return c && !c.hidden && c.querySelector('.ws-card-name')?.textContent === n;
          }, at.name).then(() => true, () => false);
          if (card) { ++cards[side]; seen.add(at.name); }
          await page.mouse.dblclick(at.x, at.y);
          ++visited[side];
        }
      }
    }
  } catch (e) { failure = e; }
  assert.equal(crashed, false, 'the page crashed');
  assert.equal(disconnected, false, 'the browser went away');
  if (failure) throw failure;
  assert.ok(visited.debug >= 6 && visited.bench >= 6, `hovered and double-clicked boxes in both panes: ${JSON.stringify(visited)}`);
  // The hover card came up, named the hovered box, in both panes (the rest was long enough).
  assert.ok(cards.debug >= 3 && cards.bench >= 3, `hover cards shown: ${JSON.stringify(cards)}`);
  assert.ok(seen.size >= 4, `hover cards for ${seen.size} distinct boxes`);
  assert.equal(await page.evaluate(() => document.querySelectorAll('[data-testid=pane-debug] g.node').length > 0), true);
  assertNoErrors(errors);
  browser.off('disconnected', onGone);
  await context.close();
});
