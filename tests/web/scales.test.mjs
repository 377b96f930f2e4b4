// Pure rules of the trend charts (web/src/trend/scales.js): trend-analyzer §10.4 (3-sigma pieces,
// tick cuts), §10.5 / web-ui TR-10 (y-axis number format), §10.7 (sentinels, finite-only scales),
// §10.8 U-1 / U-2 / U-6, §10.9 (log and quantile scales).
//   node --test tests/web/scales.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  GRADIENT, SEGMENT_COLORS, POS_INF, NEG_INF, CLIP, kindOf, finiteStats, symmetric, colourScale, expLabel, segments, pieceOf,
  gradientLut, tickFormat, valueText, cutLabel, middleEllipsis, shortNames, csvField, toCsv, clampWindow, shiftWindow,
  zoomWindow,
} from '../../web/src/trend/scales.js';

test('TR-10 / §10.5: y ticks: 0; exponent form below 1e-4 and from 1e4; fixed otherwise; no trailing zeros', () => {
  const cases = [
    [0, '0'], [-0, '0'],
    [1.5e-5, '1.5e-5'], [2e4, '2e4'], [2e5, '2e5'], [-2e4, '-2e4'], [1e4, '1e4'], [12345.678, '1.234568e4'],
    [1e-5, '1e-5'], [-3.25e-7, '-3.25e-7'], [1e9 + 1, '1e9'], [1.0000005e8, '1.000001e8'],
    [1e-4, '0.0001'], [9999.5, '9999.5'], [1.5, '1.5'], [100, '100'], [-42, '-42'], [0.1 + 0.2, '0.3'],
    [0.00012345678901, '0.0001234568'], [3, '3'],
  ];
  for (const [v, text] of cases) assert.equal(tickFormat(v), text, `tickFormat(${v})`);
});

test('§6 / §10.7: kinds of stored values: finite, NULL (NaN), +inf and -inf sentinels; ±1e9 is a finite clip', () => {
  assert.deepEqual([1, 0, CLIP, -CLIP, NaN, POS_INF, NEG_INF].map(kindOf), [0, 0, 0, 0, 1, 2, 3]);
  assert.equal(POS_INF, 1000000001);
  assert.equal(NEG_INF, -1000000001);
});

test('§10.7: the value as the user reads it', () => {
  assert.equal(valueText(POS_INF), '+inf');
  assert.equal(valueText(NEG_INF), '-inf');
  assert.equal(valueText(NaN), 'NaN/null');
  assert.equal(valueText(null), 'NaN/null');
  assert.equal(valueText(1e9), '1000000000 (≥ 1e9, clipped)');
  assert.equal(valueText(-1e9), '-1000000000 (≤ -1e9, clipped)');
  assert.equal(valueText(2.444385), '2.444385');
});

test('U-1 / U-2: extent, mean and population std over finite values only', () => {
  const st = finiteStats(Float64Array.from([-5, -1, NaN, POS_INF, NEG_INF, -3]));
  assert.deepEqual({ n: st.n, min: st.min, max: st.max, mean: st.mean }, { n: 3, min: -5, max: -1, mean: -3 });
  assert.ok(Math.abs(st.std - Math.sqrt(8 / 3)) < 1e-12);   // ((−2)² + 2² + 0²) / 3
  const clipped = finiteStats(Float64Array.from([CLIP, 0]));
  assert.deepEqual([clipped.min, clipped.max, clipped.mean, clipped.std], [0, 1e9, 5e8, 5e8]);
  const none = finiteStats(Float64Array.from([NaN, POS_INF]));
  assert.equal(none.n, 0);
  assert.ok(Number.isNaN(none.min) && Number.isNaN(none.mean));
});

test('symmetric extent for the diverging A − B palette', () => {
  assert.deepEqual(symmetric({ min: -2, max: 5, n: 3 }), { min: -5, max: 5, n: 3 });
  assert.deepEqual(symmetric({ min: -7, max: 1 }), { min: -7, max: 7 });
  const nan = { min: NaN, max: NaN };
  assert.equal(symmetric(nan), nan);
});

test('§10.4 segmented mode: 7 pieces (−∞, μ−3σ] … (μ+3σ, +∞) with their colours and labels', () => {
  const p = segments(0, 1);
  assert.deepEqual(p.map((x) => [x.lo, x.hi]), [[-Infinity, -3], [-3, -2], [-2, -1], [-1, 1], [1, 2], [2, 3], [3, Infinity]]);
  assert.deepEqual(p.map((x) => x.color), ['#313695', '#4575b4', '#74add1', '#ffffbf', '#fdae61', '#f46d43', '#d73027']);
  assert.deepEqual(p.map((x) => x.label), ['< -3.00e+0', '-3.00e+0 ~ -2.00e+0', '-2.00e+0 ~ -1.00e+0', '-1.00e+0 ~ 1.00e+0',
    '1.00e+0 ~ 2.00e+0', '2.00e+0 ~ 3.00e+0', '> 3.00e+0']);
  assert.deepEqual(SEGMENT_COLORS, p.map((x) => x.color));
});

test('§10.4 segmented mode: σ = 0 gives two pieces (−∞, μ] and (μ, +∞); no finite value, none', () => {
  const p = segments(12.5, 0);
  assert.deepEqual(p.map((x) => [x.lo, x.hi, x.color, x.label]),
    [[-Infinity, 12.5, '#313695', '< 1.25e+1'], [12.5, Infinity, '#d73027', '> 1.25e+1']]);
  assert.deepEqual(segments(NaN, NaN), []);
  assert.equal(segments(1, NaN).length, 2);   // no spread known: as σ = 0
});

test('pieces are (lo, hi]: a value on a threshold belongs to the piece below', () => {
  const p = segments(0, 1);
  assert.deepEqual([-10, -3, -2.999, -1, 0, 1, 1.0001, 3, 3.5, 1e9].map((v) => pieceOf(p, v)), [0, 0, 1, 2, 3, 3, 4, 5, 6, 6]);
  assert.equal(expLabel(Infinity), '∞');
  assert.equal(expLabel(-Infinity), '-∞');
  assert.equal(expLabel(1234.5), '1.23e+3');
});

test('§10.9 colour scales: linear, symmetric log10, quantile; a flat extent is the middle', () => {
  const lin = colourScale('linear', { min: 0, max: 10 }, new Float64Array());
  assert.deepEqual([lin.t(5), lin.t(-1), lin.t(11), lin.inv(0.25)], [0.5, 0, 1, 2.5]);
  const log = colourScale('log', { min: 0, max: 99 }, new Float64Array());
  assert.ok(Math.abs(log.t(9) - 0.5) < 1e-12);              // log10(10) / log10(100)
  assert.ok(Math.abs(log.inv(0.5) - 9) < 1e-9);
  const slog = colourScale('log', { min: -99, max: 99 }, new Float64Array());
  assert.ok(Math.abs(slog.t(0) - 0.5) < 1e-12);
  assert.ok(Math.abs(slog.t(9) - 0.75) < 1e-12);
  assert.ok(Math.abs(slog.t(-9) - 0.25) < 1e-12);
  const values = Float64Array.from([1000, 2, NaN, 1, POS_INF, 3]);
  const q = colourScale('quantile', { min: 1, max: 1000 }, values);   // ranks over [1, 2, 3, 1000]
  assert.deepEqual([q.t(1), q.t(2), q.t(3), q.t(1000), q.t(500)], [0, 1 / 3, 2 / 3, 1, 1]);
  assert.deepEqual([q.inv(0), q.inv(0.5), q.inv(1)], [1, 3, 1000]);
  const flat = colourScale('linear', { min: 4, max: 4 }, new Float64Array());
  assert.deepEqual([flat.t(4), flat.t(100), flat.inv(0.9)], [0.5, 0.5, 4]);
});

test('the gradient table: n colours from the first to the last of the 10 stops', () => {
  const lut = gradientLut(10);
  assert.equal(lut.length, 10);
  const rgb = (hex) => `rgb(${parseInt(hex.slice(1, 3), 16)}, ${parseInt(hex.slice(3, 5), 16)}, ${parseInt(hex.slice(5, 7), 16)})`;
  assert.deepEqual(lut, GRADIENT.map(rgb));
  assert.equal(gradientLut(256)[0], 'rgb(69, 117, 180)');
  assert.equal(gradientLut(256)[255], 'rgb(165, 0, 38)');
});

test('§10.4 tick cuts and U-6 short names', () => {
  assert.equal(cutLabel('a'.repeat(20), 20), 'a'.repeat(20));
  assert.equal(cutLabel('abcdefghijklmnopqrstu', 20), 'abcdefgh...');
  assert.equal(cutLabel('abcdefghijklmnop', 15), 'abcdefgh...');
  const cut = middleEllipsis('abcdefghijklmnopqrstuvwxyz', 11);
  assert.equal(cut, 'abc…tuvwxyz');        // 3 of the start, 7 of the end
  assert.equal(middleEllipsis('short', 11), 'short');
  assert.deepEqual(shortNames(['Module.model.layers.0.mlp', 'Module.model.layers.1.attn'], 40), ['0.mlp', '1.attn']);
  assert.deepEqual(shortNames(['Module.a.b', 'Module.a.b'], 40), ['b', 'b']);   // all shared: the last segment stays
  assert.deepEqual(shortNames(['Module.model.x'], 40), ['Module.model.x']);      // one name: nothing shared to drop
  assert.deepEqual(shortNames(['A.x', 'B.x'], 40), ['A.x', 'B.x']);
  assert.deepEqual(shortNames(['Module.m.' + 'q'.repeat(30), 'Module.m.r'], 11), ['qqq…qqqqqqq', 'r']);
});

test('CSV (RFC 4180): quoted when needed, NULL empty, CRLF rows', () => {
  assert.equal(csvField('plain'), 'plain');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('two\nlines'), '"two\nlines"');
  assert.equal(csvField(null), '');
  assert.equal(csvField(undefined), '');
  assert.equal(csvField(NaN), '');
  assert.equal(csvField(0), '0');
  assert.equal(toCsv([['step', 'value'], [1, null], [2, 'x,y']]), 'step,value\r\n1,\r\n2,"x,y"\r\n');
});

test('category windows: kept inside 0..n, at least one wide; shifted and zoomed around a point', () => {
  assert.deepEqual(clampWindow([-5, 5], 100), [0, 10]);
  assert.deepEqual(clampWindow([95, 110], 100), [85, 100]);
  assert.deepEqual(clampWindow([3, 3], 10), [3, 4]);
  assert.deepEqual(clampWindow([0, 50], 10), [0, 10]);
  assert.deepEqual(clampWindow([4, 9], 0), [0, 1]);
  assert.deepEqual(shiftWindow([0, 10], 5, 12), [2, 12]);
  assert.deepEqual(shiftWindow([5, 10], -20, 12), [0, 5]);
  assert.deepEqual(zoomWindow([0, 10], 0.5, 0.5, 100), [2.5, 7.5]);
  assert.deepEqual(zoomWindow([0, 10], 4, 0, 20), [0, 20]);
  assert.deepEqual(zoomWindow([10, 20], 2, 1, 100), [0, 20]);   // anchored at the right end
});
