// @ts-check
// The pointer on a heat map (trend-analyzer §10.7, U-5): hover shows the cell's tooltip and mark,
// a drag inside the plot pans the windows, the wheel zooms them about the pointer, a click reports
// the cell. Kept apart from the drawing (heatmap.js), as graph/pane_events.js is from a pane's.
import { shiftWindow, zoomWindow } from './scales.js';

/** @param {import('./heatmap.js').Heatmap} heat */
export function wireHeatmap(heat) {
  const node = /** @type {SVGRectElement} */ (heat.hit.node());
  /** @type {{x: number, y: number, wx: number[], wy: number[], moved: boolean}|null} */
  let drag = null;
  const local = (/** @type {MouseEvent} */ e) => { const r = heat.body.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
  node.addEventListener('pointerdown', (e) => {
    // Issue 19: only a press inside the plot pans it (a drag that began on the colour bar, a
    // legend or an axis scrolled the rows).
    const [px, py] = local(e);
    const p = heat.plot;
    if (!p || px < p.x || px > p.x + p.w || py < p.y || py > p.y + p.h) return;
    node.setPointerCapture(e.pointerId);
    drag = { x: e.clientX, y: e.clientY, wx: [...heat.wx], wy: [...heat.wy], moved: false };
  });
  node.addEventListener('pointermove', (e) => {
    const [mx, my] = local(e);
    if (drag && (drag.moved || Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3)) {
      drag.moved = true;
      const p = heat.plot;
      const kx = (drag.wx[1] - drag.wx[0]) / p.w;
      const ky = (drag.wy[1] - drag.wy[0]) / p.h;
      heat.wx = shiftWindow(drag.wx, -(e.clientX - drag.x) * kx, heat.xShown.length);
      heat.wy = shiftWindow(drag.wy, -(e.clientY - drag.y) * ky, heat.yShown.length);
      heat.hover(-1, 0, 0);
      heat.draw();
      return;
    }
    heat.hover(heat.cellAt(mx, my), mx, my);
  });
  node.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = null;
    if (!d || d.moved) return;
    const [mx, my] = local(e);
    const i = heat.cellAt(mx, my);
    if (i >= 0) heat.opts.onClick(heat.hitOf(i));
  });
  node.addEventListener('pointerleave', () => heat.hover(-1, 0, 0));
  node.addEventListener('wheel', (e) => {
    if (!heat.cube) return;
    e.preventDefault();
    const [mx, my] = local(e);
    const p = heat.plot;
    const f = Math.exp(e.deltaY * 0.0015);
    heat.wx = zoomWindow(heat.wx, f, (mx - p.x) / p.w, heat.xShown.length);
    heat.wy = zoomWindow(heat.wy, f, (my - p.y) / p.h, heat.yShown.length);
    heat.draw();
    heat.hover(heat.cellAt(mx, my), mx, my);
  }, { passive: false });
}
