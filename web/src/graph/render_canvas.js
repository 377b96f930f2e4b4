// @ts-check
// Canvas renderer of node boxes (GR-11, PERF-G2): the extended window (one pane height above and
// below, half a pane width left and right) is drawn into a layer that the pane then moves with a
// CSS transform while panning. Boxes are batched by style into Path2D objects, and text is drawn
// only where it is at least 6 px tall on screen.
import { isLeaf, H, LW } from './layout.js';
import { fitLabel, markerOf, labelSize } from './render_common.js';
import { pillBox, PILL_H, PILL_FONT } from './badges.js';

/**
 * Bounds of the layer's backing store. The layer is two pane widths by three pane heights, so at
 * devicePixelRatio r it would hold 6 r^2 times the pane's area: 36 Mpx (144 MB) for one pane of a
 * 4K window, more than Chromium's canvas limits (side 32,767, area 268 Mpx) on larger or denser
 * screens, and an accelerated canvas of that size is one GPU allocation. Above these bounds the
 * layer is drawn at a lower scale than the device's (slightly soft text), never larger.
 */
export const MAX_LAYER_PIXELS = 16 * 1024 * 1024;
export const MAX_LAYER_SIDE = 8192;

/**
 * Device pixels per CSS pixel for a (2w x 3h) layer: devicePixelRatio, lowered to keep the
 * backing store within MAX_LAYER_PIXELS and MAX_LAYER_SIDE. @param {number} w @param {number} h @param {number} dpr
 */
export function layerScale(w, h, dpr) {
  const area = 6 * Math.max(1, w) * Math.max(1, h);
  return Math.min(dpr, Math.sqrt(MAX_LAYER_PIXELS / area), MAX_LAYER_SIDE / (2 * Math.max(1, w)), MAX_LAYER_SIDE / (3 * Math.max(1, h)));
}

export class CanvasRenderer {
  /** @param {HTMLCanvasElement} canvas  the layer: two pane widths by three pane heights */
  constructor(canvas) {
    this.canvas = canvas;
  }

  /**
   * Draws `nodes` for transform t into the layer of a (w, h) pane; layer pixel =
   * (world * k + t + (w/2, h)) * layerScale(w, h, devicePixelRatio).
   * @param {import('./layout.js').GNode[]} nodes @param {{x: number, y: number, k: number}} t @param {number} w @param {number} h
   * @param {(n: import('./layout.js').GNode) => import('./render_svg.js').BoxStyle} style @param {string} bg
   * @returns {number} problem badges drawn (BEY-08)
   */
  draw(nodes, t, w, h, style, bg) {
    const dpr = layerScale(w, h, window.devicePixelRatio || 1);
    const bw = Math.floor(2 * w * dpr);
    const bh = Math.floor(3 * h * dpr);
    if (this.canvas.width !== bw) this.canvas.width = bw;
    if (this.canvas.height !== bh) this.canvas.height = bh;
    const ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, bw, bh);
    ctx.setTransform(dpr * t.k, 0, 0, dpr * t.k, dpr * (t.x + w / 2), dpr * (t.y + h));
    /** @type {Map<string, {fill: string, stroke: string, width: number, dash: number[], fillPath: Path2D, strokePath: Path2D}>} */
    const groups = new Map();
    /** @type {[import('./layout.js').GNode, string, number, number][]} node, colour, font size, box width */
    const texts = [];
    const showText8 = 8 * t.k >= 6;
    const showText6 = 6 * t.k >= 6;
    const round = typeof Path2D.prototype.roundRect === 'function';
    /** @type {Array<[import('./layout.js').GNode, {text: string, fill: string, colour: string}]>} */
    const pills = [];
    for (const n of nodes) {
      const s = style(n);
      if (s.badge) pills.push([n, s.badge]);
      const dash = n.type === 9 ? '15,1' : n.type === 8 ? '2,1' : '';
      const key = `${s.fill}|${s.stroke}|${s.width}|${dash}`;
      let gr = groups.get(key);
      if (!gr) {
        gr = { fill: s.fill, stroke: s.stroke, width: s.width, dash: dash ? dash.split(',').map(Number) : [],
               fillPath: new Path2D(), strokePath: new Path2D() };
        groups.set(key, gr);
      }
      if (isLeaf(n)) {
        for (const p of [gr.fillPath, gr.strokePath]) {
          p.moveTo(n.x + LW, n.y + H / 2);
          p.ellipse(n.x + LW / 2, n.y + H / 2, LW / 2, H / 2, 0, 0, 2 * Math.PI);
        }
        if (showText6) texts.push([n, s.text, labelSize(true, t.k), LW]);
      } else {
        if (round) gr.fillPath.roundRect(n.x, n.y, n.w, H, 5); else gr.fillPath.rect(n.x, n.y, n.w, H);
        if (round) gr.strokePath.roundRect(n.x, n.y, n.w, H, 5); else gr.strokePath.rect(n.x, n.y, n.w, H);
        if (n.expanded) {
          if (round) gr.strokePath.roundRect(n.x, n.y, n.w, n.h, 5); else gr.strokePath.rect(n.x, n.y, n.w, n.h);
        }
        if (showText8) texts.push([n, s.text, labelSize(false, t.k), n.w]);
      }
    }
    for (const gr of groups.values()) {
      ctx.fillStyle = gr.fill;
      ctx.fill(gr.fillPath);
      ctx.strokeStyle = gr.stroke;
      ctx.lineWidth = gr.width;
      ctx.setLineDash(gr.dash);
      ctx.stroke(gr.strokePath);
    }
    ctx.setLineDash([]);
    drawTexts(ctx, texts);
    drawPills(ctx, pills, t.k, round);
    return pills.length;
  }

  clear() {
    const ctx = this.canvas.getContext('2d');
    if (ctx) { ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, this.canvas.width, this.canvas.height); }
  }
}

/**
 * The node under a world point among the drawn nodes (drawing order is parents first, so the last
 * hit is the deepest): a leaf's box, a collapsed node's box, an expanded node's header.
 * @param {import('./layout.js').GNode[]} nodes @param {number} wx @param {number} wy
 */
export function hitTest(nodes, wx, wy) {
  for (let i = nodes.length - 1; i >= 0; --i) {
    const n = nodes[i];
    const w = isLeaf(n) ? LW : n.w;
    if (wx >= n.x && wx <= n.x + w && wy >= n.y && wy <= n.y + H) return n;
  }
  return null;
}

/**
 * The labels (and GR-12 markers) of the boxes, each fitted to its box.
 * @param {CanvasRenderingContext2D} ctx @param {[import('./layout.js').GNode, string, number, number][]} texts  node, colour, font size, box width
 */
function drawTexts(ctx, texts) {
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  let font = 0;
  for (const [n, colour, size, boxW] of texts) {
    if (font !== size) { ctx.font = `${size}px sans-serif`; font = size; }
    ctx.fillStyle = colour;
    ctx.fillText(fitLabel(n, boxW, size), n.x + boxW / 2, n.y + H / 2);
    const marker = markerOf(n);
    if (marker) {
      ctx.textAlign = 'right';
      ctx.font = '7px sans-serif';
      ctx.fillText(marker, n.x + boxW - 2, n.y + H / 2);
      ctx.textAlign = 'center';
      font = 7;
    }
  }
}

/**
 * BEY-08: problem pills over the boxes; their text only where it is readable at zoom k.
 * @param {CanvasRenderingContext2D} ctx @param {Array<[import('./layout.js').GNode, {text: string, fill: string, colour: string}]>} pills
 * @param {number} k @param {boolean} round  whether Path2D / the context have roundRect
 */
function drawPills(ctx, pills, k, round) {
  const pillText = PILL_FONT * k >= 5;
  ctx.font = `${PILL_FONT}px sans-serif`;
  ctx.textAlign = 'center';
  for (const [n, b] of pills) {
    const box = pillBox(n, b.text);
    ctx.beginPath();
    if (round) ctx.roundRect(box.x, box.y, box.w, PILL_H, PILL_H / 2); else ctx.rect(box.x, box.y, box.w, PILL_H);
    ctx.fillStyle = b.fill;
    ctx.fill();
    ctx.strokeStyle = '#555';
    ctx.lineWidth = 0.5;
    ctx.stroke();
    if (pillText) { ctx.fillStyle = b.colour; ctx.fillText(b.text, box.x + box.w / 2, box.y + PILL_H / 2); }
  }
}
