// @ts-check
// SVG renderer of node boxes (GR-02, GR-03, GR-10): one <g class="node"> per drawn node, keyed
// by name; an update touches only the nodes whose geometry or style changed, so a re-cull after a
// pan costs the entering and leaving nodes, not all of them.
import { select } from 'd3-selection';
import 'd3-transition';
import { isLeaf, H, LW } from './layout.js';
import { fitLabel, markerOf, labelSize } from './render_common.js';
import { pillBox, PILL_H, PILL_FONT } from './badges.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
// GR-10: moved / resized nodes glide over 160 ms, entering nodes fade in over 220 ms (CSS
// animation of g.node.enter), leaving ones fade out over 100 ms; nothing animates when more than
// 2,000 elements change at once or when the user prefers reduced motion.
export const MAX_ANIMATED = 2000;
export const MOVE_MS = 160;
export const ENTER_MS = 220;
export const EXIT_MS = 100;

/** GR-10: the user's reduced-motion preference (read each time: it can change while the page is open). */
export function reducedMotion() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** @typedef {{fill: string, stroke: string, width: number, text: string, badge?: {text: string, fill: string, colour: string, title: string}|null}} BoxStyle */

/** @typedef {import('./layout.js').GNode} GNode */
/** @typedef {{x: number, y: number, w: number, h: number, expanded: boolean}} Geo */
/**
 * A node's element and what this file keeps on it: its painted geometry and signature, whether a
 * glide runs, its problem pill.
 * @typedef {SVGGElement & {__geo?: Geo, __sig?: string, __moving?: boolean, __pill?: SVGGElement|null}} NodeEl
 */
/** The layer: `__animEnd`, when the running animation ends (pane.js waits for it). @typedef {SVGGElement & {__animEnd?: number}} Layer */

/** The painted geometry of a node element. @param {GNode} d @returns {Geo} */
const geoOf = (d) => ({ x: d.x, y: d.y, w: d.w, h: d.h, expanded: !!d.expanded });

/** The zoom of the drawing in progress (drawSvg runs synchronously). */
let labelK = 1;

/**
 * @param {SVGGElement} g  the layer
 * @param {GNode[]} nodes @param {(n: GNode) => BoxStyle} style
 * @param {boolean} [animate]  animate the change (GR-10), unless too many elements change or the
 *   user prefers reduced motion; then `g.__animEnd` is the time (performance.now()) it ends
 * @param {number} [k]  the zoom the labels are fitted for (render_common labelSize)
 * @returns {number} problem badges drawn (BEY-08)
 */
export function drawSvg(g, nodes, style, animate = false, k = 1) {
  let pills = 0;
  labelK = k;
  const leafSize = labelSize(true, k);
  const moduleSize = labelSize(false, k);
  const sel = select(g).selectAll('g.node').data(nodes, (d) => /** @type {GNode} */ (d).name);
  const exit = sel.exit();
  const entering = sel.enter().size();
  if (animate) {
    // Count the elements that change: entering, leaving, moved or resized.
    let changes = entering + exit.size();
    if (changes <= MAX_ANIMATED) {
      sel.each(function (d) {
        const o = /** @type {NodeEl} */ (this).__geo;
        if (o && (o.x !== d.x || o.y !== d.y || o.w !== d.w || o.h !== d.h || o.expanded !== !!d.expanded)) changes += 1;
      });
    }
    animate = changes <= MAX_ANIMATED && !reducedMotion();
  }
  const ga = /** @type {Layer} */ (g);
  if (animate) ga.__animEnd = performance.now() + Math.max(MOVE_MS, ENTER_MS, EXIT_MS);
  if (animate) {
    // Leaving nodes stop being nodes at once (no hit testing, no selector match) and fade out.
    exit.classed('node', false).classed('leaving', true).attr('data-name', null).attr('pointer-events', 'none')
      .transition('exit').duration(EXIT_MS).style('opacity', 0).remove();
  } else {
    exit.remove();
  }
  const enter = sel.enter().append('g').attr('class', animate ? 'node enter' : 'node');
  enter.each(function (d) {
    const gg = /** @type {SVGGElement} */ (this);
    const title = document.createElementNS(SVG_NS, 'title');
    title.textContent = d.name;
    const leaf = isLeaf(d);
    gg.append(title);
    if (leaf) {
      gg.append(document.createElementNS(SVG_NS, 'ellipse'));
    } else {
      const outline = document.createElementNS(SVG_NS, 'rect');
      outline.setAttribute('class', 'outline');
      const header = document.createElementNS(SVG_NS, 'rect');
      header.setAttribute('class', 'header');
      gg.append(outline, header);
    }
    gg.append(document.createElementNS(SVG_NS, 'text'));
    gg.dataset.name = d.name;
    if (leaf) gg.classList.add('leaf');
  });
  enter.merge(/** @type {import('d3-selection').Selection<SVGGElement, GNode, SVGGElement, unknown>} */ (/** @type {unknown} */ (sel))).each(function (d) {
    const gg = /** @type {NodeEl} */ (this);
    const s = style(d);
    const marker = markerOf(d);
    const b = s.badge;
    if (b) pills += 1;
    const size = d.subNames.length === 0 ? leafSize : moduleSize;
    const sig = `${d.x},${d.y},${d.w},${d.h},${d.expanded},${s.fill},${s.stroke},${s.width},${s.text},${marker},${size},${b ? b.text + b.fill + b.title : ''}`;
    if (gg.__sig === sig) return;
    gg.__sig = sig;
    const old = gg.__geo || null;
    gg.__geo = geoOf(d);
    paint(gg, d, s, marker);
    if (old) move(gg, d, old, animate);
  });
  return pills;
}

/**
 * GR-10: a node painted at its new place glides there from the old one (a transform that goes
 * from the old offset to none), and its box grows or shrinks from the old size.
 * @param {NodeEl} gg @param {GNode} d @param {Geo} old @param {boolean} animate
 */
function move(gg, d, old, animate) {
  const node = select(gg);
  // Where the element shows now, if an earlier glide is still running.
  let ox = 0;
  let oy = 0;
  if (gg.__moving) {
    if (gg.hasAttribute('transform')) {
      const m = gg.transform.baseVal.consolidate();
      if (m) { ox = m.matrix.e; oy = m.matrix.f; }
    }
    // Stop the running glides (paint has set the final geometry, which they would overwrite).
    node.interrupt('move');
    node.selectAll('rect').interrupt('size').interrupt('size-h');
    gg.__moving = false;
  }
  const dx = old.x - d.x + ox;
  const dy = old.y - d.y + oy;
  if (!animate || (dx === 0 && dy === 0)) gg.removeAttribute('transform');
  else {
    gg.__moving = true;
    node.attr('transform', `translate(${dx},${dy})`)
      .transition('move').duration(MOVE_MS).attr('transform', 'translate(0,0)')
      .on('end', function () { /** @type {Element} */ (this).removeAttribute('transform'); });
  }
  if (!animate || isLeaf(d) || (old.w === d.w && old.h === d.h && old.expanded === !!d.expanded)) return;
  // The box: header and outline widths, and the outline height when it stays expanded.
  if (old.w !== d.w) {
    gg.__moving = true;
    node.selectAll('rect.header, rect.outline').attr('width', old.w).transition('size').duration(MOVE_MS).attr('width', d.w);
  }
  if (d.expanded && old.expanded && old.h !== d.h) {
    gg.__moving = true;
    node.select('rect.outline').attr('height', old.h).transition('size-h').duration(MOVE_MS).attr('height', d.h);
  }
}

/** @param {SVGGElement} gg @param {GNode} d @param {BoxStyle} s @param {string} marker */
function paint(gg, d, s, marker) {
  const leaf = isLeaf(d);
  const width = String(s.width);
  if (leaf) {
    const e = /** @type {SVGEllipseElement} */ (gg.querySelector('ellipse'));
    e.setAttribute('cx', String(d.x + LW / 2)); e.setAttribute('cy', String(d.y + H / 2));
    e.setAttribute('rx', String(LW / 2)); e.setAttribute('ry', String(H / 2));
    e.setAttribute('fill', s.fill); e.setAttribute('stroke', s.stroke); e.setAttribute('stroke-width', width);
  } else {
    const outline = /** @type {SVGRectElement} */ (gg.querySelector('rect.outline'));
    const header = /** @type {SVGRectElement} */ (gg.querySelector('rect.header'));
    const dash = d.type === 9 ? '15,1' : d.type === 8 ? '2,1' : null;
    for (const r of [header, outline]) {
      r.setAttribute('x', String(d.x)); r.setAttribute('y', String(d.y)); r.setAttribute('rx', '5');
      r.setAttribute('width', String(d.w)); r.setAttribute('stroke', s.stroke); r.setAttribute('stroke-width', width);
      if (dash) r.setAttribute('stroke-dasharray', dash); else r.removeAttribute('stroke-dasharray');
    }
    header.setAttribute('height', String(H));
    header.setAttribute('fill', s.fill);
    if (d.expanded) { outline.removeAttribute('display'); outline.setAttribute('height', String(d.h)); outline.setAttribute('fill', 'none'); }
    else outline.setAttribute('display', 'none');
  }
  const text = /** @type {SVGTextElement} */ (gg.querySelector('text'));
  const size = labelSize(leaf, labelK);
  const boxW = leaf ? LW : d.w;
  text.textContent = fitLabel(d, boxW, size);
  text.setAttribute('x', String(d.x + boxW / 2));
  text.setAttribute('y', String(d.y + H / 2));
  text.setAttribute('font-size', String(size));
  text.setAttribute('fill', s.text);
  // GR-12: communication / merge / manual-match markers at the right end of the header.
  let m = /** @type {SVGTextElement|null} */ (gg.querySelector('text.marker'));
  if (marker) {
    if (!m) { m = document.createElementNS(SVG_NS, 'text'); m.setAttribute('class', 'marker'); gg.append(m); }
    m.textContent = marker;
    m.setAttribute('x', String(d.x + boxW - 2));
    m.setAttribute('y', String(d.y + H / 2));
    m.setAttribute('font-size', '7');
    m.setAttribute('fill', s.text);
  } else if (m) m.remove();
  paintPill(gg, d, s.badge || null);
}

/**
 * BEY-08: the problem pill at the top-right corner of a collapsed node (text set as text).
 * @param {SVGGElement} gg @param {GNode} d @param {{text: string, fill: string, colour: string, title: string}|null} b
 */
function paintPill(gg, d, b) {
  const el = /** @type {NodeEl} */ (gg);
  let p = /** @type {SVGGElement|null} */ (el.__pill || null);
  if (!b) { if (p) { p.remove(); el.__pill = null; } return; }
  if (!p) {
    p = document.createElementNS(SVG_NS, 'g');
    p.setAttribute('class', 'badge');
    p.append(document.createElementNS(SVG_NS, 'title'), document.createElementNS(SVG_NS, 'rect'), document.createElementNS(SVG_NS, 'text'));
    gg.append(p);
    el.__pill = p;
  }
  const box = pillBox(d, b.text);
  /** @type {Element} */ (p.querySelector('title')).textContent = b.title;   // (an SVG title)
  const r = /** @type {SVGRectElement} */ (p.querySelector('rect'));
  r.setAttribute('x', String(box.x)); r.setAttribute('y', String(box.y));
  r.setAttribute('width', String(box.w)); r.setAttribute('height', String(PILL_H)); r.setAttribute('rx', String(PILL_H / 2));
  r.setAttribute('fill', b.fill); r.setAttribute('stroke', '#555'); r.setAttribute('stroke-width', '0.5');
  const t = /** @type {SVGTextElement} */ (p.querySelector('text'));
  t.textContent = b.text;
  t.setAttribute('x', String(box.x + box.w / 2)); t.setAttribute('y', String(box.y + PILL_H / 2));
  t.setAttribute('font-size', String(PILL_FONT)); t.setAttribute('fill', b.colour);
  p.dataset.text = b.text;
}

/**
 * The selection overlay used with the canvas renderer (GR-11): outlines of the selected node and
 * of the counterpart, drawn over the canvas.
 * @param {SVGGElement} g @param {Array<{n: GNode, stroke: string}>} marks
 */
export function drawOverlay(g, marks) {
  g.textContent = '';
  for (const { n, stroke } of marks) {
    const leaf = isLeaf(n);
    const shape = document.createElementNS(SVG_NS, leaf ? 'ellipse' : 'rect');
    if (leaf) {
      shape.setAttribute('cx', String(n.x + LW / 2)); shape.setAttribute('cy', String(n.y + H / 2));
      shape.setAttribute('rx', String(LW / 2)); shape.setAttribute('ry', String(H / 2));
    } else {
      shape.setAttribute('x', String(n.x)); shape.setAttribute('y', String(n.y)); shape.setAttribute('rx', '5');
      shape.setAttribute('width', String(n.w)); shape.setAttribute('height', String(n.expanded ? n.h : H));
    }
    shape.setAttribute('fill', 'none');
    shape.setAttribute('stroke', stroke);
    shape.setAttribute('stroke-width', '1.5');
    shape.setAttribute('class', 'overlay');
    shape.dataset.name = n.name;
    g.append(shape);
  }
}
