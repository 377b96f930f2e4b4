// @ts-check
// What both renderers share: the fitted label (GR-03) and the marker glyph (GR-12).
import { labelOf } from './layout.js';

/**
 * GR-03: the short label cut with "…" to the box width (6 units per character at font 10; the
 * estimate scales with the font size). Cached on the node per width.
 * @param {any} d @param {number} boxW @param {number} size
 */
export function fitLabel(d, boxW, size) {
  if (d._fitW === boxW) return d._fit;
  const label = d._label || (d._label = labelOf(d));
  const maxChars = Math.max(1, Math.floor(boxW / (size * 0.6)) - 1);
  d._fitW = boxW;
  d._fit = label.length > maxChars ? label.slice(0, Math.max(1, maxChars - 1)) + '…' : label;
  return d._fit;
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
