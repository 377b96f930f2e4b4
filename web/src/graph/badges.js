// @ts-check
// Problem badges on collapsed modules (web-ui BEY-08): the rows of one (step, rank, side) come
// from the worker once per pane (queries.js loadBadges: stored by the engine in vp_badges, or
// computed there for msProbe files); this module turns a badge into the pill drawn at the top-left
// corner of a collapsed box. Pure; shared by the SVG and canvas renderers.
import { bucketFill, UNMATCHED, OVERFLOW, textColour } from './colours.js';
import { t } from '../i18n.js';

/** @typedef {{worst: number|null, error: number, warning: number, unmatched: number, overflow: number, worstOverflow: number}} Badge */

export const OVERFLOW_LEVELS = ['', 'medium', 'high', 'critical'];
/** Pill geometry in world units: height, font size, overlap above the box. */
export const PILL_H = 8;
export const PILL_FONT = 6;
export const PILL_CHAR = 3.6;   // width estimate per character at PILL_FONT

/**
 * The pill of a collapsed node, or null. Precision mode: `E n · W n · ∅ n` filled with the colour
 * of the worst bucket (grey when only unmatched leaves are below; the Bench pane shows only the
 * unmatched count). Overflow mode: the overflow count in the colour of the worst level.
 * @param {Badge|undefined} b
 * @param {{mode: string, compare: boolean, bench: boolean, colors: import('./colours.js').ColourBucket[]}} ctx
 * @returns {{text: string, fill: string, colour: string, title: string}|null}
 */
export function pillOf(b, ctx) {
  if (!b) return null;
  if (ctx.mode === 'overflow') {
    if (!b.overflow) return null;
    const fill = OVERFLOW[OVERFLOW_LEVELS[b.worstOverflow]] || OVERFLOW.medium;
    return { text: `⚠ ${b.overflow}`, fill, colour: textColour(fill), title: t('badgeOverflowTitle', b.overflow, t(OVERFLOW_LEVELS[b.worstOverflow] || 'medium')) };
  }
  const parts = [];
  const error = ctx.bench ? 0 : b.error;
  const warning = ctx.bench ? 0 : b.warning;
  if (error) parts.push(`E ${error}`);
  if (warning) parts.push(`W ${warning}`);
  if (ctx.compare && b.unmatched) parts.push(`∅ ${b.unmatched}`);
  if (!parts.length) return null;
  const fill = error || warning ? bucketFill(b.worst, ctx.colors) : UNMATCHED;
  return { text: parts.join(' · '), fill, colour: textColour(fill), title: t('badgeTitle', error, warning, ctx.compare ? b.unmatched : 0) };
}

/**
 * Pill box over the top-left corner of a collapsed node: it does not change the layout (GL-02), and
 * the left end of a wide box is the end most likely on screen (the view starts at the left).
 * @param {{x: number, y: number}} n @param {string} text
 */
export function pillBox(n, text) {
  const w = text.length * PILL_CHAR + 4;
  return { x: n.x - 3, y: n.y - PILL_H + 3, w, h: PILL_H };
}
