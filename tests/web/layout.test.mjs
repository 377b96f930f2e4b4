// Nested-box layout (web/src/graph/layout.js) against web-ui §4.2 GL-01..GL-06, worked out by hand
// from the spec's formulas (H 15, LW 50, HG 5, VG 10, R 5, 6 units a character).
//   node --test tests/web/layout.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { H, LW, HG, VG, R, CHAR_W, labelOf, isLeaf, measure, layout } from '../../web/src/graph/layout.js';

/** A node as the workspace builds it; `kids` undefined = a leaf (no sub nodes). */
function node(name, depth, { type = 0, kids, expanded = false, loaded = true } = {}) {
  const n = { name, type, depth, subNames: kids ? kids.map((k) => k.name) : [], children: kids && loaded ? kids : null,
              expanded, precision: null, overflow: null, link: [], micro: -1, parent: null, x: NaN, y: NaN, w: NaN, h: NaN };
  for (const k of kids || []) k.parent = n;
  return n;
}
const leaf = (name, depth = 2) => node(name, depth, { type: 1 });
const keepAll = () => true;
const box = (n) => [n.x, n.y, n.w, n.h];

test('GL-01: the constants', () => {
  assert.deepEqual({ H, LW, HG, VG, R, CHAR_W }, { H: 15, LW: 50, HG: 5, VG: 10, R: 5, CHAR_W: 6 });
});

test('GL-06: labels of the spec examples; full names at depth 0 and 1', () => {
  assert.equal(labelOf(node('Module.layer1.1.relu.ReLU.forward.0', 2)), 'relu.ReLU.forward.0');
  assert.equal(labelOf(node('Module.layer4.0.BasicBlock.forward.0', 2)), 'layer4.0.BasicBlock.forward.0');
  assert.equal(labelOf(node('Tensor.permute.1.forward', 3, { type: 1 })), 'permute.1.forward');
  // other nodes: 2nd-from-last not a number -> the last two
  assert.equal(labelOf(node('Torch.nn.functional.relu.forward', 3, { type: 1 })), 'relu.forward');
  // full names when the rule finds no shorter form
  assert.equal(labelOf(node('1.a.b.c', 2)), '1.a.b.c');           // 4 segments, 4th-from-last numeric, not > 4
  assert.equal(labelOf(node('3.forward', 2, { type: 1 })), '3.forward');
  assert.equal(labelOf(node('Module.layer1.1.relu.ReLU.forward.0', 1)), 'Module.layer1.1.relu.ReLU.forward.0');
  assert.equal(labelOf(node('DefaultModel', 0)), 'DefaultModel');
});

test('GL-02: a leaf is LW x H, a collapsed module is its label width + 2 HG', () => {
  const l = leaf('Tensor.add.0.forward');
  measure(l, keepAll);
  assert.deepEqual([l.w, l.h], [50, 15]);
  // collapsed depth-2 module: its short label 'relu.ReLU.forward.0' (19 chars) -> 19*6 + 10
  const m = node('Module.layer1.1.relu.ReLU.forward.0', 2, { kids: [leaf('x.y')] });
  measure(m, keepAll);
  assert.deepEqual([m.w, m.h], [124, 15]);
  // "expanded" with children not loaded yet is still measured as collapsed
  const e = node('Module.fc.Linear.forward.0', 1, { kids: [leaf('a.b')], expanded: true, loaded: false });
  measure(e, keepAll);
  assert.deepEqual([e.w, e.h], [26 * 6 + 10, 15]);
});

/**
 * root (expanded): [A leaf, B expanded with 7 leaves, C leaf, D collapsed module]
 * B: label 34 chars (204); two leaf rows -> content 5*50 + 4*5 = 270; w = 280; h = 15 + 2*25 + 10 = 75
 * root: runs [A] [B] [C] [D]; content max(50, 280, 50, 214) = 280 -> w 290;
 *       h = 15 + 25 + (75+10) + 25 + (15+10) + 10 = 185
 */
function tree() {
  const bKids = Array.from({ length: 7 }, (_, i) => leaf(`Module.layer1.Sequential.forward.0.op${i}.forward`));
  const A = leaf('Module.conv1.Conv2d.forward.0', 1);
  const B = node('Module.layer1.Sequential.forward.0', 1, { kids: bKids, expanded: true });
  const C = leaf('Module.fc.Linear.forward.0', 1);
  const D = node('Module.layer2.Sequential.forward.0', 1, { kids: [leaf('Module.layer2.x.forward')] });
  const root = node('DefaultModel', 0, { kids: [A, B, C, D], expanded: true });
  return { root, A, B, C, D, bKids };
}

test('GL-02 / GL-03: sizes and positions of a small tree, worked by hand', () => {
  const { root, A, B, C, D, bKids } = tree();
  const out = layout(root, keepAll);
  assert.deepEqual(box(root), [0, 0, 290, 185]);
  assert.deepEqual(box(A), [120, 25, 50, 15]);          // one-leaf row centred: floor((290 - 50) / 2)
  assert.deepEqual(box(B), [5, 50, 280, 75]);           // floor((290 - 280) / 2)
  assert.deepEqual(box(C), [120, 135, 50, 15]);         // 50 + 75 + 10
  assert.deepEqual(box(D), [38, 160, 214, 15]);         // 34 chars -> 214; floor(76 / 2)
  // B's 7 leaves: a row of 5 (width 270) and a row of 2 (width 105), each centred in B
  assert.deepEqual(bKids.map((k) => [k.x, k.y]),
    [[10, 75], [65, 75], [120, 75], [175, 75], [230, 75], [92, 100], [147, 100]]);
  // drawing order: parents first, depth-first in execution order
  assert.deepEqual(out.map((n) => n.name), [root, A, B, ...bKids, C, D].map((n) => n.name));
  // every child lies inside its parent's box, below its header
  for (const n of out.slice(1)) {
    const p = n.parent;
    assert.ok(n.x >= p.x && n.x + n.w <= p.x + p.w && n.y >= p.y + H && n.y + n.h <= p.y + p.h, n.name);
  }
});

test('GL-03: centring floors half units; runs of the same kind stack', () => {
  // root 'R' with [L1, L2] (a row of 105), M (collapsed 'M.x': 28), [L3]: content 105 -> w 115
  const L1 = leaf('L1', 1), L2 = leaf('L2', 1), L3 = leaf('L3', 1);
  const M = node('M.x', 1, { kids: [leaf('M.x.y')] });
  const root = node('R', 0, { kids: [L1, L2, M, L3], expanded: true });
  layout(root, keepAll);
  assert.deepEqual(box(root), [0, 0, 115, 100]);        // 15 + 25 + 25 + 25 + 10
  assert.deepEqual([L1.x, L1.y, L2.x, L2.y], [5, 25, 60, 25]);
  assert.deepEqual([M.x, M.y, M.w], [43, 50, 28]);      // floor(87 / 2)
  assert.deepEqual([L3.x, L3.y], [32, 75]);             // floor(65 / 2)
});

test('GL-02: 5 leaves make one row, 6 make two; a long label widens the box', () => {
  const five = node('P', 1, { kids: Array.from({ length: 5 }, (_, i) => leaf(`p${i}`)), expanded: true });
  measure(five, keepAll);
  assert.deepEqual([five.w, five.h], [280, 15 + 25 + 10]);
  const six = node('P', 1, { kids: Array.from({ length: 6 }, (_, i) => leaf(`p${i}`)), expanded: true });
  measure(six, keepAll);
  assert.deepEqual([six.w, six.h], [280, 15 + 50 + 10]);
  const name = 'Module.a_really_long_module_name_that_is_wider.forward.0';   // 56 chars
  const wide = node(name, 1, { kids: [leaf('q')], expanded: true });
  layout(wide, keepAll);
  assert.equal(name.length, 56);
  assert.deepEqual([wide.w, wide.h], [56 * 6 + 10, 50]);
  assert.equal(wide.children[0].x, Math.floor((346 - 50) / 2));
});

test('the micro-step filter applies to the root\'s children only', () => {
  const { root, B, C, bKids } = tree();
  const keep = (c) => c !== C && c !== bKids[5] && c !== bKids[6];   // would drop C (root child) and two grandchildren
  const out = layout(root, keep);
  assert.ok(!out.includes(C));
  assert.ok(out.includes(bKids[5]) && out.includes(bKids[6]), 'grandchildren are not filtered');
  // without C: h = 15 + 25 + 85 + 25 + 10; B keeps its two rows of leaves (75 high)
  assert.deepEqual(box(root), [0, 0, 290, 160]);
  assert.deepEqual(box(B), [5, 50, 280, 75]);
  assert.deepEqual([bKids[6].x, bKids[6].y], [147, 100]);
  assert.equal(isLeaf(C), true);
  assert.equal(isLeaf(root), false);
});

test('an expanded node whose children are all filtered is a header and a gap', () => {
  const root = node('Root', 0, { kids: [leaf('a', 1), leaf('b', 1)], expanded: true });
  const out = layout(root, () => false);
  assert.deepEqual(out, [root]);
  assert.deepEqual(box(root), [0, 0, 4 * 6 + 10, 25]);
});
