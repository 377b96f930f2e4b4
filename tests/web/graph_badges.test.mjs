// The pill of a collapsed module (web/src/graph/badges.js, web-ui BEY-08: `E 3 · W 5 · ∅ 2` in the
// colour of the worst bucket; overflow counts in overflow mode). The page's language is pinned to
// English by a localStorage stand-in read when i18n.js loads.
//   node --test tests/web/graph_badges.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';

globalThis.localStorage = { getItem: (k) => (k === 'visprobe.lang' ? 'en' : null), setItem() {} };
const { pillOf, pillBox, PILL_H, OVERFLOW_LEVELS } = await import('../../web/src/graph/badges.js');
const { DEFAULT_COLORS, UNMATCHED, OVERFLOW } = await import('../../web/src/graph/colours.js');

const badge = (o) => ({ worst: 0.7, error: 3, warning: 5, unmatched: 2, overflow: 0, worstOverflow: 0, ...o });
const ctx = (o) => ({ mode: 'precision', compare: true, bench: false, colors: DEFAULT_COLORS, thresholds: { warning: 0.3, error: 0.6 }, ...o });

test('BEY-08: the spec\'s example pill, filled with the worst bucket\'s colour', () => {
  assert.deepEqual(pillOf(badge({}), ctx({})), {
    text: 'E 3 · W 5 · ∅ 2', fill: '#FF704D', colour: '#222222', title: 'Leaves below: 3 error, 5 warning, 2 unmatched' });
});

test('counts that are 0 are left out; the fill follows the worst value', () => {
  assert.deepEqual(pillOf(badge({ worst: 0.45, error: 0, unmatched: 0 }), ctx({})).text, 'W 5');
  assert.equal(pillOf(badge({ worst: 0.45, error: 0, unmatched: 0 }), ctx({})).fill, '#FFDC7F');
  assert.equal(pillOf(badge({ warning: 0 }), ctx({})).text, 'E 3 · ∅ 2');
  assert.equal(pillOf(badge({ error: 0, warning: 0, unmatched: 0 }), ctx({})), null);
  assert.equal(pillOf(undefined, ctx({})), null);
});

test('only unmatched leaves below: the unmatched grey; a single graph has no unmatched count', () => {
  const p = pillOf(badge({ worst: null, error: 0, warning: 0, unmatched: 4 }), ctx({}));
  assert.deepEqual([p.text, p.fill], ['∅ 4', UNMATCHED]);
  assert.equal(pillOf(badge({ worst: null, error: 0, warning: 0, unmatched: 4 }), ctx({ compare: false })), null);
  const single = pillOf(badge({}), ctx({ compare: false }));
  assert.deepEqual([single.text, single.title], ['E 3 · W 5', 'Leaves below: 3 error, 5 warning, 0 unmatched']);
});

test('the Bench pane shows only the unmatched count (precision belongs to the Debug side)', () => {
  const p = pillOf(badge({}), ctx({ bench: true }));
  assert.deepEqual([p.text, p.fill, p.title], ['∅ 2', UNMATCHED, 'Leaves below: 0 error, 0 warning, 2 unmatched']);
  assert.equal(pillOf(badge({ unmatched: 0 }), ctx({ bench: true })), null);
});

test('overflow mode: the overflow count in the worst level\'s colour, white text on critical', () => {
  const crit = pillOf(badge({ overflow: 4, worstOverflow: 3 }), ctx({ mode: 'overflow' }));
  assert.deepEqual(crit, { text: '⚠ 4', fill: OVERFLOW.critical, colour: '#FFFFFF', title: 'Leaves below: 4 overflowing (worst: Critical)' });
  const high = pillOf(badge({ overflow: 1, worstOverflow: 2 }), ctx({ mode: 'overflow' }));
  assert.deepEqual([high.fill, high.colour], [OVERFLOW.high, '#222222']);
  // a count without a level reads as medium
  const none = pillOf(badge({ overflow: 2, worstOverflow: 0 }), ctx({ mode: 'overflow' }));
  assert.deepEqual([none.fill, none.title], [OVERFLOW.medium, 'Leaves below: 2 overflowing (worst: Medium)']);
  assert.equal(pillOf(badge({ overflow: 0 }), ctx({ mode: 'overflow' })), null);
  assert.deepEqual(OVERFLOW_LEVELS, ['', 'medium', 'high', 'critical']);
});

test('pillBox: over the top-left corner, 3.6 units a character + 4, not changing the layout', () => {
  const b = pillBox({ x: 100, y: 50, w: 80, h: 15 }, 'E 3 · W 5');
  assert.equal(b.x, 97);
  assert.equal(b.y, 50 - PILL_H + 3);
  assert.equal(b.h, 8);
  assert.ok(Math.abs(b.w - (9 * 3.6 + 4)) < 1e-9);
});

