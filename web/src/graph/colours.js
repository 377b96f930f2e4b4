// @ts-check
// Node colours (web-ui §4.4): the file's precision table, overflow levels, borders. Pure functions,
// shared by the SVG and canvas renderers, the minimap and the filter swatches (GR-07).
//
// The legend's defaults (msProbe's three buckets and their colours, the unmatched grey, the node
// types drawn white) are the engine's declaration, core/db/colour_legend.json, imported here as it is
// (esbuild bundles it; Node and tsc read it as a JSON module). The engine compiles the same file in,
// so the page gets the rules without loading the engine (a database is viewed without it), and
// there is no second copy to drift: tests/web/colour_legend.test.mjs fails on a literal copy in web/src.
import LEGEND from '../../../core/db/colour_legend.json' with { type: 'json' };

export const WHITE = '#FFFFFF';
export const UNMATCHED = LEGEND.unmatched;
/** @type {Record<string, string>} */
export const OVERFLOW = { medium: '#E6F3FE', high: '#8DC5F8', critical: '#1668DC' };
export const SELECTED = { precision: '#8096F7', overflow: '#F3B765' };

/** One range of the colour legend (tb_config.node_colors). @typedef {{colour: string, lo: number, hi: number, level: string}} ColourBucket */

/** The 3-bucket table of msProbe when a file has none (the declaration's). @type {ColourBucket[]} */
export const DEFAULT_COLORS = LEGEND.buckets.map((b) => ({ colour: b.colour, lo: b.lo, hi: b.hi, level: b.level }));

/** FLT-04: the fixed thresholds of the filter buckets (they need not match the file's table). */
export const FILTER_BUCKETS = LEGEND.buckets.map((b) => ({ key: b.level, lo: b.lo, hi: b.hi }));

/** The lowest bucket of msProbe's tables (3 and 5 buckets): "pass". */
export const PASS = LEGEND.buckets[0].colour;

/** Node types drawn without a precision or overflow colour (API lists, fused operators; GR-04). */
export const UNCOLOURED_TYPES = LEGEND.uncolouredNodeTypes;

/** Whether a node of this type is drawn white whatever its precision. @param {number} type */
export function isUncoloured(type) {
  return UNCOLOURED_TYPES.includes(type);
}

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
  if (isUncoloured(n.type)) return WHITE;
  if (ctx.compare && n.link.length === 0) return UNMATCHED;
  if (ctx.bench || !ctx.compare) return WHITE;
  return bucketFill(n.precision, ctx.colors);
}

/** GR-05. @param {{type: number, overflow: string|null}} n */
export function overflowFill(n) {
  return isUncoloured(n.type) ? WHITE : OVERFLOW[/** @type {string} */ (n.overflow)] || WHITE;
}

/** GR-03: text that contrasts with the fill. @param {string} fill */
export function textColour(fill) {
  const v = parseInt(fill.slice(1), 16);
  const lum = 0.299 * ((v >> 16) & 255) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return lum < 140 ? '#FFFFFF' : '#222222';
}
