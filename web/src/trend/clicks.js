// @ts-check
// The line-chart series of a clicked heat-map cell (trend-analyzer.md §10.4 Click, TR-09/TR-10), for
// one file and for an A/B comparison, and their names. Issue 46: names are made in the current
// language each time it changes (X-01); the legend keeps `<X axis>: <x> / <Y axis>: <id> <short
// name>` (TR-10), its title and the tooltip show the module name, never the internal
// `<id>_<vpp>_<name>_<micro>` key; a step is shown as its iteration, as on the axes.
import { AXES, moduleText } from './queries.js';
import { middleEllipsis } from './scales.js';
import { axisText } from './widgets.js';
import { t } from '../i18n.js';

/** @typedef {import('./heatmap.js').CellHit} CellHit */
/** @typedef {{idText: string, name: string, vpp?: number, micro?: number}} CellY  idText: the id shown in the legend (or the rank) */
/** @typedef {{short: string, long: string, extra?: () => string}} SideTag  A / B / A−B of a comparison; extra: appended to the title */

/**
 * The names of a cell's series, computed on each call.
 * @param {{stepTick: (s: number) => string}} q @param {import('./queries.js').Dimension} dim
 * @param {number} x the clicked x (a rank or a step slot) @param {CellY} y @param {SideTag} [tag]
 * @returns {() => import('./linechart.js').SeriesNames}
 */
export function cellNames(q, dim, x, y, tag) {
  return () => {
    const axes = AXES[dim];
    const xs = `${axisText(axes.x)}: ${axes.x === 'Step' ? q.stepTick(x) : String(x)}`;
    const yName = axisText(axes.y);
    const byModule = dim !== 'module_name';
    const full = byModule ? moduleText(y.name, y.vpp || 0, y.micro || 0) : y.idText;
    const short = byModule ? `${y.idText} ${middleEllipsis(y.name, 28)}` : y.idText;
    const pre = tag ? `${tag.short} · ` : '';
    const extra = tag && tag.extra ? tag.extra() : '';
    return { name: `${pre}${xs} / ${yName}: ${short}`, title: `${tag ? `${tag.long} · ` : ''}${xs} / ${yName}: ${full}${extra}`,
             tip: `${pre}${xs} / ${yName}: ${full}` };
  };
}

/**
 * Q7 of a clicked cell, added as a series unless already shown (§10.4 Click).
 * @param {import('./workspace.js').TrendWorkspace} ws @param {CellHit} c
 */
export async function addCellSeries(ws, c) {
  if (ws.ab) return addPair(ws, c);
  const key = `${c.x}|${c.yId}`;
  if (ws.line.has(key) || ws.pending.has(key)) return;
  const s = ws.state;
  const gen = ws.gen;
  const q = ws.q;
  ws.pending.add(key);
  ws.lineSpin.show(true);
  try {
    const tr = await q.trend({ metric: s.metric, stat: s.stat, dimension: s.dimension, x: c.x, yId: c.yId, tags: ws.tagNames() });
    if (gen !== ws.gen) return;
    const cy = ws.heat.cube ? ws.heat.cube.ys.find((y) => y.id === c.yId) : undefined;
    const y = { idText: String(c.yId), name: cy ? cy.name : String(c.yId), vpp: cy && cy.vpp, micro: cy && cy.micro };
    ws.line.add({ key, names: cellNames(q, s.dimension, c.x, y), xs: tr.xs, values: tr.values, labels: tr.labels, cell: { x: c.x, yId: c.yId } });
  } finally {
    ws.pending.delete(key);
    ws.lineSpin.show(false);
  }
}

/**
 * Comparing: the A and B series of the cell in one colour (B dashed), and A − B in the A − B view.
 * @param {import('./workspace.js').TrendWorkspace} ws @param {CellHit} c
 */
async function addPair(ws, c) {
  const ab = /** @type {import('./ab.js').AbComparison} */ (ws.ab);
  const s = ws.state;
  const gen = ws.gen;
  const y = ab.aligned ? ab.aligned.ys[ab.aligned.yi[c.index]] : null;
  const pending = y ? `${c.x}|${y.key}` : '';
  if (!y || ws.line.has(pending + '|A') || ws.line.has(pending + '|B') || ws.pending.has(pending)) return;
  ws.pending.add(pending);
  ws.lineSpin.show(true);
  try {
    const r = await ab.series({ metric: s.metric, stat: s.stat, dimension: s.dimension, value: Number(s.value), tags: ws.tagNames() },
                              c, s.view === 'diff');
    if (gen !== ws.gen || ws.ab !== ab) return;
    const color = ws.line.takeColor();
    for (const x of r.series) ws.line.add({ ...x, color, cell: { x: c.x, yId: c.yId } });
  } finally {
    ws.pending.delete(pending);
    ws.lineSpin.show(false);
  }
}

/** The dropped-points note of a B series, in the current language. @param {number} n */
export const droppedNote = (n) => (n ? ` ${t('trDropped', n)}` : '');
