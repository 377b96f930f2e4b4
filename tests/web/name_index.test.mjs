// The name list of one scope (web/src/graph/name_index.js) and its search: web-ui SRCH-01 (case-
// insensitive substring, execution order, micro-step filter), SRCH-03 (space-separated terms all
// match; a "quoted" query is an exact name).
//   node --test tests/web/name_index.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NameIndex } from '../../web/src/graph/name_index.js';

/** [node_name, micro_step_id, unmatched] */
const ROWS = [
  ['Module.conv1.Conv2d.forward.0', 0, 0],               // 0
  ['Module.layer1.0.BasicBlock.forward.0', 0, 0],        // 1
  ['Module.layer1.0.relu.ReLU.forward.0', 1, 1],         // 2  ('relu' twice in one name)
  ['Torch.relu.1.forward', null, 0],                     // 3  no micro step: always kept
  ['Module.fc.Linear.forward.0', 1, 0],                  // 4
  ['Tensor.ADD.0.forward', 0, 1],                        // 5
  ['Module.layer1.0.BasicBlock.forward.0.extra', 0, 0],  // 6
];
/** Rows as graph/queries.js nameRows returns them. */
const nameRows = (rows) => rows.map(([name, micro, unmatched]) => ({ name, micro, unmatched: !!unmatched }));
function index(triples = ROWS) {
  const rows = nameRows(triples);
  const cols = NameIndex.columns();
  NameIndex.addRows(cols, rows.slice(0, 3));   // loaded in chunks
  NameIndex.addRows(cols, rows.slice(3));
  return new NameIndex(cols);
}

test('columns: names in order, micro step -1 when none, unmatched as 0/1', () => {
  const ix = index();
  assert.deepEqual(ix.names, ROWS.map((r) => r[0]));
  assert.deepEqual([...ix.micro], [0, 0, 1, -1, 1, 0, 0]);
  assert.deepEqual([...ix.unmatched], [0, 0, 1, 0, 0, 1, 0]);
});

test('SRCH-01: case-insensitive substring, each name once, in execution order', () => {
  const ix = index();
  assert.deepEqual(ix.search('relu', -1), [2, 3]);
  assert.deepEqual(ix.search('RELU', -1), [2, 3]);
  assert.deepEqual(ix.search('add', -1), [5]);
  assert.deepEqual(ix.search('forward.0', -1), [0, 1, 2, 4, 6]);
  assert.deepEqual(ix.search('  Linear  ', -1), [4]);   // the query is trimmed
  assert.deepEqual(ix.search('nothing like it', -1), []);
});

test('a match never spans two names', () => {
  const ix = index();
  // 'forward.0' ends name 0 and 'Module' starts name 1: joined they are not one name
  assert.deepEqual(ix.search('forward.0module', -1), []);
  assert.deepEqual(ix.search('0module', -1), []);
});

test('SRCH-03: space-separated terms must all match (AND), in any order', () => {
  const ix = index();
  assert.deepEqual(ix.search('relu forward', -1), [2, 3]);
  assert.deepEqual(ix.search('forward RELU', -1), [2, 3]);
  assert.deepEqual(ix.search('layer1 basicblock', -1), [1, 6]);
  assert.deepEqual(ix.search('relu conv1', -1), []);
  assert.deepEqual(ix.search('module   0   linear', -1), [4]);
});

test('SRCH-03: a quoted query is one exact name, case-insensitive', () => {
  const ix = index();
  assert.deepEqual(ix.search('"Module.layer1.0.BasicBlock.forward.0"', -1), [1]);   // not the '.extra' one
  assert.deepEqual(ix.search('"module.layer1.0.basicblock.forward.0"', -1), [1]);
  assert.deepEqual(ix.search('  "Torch.relu.1.forward"  ', -1), [3]);
  assert.deepEqual(ix.search('"Torch.relu.1"', -1), []);                             // a prefix is not the name
  assert.deepEqual(ix.search('"relu forward"', -1), []);                             // one term with a space
});

test('SEL-03: the micro-step filter keeps nodes without a micro step; keep() filters further', () => {
  const ix = index();
  assert.deepEqual(ix.search('relu', 0), [3]);
  assert.deepEqual(ix.search('relu', 1), [2, 3]);
  assert.deepEqual(ix.search('', 1), [2, 3, 4]);
  assert.deepEqual(ix.search('   ', -1), [0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(ix.search('forward', -1, (i) => ix.unmatched[i] === 1), [2, 5]);
  assert.deepEqual(ix.search('', 0, (i) => i > 0), [1, 3, 5, 6]);
});

test('names whose lower case is longer than the name (İ) do not shift later matches', () => {
  // 'İ'.toLowerCase() is two UTF-16 units; offsets follow the lower-cased haystack
  const ix = index([['Aİİİİİİ.x', 0, 0], ['target.one', 0, 0], ['b', 0, 0], ['target.two', 0, 0]]);
  assert.equal('İ'.toLowerCase().length, 2);
  assert.deepEqual(ix.search('target', -1), [1, 3]);
  assert.deepEqual(ix.search('"target.one"', -1), [1]);
  assert.deepEqual(ix.search('b', -1), [2]);
  assert.deepEqual(ix.search('i̇', -1), [0]);
});

test('at(): the name holding a haystack offset', () => {
  const ix = index([['ab', 0, 0], ['cde', 0, 0], ['f', 0, 0]]);   // hay 'ab\ncde\nf\n'
  assert.deepEqual([0, 1, 2, 3, 5, 6, 7, 8].map((p) => ix.at(p)), [0, 0, 0, 1, 1, 1, 2, 2]);
});

test('highlightOf: every term, or the quoted name as one term, case kept', () => {
  assert.deepEqual(NameIndex.highlightOf('  relu  Forward '), ['relu', 'Forward']);
  assert.deepEqual(NameIndex.highlightOf('"Module.fc.Linear.forward.0"'), ['Module.fc.Linear.forward.0']);
  assert.deepEqual(NameIndex.highlightOf('   '), []);
});

test('an empty scope searches to nothing', () => {
  const ix = new NameIndex(NameIndex.columns());
  assert.deepEqual(ix.search('x', -1), []);
  assert.deepEqual(ix.search('', -1), []);
});

test('the query "" (an empty quoted name) finds nothing and returns', () => {
  const ix = index([['a', 0, 0], ['b', 0, 0]]);
  // A guard instead of a hang: the haystack answers as before, but a search that keeps asking it
  // long after it has visited every name (2 here) stops with an error instead of spinning forever.
  let calls = 0;
  const hay = ix.hay;
  ix.hay = Object.assign(new String(hay), {
    indexOf(/** @type {string} */ s, /** @type {number} */ from) {
      if (++calls > 1000) throw new Error(`search('""') asked the haystack ${calls} times for ${ix.names.length} names`);
      return hay.indexOf(s, from);
    },
  });
  assert.deepEqual(ix.search('b', -1), [1]);   // the guard answers as the string does
  assert.deepEqual(ix.search('""', -1), []);
  ix.hay = hay;
  assert.deepEqual(ix.search('"a"', -1), [0]);
});
