// The layout of a dropped folder read from its paths alone (web/src/intake/files.js), before the
// engine sees it: graph-engine §3.1 / §3.2 (one rank, rankN/, stepN/rankN/; `rank01` is not a rank
// name) and trend-analyzer §2.3 (monitor runs).
//   node --test tests/web/files.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeLayout, entriesFromFileList } from '../../web/src/intake/files.js';

/** Entries as the intake makes them: a path in the chosen folder and a File (only its size is read). */
const entries = (paths, size = 10) => paths.map((path) => ({ path, file: { size } }));
const RANK_FILES = ['construct.json', 'dump.json', 'stack.json'];
const rankDir = (d) => RANK_FILES.map((f) => `${d}/${f}`);

test('one rank: the three json files; one missing is named and described as a rank folder', () => {
  const one = describeLayout(entries(RANK_FILES, 100));
  assert.deepEqual([one.kind, one.key, one.missing, one.bytes], ['files', 'layoutFiles', [], 300]);
  const lacking = describeLayout(entries(['dump.json', 'construct.json']));
  assert.deepEqual([lacking.kind, lacking.key, lacking.missing], ['files', 'layoutOneRank', ['stack.json']]);
});

test('rank folders: names, count, and the files each lacks', () => {
  const d = describeLayout(entries([...rankDir('rank0'), 'rank1/dump.json', 'rank1/dump_tensor_data/x.npy', 'README.txt']));
  assert.equal(d.kind, 'ranks');
  assert.deepEqual(d.ranks, ['rank0', 'rank1']);
  assert.deepEqual([d.key, d.args], ['layoutRanks', [2, 'rank0, rank1']]);
  assert.deepEqual(d.missing, ['rank1/construct.json', 'rank1/stack.json']);
  // the bare name `rank` is a rank folder
  assert.equal(describeLayout(entries(rankDir('rank'))).kind, 'ranks');
});

test('§3.2: rank01 / step01 are not rank / step names; mixed rank and step folders are not a layout', () => {
  assert.equal(describeLayout(entries(rankDir('rank01'))).kind, 'unknown');
  assert.equal(describeLayout(entries(rankDir('step01/rank0'))).kind, 'unknown');
  const mixed = describeLayout(entries([...rankDir('rank0'), ...rankDir('step1/rank0')]));
  assert.deepEqual([mixed.kind, mixed.key, mixed.missing], ['unknown', 'layoutUnknown', []]);
});

test('step folders of rank folders: steps, distinct ranks, files lacking per step and rank', () => {
  const d = describeLayout(entries([...rankDir('step0/rank0'), ...rankDir('step0/rank1'), ...rankDir('step1/rank0'), 'step1/rank1/dump.json']));
  assert.equal(d.kind, 'steps');
  assert.deepEqual([d.steps, d.ranks, d.args], [['step0', 'step1'], ['rank0', 'rank1'], [2, 2]]);
  assert.deepEqual(d.missing, ['step1/rank1/construct.json', 'step1/rank1/stack.json']);
});

test('a database file, a monitor run of CSV files (trend only), and nothing recognised', () => {
  assert.equal(describeLayout(entries(['run.vis.db'])).kind, 'database');
  assert.equal(describeLayout(entries(['metrics.trend.db'])).kind, 'database');
  assert.equal(describeLayout(entries(['a.db', 'b.db'])).kind, 'unknown');
  const mon = describeLayout(entries(['Dec05_21-34-40-rank0-abc/actv_0-0.csv', 'Dec05_21-34-40-rank1-abc/actv_0-0.csv']));
  assert.deepEqual([mon.kind, mon.key, mon.args], ['monitor', 'layoutMonitor', [2]]);
  assert.equal(describeLayout(entries(['Dec05_21-34-40-rank0-abc/notes.txt'])).kind, 'unknown');   // no CSV
  assert.equal(describeLayout(entries(['photos/cat.png'])).kind, 'unknown');
});

test('picked folders: the common root folder is the name, stripped from every path', () => {
  const files = [{ name: 'dump.json', webkitRelativePath: 'run/rank0/dump.json' }, { name: 'x', webkitRelativePath: 'run/rank1/x' }];
  const r = entriesFromFileList(files);
  assert.equal(r.name, 'run');
  assert.deepEqual(r.entries.map((e) => e.path), ['rank0/dump.json', 'rank1/x']);
  assert.equal(r.entries[0].file, files[0]);
  // loose files (no relative path): no root
  const loose = entriesFromFileList([{ name: 'a.vis.db', webkitRelativePath: '' }]);
  assert.deepEqual([loose.name, loose.entries.map((e) => e.path)], ['', ['a.vis.db']]);
  assert.deepEqual(entriesFromFileList([]), { name: '', entries: [] });
});
