// @ts-check
// What both renderers share: the fitted label (GR-03) and the marker glyph (GR-12).
import { labelOf } from './layout.js';

/** Issue 46: the largest a label's text grows on screen, in CSS px (leaves, modules). */
const SCREEN_CAP = { leaf: 12, module: 14 };

/**
 * The label's font size in layout units at zoom k: its base size (6 for a leaf, 8 for a module
 * header) until the text would be larger than SCREEN_CAP on screen; zoomed in further the text
 * stays at the cap while the box grows, so more of a long name fits (issue 46).
 * @param {boolean} leaf @param {number} k
 */
export function labelSize(leaf, k) {
  const base = leaf ? 6 : 8;
  const cap = (leaf ? SCREEN_CAP.leaf : SCREEN_CAP.module) / Math.max(k, 1e-6);
  return Math.min(base, Math.round(cap * 100) / 100);
}

/** @type {CanvasRenderingContext2D|null} */
let measureCtx = null;
/** Widths of label texts at 10 px sans-serif (the font the renderers use). */
const widths = new Map();

/** The width of `text` in sans-serif at `size`, measured once per text (issue 46). @param {string} text @param {number} size */
export function textWidth(text, size) {
  let w = widths.get(text);
  if (w === undefined) {
    if (!measureCtx && typeof document !== 'undefined') {
      measureCtx = document.createElement('canvas').getContext('2d');
      if (measureCtx) measureCtx.font = '10px sans-serif';
    }
    w = measureCtx ? measureCtx.measureText(text).width : text.length * 6;
    if (widths.size > 200000) widths.clear();
    widths.set(text, w);
  }
  return (w * size) / 10;
}

/**
 * GR-03 and issues 19 / 46: the short label fitted to the box width, measured (not estimated): the
 * whole label when it fits, else with ".forward" / ".backward" shortened to ".fwd" / ".bwd", and
 * only then its start and distinguishing end around a middle "…", so that `all_reduce.3.forward`
 * and `all_reduce.4.forward` stay apart in a leaf; the hover card shows the full name. Cached on
 * the node per width and size.
 * @param {import('./layout.js').GNode} d @param {number} boxW @param {number} size
 */
export function fitLabel(d, boxW, size) {
  if (d._fitW === boxW && d._fitS === size) return /** @type {string} */ (d._fit);
  const label = d._label || (d._label = labelOf(d));
  d._fitW = boxW;
  d._fitS = size;
  d._fit = fitText(label, boxW - 4, size);
  return d._fit;
}

/** The longest form of `label` that fits `room` at `size`. @param {string} label @param {number} room @param {number} size */
export function fitText(label, room, size) {
  if (textWidth(label, size) <= room) return label;
  const short = label.replace(/\.forward(?=\.|$)/g, '.fwd').replace(/\.backward(?=\.|$)/g, '.bwd');
  if (textWidth(short, size) <= room) return short;
  // The most characters whose middle-ellipsis form fits (binary search over the count).
  let lo = 1;
  let hi = short.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (textWidth(cutMiddle(short, mid), size) <= room) lo = mid; else hi = mid - 1;
  }
  return cutMiddle(short, lo);
}

/** A name cut to `max` characters: ".fwd" / ".bwd" first, then a middle "…" (the lists). @param {string} label @param {number} max */
export function middleEllipsis(label, max) {
  if (label.length <= max) return label;
  const short = label.replace(/\.forward(?=\.|$)/g, '.fwd').replace(/\.backward(?=\.|$)/g, '.bwd');
  return cutMiddle(short, max);
}

/** `label` cut to `max` characters, the ellipsis included, keeping more of the end. @param {string} label @param {number} max */
function cutMiddle(label, max) {
  if (label.length <= max) return label;
  if (max < 4) return label.slice(0, Math.max(1, max - 1)) + '…';
  const room = max - 1;
  const tail = Math.ceil(room * 0.6);
  return label.slice(0, room - tail) + '…' + label.slice(label.length - tail);
}

/** GR-12: ↗ send, ↙ receive, ⇄ both; ⊕ merged ranks; • manually re-matched. @param {import('./layout.js').GNode} d */
export function markerOf(d) {
  let m = '';
  if (d.comm === 'send') m += '↗';
  else if (d.comm === 'receive') m += '↙';
  else if (d.comm === 'send_receive') m += '⇄';
  if (d.merged) m += '⊕';
  if (d.modified) m += '•';
  return m;
}
