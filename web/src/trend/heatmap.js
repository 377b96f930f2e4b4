// @ts-check
// The heat map (trend-analyzer.md §10.4, §10.7, U-1/U-2/U-5/U-6): cells on a <canvas>, batched by
// colour; axes, legends, sliders and the hover mark in an SVG overlay (D3). Categories are
// windows of a display list: wheel zooms, drag pans, the sliders apply on release, and a
// colour-range filter rebuilds the display list from the remaining cells.
import { select } from 'd3-selection';
import { finiteStats, colourScale, gradientLut, segments, pieceOf, kindOf, valueText, cutLabel, shortNames, SPECIAL,
         clampWindow, symmetric, GRADIENT, DIVERGING } from './scales.js';
import { drawGradientBar, drawPieces, drawSpecials, hatchPattern, specialText } from './colorbar.js';
import { t } from '../i18n.js';
import { el, themeOf, windowSlider } from './widgets.js';
import { moduleText } from './queries.js';
import { LATER } from '../later.js';
import { wireHeatmap } from './heatmap_events.js';

const M = { top: 100, right: 80, bottom: 90, left: 220 };
const LUT = gradientLut(256);
const DIVERGING_LUT = gradientLut(256, DIVERGING);
/** The cell kinds of one file (scales.kindOf): index + 1 = kind. */
const SINGLE_SPECIALS = [{ key: 'null', text: 'no data', fill: null }, { key: 'pos', text: '+inf', fill: SPECIAL.pos },
                         { key: 'neg', text: '-inf', fill: SPECIAL.neg }];

/** @typedef {import('./queries.js').Cube & {kinds?: Uint8Array}} Cube  kinds: 0 = coloured by value, k = specials[k - 1] */
/** @typedef {{x: number, yId: number, yLabel: string, value: number, index: number}} CellHit */
/**
 * @typedef {{specials?: {key: string, text: string, fill: string|null}[], domain?: Float64Array, diverging?: boolean,
 *            keepWindow?: boolean, detail?: (i: number) => string[]}} HeatOptions
 *   specials: the kinds outside the colour scale; domain: the values the scale spans (default the
 *   cells'); diverging: a scale centred on 0; keepWindow: keep the zoom (same categories, another
 *   view); detail: extra tooltip lines of cell i
 */

/** @typedef {{xName: string, yName: string, xText: (x: number) => string, xTick?: (x: number) => string, byModule: boolean}} HeatAxes */
/** @typedef {{key: string, text: string, fill: string|null}} Special */

/** Categories shown at once before the first window is cut to 30 %. */
const FIRST_WINDOW = 64;
/** @param {number} n */
const firstWindow = (n) => Math.max(1, n <= FIRST_WINDOW ? n : Math.max(FIRST_WINDOW, Math.ceil(n * 0.3)));

export class Heatmap {
  // The state of the data shown: set by setData, classify and layout before anything reads it.
  /** @type {HeatAxes} */ axes = LATER;
  /** @type {Special[]} */ specials = LATER;
  /** @type {Float64Array} */ domain = LATER;
  /** @type {boolean} */ diverging = LATER;
  /** @type {((i: number) => string[])|null} */ detail = LATER;
  /** @type {{n: number, min: number, max: number, mean: number, std: number}} */ stats = LATER;
  /** @type {string[]} */ short = LATER;
  /** @type {number[]} [lo, hi] */ range = LATER;
  /** @type {{t: (v: number) => number, inv: (t: number) => number}} */ scale = LATER;
  /** @type {{lo: number, hi: number, color: string, label: string}[]} */ pieces = LATER;
  /** @type {Set<number>} */ hiddenPieces = LATER;
  /** @type {Set<string>} */ hiddenSpecial = LATER;
  /** @type {Record<string, number>} */ counts = LATER;
  /** @type {Int32Array|null} */ grid = LATER;
  /** @type {Map<number, number>} */ gridMap = LATER;
  /** @type {(string|CanvasPattern|null)[]} */ palette = LATER;
  /** @type {Int32Array} colour index per cell (-1: hidden) */ colour = LATER;
  /** @type {Int32Array[]} cells by colour */ buckets = LATER;
  /** @type {number[]} */ xShown = LATER;
  /** @type {Int32Array} */ xPos = LATER;
  /** @type {number[]} */ yShown = LATER;
  /** @type {Int32Array} */ yPos = LATER;
  /** @type {{w: number, h: number}} */ size = LATER;
  /** @type {{x: number, y: number, w: number, h: number}} */ plot = LATER;

  /**
   * @param {HTMLElement} host
   * @param {{onClick: (c: CellHit) => void, onRange?: () => void, onScale?: (kind: 'linear'|'log'|'quantile') => void}} opts
   *   onRange: the user moved the colour range; onScale: the user asked for another colour scale (the flat-scale hint)
   */
  constructor(host, opts) {
    this.opts = opts;
    this.body = el('div', undefined, 'tr-heat-body');
    this.body.dataset.testid = 'heatmap';
    this.canvas = /** @type {HTMLCanvasElement} */ (el('canvas', undefined, 'tr-heat-canvas'));
    this.svg = select(this.body).append('svg').attr('class', 'tr-heat-svg');
    this.gBar = this.svg.append('g');
    this.gSpecial = this.svg.append('g');
    this.gAxes = this.svg.append('g').attr('class', 'tr-axes');
    this.hit = this.svg.append('rect').attr('class', 'tr-hit').attr('fill', 'transparent').attr('data-testid', 'heat-hit');
    this.mark = this.svg.append('rect').attr('class', 'tr-hover').attr('fill', 'none').attr('stroke', '#111')
      .attr('stroke-width', 1.5).attr('pointer-events', 'none').attr('visibility', 'hidden');
    this.sx = windowSlider(this.svg, 'x', (a, b) => { this.wx = [a, b]; this.draw(); });
    this.sy = windowSlider(this.svg, 'y', (a, b) => { this.wy = [a, b]; this.draw(); });
    this.tip = el('div', undefined, 'tr-tip');
    this.tip.dataset.testid = 'heat-tip';
    this.tip.hidden = true;
    this.empty = el('div', '', 'tr-empty');
    this.flat = this.flatHint();
    this.body.prepend(this.canvas);
    this.body.append(this.tip, this.empty);
    host.append(this.body);
    /** @type {Cube|null} */
    this.cube = null;
    this.mode = 'gradient';
    /** @type {'linear'|'log'|'quantile'} */
    this.scaleKind = 'linear';
    this.lastRedrawMs = 0;
    this.drawn = 0;
    this.wx = [0, 1];
    this.wy = [0, 1];
    this.hatch = hatchPattern(/** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d')));
    this.wire();
    new ResizeObserver(() => this.layout()).observe(this.body);
  }

  /**
   * New data: windows back to every category, or the first 30 % of many (unless kept), filters cleared.
   * @param {Cube} cube @param {HeatAxes} axes
   * @param {HeatOptions} [opts]
   */
  setData(cube, axes, opts = {}) {
    this.hover(-1, 0, 0);   // the hovered index means nothing in the new cells
    this.cube = cube;
    this.axes = axes;
    this.specials = opts.specials || SINGLE_SPECIALS;
    this.domain = opts.domain || cube.v;
    this.diverging = !!opts.diverging;
    this.detail = opts.detail || null;
    const st = finiteStats(this.domain);
    this.stats = this.diverging ? symmetric(st) : st;
    this.short = axes.byModule ? shortNames(cube.ys.map((y) => y.name), 34) : cube.ys.map((y) => cutLabel(y.label, 15));
    this.range = [this.stats.min, this.stats.max];
    this.scale = colourScale(this.scaleKind, this.stats, this.domain);
    this.pieces = segments(this.stats.mean, this.stats.std);
    this.hiddenPieces = new Set();
    this.hiddenSpecial = new Set();
    this.counts = Object.fromEntries(this.specials.map((d) => [d.key, 0]));
    for (let i = 0; i < cube.rows; ++i) { const k = this.kindAt(i); if (k) this.counts[this.specials[k - 1].key] += 1; }
    const nx = cube.xs.length;
    const ny = cube.ys.length;
    // cell lookup by category pair: a dense grid while it stays small, else a map
    this.grid = nx * ny <= 4e6 ? new Int32Array(nx * ny).fill(-1) : null;
    this.gridMap = new Map();
    for (let i = 0; i < cube.rows; ++i) {
      const key = cube.xi[i] * ny + cube.yi[i];
      if (this.grid) this.grid[key] = i; else this.gridMap.set(key, i);
    }
    this.empty.textContent = cube.rows ? '' : t('trNoCells');
    this.classify();
    if (opts.keepWindow) {
      this.wx = clampWindow(this.wx, this.xShown.length);
      this.wy = clampWindow(this.wy, this.yShown.length);
    } else {
      // Issue 19: every category while they fit readable cells (the first 30 % hid ranks and the
      // +inf cell of small runs), else the first 30 % and at least FIRST_WINDOW of them.
      this.wx = [0, firstWindow(this.xShown.length)];
      this.wy = [0, firstWindow(this.yShown.length)];
    }
    this.layout();
  }

  /**
   * Issue 46: a linear Gradient scale stretched by a few extreme values (a clipped 1e9, a spike)
   * draws almost every cell in one colour and the map says nothing. A line over the map says so
   * and offers the quantile scale (§10.9), which orders the cells by rank; the user's choice stays.
   */
  flatHint() {
    const box = el('div', undefined, 'tr-flat-hint');
    box.dataset.testid = 'flat-hint';
    box.hidden = true;
    const text = el('span', '', '');
    text.dataset.i18n = 'trFlatScale';
    text.textContent = t('trFlatScale');
    const use = /** @type {HTMLButtonElement} */ (el('button', '', ''));
    use.type = 'button';
    use.dataset.testid = 'flat-hint-quantile';
    use.dataset.i18n = 'trUseQuantile';
    use.textContent = t('trUseQuantile');
    use.addEventListener('click', () => this.opts.onScale && this.opts.onScale('quantile'));
    box.append(text, use);
    return box;
  }

  /**
   * Whether the shown Gradient cells (colour indices 0..255 of the LUT) crowd into one tenth of a
   * linear scale: at least 90 % of them, with 20 cells or more.
   * @param {Int32Array} colour @param {number} base
   */
  flatScale(colour, base) {
    if (this.mode !== 'gradient' || this.scaleKind !== 'linear') return false;
    const tenths = new Int32Array(10);
    let n = 0;
    for (let i = 0; i < colour.length; ++i) {
      const ci = colour[i];
      if (ci < 0 || ci >= base) continue;
      tenths[Math.min(9, Math.floor(ci / 25.6))] += 1;
      n += 1;
    }
    return n >= 20 && Math.max(...tenths) >= 0.9 * n;
  }

  /** Kind of cell i: 0 coloured by value, k > 0 the special this.specials[k - 1]. @param {number} i */
  kindAt(i) {
    const c = /** @type {Cube} */ (this.cube);
    return c.kinds ? c.kinds[i] : kindOf(c.v[i]);
  }

  /** Re-colour only (Gradient / Segmented). @param {string} mode */
  setMode(mode) {
    this.mode = mode;
    if (this.cube) this.timed(() => this.classify());
  }

  /** Gradient colour scale: linear / log / quantile (§10.9). @param {'linear'|'log'|'quantile'} kind */
  setScale(kind) {
    this.scaleKind = kind;
    if (!this.cube) return;
    this.timed(() => {
      this.scale = colourScale(kind, this.stats, this.domain);
      this.classify();
    });
  }

  /** Colour-range filter (Gradient): cells outside [lo, hi] disappear, both axes recomputed (U-5). @param {number} lo @param {number} hi */
  setRange(lo, hi) {
    this.range = [lo, hi];
    this.timed(() => {
      this.classify();
      this.wx = clampWindow(this.wx, this.xShown.length);
      this.wy = clampWindow(this.wy, this.yShown.length);
    });
  }

  /** Runs a state change plus the redraw and records the time it took. @param {() => void} fn */
  timed(fn) {
    const t0 = performance.now();
    fn();
    this.draw(true);
    this.lastRedrawMs = performance.now() - t0;
  }

  /** Colour index per cell, cells bucketed by colour, the shown categories. */
  classify() {
    const c = /** @type {Cube} */ (this.cube);
    const seg = this.mode === 'segmented';
    const main = seg ? this.pieces.map((p) => p.color) : this.diverging ? DIVERGING_LUT : LUT;
    this.palette = [...main, ...this.specials.map((d) => (d.fill === null ? this.hatch : d.fill))];
    const base = main.length;
    const [lo, hi] = this.range;
    const { min, max } = this.stats;
    const t = this.scale.t;
    const filtered = !seg && (lo > min || hi < max);
    const colour = new Int32Array(c.rows);
    const sizes = new Int32Array(this.palette.length);
    for (let i = 0; i < c.rows; ++i) {
      const v = c.v[i];
      const k = this.kindAt(i);
      let ci;
      if (k) ci = this.hiddenSpecial.has(this.specials[k - 1].key) ? -1 : base + k - 1;
      else if (seg) { const p = pieceOf(this.pieces, v); ci = this.hiddenPieces.has(p) ? -1 : p; }
      else if (v < lo || v > hi) ci = -1;
      else ci = Math.round(t(v) * 255);
      colour[i] = ci;
      if (ci >= 0) sizes[ci] += 1;
    }
    this.colour = colour;
    this.flat.hidden = !this.flatScale(colour, base);
    this.buckets = Array.from(sizes, (n) => new Int32Array(n));
    const fill = new Int32Array(this.palette.length);
    for (let i = 0; i < c.rows; ++i) if (colour[i] >= 0) this.buckets[colour[i]][fill[colour[i]]++] = i;
    const usedX = new Uint8Array(c.xs.length);
    const usedY = new Uint8Array(c.ys.length);
    for (let i = 0; i < c.rows; ++i) if (!filtered || colour[i] >= 0) { usedX[c.xi[i]] = 1; usedY[c.yi[i]] = 1; }
    const shown = (/** @type {Uint8Array} */ used) => {
      /** @type {number[]} */
      const list = [];
      used.forEach((u, i) => { if (u) list.push(i); });
      const pos = new Int32Array(used.length).fill(-1);
      list.forEach((cat, d) => { pos[cat] = d; });
      return { list, pos };
    };
    const sx = shown(usedX);
    const sy = shown(usedY);
    this.xShown = sx.list; this.xPos = sx.pos;
    this.yShown = sy.list; this.yPos = sy.pos;
  }

  layout() {
    const w = this.body.clientWidth;
    const h = this.body.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    this.size = { w, h };
    this.canvas.width = Math.max(1, Math.round(w * dpr));
    this.canvas.height = Math.max(1, Math.round(h * dpr));
    this.canvas.style.width = w + 'px';
    this.canvas.style.height = h + 'px';
    this.svg.attr('width', w).attr('height', h);
    this.plot = { x: M.left, y: M.top, w: Math.max(10, w - M.left - M.right), h: Math.max(10, h - M.top - M.bottom) };
    const p = this.plot;
    this.hit.attr('x', p.x).attr('y', p.y).attr('width', p.w).attr('height', p.h);
    this.draw(true);
  }

  /** @param {boolean} [legends] also redraw the colour legends */
  draw(legends) {
    const ctx = /** @type {CanvasRenderingContext2D} */ (this.canvas.getContext('2d'));
    const dpr = window.devicePixelRatio || 1;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.size ? this.size.w : 0, this.size ? this.size.h : 0);
    const c = this.cube;
    if (!c || !this.size) return;
    const th = themeOf(this.body);
    const p = this.plot;
    const [ax, bx] = this.wx;
    const [ay, by] = this.wy;
    const cw = p.w / (bx - ax);
    const ch = p.h / (by - ay);
    const gx = cw > 6 ? 1 : 0;
    const gy = ch > 6 ? 1 : 0;
    const x0 = Math.floor(ax), x1 = Math.ceil(bx), y0 = Math.floor(ay), y1 = Math.ceil(by);
    ctx.save();
    ctx.beginPath();
    ctx.rect(p.x, p.y, p.w, p.h);
    ctx.clip();
    let drawn = 0;
    this.buckets.forEach((cells, ci) => {
      if (!cells.length) return;
      ctx.fillStyle = /** @type {string|CanvasPattern} */ (this.palette[ci]);
      for (let j = 0; j < cells.length; ++j) {
        const i = cells[j];
        const dx = this.xPos[c.xi[i]];
        const dy = this.yPos[c.yi[i]];
        if (dx < x0 || dx >= x1 || dy < y0 || dy >= y1) continue;
        ctx.fillRect(p.x + (dx - ax) * cw + gx / 2, p.y + (dy - ay) * ch + gy / 2, cw - gx, ch - gy);
        ++drawn;
      }
    });
    ctx.restore();
    this.drawn = drawn;
    this.drawAxes(th);
    const h = this.size.h;
    this.sx.layout(p.x, h - 24, p.x + p.w, h - 12, [0, Math.max(1, this.xShown.length)]);
    this.sy.layout(20, p.y, 30, p.y + p.h, [0, Math.max(1, this.yShown.length)]);
    this.sx.set(ax, bx);
    this.sy.set(ay, by);
    if (legends) this.drawLegends(th);
  }

  /** @param {{fg: string, muted: string}} th */
  drawAxes(th) {
    const c = /** @type {Cube} */ (this.cube);
    const p = this.plot;
    const ax = this.axes;
    const [a, b] = this.wx;
    const [ya, yb] = this.wy;
    const cw = p.w / (b - a);
    const ch = p.h / (yb - ya);
    const visible = (/** @type {number[]} */ shown, /** @type {number} */ lo, /** @type {number} */ hi, /** @type {number} */ stepPx, /** @type {number} */ size) => {
      const step = Math.max(1, Math.ceil(stepPx / size));
      const out = [];
      for (let d = Math.max(0, Math.floor(lo)); d < Math.min(shown.length, Math.ceil(hi)); ++d) if (d % step === 0) out.push(d);
      return out;
    };
    const xTicks = visible(this.xShown, a, b, 16, cw).map((d) => ({ d, x: c.xs[this.xShown[d]] }));
    const yTicks = visible(this.yShown, ya, yb, 13, ch).map((d) => ({ d, y: c.ys[this.yShown[d]] }));
    const g = this.gAxes;
    g.selectAll('text.tr-xt').data(xTicks, (t) => /** @type {{d: number}} */ (t).d).join('text').attr('class', 'tr-xt')
      .attr('font-size', 10).attr('fill', th.fg).attr('text-anchor', 'end')
      .attr('transform', (t) => `translate(${p.x + (t.d - a + 0.5) * cw},${p.y + p.h + 8}) rotate(-45)`)
      .text((t) => cutLabel(ax.xTick ? ax.xTick(t.x) : String(t.x), 20));
    const yt = g.selectAll('text.tr-yt').data(yTicks, (t) => /** @type {{d: number}} */ (t).d).join('text').attr('class', 'tr-yt')
      .attr('font-size', 10).attr('fill', th.fg).attr('text-anchor', 'end').attr('dominant-baseline', 'middle')
      .attr('x', p.x - 6).attr('y', (t) => p.y + (t.d - ya + 0.5) * ch)
      .text((t) => this.short[this.yShown[t.d]]);
    yt.selectAll('title').data((t) => [t]).join('title').text((t) => t.y.label);
    g.selectAll('line.tr-frame').data([0]).join('line').attr('class', 'tr-frame')
      .attr('x1', p.x).attr('x2', p.x + p.w).attr('y1', p.y + p.h).attr('y2', p.y + p.h).attr('stroke', th.muted);
    g.selectAll('text.tr-xname').data([ax.xName]).join('text').attr('class', 'tr-xname').attr('font-size', 12)
      .attr('fill', th.fg).attr('text-anchor', 'middle').attr('x', p.x + p.w / 2).attr('y', p.y + p.h + 58).text((t) => t);
    g.selectAll('text.tr-yname').data([ax.yName]).join('text').attr('class', 'tr-yname').attr('font-size', 12)
      .attr('fill', th.fg).attr('text-anchor', 'end').attr('x', p.x - 6).attr('y', p.y - 10).text((t) => t);
  }

  /** @param {{fg: string, muted: string}} th */
  drawLegends(th) {
    const w = this.size ? this.size.w : 0;
    if (this.mode === 'segmented') {
      drawPieces(this.gBar, { width: w, pieces: this.pieces, hidden: this.hiddenPieces, fg: th.fg, onToggle: (k) => {
        if (this.hiddenPieces.has(k)) this.hiddenPieces.delete(k); else this.hiddenPieces.add(k);
        this.timed(() => this.classify());
      } });
    } else {
      drawGradientBar(this.gBar, { width: w, min: this.stats.min, max: this.stats.max, lo: this.range[0], hi: this.range[1],
                                   colors: this.diverging ? DIVERGING : GRADIENT,
                                   muted: th.muted, scale: this.scale, onRange: (lo, hi) => {
                                     this.setRange(lo, hi);
                                     if (this.opts.onRange) this.opts.onRange();
                                   } });
    }
    drawSpecials(this.gSpecial, { width: w, counts: this.counts, hidden: this.hiddenSpecial, fg: th.fg, items: this.specials, onToggle: (k) => {
      if (this.hiddenSpecial.has(k)) this.hiddenSpecial.delete(k); else this.hiddenSpecial.add(k);
      this.timed(() => this.classify());
    } });
  }

  /** The visible cell under a point of the body, or -1. @param {number} mx @param {number} my */
  cellAt(mx, my) {
    const c = this.cube;
    const p = this.plot;
    if (!c || mx < p.x || my < p.y || mx >= p.x + p.w || my >= p.y + p.h) return -1;
    const dx = Math.floor(this.wx[0] + ((mx - p.x) / p.w) * (this.wx[1] - this.wx[0]));
    const dy = Math.floor(this.wy[0] + ((my - p.y) / p.h) * (this.wy[1] - this.wy[0]));
    if (dx < 0 || dy < 0 || dx >= this.xShown.length || dy >= this.yShown.length) return -1;
    const key = this.xShown[dx] * c.ys.length + this.yShown[dy];
    const i = this.grid ? this.grid[key] : (this.gridMap.get(key) ?? -1);
    return i >= 0 && this.colour[i] >= 0 ? i : -1;
  }

  /** @param {number} i @param {number} mx @param {number} my */
  hover(i, mx, my) {
    if (i < 0) { this.tip.hidden = true; this.mark.attr('visibility', 'hidden'); return; }
    const c = /** @type {Cube} */ (this.cube);
    const ax = this.axes;
    const p = this.plot;
    const cw = p.w / (this.wx[1] - this.wx[0]);
    const ch = p.h / (this.wy[1] - this.wy[0]);
    const dx = this.xPos[c.xi[i]];
    const dy = this.yPos[c.yi[i]];
    this.mark.attr('visibility', 'visible').attr('x', p.x + (dx - this.wx[0]) * cw).attr('y', p.y + (dy - this.wy[0]) * ch)
      .attr('width', cw).attr('height', ch);
    // Built from text nodes only: names come from user files (§10.4: the tooltip is escaped).
    const y = c.ys[c.yi[i]];
    const swatch = el('span', undefined, 'tr-swatch');
    const fill = this.palette[this.colour[i]];
    swatch.style.background = typeof fill === 'string' ? fill : '#ddd';
    const value = el('div', t('trValueLabel'));
    const k = this.kindAt(i);
    value.append(swatch, c.kinds && k && Number.isNaN(c.v[i]) ? specialText(this.specials[k - 1]) : valueText(c.v[i]));
    // Issue 46: the module name (never the internal `<id>_<vpp>_<name>_<micro>` key), the step as on the axis
    const yText = ax.byModule ? moduleText(y.name, y.vpp || 0, y.micro || 0) : y.label;
    this.tip.replaceChildren(el('b', `${ax.yName}: ${yText}`), el('div', `${ax.xName}: ${ax.xText(c.xs[c.xi[i]])}`), value,
                             ...(this.detail ? this.detail(i).map((t) => el('div', t)) : []));
    this.tip.hidden = false;
    const tw = this.tip.offsetWidth;
    const tht = this.tip.offsetHeight;
    const W = this.body.clientWidth;
    const H = this.body.clientHeight;
    this.tip.style.left = Math.max(0, Math.min(W - tw - 2, mx + 14)) + 'px';
    this.tip.style.top = Math.max(0, Math.min(H - tht - 2, my + 14)) + 'px';
  }

  /** The pointer on the plot: hover, drag to pan, wheel to zoom, click (heatmap_events.js). */
  wire() { wireHeatmap(this); }

  /** What a click on cell i reports. @param {number} i @returns {CellHit} */
  hitOf(i) {
    const c = /** @type {Cube} */ (this.cube);
    const y = c.ys[c.yi[i]];
    return { x: c.xs[c.xi[i]], yId: y.id, yLabel: y.label, value: c.v[i], index: i };
  }

  /** The cell at category values (x, y id), shown or not, as a click reports it; null if absent (a restored series). @param {number} x @param {number} yId */
  hitAt(x, yId) {
    const c = this.cube;
    if (!c) return null;
    const xi = c.xs.indexOf(x);
    const yi = c.ys.findIndex((y) => y.id === yId);
    if (xi < 0 || yi < 0) return null;
    const key = xi * c.ys.length + yi;
    const i = this.grid ? this.grid[key] : (this.gridMap.get(key) ?? -1);
    return i >= 0 ? this.hitOf(i) : null;
  }

  /** Shows every category (the timing benchmark's worst case). */
  showAll() {
    this.wx = [0, Math.max(1, this.xShown.length)];
    this.wy = [0, Math.max(1, this.yShown.length)];
    this.timed(() => {});
  }

  /** Client coordinates of the centre of display cell (dx, dy) (tests click through it). @param {number} dx @param {number} dy */
  pointOf(dx, dy) {
    const r = this.body.getBoundingClientRect();
    const p = this.plot;
    return { x: r.left + p.x + ((dx + 0.5 - this.wx[0]) / (this.wx[1] - this.wx[0])) * p.w,
             y: r.top + p.y + ((dy + 0.5 - this.wy[0]) / (this.wy[1] - this.wy[0])) * p.h };
  }

  /** Counts for the tests and the benchmark. */
  info() {
    return { cells: this.cube ? this.cube.rows : 0, drawn: this.drawn, x: this.xShown ? this.xShown.length : 0,
             y: this.yShown ? this.yShown.length : 0, lastRedrawMs: this.lastRedrawMs, mode: this.mode,
             pieces: this.pieces ? this.pieces.map((p) => p.label) : [], range: this.range, stats: this.stats,
             wx: this.wx, wy: this.wy, yIds: this.yShown ? this.yShown.map((k) => /** @type {Cube} */ (this.cube).ys[k].id) : [],
             xValues: this.xShown ? this.xShown.map((k) => /** @type {Cube} */ (this.cube).xs[k]) : [],
             shown: this.colour ? this.colour.reduce((n, ci) => n + (ci >= 0 ? 1 : 0), 0) : 0 };
  }
}
