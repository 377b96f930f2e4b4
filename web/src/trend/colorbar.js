// @ts-check
// The heat map's colour legends (trend-analyzer.md §10.4, §10.7): the Gradient bar with two
// draggable handles, the Segmented pieces, and the "no data" / ±inf swatches. SVG drawn with D3;
// the caller owns the state and is told about changes.
import { GRADIENT, SPECIAL } from './scales.js';
import { t } from '../i18n.js';

/** the shown name of a cell kind outside the scale (±inf stay symbols). @param {{key: string, text: string}} d */
export function specialText(d) {
  const key = /** @type {Record<string, string>} */ ({ null: 'trNoData', onlyA: 'trOnlyA', onlyB: 'trOnlyB', inf: 'trInfAB' })[d.key];
  return key ? t(key) : d.text;
}

let nextId = 0;

/**
 * Gradient bar: horizontal, centred, 20 px from the top, up to 800 px long, 20 px thick, end
 * labels with 4 decimals; dragging a handle shows the range live, releasing applies it.
 * @param {import('d3-selection').Selection<SVGGElement, unknown, null, undefined>} g
 * @param {{width: number, min: number, max: number, lo: number, hi: number, muted: string, colors?: string[],
 *          scale: {t: (v: number) => number, inv: (t: number) => number}, onRange: (lo: number, hi: number) => void}} o
 */
export function drawGradientBar(g, o) {
  g.selectAll('*').remove();
  if (!Number.isFinite(o.min)) {
    g.append('text').attr('x', o.width / 2).attr('y', 34).attr('text-anchor', 'middle').attr('fill', o.muted)
      .attr('font-size', 12).text(t('trNoFinite'));
    return;
  }
  const len = Math.max(120, Math.min(800, o.width - 260));
  const x0 = (o.width - len) / 2;
  const top = 20;
  const id = `tr-grad-${++nextId}`;
  const grad = g.append('defs').append('linearGradient').attr('id', id);
  const colors = o.colors || GRADIENT;
  colors.forEach((c, i) => grad.append('stop').attr('offset', `${(i / (colors.length - 1)) * 100}%`).attr('stop-color', c));
  // positions follow the colour scale (linear, log or quantile), so a handle sits on its colour
  const px = (/** @type {number} */ v) => (v >= o.max ? x0 + len : v <= o.min ? x0 : x0 + o.scale.t(v) * len);
  const val = (/** @type {number} */ p) => (p >= x0 + len ? o.max : p <= x0 ? o.min : o.scale.inv((p - x0) / len));
  const bar = g.append('g').attr('class', 'tr-colorbar').attr('data-testid', 'colorbar')
    .attr('data-min', o.min).attr('data-max', o.max).attr('data-lo', o.lo).attr('data-hi', o.hi);
  bar.append('rect').attr('x', x0).attr('y', top).attr('width', len).attr('height', 20).attr('fill', `url(#${id})`);
  const greyL = bar.append('rect').attr('y', top).attr('height', 20).attr('fill', '#bbb').attr('fill-opacity', 0.9);
  const greyR = bar.append('rect').attr('y', top).attr('height', 20).attr('fill', '#bbb').attr('fill-opacity', 0.9);
  bar.append('text').attr('x', x0 - 6).attr('y', top + 14).attr('text-anchor', 'end').attr('fill', '#666').attr('font-size', 12).text(o.min.toFixed(4));
  bar.append('text').attr('x', x0 + len + 6).attr('y', top + 14).attr('fill', '#666').attr('font-size', 12).text(o.max.toFixed(4));
  const loText = bar.append('text').attr('y', top + 34).attr('text-anchor', 'middle').attr('fill', '#666').attr('font-size', 10);
  const hiText = bar.append('text').attr('y', top + 34).attr('text-anchor', 'middle').attr('fill', '#666').attr('font-size', 10);
  const range = { lo: o.lo, hi: o.hi };
  /** @type {{attr: (name: string, value: number) => unknown}[]} the two handles' selections */
  const handles = [];
  const paint = () => {
    const a = px(range.lo);
    const b = px(range.hi);
    greyL.attr('x', x0).attr('width', Math.max(0, a - x0));
    greyR.attr('x', b).attr('width', Math.max(0, x0 + len - b));
    handles[0].attr('x', a - 4);
    handles[1].attr('x', b - 4);
    const filtered = range.lo > o.min || range.hi < o.max;
    loText.attr('x', a).text(filtered ? range.lo.toFixed(4) : '');
    hiText.attr('x', b).text(filtered ? range.hi.toFixed(4) : '');
  };
  for (const which of ['lo', 'hi']) {
    const h = bar.append('rect').attr('class', 'tr-handle').attr('data-testid', `colorbar-${which}`)
      .attr('y', top - 4).attr('width', 8).attr('height', 28).attr('rx', 2)
      .attr('fill', '#fff').attr('stroke', '#333');
    const node = /** @type {SVGRectElement} */ (h.node());
    node.addEventListener('pointerdown', (e) => {
      e.stopPropagation();
      node.setPointerCapture(e.pointerId);
      const origin = node.ownerSVGElement ? node.ownerSVGElement.getBoundingClientRect().left : 0;
      const move = (/** @type {PointerEvent} */ ev) => {
        const v = Math.min(o.max, Math.max(o.min, val(ev.clientX - origin)));
        if (which === 'lo') range.lo = Math.min(v, range.hi); else range.hi = Math.max(v, range.lo);
        paint();
      };
      const up = () => {
        node.removeEventListener('pointermove', move);
        node.removeEventListener('pointerup', up);
        o.onRange(range.lo, range.hi);
      };
      node.addEventListener('pointermove', move);
      node.addEventListener('pointerup', up);
    });
    handles.push(h);
  }
  paint();
}

/**
 * Segmented pieces as a centred row (font 10 px); clicking one toggles its cells.
 * @param {import('d3-selection').Selection<SVGGElement, unknown, null, undefined>} g
 * @param {{width: number, pieces: {label: string, color: string}[], hidden: Set<number>, fg: string,
 *          onToggle: (k: number) => void}} o
 */
export function drawPieces(g, o) {
  g.selectAll('*').remove();
  const widths = o.pieces.map((p) => 22 + p.label.length * 5.6 + 12);
  let x = Math.max(4, (o.width - widths.reduce((a, b) => a + b, 0)) / 2);
  o.pieces.forEach((p, k) => {
    const off = o.hidden.has(k);
    const item = g.append('g').attr('class', 'tr-piece' + (off ? ' off' : '')).attr('data-testid', 'piece')
      .attr('data-index', k).attr('transform', `translate(${x},20)`).style('cursor', 'pointer');
    item.append('rect').attr('width', 16).attr('height', 12).attr('rx', 2).attr('fill', off ? '#ccc' : p.color);
    item.append('text').attr('x', 20).attr('y', 10).attr('font-size', 10).attr('fill', off ? '#aaa' : o.fg).text(p.label);
    item.on('click', () => o.onToggle(k));
    x += widths[k];
  });
}

/**
 * Swatches for cells outside every scale: NULL (hatched), +inf and -inf (and, comparing two files,
 * one-side-only and not-comparable cells), with counts; clicking one hides / shows those cells.
 * Drawn only for kinds present.
 * @param {import('d3-selection').Selection<SVGGElement, unknown, null, undefined>} g
 * @param {{width: number, counts: Record<string, number>, hidden: Set<string>, fg: string,
 *          items?: {key: string, text: string, fill: string|null}[], onToggle: (kind: string) => void}} o
 */
export function drawSpecials(g, o) {
  g.selectAll('*').remove();
  const defs = o.items || [{ key: 'null', text: 'no data', fill: null }, { key: 'pos', text: '+inf', fill: SPECIAL.pos },
                           { key: 'neg', text: '-inf', fill: SPECIAL.neg }];
  const items = defs.filter((d) => o.counts[d.key] > 0);
  const id = `tr-hatch-${++nextId}`;
  const pat = g.append('defs').append('pattern').attr('id', id).attr('width', 6).attr('height', 6)
    .attr('patternUnits', 'userSpaceOnUse').attr('patternTransform', 'rotate(45)');
  pat.append('rect').attr('width', 6).attr('height', 6).attr('fill', '#eee');
  pat.append('line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', 6).attr('stroke', '#aaa').attr('stroke-width', 2);
  const label = (/** @type {{key: string, text: string}} */ d) => `${specialText(d)} (${o.counts[d.key]})`;
  const widths = items.map((d) => Math.max(100, 30 + label(d).length * 5.8));
  let x = Math.max(4, o.width - 80 - widths.reduce((p, q) => p + q, 0));
  items.forEach((d, k) => {
    const { key: kind, fill } = d;
    const off = o.hidden.has(kind);
    const item = g.append('g').attr('class', 'tr-special' + (off ? ' off' : '')).attr('data-testid', `special-${kind}`)
      .attr('transform', `translate(${x},66)`).style('cursor', 'pointer');
    item.append('rect').attr('width', 16).attr('height', 12).attr('stroke', '#999')
      .attr('fill', fill === null ? `url(#${id})` : fill).attr('opacity', off ? 0.3 : 1);
    item.append('text').attr('x', 20).attr('y', 10).attr('font-size', 10).attr('fill', off ? '#aaa' : o.fg)
      .text(label(d));
    item.on('click', () => o.onToggle(kind));
    x += widths[k];
  });
}

/** The canvas "no data" hatch (grey diagonal), the twin of the SVG pattern above. @param {CanvasRenderingContext2D} ctx */
export function hatchPattern(ctx) {
  const c = document.createElement('canvas');
  c.width = c.height = 6;
  const x = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
  x.fillStyle = '#eeeeee';
  x.fillRect(0, 0, 6, 6);
  x.strokeStyle = '#a8a8a8';
  x.beginPath();
  x.moveTo(0, 6); x.lineTo(6, 0);
  x.stroke();
  return ctx.createPattern(c, 'repeat');
}
