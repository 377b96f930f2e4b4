// @ts-check
// One graph pane (web-ui §4-§5): loads nodes of one (step, rank, side) on demand, lays out what is
// expanded, draws only the boxes near the visible window (plus their ancestors) with D3 into SVG,
// and handles select / expand / pan / scroll / zoom. Node text is only ever set as text.
import { select } from 'd3-selection';
import { layout, isLeaf, labelOf, H, LW } from './layout.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const WHITE = '#FFFFFF';
const UNMATCHED = '#C7C7C7';
const OVERFLOW = { medium: '#E6F3FE', high: '#8DC5F8', critical: '#1668DC' };

/** Fill darkened by 40 per channel (GR-06). @param {string} hex */
export function darken(hex) {
  const v = parseInt(hex.slice(1), 16);
  const ch = (s) => Math.max(0, ((v >> s) & 255) - 40).toString(16).padStart(2, '0');
  return '#' + ch(16) + ch(8) + ch(0);
}

/**
 * GR-04: precision colour of a node.
 * @param {any} n @param {{compare: boolean, bench: boolean, colors: Array<{colour: string, lo: number, hi: number}>}} ctx
 */
export function precisionFill(n, ctx) {
  if (n.type === 9 || n.type === 8) return WHITE;
  if (ctx.compare && n.link.length === 0) return UNMATCHED;
  if (ctx.bench || !ctx.compare) return WHITE;
  if (n.precision === null || Number.isNaN(n.precision)) return WHITE;
  const v = Math.min(1, Math.max(0, n.precision));
  for (const c of ctx.colors) {
    const last = c.hi >= 1;
    if (v >= c.lo && (v < c.hi || (last && v <= c.hi))) return c.colour;
  }
  return WHITE;
}

export class Pane {
  /**
   * @param {HTMLElement} host @param {import('../engine/client.js').EngineClient} engine
   * @param {{side: 'NPU'|'Bench', step: number, rank: number, compare: boolean, colors: any[], micro: number,
   *          onSelect: (p: Pane, n: any) => void, onToggle: (p: Pane, n: any) => void}} opts
   */
  constructor(host, engine, opts) {
    this.host = host;
    this.engine = engine;
    this.opts = opts;
    this.mode = 'precision';
    /** @type {Map<string, any>} */
    this.nodes = new Map();
    this.root = null;
    this.selected = null;
    this.highlight = null;   // counterpart name from the other pane
    this.t = { x: 36, y: 72, k: 1.8 };
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('class', 'graph-svg');
    this.svg.dataset.side = opts.side;
    this.g = document.createElementNS(SVG_NS, 'g');
    this.svg.append(this.g);
    host.textContent = '';
    host.append(this.svg);
    this.wire();
  }

  async query(sql, params) { return this.engine.query(sql, params); }

  /** @param {any[]} row */
  makeNode(row, parent) {
    const [name, type, sub, precision, overflow, link, micro] = row;
    let subNames = [];
    let links = [];
    try { subNames = sub ? JSON.parse(sub) : []; } catch { subNames = []; }
    try { links = link ? JSON.parse(link) : []; } catch { links = []; }
    const n = { name, type: Number(type), subNames, children: null, expanded: false,
                precision: precision === null ? null : Number(precision), overflow, link: links,
                micro: Number(micro), depth: parent ? parent.depth + 1 : 0, parent, x: 0, y: 0, w: 0, h: 0 };
    this.nodes.set(name, n);
    return n;
  }

  get scope() { return [this.opts.step, this.opts.rank, this.opts.side]; }

  async load() {
    const cols = 'node_name, node_type, sub_nodes, precision_index, overflow_level, matched_node_link, micro_step_id';
    const r = await this.query(`SELECT ${cols} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND up_node = ''`, this.scope);
    if (!r.values.length) throw new Error(`No graph for step ${this.opts.step}, rank ${this.opts.rank} (${this.opts.side}).`);
    this.root = this.makeNode(r.values[0], null);
    await this.expand(this.root);
  }

  /** @param {any} n */
  async loadChildren(n) {
    if (n.children) return;
    const cols = 'node_name, node_type, sub_nodes, precision_index, overflow_level, matched_node_link, micro_step_id';
    const r = await this.query(`SELECT ${cols} FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND up_node = ? ORDER BY node_order`,
                               [...this.scope, n.name]);
    n.children = r.values.map((row) => this.makeNode(row, n));
  }

  /** @param {any} n */
  async expand(n) {
    if (isLeaf(n)) return;
    await this.loadChildren(n);
    n.expanded = true;
  }

  /** GL-04: collapsing forgets the expansion below. @param {any} n */
  collapse(n) {
    if (n === this.root) return;
    n.expanded = false;
    const stack = [...(n.children || [])];
    while (stack.length) {
      const c = stack.pop();
      c.expanded = false;
      if (c.children) stack.push(...c.children);
    }
  }

  /** @param {any} n */
  async toggle(n) {
    if (isLeaf(n) || n === this.root) return;
    if (n.expanded) this.collapse(n); else await this.expand(n);
    this.render();
  }

  /** GL-05: expands every collapsed ancestor of `name`; returns the node. @param {string} name */
  async reveal(name) {
    const chain = [];
    let cur = name;
    for (let guard = 0; cur && guard < 10000; ++guard) {
      chain.push(cur);
      const r = await this.query('SELECT up_node FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?', [...this.scope, cur]);
      if (!r.values.length) return null;
      cur = r.values[0][0];
    }
    chain.reverse();
    for (const nm of chain.slice(0, -1)) {
      const n = this.nodes.get(nm);
      if (n) await this.expand(n);
    }
    return this.nodes.get(name) || null;
  }

  keep() {
    const micro = this.opts.micro;
    return (/** @type {any} */ c) => micro < 0 || c.micro === micro;
  }

  fill(n) {
    if (this.mode === 'overflow') return n.type === 9 || n.type === 8 ? WHITE : OVERFLOW[n.overflow] || WHITE;
    return precisionFill(n, { compare: this.opts.compare, bench: this.opts.side === 'Bench', colors: this.opts.colors });
  }

  /** Lays out and draws the boxes near the visible window (GR-10). */
  render() {
    if (!this.root) return;
    this.laid = layout(this.root, this.keep());
    const { x, y, k } = this.t;
    const height = this.host.clientHeight || 600;
    const top = (-y - height) / k;
    const bottom = (-y + 2 * height) / k;
    const shown = new Set();
    for (const n of this.laid) {
      if (n.y + n.h < top || n.y > bottom) continue;
      for (let a = n; a && !shown.has(a); a = a.parent) shown.add(a);
    }
    const nodes = this.laid.filter((n) => shown.has(n));
    this.g.setAttribute('transform', `translate(${x},${y}) scale(${k})`);
    const sel = select(this.g).selectAll('g.node').data(nodes, (/** @type {any} */ d) => d.name);
    sel.exit().remove();
    const enter = sel.enter().append('g').attr('class', 'node');
    enter.append('title');
    enter.append('rect').attr('class', 'outline');
    enter.append('rect').attr('class', 'header');
    enter.append('ellipse').attr('class', 'leaf');
    enter.append('text');
    const all = enter.merge(/** @type {any} */ (sel));
    const self = this;
    all.attr('data-name', (d) => d.name)
      .each(function (/** @type {any} */ d) {
        const g = /** @type {SVGGElement} */ (this);
        const fill = self.fill(d);
        const selected = self.selected === d || self.highlight === d.name;
        const stroke = selected ? (self.mode === 'overflow' ? '#F3B765' : '#8096F7') : darken(fill);
        const width = selected ? 1.5 : 1;
        const dash = d.type === 9 ? '15,1' : d.type === 8 ? '2,1' : null;
        /** @type {any} */ (g.querySelector('title')).textContent = d.name;
        const leaf = isLeaf(d);
        const outline = /** @type {SVGRectElement} */ (g.querySelector('rect.outline'));
        const header = /** @type {SVGRectElement} */ (g.querySelector('rect.header'));
        const ellipse = /** @type {SVGEllipseElement} */ (g.querySelector('ellipse'));
        const text = /** @type {SVGTextElement} */ (g.querySelector('text'));
        if (leaf) {
          header.setAttribute('display', 'none');
          outline.setAttribute('display', 'none');
          ellipse.removeAttribute('display');
          ellipse.setAttribute('cx', String(d.x + LW / 2)); ellipse.setAttribute('cy', String(d.y + H / 2));
          ellipse.setAttribute('rx', String(LW / 2)); ellipse.setAttribute('ry', String(H / 2));
          ellipse.setAttribute('fill', fill); ellipse.setAttribute('stroke', stroke); ellipse.setAttribute('stroke-width', String(width));
        } else {
          ellipse.setAttribute('display', 'none');
          header.removeAttribute('display');
          for (const r of [header, outline]) {
            r.setAttribute('x', String(d.x)); r.setAttribute('y', String(d.y)); r.setAttribute('rx', '5');
            r.setAttribute('width', String(d.w)); r.setAttribute('stroke', stroke); r.setAttribute('stroke-width', String(width));
            if (dash) r.setAttribute('stroke-dasharray', dash); else r.removeAttribute('stroke-dasharray');
          }
          header.setAttribute('height', String(H));
          header.setAttribute('fill', fill);
          if (d.expanded) { outline.removeAttribute('display'); outline.setAttribute('height', String(d.h)); outline.setAttribute('fill', 'none'); }
          else outline.setAttribute('display', 'none');
        }
        const size = leaf ? 6 : 8;
        const maxChars = Math.max(1, Math.floor((leaf ? LW : d.w) / (size * 0.6)) - 1);
        const label = labelOf(d);
        text.textContent = label.length > maxChars ? label.slice(0, Math.max(1, maxChars - 1)) + '…' : label;
        text.setAttribute('x', String(d.x + (leaf ? LW : d.w) / 2));
        text.setAttribute('y', String(d.y + H / 2));
        text.setAttribute('font-size', String(size));
        text.setAttribute('fill', fill === OVERFLOW.critical ? '#FFFFFF' : '#222222');
      });
    this.drawMinimap();
  }

  /** MM-01/02: every laid-out node at 100 px / root width, and the visible window. */
  drawMinimap() {
    if (!this.minimap) {
      const box = document.createElement('div');
      box.className = 'ws-minimap';
      const canvas = document.createElement('canvas');
      canvas.width = 100;
      canvas.height = 400;
      box.append(canvas);
      this.host.append(box);
      this.minimap = canvas;
      const jump = (/** @type {MouseEvent} */ e) => {
        const r = canvas.getBoundingClientRect();
        const scale = 100 / Math.max(1, this.root.w);
        const wx = (e.clientX - r.left) / scale;
        const wy = (e.clientY - r.top + (this.miniScroll || 0)) / scale;
        const w = this.host.clientWidth || 800;
        const h = this.host.clientHeight || 600;
        this.t.x = w / 2 - wx * this.t.k;
        this.t.y = h / 2 - wy * this.t.k;
        this.schedule();
      };
      let dragging = false;
      canvas.addEventListener('pointerdown', (e) => { dragging = true; canvas.setPointerCapture(e.pointerId); jump(e); });
      canvas.addEventListener('pointermove', (e) => { if (dragging) jump(e); });
      canvas.addEventListener('pointerup', () => { dragging = false; });
      canvas.addEventListener('wheel', (e) => { e.preventDefault(); this.t.y -= Math.sign(e.deltaY) * 40; this.schedule(); }, { passive: false });
    }
    const ctx = this.minimap.getContext('2d');
    if (!ctx || !this.root || !this.laid) return;
    const scale = 100 / Math.max(1, this.root.w);
    const w = this.host.clientWidth || 800;
    const h = this.host.clientHeight || 600;
    const view = { x: -this.t.x / this.t.k * scale, y: -this.t.y / this.t.k * scale, w: w / this.t.k * scale, h: h / this.t.k * scale };
    // Scroll the minimap so the viewport rectangle stays visible when the graph is tall (MM-02).
    const total = this.root.h * scale;
    this.miniScroll = total > 400 ? Math.max(0, Math.min(total - 400, view.y + view.h / 2 - 200)) : 0;
    ctx.clearRect(0, 0, 100, 400);
    ctx.save();
    ctx.translate(0, -this.miniScroll);
    for (const n of this.laid) {
      ctx.fillStyle = this.fill(n);
      ctx.strokeStyle = '#999';
      ctx.lineWidth = 1;
      if (isLeaf(n)) {
        ctx.beginPath();
        ctx.ellipse((n.x + LW / 2) * scale, (n.y + H / 2) * scale, (LW / 2) * scale, (H / 2) * scale, 0, 0, 2 * Math.PI);
        ctx.fill();
        ctx.stroke();
      } else {
        ctx.fillRect(n.x * scale, n.y * scale, n.w * scale, H * scale);
        ctx.strokeRect(n.x * scale, n.y * scale, n.w * scale, H * scale);
        if (n.expanded) { ctx.lineWidth = 0.5; ctx.strokeRect(n.x * scale, n.y * scale, n.w * scale, n.h * scale); }
      }
    }
    ctx.fillStyle = 'rgba(38,143,50,0.24)';
    ctx.strokeStyle = 'rgb(38,143,50)';
    ctx.fillRect(view.x, view.y, view.w, view.h);
    ctx.strokeRect(view.x, view.y, view.w, view.h);
    ctx.restore();
  }

  /** GI-06: centre on a node (header at the horizontal centre, ~100 px above the middle). */
  centre(n) {
    const w = this.host.clientWidth || 800;
    const h = this.host.clientHeight || 600;
    this.t.x = w / 2 - (n.x + n.w / 2) * this.t.k;
    this.t.y = h / 2 - 100 - n.y * this.t.k;
    this.render();
  }

  fit() {
    if (!this.root) return;
    layout(this.root, this.keep());
    const w = this.host.clientWidth || 800;
    const h = this.host.clientHeight || 600;
    const k = Math.max(0.05, Math.min(4, Math.min((w - 32) / this.root.w, (h - 32) / this.root.h)));
    this.t = { x: 16, y: 16, k };
    this.render();
  }

  wire() {
    let drag = null;
    this.svg.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, tx: this.t.x, ty: this.t.y, moved: false, id: e.pointerId };
    });
    this.svg.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) > 2) {
        // Capture only once it is a drag, so clicks keep their node as target.
        drag.moved = true;
        this.svg.setPointerCapture(drag.id);
      }
      if (!drag.moved) return;
      this.t.x = drag.tx + dx;
      this.t.y = drag.ty + dy;
      this.schedule();
    });
    this.svg.addEventListener('pointerup', () => { drag = null; });
    this.svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      if (e.ctrlKey || e.metaKey) {
        const r = this.svg.getBoundingClientRect();
        const px = e.clientX - r.left;
        const py = e.clientY - r.top;
        const k = Math.max(0.05, Math.min(4, this.t.k * (e.deltaY < 0 ? 1.1 : 1 / 1.1)));
        this.t.x = px - ((px - this.t.x) * k) / this.t.k;
        this.t.y = py - ((py - this.t.y) * k) / this.t.k;
        this.t.k = k;
      } else {
        this.t.y -= Math.sign(e.deltaY) * 40;   // GI-04: 40 units per notch
      }
      this.schedule();
    }, { passive: false });
    const nodeOf = (/** @type {Event} */ e) => {
      const g = /** @type {Element} */ (e.target).closest('g.node');
      return g ? this.nodes.get(/** @type {HTMLElement} */ (g).dataset.name) : null;
    };
    this.svg.addEventListener('click', (e) => {
      const n = nodeOf(e);
      if (n) this.opts.onSelect(this, n);
    });
    this.svg.addEventListener('contextmenu', (e) => {
      const n = nodeOf(e);
      if (!n) return;
      e.preventDefault();
      this.opts.onSelect(this, n);
      if (this.opts.onMenu) this.opts.onMenu(this, n, e.clientX, e.clientY);
    });
    this.svg.addEventListener('dblclick', async (e) => {
      e.preventDefault();
      const n = nodeOf(e);
      if (!n) return;
      this.opts.onSelect(this, n);
      if (isLeaf(n) || n === this.root) return;
      await this.toggle(n);
      this.centre(n);
      this.opts.onToggle(this, n);
    });
    this.svg.tabIndex = 0;
    this.svg.addEventListener('keydown', (e) => {
      const key = e.key.toLowerCase();
      if (key === 'a') this.t.x -= 40;
      else if (key === 'd') this.t.x += 40;
      else if (key === 'w' || key === 's') {
        // Zoom by 0.2 about the pane's centre.
        const k = key === 'w' ? Math.min(4, this.t.k + 0.2) : Math.max(0.05, this.t.k - 0.2);
        const cx = (this.host.clientWidth || 800) / 2;
        const cy = (this.host.clientHeight || 600) / 2;
        this.t.x = cx - ((cx - this.t.x) * k) / this.t.k;
        this.t.y = cy - ((cy - this.t.y) * k) / this.t.k;
        this.t.k = k;
      }
      else if (key === '0') this.t = { x: 36, y: 72, k: 1.8 };
      else return;
      this.schedule();
    });
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.render(); });
  }
}
