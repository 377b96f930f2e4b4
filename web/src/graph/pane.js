// @ts-check
// One graph pane (web-ui §4-§5): loads the nodes of one (step, rank, side) on demand, lays out what
// is expanded, draws only the boxes near the visible window (plus their ancestors) and handles
// select / expand / pan / scroll / zoom. Up to CANVAS_THRESHOLD boxes are SVG elements; above it
// the boxes go to a canvas and SVG keeps the selection overlay (GR-10, GR-11). Node text is only
// ever set as text.
import { layout, isLeaf, H } from './layout.js';
import { precisionFill, overflowFill, darken, textColour, themed, SELECTED } from './colours.js';
import { CanvasRenderer, hitTest } from './render_canvas.js';
import { Minimap } from './minimap.js';
import { pillOf } from './badges.js';
import { t } from '../i18n.js';
import { wirePane } from './pane_events.js';
import { drawPane } from './pane_draw.js';
import { rootNode, childNodes, childNodesByParent, ancestorChain, loadBadges } from './queries.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** Children loaded ahead of a double-click (prefetchLater). */
const PREFETCH_REST_MS = 300;
const PREFETCH_NODES = 8;
const PREFETCH_ROWS = 6000;
/** GR-11: boxes in the extended window above which the pane draws on a canvas. */
export const CANVAS_THRESHOLD = 3000;
export const ZOOM_MIN = 0.05;
export const ZOOM_MAX = 4;
/** Issue 46: the zoom a jump brings a node to at least: a leaf's label at 9 px, a header's at 12 px. */
export const READABLE_K = 1.5;
/** The minimap's width with its border and padding (style.css .ws-minimap) and a gap. */
const MINIMAP_W = 82;
const INITIAL = Object.freeze({ x: 36, y: 72, k: 1.8 });

import { LATER } from '../later.js';
/** @typedef {import('./layout.js').GNode} GNode */

/** Issue 46: which side a compare pane is, in its corner (text only; clicks go through it). @param {'NPU'|'Bench'} side */
function sideLabel(side) {
  const label = document.createElement('div');
  label.className = 'ws-pane-label';
  label.dataset.testid = 'pane-label';
  label.dataset.i18n = side === 'NPU' ? 'debug' : 'bench';
  label.textContent = t(label.dataset.i18n);
  return label;
}

export class Pane {
  /**
   * @param {HTMLElement} host @param {import('../engine/client.js').EngineClient} engine
   * @param {{side: 'NPU'|'Bench', step: number, rank: number, compare: boolean, colors: import('./colours.js').ColourBucket[], micro: number,
   *          onSelect: (p: Pane, n: GNode) => void, onToggle: (p: Pane, n: GNode) => void,
   *          onMenu?: (p: Pane, n: GNode, x: number, y: number) => void, threshold?: number,
   *          onView?: (p: Pane) => void, onHover?: (p: Pane, n: GNode|null, x: number, y: number) => void}} opts
   *   onView: the pan / zoom moved (synced view); onHover: the node under the pointer (null: none)
   */
  constructor(host, engine, opts) {
    this.host = host;
    this.engine = engine;
    this.opts = opts;
    this.mode = 'precision';
    /** @type {Map<string, GNode>} */
    this.nodes = new Map();
    /** @type {GNode|null} */
    this.root = null;
    /** @type {GNode|null} */
    this.selected = null;
    /** @type {string|null} counterpart name from the other pane */
    this.highlight = null;
    /** @type {{x: number, y: number, k: number}} pan and zoom */
    this.t = { ...INITIAL };
    /** @type {GNode[]} */
    this.laid = [];
    /** @type {GNode[]} */
    this.drawn = [];
    /** Set while the workspace applies the other pane's view (syncView): the move is not synced back. */
    this.syncing = false;
    /** @type {string|undefined} the theme the canvas background (bg) was read for */
    this.bgTheme = undefined;
    /** @type {string} the canvas background, read with bgTheme before the first canvas draw */
    this.bg = LATER;
    /** @type {string|undefined} what the minimap last painted (layout, mode, colours) */
    this.minimapVersion = undefined;
    this.renderer = 'svg';
    /** The number of badges the last draw drew (a hook for tests). */
    this.pills = 0;
    this.threshold = opts.threshold ?? CANVAS_THRESHOLD;
    this.hover = false;
    /** @type {Map<string, import('./badges.js').Badge>} BEY-08: problem counts below each module */
    this.badges = new Map();
    /** @type {Promise<void>} resolves once the badges are loaded and drawn */
    this.badgesReady = Promise.resolve();
    this.destroyed = false;
    host.textContent = '';
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'graph-canvas';
    this.canvas.hidden = true;
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('class', 'graph-svg');
    this.svg.dataset.side = opts.side;
    this.g = document.createElementNS(SVG_NS, 'g');
    this.boxes = document.createElementNS(SVG_NS, 'g');
    this.overlay = document.createElementNS(SVG_NS, 'g');
    this.g.append(this.boxes, this.overlay);
    this.svg.append(this.g);
    host.append(this.canvas, this.svg);
    if (opts.compare) host.append(sideLabel(opts.side));
    this.canvasRenderer = new CanvasRenderer(this.canvas);
    this.minimap = new Minimap(host, {
      view: () => ({ t: this.t, w: this.width, h: this.height, root: this.root }),
      setTranslate: (x, y) => { this.t.x = x; this.t.y = y; this.schedule(); },
      scrollBy: (dy) => { this.t.y += dy; this.schedule(); },
      reset: () => this.reset(),
    });
    /** @type {{x: number, y: number, k: number, w: number, h: number}|null} the transform the layer was drawn at */
    this.layer = null;
    this.settle = 0;
    /**
     * The host's size, kept by a ResizeObserver (read when layout is clean), and a redraw when it
     * changes (a resized page kept the layer culled for the old size). draw() no longer reads
     * clientWidth, which forced a layout of the page before the frame's own.
     * @type {{w: number, h: number}|null}
     */
    this.size = null;
    this.resizeObserver = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => {
      this.size = { w: this.host.clientWidth || 800, h: this.host.clientHeight || 600 };
      if (this.layer && (this.layer.w !== this.size.w || this.layer.h !== this.size.h)) this.schedule();
    });
    if (this.resizeObserver) this.resizeObserver.observe(this.host);
    this.wire();
  }

  /**
   * The page changed this pane's size just now (splitter, collapse): redraw at the new size at once,
   * read from the layout; the observer then finds the layer's size current and adds no redraw.
   */
  resized() {
    this.size = null;
    this.draw(true);
  }

  get width() { return this.size ? this.size.w : this.host.clientWidth || 800; }
  get height() { return this.size ? this.size.h : this.host.clientHeight || 600; }
  /** @returns {import('./queries.js').Scope} */
  get scope() { return [this.opts.step, this.opts.rank, this.opts.side]; }

  /** A row of the graph as a tree node below `parent`. @param {import('./queries.js').NodeRow} row @param {GNode|null} parent @returns {GNode} */
  makeNode(row, parent) {
    /** @type {GNode} */
    const n = { ...row, children: null, expanded: false, depth: parent ? parent.depth + 1 : 0, parent, x: 0, y: 0, w: 0, h: 0 };
    this.nodes.set(n.name, n);
    return n;
  }

  async load() {
    // BEY-08: badges arrive on their own (for msProbe files the worker computes them first) and
    // are drawn when they do; the first paint does not wait for them.
    this.badgesReady = this.reloadBadges().then(() => { if (this.root && !this.destroyed) this.draw(true); });
    const row = await rootNode(this.engine, this.scope);
    if (!row) throw new Error(t('noGraph', this.opts.step, this.opts.rank, this.opts.side === 'NPU' ? t('debug') : t('bench')));
    this.root = this.makeNode(row, null);
    await this.expand(this.root);
  }

  /** BEY-08: the badge rows of this graph (stored by the engine or computed by the worker). */
  async reloadBadges() {
    const t0 = performance.now();
    try {
      this.badges = await loadBadges(this.engine, this.scope);
    } catch {
      this.badges = new Map();   // an older worker: no badges, the graph still works
    }
    this.host.dataset.badgeFetchMs = (performance.now() - t0).toFixed(1);
  }

  /** Loads the direct children once (concurrent callers share the query). @param {GNode} n */
  async loadChildren(n) {
    if (n.children) return;
    if (!n.loading) {
      n.loading = childNodes(this.engine, this.scope, n.name)
        .then((rows) => { if (!n.children) n.children = rows.map((row) => this.makeNode(row, n)); })
        .finally(() => { n.loading = null; });
    }
    await n.loading;
  }

  /**
   * A selected collapsed node is likely to be expanded next: load its children now, ahead of the
   * detail queries, so a double-click only lays out and draws (PERF-G1).
   * @param {GNode} n
   */
  prefetch(n) {
    if (!isLeaf(n) && !n.children) this.loadChildren(n).catch(() => {});
  }

  /** @param {GNode} n */
  async expand(n) {
    if (isLeaf(n)) return;
    await this.loadChildren(n);
    n.expanded = true;
  }

  /** GL-04: collapsing forgets the expansion below. @param {GNode} n */
  collapse(n) {
    if (n === this.root) return;
    n.expanded = false;
    const stack = [...(n.children || [])];
    while (stack.length) {
      const c = /** @type {GNode} */ (stack.pop());
      c.expanded = false;
      if (c.children) stack.push(...c.children);
    }
  }


  /**
   * Issue 19: the modules above depth `depth` expanded, the ones at and below it collapsed (1 =
   * collapse all, Infinity = expand all), loading each level's children in batched index lookups.
   * Stops before more than `cap` boxes are laid out (a 200,000-node side expanded at once is not
   * a picture anyone reads); returns whether it stopped early. Nothing is drawn.
   * @param {number} depth @param {number} [cap]
   * @returns {Promise<{truncated: boolean, boxes: number}>}
   */
  async expandToDepth(depth, cap = 6000) {
    if (!this.root) return { truncated: false, boxes: 0 };
    for (const c of this.root.children || []) this.collapse(c);
    const keep = this.keep();
    let level = [this.root];
    let boxes = 1;
    let truncated = false;
    for (let d = 0; d < depth && level.length && !truncated; ++d) {
      const parents = level.filter((n) => !isLeaf(n));
      const missing = parents.filter((n) => !n.children);
      const byParent = await childNodesByParent(this.engine, this.scope, missing.map((n) => n.name));
      for (const n of missing) if (!n.children) n.children = (byParent.get(n.name) || []).map((row) => this.makeNode(row, n));
      const next = [];
      for (const n of parents) {
        const kids = (n.children || []).filter(n === this.root ? keep : () => true);
        if (n !== this.root && boxes + kids.length > cap) { truncated = true; break; }
        boxes += kids.length;
        n.expanded = true;
        next.push(...kids);
      }
      level = next;
    }
    return { truncated, boxes };
  }

  /** Expands or collapses without drawing. @param {GNode} n */
  async toggleState(n) {
    if (isLeaf(n) || n === this.root) return;
    if (n.expanded) this.collapse(n); else await this.expand(n);
  }

  /** @param {GNode} n */
  async toggle(n) {
    await this.toggleState(n);
    this.render();
  }

  /**
   * GL-05: expands every collapsed ancestor of `name`; returns the node. One query finds the
   * ancestor chain (queries.js ancestorChain), one more loads the children of all ancestors not
   * loaded yet (PERF-G6). Both must stay index lookups; the children are ordered by
   * (up_node, node_order), which the (step, rank, data_source, up_node, node_order) index gives
   * as is (ordered by node_order alone, SQLite walked the whole side in node_order instead).
   * @param {string} name
   */
  async reveal(name) {
    if (this.nodes.has(name)) {
      const n = /** @type {GNode} */ (this.nodes.get(name));
      for (let a = n.parent; a; a = a.parent) a.expanded = true;
      return n;
    }
    const chain = await ancestorChain(this.engine, this.scope, name);
    if (!chain.length || chain[chain.length - 1] !== name) return null;
    const ancestors = chain.slice(0, -1);
    const missing = ancestors.filter((a) => { const n = this.nodes.get(a); return !n || !n.children; });
    if (missing.length) {
      const byParent = await childNodesByParent(this.engine, this.scope, missing);
      // Top-down, so each parent exists before its children are made.
      for (const a of ancestors) {
        const n = this.nodes.get(a);
        if (n && !n.children) n.children = (byParent.get(a) || []).map((row) => this.makeNode(row, n));
      }
    }
    for (const a of ancestors) {
      const n = this.nodes.get(a);
      if (n && !isLeaf(n)) n.expanded = true;
    }
    return this.nodes.get(name) || null;
  }

  keep() {
    const micro = this.opts.micro;
    return (/** @type {GNode} */ c) => micro < 0 || c.micro === micro || !(c.micro >= 0);
  }

  /** @param {GNode} n */
  fill(n) {
    if (this.mode === 'overflow') return themed(overflowFill(n));
    return themed(precisionFill(n, { compare: this.opts.compare, bench: this.opts.side === 'Bench', colors: this.opts.colors }));
  }

  /** @param {GNode} n */
  isMarked(n) { return this.selected === n || this.highlight === n.name; }

  /** GR-06 border and GR-03 text colour. @param {GNode} n */
  style(n) {
    const fill = this.fill(n);
    const marked = this.isMarked(n);
    const badge = n.expanded || isLeaf(n) ? null
      : pillOf(this.badges.get(n.name), { mode: this.mode, compare: this.opts.compare, bench: this.opts.side === 'Bench', colors: this.opts.colors });
    return { fill, stroke: marked ? SELECTED[this.mode === 'overflow' ? 'overflow' : 'precision'] : darken(fill),
             width: marked ? 1.5 : 1, text: textColour(fill), badge };
  }

  /** Lays out the expanded tree and draws (after expand / collapse / reveal / load). */
  render() {
    if (!this.root) return;
    this.laid = layout(this.root, this.keep());
    this.layoutVersion = (this.layoutVersion || 0) + 1;
    this.draw(true, true);
  }

  /** Redraws without a new layout (selection or colour change). */
  restyle() { this.draw(true); }

  /** Colours changed for every node: the minimap image too. */
  recolour() { this.draw(true); }

  /**
   * GR-10: draws the boxes near the window into a layer bigger than the pane, or only moves the
   * layer when it still covers the view (pane_draw.js). `force` redraws now; `animate` fades
   * appearing nodes in (after expand / collapse, not after a pan).
   * @param {boolean} force @param {boolean} [animate]
   */
  draw(force, animate = false) { drawPane(this, force, animate); }

  /** After a zoom, redraw at the new scale once the wheel rests (crisp text, right culling). */
  settleLater() {
    clearTimeout(this.settle);
    this.settle = window.setTimeout(() => this.draw(true), 150);
  }

  /** After precision or links changed (manual matching): repaint the minimap image too. */
  coloursChanged() {
    this.colourVersion = (this.colourVersion || 0) + 1;
    this.draw(true);
  }

  /** GI-06: centre on a node (header at the horizontal centre, ~100 px above the middle). @param {GNode} n @param {boolean} [readable] */
  centre(n, readable = false) {
    // Issue 46: a jump (search, lists, breadcrumb) zooms in to a scale where the node's label reads
    // (after Fit a hit stayed a tiny ellipse), unless the node would then be wider than the pane.
    if (readable && this.t.k < READABLE_K) this.t.k = Math.max(this.t.k, Math.min(READABLE_K, (this.width - 40) / Math.max(1, n.w)));
    this.t.x = this.width / 2 - (n.x + n.w / 2) * this.t.k;
    this.t.y = this.height / 2 - 100 - n.y * this.t.k;
    this.draw(false);
  }

  /** GI-07: the whole laid-out root in the pane with 16 px padding. */
  fit() {
    if (!this.root) return;
    this.laid = layout(this.root, this.keep());
    // Issue 19: the minimap covers the right edge of the pane; the picture fits beside it.
    const w = this.width - (this.minimap.visible ? MINIMAP_W : 0);
    const k = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, Math.min((w - 32) / this.root.w, (this.height - 32) / this.root.h)));
    this.t = { x: (w - this.root.w * k) / 2, y: 16, k };
    this.render();
  }

  reset() {
    this.t = { ...INITIAL };
    this.draw(false);
  }

  /**
   * GR-10: resolves once the running expand / collapse animation (if any) has ended, so that
   * tests and benchmarks can read the settled geometry.
   * @returns {Promise<void>}
   */
  settled() {
    const end = /** @type {import('./render_svg.js').Layer} */ (this.boxes).__animEnd || 0;
    const wait = end - performance.now();
    if (wait <= 0) return Promise.resolve();
    // One more frame after the end: d3 ends its transitions in the frame after their duration.
    return new Promise((r) => setTimeout(() => requestAnimationFrame(() => r()), wait + 20));
  }

  /**
   * Once the view has rested for PREFETCH_REST_MS, loads the children of the collapsed modules on
   * screen, one query at a time, at most PREFETCH_NODES modules and PREFETCH_ROWS children a rest:
   * the first double-click of a module then finds its rows loaded. On a lazily read file the cold
   * query of a 2,000-child module cost 80-130 ms of a 200-250 ms expand; warm it costs 8-13 ms.
   * A draw in between (a pan, an expand) ends the pass; the next rest starts another.
   */
  prefetchLater() {
    clearTimeout(this.prefetchTimer);
    const pass = (this.prefetchPass = (this.prefetchPass || 0) + 1);
    this.prefetchTimer = window.setTimeout(async () => {
      const { x, y, k } = this.t;
      const w = this.width;
      const h = this.height;
      const todo = this.drawn.filter((n) => !isLeaf(n) && !n.expanded && !n.children && !n.loading &&
        x + (n.x + n.w) * k >= 0 && x + n.x * k <= w && y + (n.y + H) * k >= 0 && y + n.y * k <= h);
      let rows = 0;
      for (const n of todo.slice(0, PREFETCH_NODES)) {
        rows += n.subNames.length;
        if (rows > PREFETCH_ROWS || this.destroyed || pass !== this.prefetchPass) return;
        await this.loadChildren(n).catch(() => {});
      }
    }, PREFETCH_REST_MS);
  }

  /** Screen box of a laid-out node relative to the pane (tests and benchmarks). @param {string} name */
  screenBox(name) {
    const n = this.nodes.get(name);
    if (!n || !this.laid.includes(n)) return null;
    const { x, y, k } = this.t;
    return { x: x + n.x * k, y: y + n.y * k, w: (isLeaf(n) ? 50 : n.w) * k, h: 15 * k };
  }

  /** @param {Event} e */
  nodeOf(e) {
    const g = /** @type {Element} */ (e.target).closest('g.node, .overlay');
    if (g) return this.nodes.get(/** @type {HTMLElement} */ (g).dataset.name || '') || null;
    if (this.renderer !== 'canvas') return null;
    const me = /** @type {MouseEvent} */ (e);
    const r = this.host.getBoundingClientRect();
    const { x, y, k } = this.t;
    return hitTest(this.drawn, (me.clientX - r.left - x) / k, (me.clientY - r.top - y) / k);
  }

  /** GI-05: zoom to k about a pane point. @param {number} k @param {number} px @param {number} py */
  zoomTo(k, px, py) {
    k = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, k));
    this.t.x = px - ((px - this.t.x) * k) / this.t.k;
    this.t.y = py - ((py - this.t.y) * k) / this.t.k;
    this.t.k = k;
    this.schedule();
  }

  /** GI-04 keys (A/D move, W/S zoom by 0.2, 0 reset). @param {KeyboardEvent} e @returns {boolean} handled */
  key(e) {
    const key = e.key.toLowerCase();
    if (key === 'a') this.t.x -= 40;
    else if (key === 'd') this.t.x += 40;
    else if (key === 'w' || key === 's') {
      const k = this.t.k + (key === 'w' ? 0.2 : -0.2);
      if (k > ZOOM_MAX + 1e-9 || k < ZOOM_MIN - 1e-9) return true;   // beyond the limits: ignored
      this.zoomTo(k, this.width / 2, this.height / 2);
      return true;
    } else if (key === '0') this.t = { ...INITIAL };
    else return false;
    this.schedule();
    return true;
  }

  /** GI-02..GI-04: pointer, wheel and key events (pane_events.js). */
  wire() { wirePane(this); }

  /** One update per animation frame (GI-04). */
  schedule() {
    if (this.opts.onView && !this.syncing) this.opts.onView(this);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(false); });
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.settle);
    clearTimeout(this.prefetchTimer);
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (this.resizeObserver) this.resizeObserver.disconnect();
  }
}
