// @ts-check
// PNG / SVG of a chart and CSV of its data (§10.9, BEY-06), handed to the user through
// host/download.js. Charts are cloned without their interaction layers (sliders, hover marks).
import { saveBlob } from '../host/download.js';
import { toCsv } from './scales.js';
import { t } from '../i18n.js';

const NS = 'http://www.w3.org/2000/svg';

/**
 * A standalone SVG of a chart: optional cell rectangles under the overlay, optional legend rows
 * (HTML legends are not in the chart's SVG) above it.
 * @param {SVGSVGElement} svg @param {{rects?: {x: number, y: number, w: number, h: number, fill: string}[],
 *   legend?: {name: string, color: string}[], background?: string}} [extra]
 */
export function standaloneSvg(svg, extra = {}) {
  const w = Number(svg.getAttribute('width')) || svg.clientWidth || 800;
  const h0 = Number(svg.getAttribute('height')) || svg.clientHeight || 600;
  const legendH = extra.legend && extra.legend.length ? 24 : 0;
  const out = document.createElementNS(NS, 'svg');
  out.setAttribute('xmlns', NS);
  out.setAttribute('width', String(w));
  out.setAttribute('height', String(h0 + legendH));
  out.setAttribute('font-family', 'system-ui, sans-serif');
  const bg = document.createElementNS(NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', extra.background || '#fff');
  out.append(bg);
  if (legendH) {
    let x = 8;
    for (const l of /** @type {{name: string, color: string}[]} */ (extra.legend)) {
      const r = document.createElementNS(NS, 'rect');
      Object.entries({ x, y: 7, width: 12, height: 10, fill: l.color }).forEach(([k, v]) => r.setAttribute(k, String(v)));
      const t = document.createElementNS(NS, 'text');
      Object.entries({ x: x + 16, y: 16, 'font-size': 11 }).forEach(([k, v]) => t.setAttribute(k, String(v)));
      t.textContent = l.name;
      out.append(r, t);
      x += 28 + l.name.length * 6.2;
    }
  }
  const body = document.createElementNS(NS, 'g');
  body.setAttribute('transform', `translate(0,${legendH})`);
  for (const r of extra.rects || []) {
    const e = document.createElementNS(NS, 'rect');
    Object.entries({ x: r.x.toFixed(2), y: r.y.toFixed(2), width: r.w.toFixed(2), height: r.h.toFixed(2), fill: r.fill })
      .forEach(([k, v]) => e.setAttribute(k, v));
    body.append(e);
  }
  const clone = /** @type {SVGSVGElement} */ (svg.cloneNode(true));
  clone.querySelectorAll('.tr-slider, .tr-hover, .tr-hit').forEach((n) => n.remove());
  clone.querySelectorAll('[visibility=hidden]').forEach((n) => n.remove());
  for (const n of [...clone.childNodes]) body.append(n);
  out.append(body);
  return { node: out, width: w, height: h0 + legendH, text: new XMLSerializer().serializeToString(out) };
}

/** @param {string} name @param {string} text */
export function saveSvg(name, text) {
  saveBlob(new Blob([text], { type: 'image/svg+xml' }), name);
}

/**
 * PNG: an optional canvas underneath (the heat-map cells), the SVG on top.
 * @param {string} name @param {{text: string, width: number, height: number}} svg
 * @param {{canvas?: HTMLCanvasElement, top?: number, background?: string}} [opts]
 */
export async function savePng(name, svg, opts = {}) {
  const scale = 2;
  const c = document.createElement('canvas');
  c.width = Math.round(svg.width * scale);
  c.height = Math.round(svg.height * scale);
  const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
  ctx.scale(scale, scale);
  ctx.fillStyle = opts.background || '#fff';
  ctx.fillRect(0, 0, svg.width, svg.height);
  const url = URL.createObjectURL(new Blob([svg.text], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise((res, rej) => { img.onload = res; img.onerror = () => rej(new Error(t('trRasterFailed'))); img.src = url; });
    ctx.drawImage(img, 0, 0, svg.width, svg.height);
    if (opts.canvas) ctx.drawImage(opts.canvas, 0, opts.top || 0, svg.width, svg.height - (opts.top || 0));
  } finally {
    URL.revokeObjectURL(url);
  }
  const blob = await new Promise((res) => c.toBlob(res, 'image/png'));
  if (!blob) throw new Error(t('trPngFailed'));
  saveBlob(/** @type {Blob} */ (blob), name);
}

/** @param {string} name @param {unknown[][]} rows */
export function saveCsv(name, rows) {
  saveBlob(new Blob([toCsv(rows)], { type: 'text/csv' }), name);
}
