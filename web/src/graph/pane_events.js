// @ts-check
// The event wiring of a graph pane (web-ui GI-02..GI-04), kept apart from its drawing.
import { isLeaf, layout } from './layout.js';
import { t } from '../i18n.js';

/**
 * Wires a pane's events: hover, drag to pan, wheel to scroll or zoom (Ctrl), click to select,
 * the context menu, double-click to expand or collapse (GI-02: toggle, lay out once, centre).
 * @param {import('./pane.js').Pane} pane
 */
export function wirePane(pane) {
  /** @type {{x: number, y: number, tx: number, ty: number, moved: boolean, id: number}|null} */
  let drag = null;
  pane.host.addEventListener('pointerenter', () => { pane.hover = true; });
  pane.host.addEventListener('pointerleave', () => { pane.hover = false; if (pane.opts.onHover) pane.opts.onHover(pane, null, 0, 0); });
  pane.svg.addEventListener('pointerdown', (e) => {
    drag = { x: e.clientX, y: e.clientY, tx: pane.t.x, ty: pane.t.y, moved: false, id: e.pointerId };
  });
  pane.svg.addEventListener('pointermove', (e) => {
    if (pane.opts.onHover && !(drag && drag.moved)) pane.opts.onHover(pane, pane.nodeOf(e), e.clientX, e.clientY);
    if (!drag) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 2) {
      // Capture only once it is a drag, so clicks keep their node as target.
      drag.moved = true;
      pane.svg.setPointerCapture(drag.id);
    }
    if (!drag.moved) return;
    pane.t.x = drag.tx + dx;
    pane.t.y = drag.ty + dy;
    pane.schedule();
  });
  pane.svg.addEventListener('pointerup', () => { drag = null; });
  pane.svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (e.ctrlKey || e.metaKey) {
      const r = pane.host.getBoundingClientRect();
      pane.zoomTo(pane.t.k * (e.deltaY < 0 ? 1.1 : 1 / 1.1), e.clientX - r.left, e.clientY - r.top);
    } else {
      pane.t.y -= Math.sign(e.deltaY) * 40;   // GI-04: 40 units per notch
      pane.schedule();
    }
  }, { passive: false });
  pane.svg.addEventListener('click', (e) => {
    const n = pane.nodeOf(e);
    if (n) pane.opts.onSelect(pane, n);
  });
  pane.svg.addEventListener('contextmenu', (e) => {
    const n = pane.nodeOf(e);
    if (!n) return;
    e.preventDefault();
    pane.opts.onSelect(pane, n);
    if (pane.opts.onMenu) pane.opts.onMenu(pane, n, e.clientX, e.clientY);
  });
  pane.svg.addEventListener('dblclick', async (e) => {
    e.preventDefault();
    const n = pane.nodeOf(e);
    if (!n) return;
    pane.opts.onSelect(pane, n);
    if (isLeaf(n) || n === pane.root) return;
    // GI-02: toggle, lay out once, then centre on the node.
    await pane.toggleState(n);
    pane.laid = layout(/** @type {import('./layout.js').GNode} */ (pane.root), pane.keep());   // (n is a node of the root's tree)
    pane.layoutVersion = (pane.layoutVersion || 0) + 1;
    pane.t.x = pane.width / 2 - (n.x + n.w / 2) * pane.t.k;
    pane.t.y = pane.height / 2 - 100 - n.y * pane.t.k;
    pane.draw(true, true);
    pane.opts.onToggle(pane, n);
  });
  pane.svg.tabIndex = 0;
  const key = pane.opts.side === 'NPU' ? 'debugGraph' : 'benchGraph';
  pane.svg.dataset.i18nAria = key;
  pane.svg.setAttribute('aria-label', t(key));
}
