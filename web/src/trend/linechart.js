// @ts-check
// The line chart (trend-analyzer.md §10.5, U-7, §10.9): one series per clicked cell, D3 SVG.
// Legend entries toggle a series and have their own ✕; Clear removes all. NULL is a gap and
// prints `null`; values beyond ±1e8 are drawn at ±1e8. The x window starts at the x values
// 0-500; wheel zooms and drag pans along x; the x and y sliders apply on release.
import { select } from 'd3-selection';
import { scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { line } from 'd3-shape';
import { bisectLeft } from 'd3-array';
import { tickFormat, valueText, SERIES_COLORS } from './scales.js';
import { el, themeOf, windowSlider } from './widgets.js';
import { t } from '../i18n.js';

const M = { top: 16, right: 40, bottom: 78, left: 96 };
const CLAMP = 1e8;
const clampY = (/** @type {number} */ v) => Math.max(-CLAMP, Math.min(CLAMP, v));

/** @typedef {{name: string, title: string, tip?: string}} SeriesNames  legend name, legend title, tooltip name (default: name) */
/** @typedef {{key: string, name: string, title: string, tip?: string, xs: number[], values: (number|null)[], labels: string[],
 *             color: string, visible: boolean, dash?: string, names?: () => SeriesNames, cell?: {x: number, yId: number}}} Series
 *   dash: stroke-dasharray (the B and A − B lines of a pair); names: the names in the current language (X-01, called
 *   again on a language change); cell: the heat-map cell the series was clicked from (kept with the view state) */
/** @typedef {{x: string, y: string, xTick?: (x: number) => string}} Axes  xTick: tick and tooltip text of an x value (steps: their iteration) */

export class LineChart {
  /** @param {HTMLElement} host @param {HTMLElement} tools where the Clear button goes */
  constructor(host, tools) {
    this.legend = el('div', undefined, 'tr-legend');
    this.legend.dataset.testid = 'line-legend';
    this.body = el('div', undefined, 'tr-line-body');
    this.body.dataset.testid = 'linechart';
    this.svg = select(this.body).append('svg').attr('class', 'tr-line-svg');
    const clipId = `tr-line-clip-${Math.random().toString(36).slice(2)}`;
    this.clip = this.svg.append('defs').append('clipPath').attr('id', clipId).append('rect');
    this.gGrid = this.svg.append('g');
    this.gX = this.svg.append('g').attr('class', 'tr-xaxis');
    this.gY = this.svg.append('g').attr('class', 'tr-yaxis');
    this.gNames = this.svg.append('g');
    this.gSeries = this.svg.append('g').attr('clip-path', `url(#${clipId})`);
    this.guide = this.svg.append('line').attr('stroke', '#999').attr('stroke-dasharray', '3 3').attr('visibility', 'hidden').attr('pointer-events', 'none');
    this.hit = this.svg.append('rect').attr('fill', 'transparent').attr('data-testid', 'line-hit');
    this.sx = windowSlider(this.svg, 'x', (a, b) => { this.xw = [a, b]; this.render(); });
    this.sy = windowSlider(this.svg, 'y', (a, b) => { this.yw = [Math.min(a, b), Math.max(a, b)]; this.render(); });
    this.tip = el('div', undefined, 'tr-tip');
    this.tip.dataset.testid = 'line-tip';
    this.tip.hidden = true;
    // Issue 46: what to do while the chart is empty (the language toggle re-translates it)
    this.hint = el('div', t('trLineHint'), 'tr-empty tr-line-hint');
    this.hint.dataset.i18n = 'trLineHint';
    this.hint.dataset.testid = 'line-hint';
    this.body.append(this.tip, this.hint);
    host.append(this.legend, this.body);
    /** @type {(() => void)|null} the user removed series (✕ or Clear) */
    this.onChange = null;
    const clear = el('button', '⊠ ', 'tr-clear');
    const clearText = el('span', t('clear'));
    clearText.dataset.i18n = 'clear';
    clear.append(clearText);
    clear.title = t('trRemoveAll');
    clear.dataset.i18nTitle = 'trRemoveAll';
    clear.dataset.testid = 'line-clear';
    clear.addEventListener('click', () => { this.clear(); if (this.onChange) this.onChange(); });
    tools.append(clear);
    /** @type {Series[]} */
    this.series = [];
    this.colorNext = 0;
    /** @type {number[]|null} */
    this.xw = null;
    /** @type {number[]|null} */
    this.yw = null;
    /** @type {Axes} */
    this.axes = { x: 'step', y: 'norm' };
    this.wire();
    new ResizeObserver(() => this.render()).observe(this.body);
  }

  /** @param {Axes} axes x named by the dimension, y by the statistic */
  setAxes(axes) { this.axes = axes; }

  /** every series named again in the current language (then render). */
  relabel() {
    for (const s of this.series) if (s.names) Object.assign(s, s.names());
  }

  /** @param {number} x */
  xText(x) { return this.axes.xTick ? this.axes.xTick(x) : tickFormat(x); }

  /** The next series colour (a pair of A and B series shares one). */
  takeColor() { return SERIES_COLORS[this.colorNext++ % SERIES_COLORS.length]; }

  /** Adds a series unless its key is shown already. @param {Omit<Series, 'color'|'visible'|'name'|'title'> & {color?: string, name?: string, title?: string}} s */
  add(s) {
    if (this.series.some((o) => o.key === s.key)) return false;
    this.series.push({ name: '', title: '', ...s, ...(s.names ? s.names() : {}), color: s.color || this.takeColor(), visible: true });
    this.xw = null;
    this.yw = null;
    this.render();
    return true;
  }

  /** @param {string} key */
  has(key) { return this.series.some((o) => o.key === key); }

  /** @param {string} key */
  remove(key) {
    this.series = this.series.filter((s) => s.key !== key);
    this.yw = null;
    this.render();
    if (this.onChange) this.onChange();
  }

  clear() {
    this.series = [];
    this.colorNext = 0;
    this.xw = null;
    this.yw = null;
    this.render();
  }

  /** Data extent of the visible series: x, and y clamped for drawing. */
  extent() {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of this.series) {
      if (!s.visible) continue;
      s.xs.forEach((x, i) => {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        const v = s.values[i];
        if (v === null) return;
        const c = clampY(v);
        if (c < y0) y0 = c;
        if (c > y1) y1 = c;
      });
    }
    return { x0, x1, y0, y1 };
  }

  /** The initial x window: the x values 0-500 within the data (§10.5). */
  defaultX(/** @type {{x0: number, x1: number}} */ e) {
    if (!(e.x1 >= e.x0)) return [0, 1];
    if (e.x1 === e.x0) return [e.x0 - 0.5, e.x1 + 0.5];
    const a = Math.max(e.x0, 0);
    const b = Math.min(e.x1, 500);
    return b > a ? [a, b] : [e.x0, Math.min(e.x1, e.x0 + 500)];
  }

  render() {
    this.renderLegend();
    const w = this.body.clientWidth;
    const h = this.body.clientHeight;
    this.svg.attr('width', w).attr('height', h);
    const p = { x: M.left, y: M.top, w: Math.max(10, w - M.left - M.right), h: Math.max(10, h - M.top - M.bottom) };
    this.plot = p;
    const th = themeOf(this.body);
    const e = this.extent();
    const visible = this.series.filter((s) => s.visible);
    this.hint.hidden = this.series.length > 0;
    this.gSeries.selectAll('*').remove();
    if (!visible.length || !Number.isFinite(e.x0)) {
      for (const g of [this.gGrid, this.gX, this.gY, this.gNames]) g.selectAll('*').remove();
      this.sx.g.attr('display', 'none');
      this.sy.g.attr('display', 'none');
      this.hit.attr('width', 0);
      return;
    }
    this.sx.g.attr('display', null);
    this.sy.g.attr('display', null);
    const xw = this.xw || this.defaultX(e);
    const yFull = Number.isFinite(e.y0) ? (e.y1 > e.y0 ? [e.y0, e.y1] : [e.y0 - 1, e.y1 + 1]) : [0, 1];
    const x = scaleLinear().domain(xw).range([p.x, p.x + p.w]);
    const y = scaleLinear().domain(this.yw || yFull).range([p.y + p.h, p.y]);
    if (!this.yw) y.nice();
    this.scales = { x, y };
    this.clip.attr('x', p.x).attr('y', p.y - 4).attr('width', p.w).attr('height', p.h + 8);
    this.hit.attr('x', p.x).attr('y', p.y).attr('width', p.w).attr('height', p.h);
    const yTicks = y.ticks(Math.max(2, Math.floor(p.h / 30)));
    this.gGrid.selectAll('line').data(yTicks).join('line').attr('x1', p.x).attr('x2', p.x + p.w)
      .attr('y1', (d) => y(d)).attr('y2', (d) => y(d)).attr('stroke', th.grid);
    this.gX.attr('transform', `translate(0,${p.y + p.h})`)
      .call(axisBottom(x).tickValues(x.ticks(Math.max(2, Math.floor(p.w / 70))).filter(Number.isInteger))   // steps, ranks, ids
        .tickFormat((d) => this.xText(Number(d))));   // issue 46: steps as their iteration, like the tooltip
    this.gX.selectAll('text').attr('transform', 'rotate(-45)').attr('text-anchor', 'end').attr('dx', '-0.4em').attr('dy', '0.5em').attr('fill', th.fg);
    this.gY.attr('transform', `translate(${p.x},0)`).call(axisLeft(y).tickValues(yTicks).tickFormat((d) => tickFormat(Number(d))));
    this.gY.selectAll('text').attr('fill', th.fg);
    for (const g of [this.gX, this.gY]) g.selectAll('path,line').attr('stroke', th.muted);
    this.gNames.selectAll('text').data([
      { t: this.axes.x, x: p.x + p.w, y: p.y + p.h + 52, a: 'end' },
      { t: this.axes.y, x: p.x, y: Math.max(10, p.y - 4), a: 'end' }]).join('text')
      .attr('x', (d) => d.x).attr('y', (d) => d.y).attr('text-anchor', (d) => d.a).attr('font-size', 12).attr('fill', th.fg).text((d) => d.t);
    const path = line().defined((d) => d[1] !== null).x((d) => x(d[0])).y((d) => y(clampY(/** @type {number} */ (d[1]))));
    for (const s of visible) {
      const pts = s.xs.map((xv, i) => /** @type {[number, number|null]} */ ([xv, s.values[i]]));
      // (the null points are gaps: `defined` leaves them out)
      this.gSeries.append('path').attr('d', path(/** @type {[number, number][]} */ (pts))).attr('fill', 'none')
        .attr('stroke', s.color).attr('stroke-width', 1.6).attr('stroke-dasharray', s.dash || null).attr('data-testid', 'series-path');
      const inWindow = pts.filter((d) => d[0] >= xw[0] && d[0] <= xw[1]);
      // points where a line cannot show them (neighbours are gaps), or every point when few
      const few = inWindow.length <= 60;
      const marks = pts.filter((d, i) => d[1] !== null && (few || ((i === 0 || pts[i - 1][1] === null) && (i === pts.length - 1 || pts[i + 1][1] === null))));
      this.gSeries.selectAll(null).data(marks).join('circle').attr('r', 2.5).attr('fill', s.color)
        .attr('cx', (d) => x(d[0])).attr('cy', (d) => y(clampY(/** @type {number} */ (d[1]))));
    }
    this.sx.layout(p.x, h - 16, p.x + p.w, h - 6, [Math.min(e.x0, xw[0]), Math.max(e.x1, xw[1])]);
    this.sx.set(xw[0], xw[1]);
    const yd = y.domain();
    const yAll = [Math.min(yFull[0], yd[0]), Math.max(yFull[1], yd[1])];
    this.sy.layout(8, p.y, 18, p.y + p.h, [yAll[1], yAll[0]]);
    this.sy.set(yd[1], yd[0]);
  }

  renderLegend() {
    const frag = document.createDocumentFragment();
    for (const s of this.series) {
      const item = el('span', undefined, 'tr-legend-item' + (s.visible ? '' : ' off'));
      item.dataset.testid = 'series';
      const sw = el('i');
      sw.style.background = s.dash ? `repeating-linear-gradient(90deg, ${s.color} 0 4px, transparent 4px 6px)` : s.color;
      const name = el('button', s.name, 'tr-legend-name');
      name.title = t('trToggleSeries', s.title);
      name.addEventListener('click', () => { s.visible = !s.visible; this.render(); });
      const x = el('button', '✕', 'tr-legend-x');
      x.title = t('trRemoveSeries');
      x.setAttribute('aria-label', t('trRemoveNamed', s.name));
      x.dataset.testid = 'series-remove';
      x.addEventListener('click', () => this.remove(s.key));
      item.append(sw, name, x);
      frag.append(item);
    }
    this.legend.replaceChildren(frag);
  }

  /** Axis tooltip: the nearest x of any visible series, then one row per series. @param {number} mx @param {number} my */
  hover(mx, my) {
    const visible = this.series.filter((s) => s.visible);
    if (!this.scales || !visible.length) { this.tip.hidden = true; this.guide.attr('visibility', 'hidden'); return; }
    const xv = this.scales.x.invert(mx);
    let best = null;
    for (const s of visible) {
      const i = Math.min(s.xs.length - 1, bisectLeft(s.xs, xv));
      for (const j of [i - 1, i]) if (j >= 0 && (best === null || Math.abs(s.xs[j] - xv) < Math.abs(best.x - xv))) best = { x: s.xs[j], label: s.labels[j] };
    }
    if (!best) return;
    const px = this.scales.x(best.x);
    const p = /** @type {{x: number, y: number, w: number, h: number}} */ (this.plot);
    this.guide.attr('visibility', 'visible').attr('x1', px).attr('x2', px).attr('y1', p.y).attr('y2', p.y + p.h);
    // Issue 46: the x value as the axis prints it (a step's iteration), or the point's label (a module name)
    const rows = [el('b', `${this.axes.x}: ${this.axes.xTick ? this.axes.xTick(best.x) : best.label}`)];
    for (const s of visible) {
      const j = s.xs.indexOf(best.x);
      if (j < 0) continue;
      const row = el('div');
      const sw = el('span', undefined, 'tr-swatch');
      sw.style.background = s.color;
      const v = s.values[j];
      row.append(sw, `${s.tip || s.name} `, el('b', v === null ? 'null' : valueText(v)));
      rows.push(row);
    }
    this.tip.replaceChildren(...rows);
    this.tip.hidden = false;
    const W = this.body.clientWidth;
    const H = this.body.clientHeight;
    this.tip.style.left = Math.max(0, Math.min(W - this.tip.offsetWidth - 2, mx + 14)) + 'px';
    this.tip.style.top = Math.max(0, Math.min(H - this.tip.offsetHeight - 2, my - 10)) + 'px';
  }

  wire() {
    const node = /** @type {SVGRectElement} */ (this.hit.node());
    /** @type {{x: number, xw: number[]}|null} */
    let drag = null;
    const local = (/** @type {MouseEvent} */ e) => { const r = this.body.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    const current = () => (this.scales ? /** @type {number[]} */ (this.scales.x.domain()) : [0, 1]);
    node.addEventListener('pointerdown', (e) => { node.setPointerCapture(e.pointerId); drag = { x: e.clientX, xw: current() }; });
    node.addEventListener('pointermove', (e) => {
      const [mx, my] = local(e);
      if (drag && this.plot) {
        const k = (drag.xw[1] - drag.xw[0]) / this.plot.w;
        const by = -(e.clientX - drag.x) * k;
        this.xw = [drag.xw[0] + by, drag.xw[1] + by];
        this.render();
      }
      this.hover(mx, my);
    });
    node.addEventListener('pointerup', () => { drag = null; });
    node.addEventListener('pointerleave', () => { this.tip.hidden = true; this.guide.attr('visibility', 'hidden'); });
    node.addEventListener('wheel', (e) => {
      if (!this.scales || !this.plot) return;
      e.preventDefault();
      const [mx] = local(e);
      const [a, b] = current();
      const f = Math.exp(e.deltaY * 0.0015);
      const at = this.scales.x.invert(mx);
      this.xw = [at - (at - a) * f, at + (b - at) * f];
      this.render();
    }, { passive: false });
  }

  /** Client coordinates of x value xv at mid height (tests hover through it). @param {number} xv */
  pointOf(xv) {
    const r = this.body.getBoundingClientRect();
    const p = /** @type {{x: number, y: number, w: number, h: number}} */ (this.plot);
    return { x: r.left + (this.scales ? this.scales.x(xv) : 0), y: r.top + p.y + p.h / 2 };
  }

  info() {
    return { series: this.series.length, visible: this.series.filter((s) => s.visible).length,
             names: this.series.map((s) => s.name), keys: this.series.map((s) => s.key),
             xw: this.scales ? this.scales.x.domain() : null };
  }

  /** Every series point for CSV export. */
  csvRows() {
    /** @type {unknown[][]} */
    const out = [['series', 'x', 'label', 'value']];
    for (const s of this.series) s.xs.forEach((x, i) => out.push([s.name, x, s.labels[i], s.values[i]]));
    return out;
  }
}
