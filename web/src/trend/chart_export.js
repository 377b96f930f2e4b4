// @ts-check
// What the export buttons of the trend charts save (§10.9, BEY-06): PNG / SVG of the heat map or
// the line chart, CSV of the cells (comparing two files: both values and A − B) or of the series.
import { standaloneSvg, saveSvg, savePng, saveCsv } from './export.js';
import { SPECIAL } from './scales.js';
import { AXES } from './queries.js';
import { el } from './widgets.js';
import { t } from '../i18n.js';

/** PNG / SVG / CSV buttons of a chart pane. @param {'heat'|'line'} which @param {(kind: string) => void} onExport */
export function exportButtons(which, onExport) {
  const box = el('span', undefined, 'tr-exports');
  for (const kind of ['PNG', 'SVG', 'CSV']) {
    const b = el('button', kind);
    b.dataset.i18nTitle = which === 'heat' ? 'trExportHeat' : 'trExportLine';
    b.dataset.i18nTitleArgs = JSON.stringify([kind]);
    b.title = t(b.dataset.i18nTitle, kind);
    b.dataset.testid = `${which}-export-${kind.toLowerCase()}`;
    b.addEventListener('click', () => onExport(kind.toLowerCase()));
    box.append(b);
  }
  return box;
}

/**
 * @param {{state: import('./workspace.js').State, current: string, heat: import('./heatmap.js').Heatmap,
 *          line: import('./linechart.js').LineChart, ab: import('./ab.js').AbComparison|null}} ws
 * @param {'heat'|'line'} which @param {string} kind png | svg | csv
 */
export async function exportChart(ws, which, kind) {
  const s = ws.state;
  const base = `${ws.current.replace(/\.trend\.db$/, '')}_${s.metric}_${s.stat}_${s.dimension}_${s.value}_${which === 'heat' ? 'heatmap' : 'trend'}`;
  if (which === 'heat') {
    const cube = ws.heat.cube;
    if (kind === 'csv' && ws.ab && ws.ab.aligned) {
      saveCsv(`${base}_vs_${ws.ab.nameB.replace(/\.trend\.db$/, '')}.csv`, ws.ab.csvRows(AXES[s.dimension], s.stat));
      return;
    }
    if (kind === 'csv') {
      const axes = AXES[s.dimension];
      /** @type {unknown[][]} */
      const rows = [[axes.x, `${axes.y} id`, axes.y, s.stat]];
      if (cube) for (let i = 0; i < cube.rows; ++i) { const y = cube.ys[cube.yi[i]]; rows.push([cube.xs[cube.xi[i]], y.id, y.label, cube.v[i]]); }
      saveCsv(base + '.csv', rows);
      return;
    }
    const svgNode = /** @type {SVGSVGElement} */ (ws.heat.svg.node());
    if (kind === 'svg') {
      const rects = visibleRects(ws.heat);
      saveSvg(base + '.svg', standaloneSvg(svgNode, { rects: rects.length <= 100000 ? rects : [] }).text);
    } else {
      await savePng(base + '.png', standaloneSvg(svgNode), { canvas: ws.heat.canvas });
    }
    return;
  }
  if (kind === 'csv') { saveCsv(base + '.csv', ws.line.csvRows()); return; }
  const svg = standaloneSvg(/** @type {SVGSVGElement} */ (ws.line.svg.node()),
                            { legend: ws.line.series.filter((x) => x.visible).map((x) => ({ name: x.name, color: x.color })) });
  if (kind === 'svg') saveSvg(base + '.svg', svg.text); else await savePng(base + '.png', svg);
}

/** Visible cells of a heat map as rectangles (SVG export). @param {import('./heatmap.js').Heatmap} heat */
export function visibleRects(heat) {
  /** @type {{x: number, y: number, w: number, h: number, fill: string}[]} */
  const out = [];
  const c = heat.cube;
  if (!c) return out;
  const p = heat.plot;
  const cw = p.w / (heat.wx[1] - heat.wx[0]);
  const ch = p.h / (heat.wy[1] - heat.wy[0]);
  for (let i = 0; i < c.rows; ++i) {
    if (heat.colour[i] < 0) continue;
    const dx = heat.xPos[c.xi[i]] - heat.wx[0];
    const dy = heat.yPos[c.yi[i]] - heat.wy[0];
    if (dx < -1 || dy < -1 || dx >= heat.wx[1] - heat.wx[0] || dy >= heat.wy[1] - heat.wy[0]) continue;
    const f = heat.palette[heat.colour[i]];
    out.push({ x: p.x + dx * cw, y: p.y + dy * ch, w: cw, h: ch, fill: typeof f === 'string' ? f : SPECIAL.null });
  }
  return out;
}

/** A heat map's cells as plain data: value (null for NULL) and special kind (tests). @param {import('./heatmap.js').Heatmap} heat */
export function heatCells(heat) {
  const c = heat.cube;
  const out = [];
  if (c) for (let i = 0; i < c.rows; ++i) {
    const y = c.ys[c.yi[i]];
    out.push({ x: c.xs[c.xi[i]], yId: y.id, label: y.label, name: y.name, v: Number.isNaN(c.v[i]) ? null : c.v[i],
               kind: heat.specials && heat.kindAt(i) ? heat.specials[heat.kindAt(i) - 1].key : '' });
  }
  return out;
}
