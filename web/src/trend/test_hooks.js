// @ts-check
// What the tests and benchmarks read and drive of the trend workspace (window.__visprobeTrend):
// its state and idleness, the heat map's and line chart's counts, timings, and the actions a test
// takes without the mouse. Split out of workspace.js, behaviour unchanged.
import { heatCells } from './chart_export.js';

/** @param {import('./workspace.js').TrendWorkspace} ws @returns {Record<string, Function>} */
export function testHooks(ws) {
  return {
    state: () => ({ ...ws.state, db: ws.current, tags: [...ws.state.tags] }),
    idle: () => ws.busy === 0,
    loads: () => ws.loads,
    heat: () => ws.heat.info(),
    line: () => ws.line.info(),
    timings: () => ({ ...ws.timings, redraw: ws.heat.lastRedrawMs }),
    showAll: () => { ws.heat.showAll(); return ws.heat.lastRedrawMs; },
    setMode: (/** @type {string} */ m) => { ws.mode.value = m; ws.onMode(m); return ws.heat.lastRedrawMs; },
    setRange: (/** @type {number} */ lo, /** @type {number} */ hi) => { ws.heat.setRange(lo, hi); return ws.heat.lastRedrawMs; },
    setScale: (/** @type {string} */ k) => { ws.onScale(k); return ws.heat.lastRedrawMs; },
    drawParallel: (/** @type {import('./parallel.js').Layout} */ layout) => ws.parallel.draw(layout),
    cellPoint: (/** @type {number} */ dx, /** @type {number} */ dy) => ws.heat.pointOf(dx, dy),
    linePoint: (/** @type {number} */ x) => ws.line.pointOf(x),
    cells: () => heatCells(ws.heat),
    lineSeries: () => ws.line.series.map((x) => ({ key: x.key, name: x.name, xs: x.xs, values: x.values, color: x.color, dash: x.dash || '' })),
  };
}
