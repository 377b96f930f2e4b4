// @ts-check
// Pure rules of the trend charts (trend-analyzer.md §10.4, §10.5, §10.7): palettes, the 3-sigma
// pieces, number and label formats. Data in, data out; no DOM.
import { scaleLinear } from 'd3-scale';

export const GRADIENT = ['#4575b4', '#74add1', '#abd9e9', '#e0f3f8', '#ffffbf', '#fee090', '#fdae61', '#f46d43', '#d73027', '#a50026'];
/** A − B (BEY-11): ColorBrewer RdBu, blue = A below B, near-white = equal, red = A above B. */
export const DIVERGING = ['#053061', '#2166ac', '#4393c3', '#92c5de', '#d1e5f0', '#f7f7f7', '#fddbc7', '#f4a582', '#d6604d', '#b2182b', '#67001f'];
export const SEGMENT_COLORS = ['#313695', '#4575b4', '#74add1', '#ffffbf', '#fdae61', '#f46d43', '#d73027'];
/** ±inf are stored as ±(1e9 + 1) (§6); exactly ±1e9 means "clipped". */
export const POS_INF = 1000000001;
export const NEG_INF = -1000000001;
export const CLIP = 1e9;
/** Colours outside every scale (§10.7): NULL is a grey hatch, the sentinels have their own. */
export const SPECIAL = Object.freeze({ null: '#d0d0d0', pos: '#ff3dbb', neg: '#11b5a4' });
/** Series colours of the line chart, assigned once per series so they stay stable. */
export const SERIES_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/** Kind of a stored value: 0 finite, 1 NULL (NaN here), 2 +inf sentinel, 3 -inf sentinel. @param {number} v */
export function kindOf(v) {
  if (Number.isNaN(v)) return 1;
  if (v === POS_INF) return 2;
  if (v === NEG_INF) return 3;
  return 0;
}

/**
 * Extent, mean and population standard deviation over the finite, non-null values only (U-1,
 * U-2): NULLs and the ±inf sentinels take no part.
 * @param {Float64Array} values NaN = NULL
 */
export function finiteStats(values) {
  let min = Infinity, max = -Infinity, sum = 0, n = 0;
  for (let i = 0; i < values.length; ++i) {
    const v = values[i];
    if (kindOf(v) !== 0) continue;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    ++n;
  }
  if (!n) return { n, min: NaN, max: NaN, mean: NaN, std: NaN };
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < values.length; ++i) {
    const v = values[i];
    if (kindOf(v) === 0) ss += (v - mean) * (v - mean);
  }
  return { n, min, max, mean, std: Math.sqrt(ss / n) };
}

/**
 * The extent made symmetric around 0, so a diverging palette puts 0 at its centre (A − B, BEY-11).
 * @template {{min: number, max: number}} T @param {T} st @returns {T}
 */
export function symmetric(st) {
  const m = Math.max(Math.abs(st.min), Math.abs(st.max));
  return Number.isFinite(m) ? { ...st, min: -m, max: m } : st;
}

/**
 * Position 0..1 of a value on the Gradient scale and back (§10.9): linear, symmetric log10, or
 * quantile (rank among the finite values; robust to the ±1e9 clips that flatten a linear scale).
 * @param {'linear'|'log'|'quantile'} kind @param {{min: number, max: number}} st @param {Float64Array} values
 * @returns {{t: (v: number) => number, inv: (t: number) => number}}
 */
export function colourScale(kind, st, values) {
  const { min, max } = st;
  if (!(max > min)) return { t: () => 0.5, inv: () => min };
  if (kind === 'quantile') {
    const sorted = Float64Array.from(Array.prototype.filter.call(values, (v) => kindOf(v) === 0)).sort();
    const n = sorted.length;
    const rank = (/** @type {number} */ v) => {   // index of the first element >= v
      let lo = 0, hi = n;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < v) lo = mid + 1; else hi = mid; }
      return lo;
    };
    return { t: (v) => Math.min(1, Math.max(0, rank(v) / (n - 1))), inv: (t) => sorted[Math.round(Math.min(1, Math.max(0, t)) * (n - 1))] };
  }
  if (kind === 'log') {
    const g = (/** @type {number} */ v) => Math.sign(v) * Math.log10(1 + Math.abs(v));
    const gi = (/** @type {number} */ y) => Math.sign(y) * (10 ** Math.abs(y) - 1);
    const a = g(min), b = g(max);
    return { t: (v) => Math.min(1, Math.max(0, (g(v) - a) / (b - a))), inv: (t) => Math.min(max, Math.max(min, gi(a + t * (b - a)))) };
  }
  return { t: (v) => Math.min(1, Math.max(0, (v - min) / (max - min))), inv: (t) => min + t * (max - min) };
}

/** `1.23e+0`, `∞`, `-∞` (§10.4 piece labels). @param {number} v */
export function expLabel(v) {
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '-∞';
  return v.toExponential(2);
}

/**
 * The 3-sigma pieces of Segmented mode: thresholds μ−3σ … μ+3σ, +∞; a threshold strictly above
 * the previous boundary closes the piece (previous, threshold] in its colour.
 * @param {number} mean @param {number} std
 * @returns {{lo: number, hi: number, color: string, label: string}[]}
 */
export function segments(mean, std) {
  if (!Number.isFinite(mean)) return [];
  const s = Number.isFinite(std) ? std : 0;
  const t = [mean - 3 * s, mean - 2 * s, mean - s, mean + s, mean + 2 * s, mean + 3 * s, Infinity];
  /** @type {{lo: number, hi: number, color: string, label: string}[]} */
  const out = [];
  let prev = -Infinity;
  t.forEach((hi, k) => {
    if (hi > prev) {
      out.push({ lo: prev, hi, color: SEGMENT_COLORS[k], label: '' });
      prev = hi;
    }
  });
  for (const p of out) {
    p.label = p.lo === -Infinity ? `< ${expLabel(p.hi)}` : p.hi === Infinity ? `> ${expLabel(p.lo)}` : `${expLabel(p.lo)} ~ ${expLabel(p.hi)}`;
  }
  return out;
}

/** Index of the piece holding v (pieces are (lo, hi]). @param {{hi: number}[]} pieces @param {number} v */
export function pieceOf(pieces, v) {
  for (let k = 0; k < pieces.length; ++k) if (v <= pieces[k].hi) return k;
  return pieces.length - 1;
}

/** n colours along a gradient's stops (the 10-stop GRADIENT by default), for bucketed canvas drawing. @param {number} [n] @param {string[]} [colors] */
export function gradientLut(n = 256, colors = GRADIENT) {
  const stops = colors.map((_, i) => i / (colors.length - 1));
  // A scale onto colour strings (d3 interpolates them); typed as such, since scaleLinear() is typed onto numbers.
  const scale = /** @type {import('d3-scale').ScaleLinear<string, string>} */ (/** @type {unknown} */ (scaleLinear())).domain(stops).range(colors).clamp(true);
  return Array.from({ length: n }, (_, i) => String(scale(i / (n - 1))));
}

/** Line-chart tick format (§10.5): 0; exponent form for |v| < 1e-4 or >= 1e4; else fixed. @param {number} v */
export function tickFormat(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < 1e-4 || a >= 1e4) {
    const [m, e] = v.toExponential(6).split('e');
    return m.replace(/0+$/, '').replace(/\.$/, '') + 'e' + e.replace(/^\+/, '');
  }
  return v.toFixed(10).replace(/0+$/, '').replace(/\.$/, '');
}

/** A stored value as the user should read it (§10.7). @param {number|null} v */
export function valueText(v) {
  if (v === null || Number.isNaN(v)) return 'NaN/null';
  if (v === POS_INF) return '+inf';
  if (v === NEG_INF) return '-inf';
  if (v === CLIP) return '1000000000 (≥ 1e9, clipped)';
  if (v === -CLIP) return '-1000000000 (≤ -1e9, clipped)';
  return String(v);
}

/** `abcdefgh...` when longer than limit (reference tick cut). @param {string} s @param {number} limit @param {number} keep */
export function cutLabel(s, limit, keep = 8) {
  return s.length > limit ? s.slice(0, keep) + '...' : s;
}

/** `Module.mo…put.0`: start and end kept, more of the end (it names the class and the tensor) (U-6). @param {string} s @param {number} max */
export function middleEllipsis(s, max) {
  if (s.length <= max) return s;
  const head = Math.ceil((max - 1) * 0.3);
  return s.slice(0, head) + '…' + s.slice(s.length - (max - 1 - head));
}

/**
 * Short y-axis names (U-6): the dotted prefix every name shares is dropped (`Module.model.` …),
 * then the middle is ellipsised. @param {string[]} names @param {number} max
 */
export function shortNames(names, max) {
  let k = 0;
  if (names.length > 1) {
    const parts = names.map((n) => n.split('.'));
    const first = parts[0];
    const limit = Math.min(...parts.map((p) => p.length - 1));
    while (k < limit && parts.every((p) => p[k] === first[k])) ++k;
  }
  return names.map((n) => middleEllipsis(k ? n.split('.').slice(k).join('.') : n, max));
}

/** One RFC 4180 field. @param {unknown} v */
export function csvField(v) {
  if (v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v))) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

/** @param {unknown[][]} rows */
export function toCsv(rows) {
  return rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}

/** A category window [a, b) kept inside 0..n, at least one category wide. @param {number[]} w @param {number} n @returns {[number, number]} */
export function clampWindow(w, n) {
  const span = Math.min(Math.max(1, n), Math.max(1, w[1] - w[0]));
  const a = Math.max(0, Math.min(w[0], Math.max(0, n - span)));
  return [a, a + span];
}

/** @param {number[]} w @param {number} by @param {number} n */
export function shiftWindow(w, by, n) {
  return clampWindow([w[0] + by, w[1] + by], n);
}

/** Zoom by f around the relative point t (0..1) of the window. @param {number[]} w @param {number} f @param {number} t @param {number} n */
export function zoomWindow(w, f, t, n) {
  const tt = Math.min(1, Math.max(0, t));
  const at = w[0] + tt * (w[1] - w[0]);
  const span = Math.min(Math.max(1, n), Math.max(1, (w[1] - w[0]) * f));
  return clampWindow([at - tt * span, at - tt * span + span], n);
}
