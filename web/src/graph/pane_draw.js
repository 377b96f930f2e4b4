// @ts-check
// The layered drawing of a graph pane (web-ui GR-10, GR-11), kept apart from its tree and events:
// the boxes intersecting the window extended by one pane height above and below (and, for the
// canvas, half a pane width left and right), plus their ancestors, are drawn into a layer two panes
// wide and three panes high. A pan, or a zoom that the layer still covers, only moves or scales the
// layer with a CSS transform (the compositor does it without a repaint); the layer is redrawn when
// the view leaves it, and crisp again once the zoom rests. Split out of pane.js, behaviour unchanged.
import { drawSvg, drawOverlay } from './render_svg.js';

/** @typedef {import('./layout.js').GNode} GNode */
/** @typedef {import('./pane.js').Pane} Pane */

/**
 * Draws `pane`: moves the layer when it still covers the view, else redraws it. `force` redraws
 * now; `animate` fades appearing nodes in (after expand / collapse, not after a pan: nodes entering
 * at the edges of the layer are off screen, and their animation would repaint the layer each frame).
 * @param {Pane} pane @param {boolean} force @param {boolean} animate
 */
export function drawPane(pane, force, animate) {
  if (!pane.root) return;
  const w = pane.width;
  const h = pane.height;
  if (!force && pane.layer && pane.layer.w === w && pane.layer.h === h) {
    const m = layerMatrix(pane);
    if (m) {
      applyLayer(pane, m);
      pane.minimap.drawView();
      pane.prefetchLater();
      if (m.s !== 1) pane.settleLater();
      return;
    }
  }
  clearTimeout(pane.settle);
  const inWindow = drawLayer(pane, w, h, animate);
  // Hooks for tests and benchmarks (the canvas has no per-node elements).
  pane.host.dataset.renderer = pane.renderer;
  pane.host.dataset.boxes = String(inWindow);
  pane.host.dataset.badges = String(pane.pills);
  pane.prefetchLater();
  const version = `${pane.layoutVersion}|${pane.mode}|${pane.colourVersion || 0}`;
  if (pane.minimapVersion !== version) {
    pane.minimapVersion = version;
    pane.minimap.paintNodes(pane.laid, (n) => pane.fill(n));
  } else {
    pane.minimap.drawView();
  }
}

/**
 * The layer drawn anew at the current transform, in SVG or, above the pane's threshold of boxes in
 * the extended window, on the canvas with SVG keeping the selection overlay (GR-11); returns the
 * number of boxes in the window. @param {Pane} pane @param {number} w @param {number} h @param {boolean} animate
 */
function drawLayer(pane, w, h, animate) {
  const { x, y, k } = pane.t;
  const top = (-y - h) / k;
  const bottom = (-y + 2 * h) / k;
  const left = (-x - w / 2) / k;
  const right = (-x + 1.5 * w) / k;
  const shown = new Set();
  let inWindow = 0;
  for (const n of pane.laid) {
    if (n.y + n.h < top || n.y > bottom) continue;
    inWindow += 1;
    for (let a = /** @type {GNode|null} */ (n); a && !shown.has(a); a = a.parent) shown.add(a);
  }
  const canvas = inWindow > pane.threshold;
  // The canvas layer is bounded horizontally (it is a bitmap); SVG keeps every column.
  pane.drawn = pane.laid.filter((n) => shown.has(n) && (!canvas || (n.x + n.w >= left && n.x <= right)));
  for (const e of [pane.svg, pane.canvas]) {
    e.style.left = `${-w / 2}px`;
    e.style.top = `${-h}px`;
    e.style.width = `${2 * w}px`;
    e.style.height = `${3 * h}px`;
  }
  pane.g.setAttribute('transform', `translate(${x + w / 2},${y + h}) scale(${k})`);
  // Text under 6 px on screen is not drawn (GR-11); in SVG it costs paint time for nothing.
  pane.svg.classList.toggle('no-text', 8 * k < 6);
  pane.svg.classList.toggle('no-leaf-text', 6 * k < 6);
  const style = (/** @type {GNode} */ n) => pane.style(n);
  if (canvas) {
    if (pane.renderer !== 'canvas') { pane.boxes.textContent = ''; pane.canvas.hidden = false; }
    pane.renderer = 'canvas';
    const theme = document.documentElement.dataset.theme || '';
    if (pane.bgTheme !== theme) {
      pane.bgTheme = theme;
      pane.bg = getComputedStyle(pane.host).getPropertyValue('--graph-bg').trim() || '#fff';
    }
    pane.pills = pane.canvasRenderer.draw(pane.drawn, pane.t, w, h, style, pane.bg);
    const marks = [];
    for (const n of pane.drawn) if (pane.isMarked(n)) marks.push({ n, stroke: pane.style(n).stroke });
    drawOverlay(pane.overlay, marks);
  } else {
    if (pane.renderer !== 'svg') { pane.canvasRenderer.clear(); pane.canvas.hidden = true; pane.overlay.textContent = ''; }
    pane.renderer = 'svg';
    pane.pills = drawSvg(pane.boxes, pane.drawn, style, animate, k);
  }
  pane.layer = { x, y, k, w, h };
  applyLayer(pane, { a: 0, b: 0, s: 1 });
  return inWindow;
}

/**
 * The CSS transform that shows the layer drawn at pane.layer under the current transform, or null
 * when the pane would show something outside it (or the zoom changed more than 2x). @param {Pane} pane
 */
function layerMatrix(pane) {
  const L = /** @type {{x: number, y: number, k: number, w: number, h: number}} */ (pane.layer);
  const { w, h } = L;
  const s = pane.t.k / L.k;
  if (s < 0.5 || s > 2) return null;
  const a = pane.t.x - s * (L.x + w / 2) + w / 2;
  const b = pane.t.y - s * (L.y + h) + h;
  // Pane corners in layer coordinates must lie inside [0, 2w] x [0, 3h].
  const q0x = (w / 2 - a) / s;
  const q0y = (h - b) / s;
  const q1x = (w + w / 2 - a) / s;
  const q1y = (h + h - b) / s;
  if (q0x < -0.5 || q0y < -0.5 || q1x > 2 * w + 0.5 || q1y > 3 * h + 0.5) return null;
  return { a, b, s };
}

/** @param {Pane} pane @param {{a: number, b: number, s: number}} m */
function applyLayer(pane, { a, b, s }) {
  const css = a === 0 && b === 0 && s === 1 ? '' : `translate(${a}px, ${b}px) scale(${s})`;
  pane.svg.style.transform = css;
  if (pane.renderer === 'canvas') pane.canvas.style.transform = css;
}
