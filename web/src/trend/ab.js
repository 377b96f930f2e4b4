// @ts-check
// The A/B comparison of the trend workspace (web-ui BEY-11): the second file's heat-map rows
// aligned with the current file's (compare.js), the views A, B and A − B of one grid (so the axes,
// the zoom and the A/B colour scale are shared), the tooltip lines and the series of a clicked
// cell. The workspace owns the toolbar and the charts and calls in here.
import { alignHeatRows, viewOf, cellValues, seriesOnA, seriesDiff, COMPARE_SPECIALS } from './compare.js';
import { valueText } from './scales.js';
import { cellNames, droppedNote } from './clicks.js';
import { specialText } from './colorbar.js';
import { t } from '../i18n.js';

/** A file without the metric or the statistic has no cells there: shown as "only in A", not as an error. */
const missing = (/** @type {unknown} */ e) => !!e && /** @type {{code?: string}} */ (e).code === 'missing';

/** @typedef {import('./queries.js').TrendQueries} TrendQueries */
/** @typedef {{metric: string, stat: string, dimension: import('./queries.js').Dimension, value: number, tags: string[]}} Selection */

export class AbComparison {
  /** @param {TrendQueries} qa @param {TrendQueries} qb @param {string} nameA @param {string} nameB */
  constructor(qa, qb, nameA, nameB) {
    this.qa = qa;
    this.qb = qb;
    this.nameA = nameA;
    this.nameB = nameB;
    /** @type {import('./compare.js').Aligned|null} */
    this.aligned = null;
    this.note = '';
  }

  /** Q6 on both files, aligned. The Module Name value is A's target id: B's id of the same target is looked up. @param {Selection} s */
  async load(s) {
    const rowsA = await this.qa.heatmapRows(s);
    let valueB = /** @type {number|null} */ (s.value);
    this.note = '';
    if (s.dimension === 'module_name') {
      const key = await this.qa.targetKey(s.value);
      valueB = key ? await this.qb.targetId(key) : null;
    }
    /** @type {import('./queries.js').HeatRow[]} */
    let rowsB = [];
    if (valueB === null) this.note = t('trBNoModule');
    else {
      try {
        rowsB = await this.qb.heatmapRows({ ...s, value: valueB });
      } catch (e) {
        if (!missing(e)) throw e;
        this.note = `B: ${/** @type {Error} */ (e).message}`;
      }
    }
    this.aligned = alignHeatRows(rowsA, rowsB, s.dimension);
    return this.aligned;
  }

  /** Heat-map cube and options of one view. @param {import('./compare.js').View} view */
  view(view) {
    const v = viewOf(/** @type {import('./compare.js').Aligned} */ (this.aligned), view);   // (after load())
    return { cube: v.cube, opts: { specials: [...COMPARE_SPECIALS], domain: v.domain, diverging: v.diverging, detail: (/** @type {number} */ i) => this.lines(i) } };
  }

  /** Tooltip lines of cell i: both values, the difference or why there is none, both ids. @param {number} i */
  lines(i) {
    const al = /** @type {import('./compare.js').Aligned} */ (this.aligned);
    const c = cellValues(al, i);
    const y = al.ys[al.yi[i]];
    const text = (/** @type {number|undefined} */ v) => (v === undefined ? t('trAbsent') : valueText(v));
    const out = [`A (${this.nameA}): ${text(c.a)}`, `B (${this.nameB}): ${text(c.b)}`,
                 `A − B: ${c.kind ? t('trNotCompared', specialText(COMPARE_SPECIALS[c.kind - 1])) : String(c.value)}`];
    if (al.byModule) out.push(t('trTargetIds', y.idA ?? '—', y.idB ?? '—'));
    return out;
  }

  /**
   * Q7 on both files for a clicked cell: A's series, B's on A's x positions, and A − B when asked.
   * Series carry no colour; the caller gives a pair one.
   * @param {Selection} s @param {import('./heatmap.js').CellHit} hit @param {boolean} withDiff
   */
  async series(s, hit, withDiff) {
    const al = /** @type {import('./compare.js').Aligned} */ (this.aligned);
    const y = al.ys[al.yi[hit.index]];
    const cy = { idText: s.dimension === 'module_name' ? String(y.id) : y.label.split('_')[0], name: y.name, vpp: y.vpp, micro: y.micro };
    const names = (/** @type {import('./clicks.js').SideTag} */ tag) => cellNames(this.qa, s.dimension, hit.x, cy, tag);
    const key = `${hit.x}|${y.key}`;
    const q = (/** @type {TrendQueries} */ t, /** @type {number|null} */ yId) =>
      (yId === null ? Promise.resolve(null) : t.trend({ ...s, x: hit.x, yId }).catch((e) => {
        if (missing(e)) return null;
        throw e;
      }));
    const a = await q(this.qa, y.idA);
    const rawB = await q(this.qb, y.idB);
    const b = rawB && seriesOnA(rawB, s.dimension === 'module_name' ? await this.qa.targetIds() : null);
    const out = [];
    if (a) out.push({ key: key + '|A', names: names({ short: 'A', long: `A (${this.nameA})` }), xs: a.xs, values: a.values, labels: a.labels });
    if (b) {
      const dropped = b.dropped;
      out.push({ key: key + '|B', names: names({ short: 'B', long: `B (${this.nameB})`, extra: () => droppedNote(dropped) }),
                 xs: b.xs, values: b.values, labels: b.labels, dash: '6 3' });
    }
    if (withDiff && a && b) {
      const d = seriesDiff(a, b);
      out.push({ key: key + '|A−B', names: names({ short: 'A−B', long: 'A − B' }), xs: d.xs, values: d.values, labels: d.labels, dash: '2 2' });
    }
    return { key, series: out };
  }

  /** The aligned cells as CSV rows: both values and the difference. @param {{x: string, y: string}} axes @param {string} stat */
  csvRows(axes, stat) {
    const al = /** @type {import('./compare.js').Aligned} */ (this.aligned);
    /** @type {unknown[][]} */
    const rows = [[axes.x, `${axes.y} id A`, `${axes.y} id B`, axes.y, `${stat} A`, `${stat} B`, `${stat} A - B`]];
    for (let i = 0; i < al.rows; ++i) {
      const y = al.ys[al.yi[i]];
      const c = cellValues(al, i);
      rows.push([al.xs[al.xi[i]], y.idA, y.idB, al.byModule ? y.name : y.label, c.a, c.b, c.kind ? '' : c.value]);
    }
    return rows;
  }
}
