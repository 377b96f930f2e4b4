// @ts-check
// The minimap of a pane (MM-01..MM-03): every laid-out node at 100 px / root width, drawn once per
// layout or colour change into a cached image; each frame only copies it and draws the viewport.
import { isLeaf, H, LW } from './layout.js';

const MW = 64;
const MH = 220;
const MAX_IMAGE_H = 16000;

export class Minimap {
  /**
   * @param {HTMLElement} host @param {{view: () => {t: {x: number, y: number, k: number}, w: number, h: number, root: import('./layout.js').GNode|null},
   *   setTranslate: (x: number, y: number) => void, scrollBy: (dy: number) => void, reset: () => void}} pane
   */
  constructor(host, pane) {
    this.pane = pane;
    this.box = document.createElement('div');
    this.box.className = 'ws-minimap';
    this.box.dataset.testid = 'minimap';
    this.canvas = document.createElement('canvas');
    this.canvas.width = MW;
    this.canvas.height = MH;
    this.box.append(this.canvas);
    host.append(this.box);
    this.image = document.createElement('canvas');
    this.scroll = 0;
    this.scale = 1;
    /** @type {{laid: import('./layout.js').GNode[], fill: (n: import('./layout.js').GNode) => string}|null} */
    this.pending = null;
    this.timer = 0;
    /** @type {{x: number, y: number, w: number, h: number}} */
    this.viewRect = { x: 0, y: 0, w: 0, h: 0 };
    this.wire();
  }

  get visible() { return !this.box.hidden; }
  set visible(v) { this.box.hidden = !v; }

  /**
   * A new layout or new colours: the scale now (the viewport rectangle and drags use it), the
   * node image once the frame that shows the change has been painted. Painting the image of a
   * 200,000-node graph's 2,000-child expansion took 40-50 ms, which an expand waited for.
   * @param {import('./layout.js').GNode[]} laid @param {(n: import('./layout.js').GNode) => string} fill
   */
  paintNodes(laid, fill) {
    const { root } = this.pane.view();
    if (!root) return;
    this.scale = MW / Math.max(1, root.w);
    this.pending = { laid, fill };
    if (!this.timer) {
      this.timer = requestAnimationFrame(() => {
        this.timer = window.setTimeout(() => { this.timer = 0; this.paintNow(); }, 0);
      });
    }
    this.drawView();
  }

  /** Paints the node image paintNodes asked for (after the frame that showed the change). */
  paintNow() {
    const job = this.pending;
    this.pending = null;
    if (!job) return;
    const { root } = this.pane.view();
    if (!root) return;
    this.scale = MW / Math.max(1, root.w);
    const s = this.scale;
    const total = Math.min(MAX_IMAGE_H, Math.ceil(root.h * s) + 2);
    if (this.image.width !== MW) this.image.width = MW;
    if (this.image.height !== Math.max(MH, total)) this.image.height = Math.max(MH, total);
    const ctx = /** @type {CanvasRenderingContext2D} */ (this.image.getContext('2d'));
    ctx.clearRect(0, 0, MW, this.image.height);
    // One path per fill colour (a fill and a stroke each), not a fill and a stroke per node.
    /** @type {Map<string, {boxes: Path2D, rects: Path2D}>} */
    const groups = new Map();
    const outlines = new Path2D();
    // Leaves under 8 px tall are rectangles: an ellipse is not told from a box at that size, and
    // 2,000 of them (filled and stroked) took 15-50 ms against 3-6 ms for rectangles.
    const small = LW * s < 4 || H * s < 8;
    for (const n of job.laid) {
      const f = job.fill(n);
      let g = groups.get(f);
      if (!g) { g = { boxes: new Path2D(), rects: new Path2D() }; groups.set(f, g); }
      if (isLeaf(n) && small) {
        g.rects.rect(n.x * s, n.y * s, LW * s, H * s);
      } else if (isLeaf(n)) {
        g.boxes.moveTo((n.x + LW) * s, (n.y + H / 2) * s);
        g.boxes.ellipse((n.x + LW / 2) * s, (n.y + H / 2) * s, (LW / 2) * s, (H / 2) * s, 0, 0, 2 * Math.PI);
      } else {
        g.boxes.rect(n.x * s, n.y * s, n.w * s, H * s);
        if (n.expanded) outlines.rect(n.x * s, n.y * s, n.w * s, n.h * s);
      }
    }
    // Outlines follow the theme (light grey lines read as light boxes on the dark panel).
    ctx.strokeStyle = document.documentElement.dataset.theme === 'dark' ? '#555' : '#999';
    for (const [f, g] of groups) {
      ctx.fillStyle = f;
      ctx.fill(g.rects);
      ctx.fill(g.boxes);
      ctx.lineWidth = 1;
      ctx.stroke(g.boxes);
    }
    ctx.lineWidth = 0.5;
    ctx.stroke(outlines);
    this.drawView();
  }

  /** MM-02: the cached image, scrolled so the viewport stays visible, and the viewport. */
  drawView() {
    if (!this.visible) return;
    const { t, w, h, root } = this.pane.view();
    if (!root) return;
    const s = this.scale;
    const v = { x: (-t.x / t.k) * s, y: (-t.y / t.k) * s, w: (w / t.k) * s, h: (h / t.k) * s };
    const total = root.h * s;
    this.scroll = total > MH ? Math.max(0, Math.min(total - MH, v.y + v.h / 2 - MH / 2)) : 0;
    this.viewRect = v;
    const ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    ctx.clearRect(0, 0, MW, MH);
    ctx.drawImage(this.image, 0, -this.scroll);
    ctx.fillStyle = 'rgba(38,143,50,0.24)';
    ctx.strokeStyle = 'rgb(38,143,50)';
    ctx.lineWidth = 1;
    ctx.fillRect(v.x, v.y - this.scroll, v.w, v.h);
    ctx.strokeRect(v.x, v.y - this.scroll, v.w, v.h);
  }

  wire() {
    const c = this.canvas;
    /** @type {{x: number, y: number, tx: number, ty: number}|null} */
    let drag = null;
    const local = (/** @type {MouseEvent} */ e) => {
      const r = c.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top + this.scroll };
    };
    c.addEventListener('pointerdown', (e) => {
      c.setPointerCapture(e.pointerId);
      const p = local(e);
      const v = this.viewRect;
      const { t, w, h } = this.pane.view();
      if (!(p.x >= v.x && p.x <= v.x + v.w && p.y >= v.y && p.y <= v.y + v.h)) {
        // MM-03: a click outside the viewport centres it on the point.
        this.pane.setTranslate(w / 2 - (p.x / this.scale) * t.k, h / 2 - (p.y / this.scale) * t.k);
      }
      const now = this.pane.view().t;
      drag = { x: e.clientX, y: e.clientY, tx: now.x, ty: now.y };
      c.style.cursor = 'grabbing';
    });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      // Dragging the viewport by d minimap pixels moves the pane by -(d / scale) * zoom.
      const k = this.pane.view().t.k;
      this.pane.setTranslate(drag.tx - ((e.clientX - drag.x) / this.scale) * k, drag.ty - ((e.clientY - drag.y) / this.scale) * k);
    });
    const end = () => { drag = null; c.style.cursor = ''; };
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
    c.addEventListener('dblclick', () => this.pane.reset());   // GI-07: reset view
    c.addEventListener('wheel', (e) => { e.preventDefault(); this.pane.scrollBy(-Math.sign(e.deltaY) * 40); }, { passive: false });
  }
}
