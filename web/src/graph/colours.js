// @ts-check
// Node colours (web-ui §4.4): the file's precision table, overflow levels, borders. Pure functions,
// shared by the SVG and canvas renderers, the minimap and the filter swatches (GR-07).

export const WHITE = '#FFFFFF';
export const UNMATCHED = '#C7C7C7';
/** @type {Record<string, string>} */
export const OVERFLOW = { medium: '#E6F3FE', high: '#8DC5F8', critical: '#1668DC' };
export const SELECTED = { precision: '#8096F7', overflow: '#F3B765' };

/** The 3-bucket table of msProbe when a file has none. */
/** One range of the colour legend (tb_config.node_colors). @typedef {{colour: string, lo: number, hi: number, level: string}} ColourBucket */

/** @type {ColourBucket[]} */
export const DEFAULT_COLORS = [
  { colour: '#FFFCF3', lo: 0, hi: 0.3, level: 'pass' },
  { colour: '#FFDC7F', lo: 0.3, hi: 0.6, level: 'warning' },
  { colour: '#FF704D', lo: 0.6, hi: 1, level: 'error' },
];

/** FLT-04: the fixed thresholds of the filter buckets (they need not match the file's table). */
export const FILTER_BUCKETS = [
  { key: 'pass', lo: 0, hi: 0.3 },
  { key: 'warning', lo: 0.3, hi: 0.6 },
  { key: 'error', lo: 0.6, hi: 1 },
];

/** The lowest bucket of msProbe's tables (3 and 5 buckets): "pass". */
export const PASS = '#FFFCF3';

/**
 * Issue 19: the fills that mean "no colour" (no precision, unmatched, no overflow) in each theme,
 * from this one table: in the dark theme a white box and the cream "pass" of msProbe's table
 * looked alike. Issue 46: the cream "pass" itself was a bright block on the dark canvas; in the
 * dark theme it is a dark fill of the same warm hue (the lowest step of the yellow-to-red scale,
 * apart from the neutral grey of "no precision"). The other buckets and the overflow levels keep
 * their colours (they carry meaning in the legend); the text colour follows the fill (textColour).
 */
export const THEME_FILLS = {
  light: { [WHITE]: WHITE, [UNMATCHED]: UNMATCHED, [PASS]: PASS },
  dark: { [WHITE]: '#303030', [UNMATCHED]: '#5E5E5E', [PASS]: '#3D3724' },
};

/** The fill as the current theme paints it. @param {string} fill */
export function themed(fill) {
  if (typeof document === 'undefined' || document.documentElement.dataset.theme !== 'dark') return fill;
  return /** @type {Record<string, string>} */ (THEME_FILLS.dark)[String(fill).toUpperCase()] || fill;
}

/** Fill darkened by 40 per channel (GR-06). @param {string} hex */
export function darken(hex) {
  const v = parseInt(hex.slice(1), 16);
  const ch = (/** @type {number} */ s) => Math.max(0, ((v >> s) & 255) - 40).toString(16).padStart(2, '0');
  return '#' + ch(16) + ch(8) + ch(0);
}

/**
 * The colour table stored in tb_config.node_colors, or the default; entries without a range
 * (msProbe's unmatched entry) are not buckets.
 * @param {string|null} json
 */
export function parseColourTable(json) {
  try {
    const table = JSON.parse(json || 'null');
    if (!table || typeof table !== 'object') return DEFAULT_COLORS;
    const list = Object.entries(table)
      .filter(([k, v]) => k !== '__proto__' && v && Array.isArray(v.value) && v.value.length === 2)
      .map(([colour, v]) => ({ colour, lo: Number(v.value[0]), hi: Number(v.value[1]), level: String(v.accuracy_level || '') }));
    return list.length ? list : DEFAULT_COLORS;
  } catch {
    return DEFAULT_COLORS;
  }
}

/**
 * The bucket of the table a value falls in (web-ui GR-04: left-closed, right-open, the last range
 * closed at 1, values clamped into [0, 1]); null for NaN / null / no range.
 * @template {{colour: string, lo: number, hi: number}} B
 * @param {number|null} value @param {B[]} colors @returns {B|null}
 */
export function bucketOf(value, colors) {
  if (value === null || value === undefined || Number.isNaN(value)) return null;
  const v = Math.min(1, Math.max(0, value));
  for (const c of colors) {
    const last = c.hi >= 1;
    if (v >= c.lo && (v < c.hi || (last && v <= c.hi))) return c;
  }
  return null;
}

/**
 * GR-04: precision colour of a value through the table (NaN / null: white).
 * @param {number|null} value @param {Array<{colour: string, lo: number, hi: number}>} colors
 */
export function bucketFill(value, colors) {
  const b = bucketOf(value, colors);
  return b ? b.colour : WHITE;
}

/**
 * A bucket's range as a reader states it: "< 0.3" for the first, "≥ 0.6" for the last, else
 * "≥ 0.3, < 0.6". @param {{lo: number, hi: number}} b
 */
export function rangeText(b) {
  if (b.lo <= 0) return b.hi >= 1 ? '0 – 1' : `< ${b.hi}`;
  return b.hi >= 1 ? `≥ ${b.lo}` : `≥ ${b.lo}, < ${b.hi}`;
}

/**
 * GR-04: precision colour of a node.
 * @param {{type: number, link: string[], precision: number|null}} n @param {{compare: boolean, bench: boolean, colors: Array<{colour: string, lo: number, hi: number}>}} ctx
 */
export function precisionFill(n, ctx) {
  if (n.type === 9 || n.type === 8) return WHITE;
  if (ctx.compare && n.link.length === 0) return UNMATCHED;
  if (ctx.bench || !ctx.compare) return WHITE;
  return bucketFill(n.precision, ctx.colors);
}

/** GR-05. @param {{type: number, overflow: string|null}} n */
export function overflowFill(n) {
  return n.type === 9 || n.type === 8 ? WHITE : OVERFLOW[/** @type {string} */ (n.overflow)] || WHITE;
}

/** GR-03: text that contrasts with the fill. @param {string} fill */
export function textColour(fill) {
  const v = parseInt(fill.slice(1), 16);
  const lum = 0.299 * ((v >> 16) & 255) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return lum < 140 ? '#FFFFFF' : '#222222';
}
