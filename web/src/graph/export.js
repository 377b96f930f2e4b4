// @ts-check
// Exports of the graph workspace (BEY-06): the visible window of each pane as SVG or PNG, and the
// detail tables as CSV. The SVG is rebuilt from the drawn nodes, so it works for both renderers.
import { drawSvg } from './render_svg.js';
import { saveBlob as save } from '../host/download.js';
import { toast } from './dom.js';
import { t } from '../i18n.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const MAX_EXPORT_BOXES = 50000;

/** @param {import('./pane.js').Pane} p */
function paneSvg(p) {
  const w = p.width;
  const h = p.height;
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('xmlns', SVG_NS);
  svg.setAttribute('width', String(w));
  svg.setAttribute('height', String(h));
  const style = document.createElementNS(SVG_NS, 'style');
  style.textContent = 'text{dominant-baseline:central;text-anchor:middle;font-family:sans-serif} text.marker{text-anchor:end}';
  const bg = document.createElementNS(SVG_NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', '#ffffff');
  const g = document.createElementNS(SVG_NS, 'g');
  g.setAttribute('transform', `translate(${p.t.x},${p.t.y}) scale(${p.t.k})`);
  const { y, k } = p.t;
  const visible = p.drawn.filter((n) => n.y + n.h >= -y / k && n.y <= (-y + h) / k);
  drawSvg(g, visible, (n) => p.style(n), false, k);
  svg.append(style, bg, g);
  return { svg, w, h, count: visible.length };
}

/** @param {import('./pane.js').Pane[]} panes @param {'svg'|'png'} kind */
export async function exportGraph(panes, kind) {
  for (const p of panes) {
    if (p.host.hidden) continue;
    const { svg, w, h, count } = paneSvg(p);
    if (count > MAX_EXPORT_BOXES) { toast(t('exportTooBig', MAX_EXPORT_BOXES), 'warn'); return; }
    const text = new XMLSerializer().serializeToString(svg);
    const base = `graph_${p.opts.side}_step${p.opts.step}_rank${p.opts.rank}`;
    if (kind === 'svg') { save(new Blob([text], { type: 'image/svg+xml' }), base + '.svg'); continue; }
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    await new Promise((res, rej) => { img.onload = res; img.onerror = rej; img.src = url; });
    const canvas = document.createElement('canvas');
    canvas.width = w * 2;
    canvas.height = h * 2;
    const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    URL.revokeObjectURL(url);
    const blob = await new Promise((res) => canvas.toBlob(res, 'image/png'));
    if (blob) save(/** @type {Blob} */ (blob), base + '.png');
  }
}

/** @param {HTMLElement} detail */
export function exportCsv(detail) {
  const quote = (/** @type {string} */ v) => (/[",\n]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v);
  const lines = [];
  for (const table of detail.querySelectorAll('table')) {
    for (const tr of table.querySelectorAll('tr')) lines.push([...tr.children].map((c) => quote(c.textContent || '')).join(','));
    lines.push('');
  }
  if (lines.length) save(new Blob([lines.join('\n')], { type: 'text/csv' }), 'node_details.csv');
  else toast(t('noData'), 'info');
}
