// @ts-check
// What both renderers share: the fitted label (GR-03) and the marker glyph (GR-12).
import { labelOf } from './layout.js';

/**
 * GR-03 and issue 19: the short label fitted to the box width (6 units per character at font 10;
 * the estimate scales with the font size). A label too long keeps its start and its distinguishing
 * end around a middle "…" (after ".forward" / ".backward" shorten to ".fwd" / ".bwd"), so that
 * `all_reduce.3.forward` and `all_reduce.4.forward` stay apart in a leaf; the hover card shows the
 * full name. Cached on the node per width.
 * @param {any} d @param {number} boxW @param {number} size
 */
export function fitLabel(d, boxW, size) {
  if (d._fitW === boxW) return d._fit;
  const label = d._label || (d._label = labelOf(d));
  const maxChars = Math.max(1, Math.floor(boxW / (size * 0.6)) - 1);
  d._fitW = boxW;
  d._fit = middleEllipsis(label, maxChars);
  return d._fit;
}

/** @param {string} label @param {number} max */
export function middleEllipsis(label, max) {
  if (label.length <= max) return label;
  const short = label.replace(/\.forward(?=\.|$)/g, '.fwd').replace(/\.backward(?=\.|$)/g, '.bwd');
  if (short.length <= max) return short;
  if (max < 4) return short.slice(0, Math.max(1, max - 1)) + '…';
  const room = max - 1;
  const tail = Math.ceil(room * 0.6);
  return short.slice(0, room - tail) + '…' + short.slice(short.length - tail);
}

/** GR-12: ↗ send, ↙ receive, ⇄ both; ⊕ merged ranks; • manually re-matched. @param {any} d */
export function markerOf(d) {
  let m = '';
  if (d.comm === 'send') m += '↗';
  else if (d.comm === 'receive') m += '↙';
  else if (d.comm === 'send_receive') m += '⇄';
  if (d.merged) m += '⊕';
  if (d.modified) m += '•';
  return m;
}
