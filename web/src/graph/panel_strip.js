// @ts-check
// One node across all ranks and steps (web-ui BEY-10): a small grid in the detail panel, one row
// per step and one cell per rank, coloured by the node's result there (precision bucket, unmatched
// grey, or overflow level in overflow mode); clicking a cell switches the graph to that step and
// rank with the node selected. One indexed lookup per (step, rank) through index2.
import { el, tel } from './dom.js';
import { bucketFill, OVERFLOW, UNMATCHED, WHITE } from './colours.js';
import { t } from '../i18n.js';
import { nodeAcross } from './queries.js';

/**
 * What the strip uses of the workspace (through the detail panel's DetailDeps): the engine's
 * queries, the file's steps and ranks, whether it compares, its colour table, and the switch to
 * another step and rank with a node selected.
 * @typedef {{engine: Pick<import('../engine/client.js').EngineClient, 'query'>, steps: number[], ranks: number[], compare: boolean,
 *            colors: import('./colours.js').ColourBucket[],
 *            gotoScope: (step: number, rank: number, side: number, name: string) => Promise<void>}} StripDeps
 */

/**
 * @param {StripDeps} deps @param {import('./pane.js').Pane} pane @param {string} name @param {number} sideIndex @param {string} mode
 * @returns {Promise<HTMLElement>}
 */
export async function crossStrip(deps, pane, name, sideIndex, mode) {
  const steps = deps.steps.map(Number).filter(Number.isFinite);
  const ranks = deps.ranks.map(Number).filter(Number.isFinite);
  const byScope = await nodeAcross(deps.engine, steps, ranks, pane.opts.side, name);
  const box = el('div', undefined, 'ws-strip');
  box.dataset.testid = 'strip';
  box.append(tel('span', 'crossStrip', 'ws-strip-title'));
  const grid = el('table', undefined, 'ws-strip-grid');
  const head = el('tr');
  head.append(el('th', ''));
  for (const r of ranks) head.append(el('th', `r${r}`));
  grid.append(head);
  const bench = pane.opts.side === 'Bench';
  for (const s of steps) {
    const tr = el('tr');
    tr.append(el('th', `s${s}`));
    for (const r of ranks) {
      const v = byScope.get(`${s}|${r}`);
      const td = el('td');
      const cell = /** @type {HTMLButtonElement} */ (el('button', undefined, 'ws-strip-cell'));
      cell.dataset.step = String(s);
      cell.dataset.rank = String(r);
      let what;
      if (!v || !v.present) {
        cell.classList.add('absent');
        cell.disabled = true;
        what = t('stripAbsent');
      } else {
        const precision = v.precision;
        let fill;
        if (mode === 'overflow') {
          fill = OVERFLOW[String(v.overflow)] || WHITE;
          what = v.overflow ? t(String(v.overflow)) : '-';
        } else if (deps.compare && v.unmatched) {
          fill = UNMATCHED;
          what = t('unmatched');
        } else {
          fill = bench || !deps.compare ? WHITE : bucketFill(precision, deps.colors);
          what = precision === null ? '-' : `${t('precision')} ${precision}`;
        }
        cell.style.background = fill;
        cell.dataset.fill = fill;
        cell.addEventListener('click', () => deps.gotoScope(s, r, sideIndex, name));
      }
      if (s === pane.opts.step && r === pane.opts.rank) cell.classList.add('current');
      cell.title = t('stripCell', s, r, what);
      cell.setAttribute('aria-label', cell.title);
      td.append(cell);
      tr.append(td);
    }
    grid.append(tr);
  }
  box.append(grid);
  return box;
}
