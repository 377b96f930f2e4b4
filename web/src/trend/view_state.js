// @ts-check
// BEY-04 for the trend workspace: its section of the URL fragment (which session.js keeps across a
// reload) and the restore of it. Issue 46: the clicked cells of the line chart and the colour range
// are kept too. Values come from a URL: each is checked against what the file offers; an invalid one
// keeps its default.
import { DIMENSIONS } from './queries.js';

/** Cells restored at most (a link is typed by hand, not only written by us). */
const MAX_CELLS = 64;

/** @param {string|undefined} text */
function json(text) {
  try { return JSON.parse(text || 'null'); } catch { return null; }
}

/** The clicked cells behind the line chart's series, in order, each once. @param {import('./linechart.js').Series[]} series */
export function cellsOf(series) {
  /** @type {Map<string, [number, number]>} */
  const out = new Map();
  for (const s of series) if (s.cell) out.set(`${s.cell.x}|${s.cell.yId}`, [s.cell.x, s.cell.yId]);
  return [...out.values()];
}

/**
 * The section: database, selections, heat-map mode, colour scale, comparison, line-chart cells and
 * colour range (when narrowed).
 * @param {import('./workspace.js').TrendWorkspace} ws
 */
export function viewStateOf(ws) {
  const s = ws.state;
  /** @type {Record<string, string>} */
  const v = { db: ws.current, metric: s.metric, stat: s.stat, dimension: s.dimension, value: s.value, mode: s.mode, scale: ws.heat.scaleKind };
  if (s.tags.length) v.tags = JSON.stringify(s.tags);
  if (s.compare) { v.compare = s.compare; v.view = s.view; }
  const cells = cellsOf(ws.line.series);
  if (cells.length) v.cells = JSON.stringify(cells);
  const h = ws.heat;
  if (h.cube && h.stats && Number.isFinite(h.stats.min) && (h.range[0] > h.stats.min || h.range[1] < h.stats.max)) v.range = JSON.stringify(h.range);
  return v;
}

/**
 * Restores a viewState() once the database is open.
 * @param {import('./workspace.js').TrendWorkspace} ws @param {Record<string, string>} v
 */
export async function applyViewState(ws, v) {
  await ws.run(async () => {
    if (v.db && v.db !== ws.current && ws.files.has(v.db)) await ws.reset(v.db);
    const s = ws.state;
    const m = ws.metrics.find((x) => x.name === v.metric);
    if (m && m.name !== s.metric && !(await ws.setMetric(m.name))) return;
    const stats = (ws.metrics.find((x) => x.name === s.metric) || { stats: /** @type {string[]} */ ([]) }).stats;
    if (v.stat && stats.includes(v.stat)) { s.stat = v.stat; ws.statSel.value = v.stat; }
    if (DIMENSIONS.some((d) => d.value === v.dimension)) s.dimension = /** @type {import('./queries.js').Dimension} */ (v.dimension);
    ws.dimSel.value = s.dimension;
    const tags = json(v.tags);
    const known = new Set((ws.tagList || []).map((x) => `${x.name}::${x.category}`));
    s.tags = Array.isArray(tags) ? [...new Set(tags.map(String).filter((x) => known.has(x)))] : [];
    ws.tagSel.set(ws.tagList || [], s.tags);
    if (v.mode === 'gradient' || v.mode === 'segmented') { s.mode = v.mode; ws.mode.value = v.mode; ws.heat.mode = v.mode; }
    if (['linear', 'log', 'quantile'].includes(v.scale)) { ws.scaleSel.value = v.scale; ws.heat.scaleKind = /** @type {'linear'|'log'|'quantile'} */ (v.scale); }
    if (v.view === 'diff' || v.view === 'a' || v.view === 'b') { s.view = v.view; ws.viewSel.value = v.view; }
    if (v.compare) await ws.setCompare(v.compare);
    s.value = v.value || '';
    await ws.loadValues(true);   // the value kept when the list has it, else the first
    await restoreChart(ws, v);
  });
}

/** The colour range and the clicked cells of a restored view (on the heat map just loaded). @param {import('./workspace.js').TrendWorkspace} ws @param {Record<string, string>} v */
async function restoreChart(ws, v) {
  const h = ws.heat;
  if (!h.cube) return;
  const r = json(v.range);
  if (Array.isArray(r) && r.length === 2 && r.every(Number.isFinite) && r[0] <= r[1] && Number.isFinite(h.stats.min)) {
    h.setRange(Math.max(r[0], h.stats.min), Math.min(r[1], h.stats.max));
  }
  const cells = json(v.cells);
  if (!Array.isArray(cells)) return;
  for (const c of cells.slice(0, MAX_CELLS)) {
    if (!Array.isArray(c) || !Number.isFinite(c[0]) || !Number.isFinite(c[1])) continue;
    const hit = h.hitAt(c[0], c[1]);
    if (hit) await ws.addSeries(hit);
  }
}
