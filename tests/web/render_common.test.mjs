// What both renderers share (web/src/graph/render_common.js): label sizes (issue 46), fitted labels
// (GR-03, issues 19 / 46) and markers (GR-12). Without a page textWidth falls back to 6 px a
// character at 10 px, so widths here are `chars * 6 * size / 10`.
//   node --test tests/web/render_common.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelSize, textWidth, fitText, fitLabel, middleEllipsis, markerOf } from '../../web/src/graph/render_common.js';

test('labelSize: the base size (6 leaf, 8 module) until the screen cap (12 / 14 px) is reached', () => {
  assert.equal(labelSize(true, 1), 6);
  assert.equal(labelSize(true, 2), 6);        // 12 / 2 = 6: exactly the base
  assert.equal(labelSize(true, 3), 4);
  assert.equal(labelSize(true, 4), 3);
  assert.equal(labelSize(true, 7), 1.71);     // rounded to 1/100
  assert.equal(labelSize(false, 1), 8);
  assert.equal(labelSize(false, 2), 7);
  assert.equal(labelSize(false, 3), 4.67);
  assert.equal(labelSize(false, 0.1), 8);     // zoomed out: never larger than the base
  assert.equal(labelSize(false, 0), 8);
});

test('textWidth without a DOM: 6 px a character at 10 px, scaled by the size', () => {
  assert.equal(typeof document, 'undefined');
  assert.equal(textWidth('abcde', 10), 30);
  assert.equal(textWidth('abcde', 8), 24);
  assert.equal(textWidth('', 8), 0);
  assert.equal(textWidth('a…b', 10), 18);     // the ellipsis is one character
});

test('fitText: whole, then .forward/.backward shortened, then a middle ellipsis keeping more of the end', () => {
  const label = 'all_reduce.3.forward';          // 20 chars: 72 at size 6
  assert.equal(fitText(label, 72, 6), label);
  assert.equal(fitText(label, 71.9, 6), 'all_reduce.3.fwd');   // 16 chars: 57.6
  assert.equal(fitText('conv.backward.0', 1000, 6), 'conv.backward.0');
  assert.equal(fitText('conv.backward.0', 50, 6), 'conv.bwd.0');
  // room 50 at 3.6 a char: 13 characters at most -> 4 + '…' + 8
  assert.equal(fitText(label, 50, 6), 'all_…ce.3.fwd');
  // neighbours stay apart
  assert.equal(fitText('all_reduce.4.forward', 50, 6), 'all_…ce.4.fwd');
  // only whole segments are shortened
  // (a wrong '.fwd' would give 'x.fwdness.0', 11 chars = 39.6 <= 43; 11 chars fit 43 (12 need 43.2),
  // so the name is cut around an ellipsis: 4 + '…' + 6)
  assert.equal(fitText('x.forwardness.0', 43, 6), 'x.fo…ness.0');
  assert.equal(fitText('a.forward.b', 1000, 6), 'a.forward.b');
  assert.equal(fitText('a.forward.b', 36, 6), 'a.fwd.b');
});

test('fitText results always fit the room when more than one character does', () => {
  const names = ['Module.layer1.0.BasicBlock.forward.0', 'Distributed.all_reduce.12.backward', 'Tensor.permute.1.forward'];
  for (const n of names) {
    for (let room = 10; room <= 200; room += 7) {
      const s = fitText(n, room, 6);
      assert.ok(textWidth(s, 6) <= room, `${n} in ${room}: '${s}'`);
      if (s !== n) assert.ok(s.includes('…') || s.length < n.length, s);
    }
  }
});

test('fitLabel fits the GL-06 short label to the box width minus 4, cached per width and size', () => {
  const d = { name: 'Module.layer1.1.relu.ReLU.forward.0', type: 0, depth: 2 };   // label 'relu.ReLU.forward.0'
  assert.equal(fitLabel(d, 200, 8), 'relu.ReLU.forward.0');                        // 19 * 4.8 = 91.2 <= 196
  assert.equal(fitLabel(d, 80, 8), 'relu.ReLU.fwd.0');                            // 15 * 4.8 = 72 <= 76
  d.name = 'Other.name';   // the label is computed once per node
  assert.equal(fitLabel(d, 80, 8), 'relu.ReLU.fwd.0');
  assert.equal(fitLabel(d, 200, 8), 'relu.ReLU.forward.0');
});

test('middleEllipsis (the lists): unchanged when short enough, else .fwd and a middle cut to max characters', () => {
  assert.equal(middleEllipsis('Module.layer1.Sequential.forward.0', 34), 'Module.layer1.Sequential.forward.0');
  assert.equal(middleEllipsis('Module.layer1.Sequential.forward.0', 30), 'Module.layer1.Sequential.fwd.0');
  const cut = middleEllipsis('Module.layer1.Sequential.forward.0', 20);
  assert.equal(cut, 'Module.…ential.fwd.0');
  assert.equal(cut.length, 20);
  assert.equal(middleEllipsis('abcdefgh', 3), 'ab…');
});

test('GR-12 markers: send, receive, both; merged; re-matched', () => {
  assert.equal(markerOf({}), '');
  assert.equal(markerOf({ comm: 'send' }), '↗');
  assert.equal(markerOf({ comm: 'receive' }), '↙');
  assert.equal(markerOf({ comm: 'send_receive', merged: true, modified: true }), '⇄⊕•');
  assert.equal(markerOf({ comm: 'other', modified: true }), '•');
});
