// Node colours (web/src/graph/colours.js) against web-ui §4.4 GR-04..GR-07 and graph-engine §9.9.
//   node --test tests/web/colours.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  WHITE, UNMATCHED, OVERFLOW, DEFAULT_COLORS, bucketOf, bucketFill, parseColourTable, darken, textColour, rangeText,
  precisionFill, overflowFill, themed,
} from '../../web/src/graph/colours.js';

const PASS = '#FFFCF3', WARN = '#FFDC7F', ERR = '#FF704D';

test('GR-04: the default table is msProbe\'s 3 buckets', () => {
  assert.deepEqual(DEFAULT_COLORS.map((b) => [b.colour, b.lo, b.hi]), [[PASS, 0, 0.3], [WARN, 0.3, 0.6], [ERR, 0.6, 1]]);
});

test('GR-04: buckets are left-closed, right-open, the last closed at 1; values clamped into [0, 1]', () => {
  const cases = [
    [0, PASS], [0.2999, PASS], [0.3, WARN], [0.5999, WARN], [0.6, ERR], [0.99, ERR], [1, ERR],
    [1.5, ERR], [1e9, ERR], [-0.2, PASS], [-Infinity, PASS], [Infinity, ERR],
  ];
  for (const [v, fill] of cases) assert.equal(bucketFill(v, DEFAULT_COLORS), fill, `value ${v}`);
  assert.equal(bucketOf(0.3, DEFAULT_COLORS).level, 'warning');
});

test('GR-04: NaN / null / undefined precision is white, and so is a value outside a gappy table', () => {
  for (const v of [NaN, null, undefined]) assert.equal(bucketFill(v, DEFAULT_COLORS), WHITE);
  assert.equal(bucketOf(NaN, DEFAULT_COLORS), null);
  const gappy = [{ colour: '#000001', lo: 0, hi: 0.2 }, { colour: '#000002', lo: 0.5, hi: 1 }];
  assert.equal(bucketFill(0.3, gappy), WHITE);
  assert.equal(bucketFill(1, gappy), '#000002');
});

test('GR-04 / §9.9: the stored table is honoured (5 buckets), the unmatched entry and __proto__ are not buckets', () => {
  const json = JSON.stringify({
    '#FFFCF3': { value: [0, 0.2], description: 'd', accuracy_level: 'pass' },
    '#FFEDBE': { value: [0.2, 0.4], description: 'd' },
    '#FFDC7F': { value: [0.4, 0.6], description: 'd' },
    '#FFC62E': { value: [0.6, 0.8], description: 'd' },
    '#FF704D': { value: [0.8, 1], description: 'd', accuracy_level: 'error' },
    '#C7C7C7': { value: [], description: '比对过程中节点未匹配上', accuracy_level: 'unmatched node' },
  }).replace('{', '{"__proto__": {"value": [0, 1]}, ');
  const t = parseColourTable(json);
  assert.deepEqual(t.map((b) => [b.colour, b.lo, b.hi, b.level]), [
    ['#FFFCF3', 0, 0.2, 'pass'], ['#FFEDBE', 0.2, 0.4, ''], ['#FFDC7F', 0.4, 0.6, ''], ['#FFC62E', 0.6, 0.8, ''],
    ['#FF704D', 0.8, 1, 'error']]);
  assert.equal(bucketFill(0.2, t), '#FFEDBE');
  assert.equal(bucketFill(0.79, t), '#FFC62E');
  assert.equal(bucketFill(0.8, t), '#FF704D');
  assert.equal(bucketFill(1, t), '#FF704D');
  // numbers stored as strings are read as numbers
  assert.deepEqual(parseColourTable('{"#123456": {"value": ["0", "1"]}}').map((b) => [b.lo, b.hi]), [[0, 1]]);
});

test('no table, the text null, bad JSON or only the unmatched entry: the default table', () => {
  for (const j of [null, '', 'null', '{bad', '5', '[]', '{}', '{"#C7C7C7": {"value": []}}', '{"#1": {"value": [0]}}'])
    assert.equal(parseColourTable(j), DEFAULT_COLORS, String(j));
});

test('GR-06: the border is the fill darkened by 40 a channel, clamped at 0', () => {
  assert.equal(darken('#FFFCF3').toUpperCase(), '#D7D4CB');
  assert.equal(darken('#1668DC').toUpperCase(), '#0040B4');   // 0x16 - 40 < 0 -> 00
  assert.equal(darken('#000000'), '#000000');
  assert.equal(darken('#FFFFFF').toUpperCase(), '#D7D7D7');
});

test('GR-03: text contrasts with the fill (white on critical and the dark fills, dark elsewhere)', () => {
  assert.equal(textColour(OVERFLOW.critical), '#FFFFFF');   // luminance 92.7
  assert.equal(textColour('#3D3724'), '#FFFFFF');           // the dark theme's "pass"
  for (const f of [PASS, WARN, ERR, UNMATCHED, OVERFLOW.medium, OVERFLOW.high, WHITE]) assert.equal(textColour(f), '#222222', f);
  // the threshold is a luminance of 140
  assert.equal(textColour('#8B8B8B'), '#FFFFFF');
  assert.equal(textColour('#8D8D8D'), '#222222');
});

test('rangeText states a bucket as a reader reads it', () => {
  assert.deepEqual(DEFAULT_COLORS.map(rangeText), ['< 0.3', '≥ 0.3, < 0.6', '≥ 0.6']);
  assert.equal(rangeText({ lo: 0, hi: 1 }), '0 – 1');
});

test('GR-04 rules 1-5: API lists, unmatched, Bench side, single graph, precision', () => {
  const colors = DEFAULT_COLORS;
  const n = (o) => ({ type: 0, link: ['Module.x'], precision: 0.7, ...o });
  const cmp = { compare: true, bench: false, colors };
  assert.equal(precisionFill(n({ type: 9 }), cmp), WHITE);
  assert.equal(precisionFill(n({ type: 8, link: [] }), cmp), WHITE);
  assert.equal(precisionFill(n({ link: [] }), cmp), UNMATCHED);
  assert.equal(precisionFill(n({ link: [] }), { ...cmp, bench: true }), UNMATCHED);
  assert.equal(precisionFill(n({}), { ...cmp, bench: true }), WHITE);
  assert.equal(precisionFill(n({ link: [] }), { compare: false, bench: false, colors }), WHITE);   // single graph: never grey
  assert.equal(precisionFill(n({}), cmp), ERR);
  assert.equal(precisionFill(n({ precision: 0.45 }), cmp), WARN);
  assert.equal(precisionFill(n({ precision: null }), cmp), WHITE);
});

test('GR-05: overflow levels; API lists and fused collections stay white', () => {
  assert.equal(overflowFill({ type: 0, overflow: 'medium' }), '#E6F3FE');
  assert.equal(overflowFill({ type: 1, overflow: 'high' }), '#8DC5F8');
  assert.equal(overflowFill({ type: 0, overflow: 'critical' }), '#1668DC');
  assert.equal(overflowFill({ type: 0, overflow: null }), WHITE);
  assert.equal(overflowFill({ type: 0, overflow: 'bogus' }), WHITE);
  assert.equal(overflowFill({ type: 9, overflow: 'critical' }), WHITE);
  assert.equal(overflowFill({ type: 8, overflow: 'high' }), WHITE);
});

test('themed: unchanged without a page or in the light theme; the dark theme maps the neutral fills, any case', () => {
  assert.equal(typeof document, 'undefined');
  assert.equal(themed(PASS), PASS);
  // a minimal stand-in for the page's <html data-theme>
  globalThis.document = { documentElement: { dataset: { theme: 'light' } } };
  try {
    assert.equal(themed(PASS), PASS);
    document.documentElement.dataset.theme = 'dark';
    assert.equal(themed('#fffcf3'), '#3D3724');
    assert.equal(themed(WHITE), '#303030');
    assert.equal(themed(UNMATCHED), '#5E5E5E');
    assert.equal(themed(ERR), ERR);                         // buckets that carry meaning keep their colour
    assert.equal(themed(OVERFLOW.critical), OVERFLOW.critical);
  } finally {
    delete globalThis.document;
  }
});
