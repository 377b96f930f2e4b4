// @ts-check
// The trend workspace (trend-analyzer.md §10, web-ui TR-01..TR-11): the toolbar with its
// cascade (TR-03 with U-3, U-4, U-8 fixed), the heat map above the line chart with splitters and
// spinners, exports, the database dropdown of every opened .trend.db, the A/B comparison with a
// second one (BEY-11, ab.js), and the parallelism chart. Database text is only ever set as text.
import { MessageError, messageOf, pageMessage } from '../engine_text.js';
import { TrendQueries, DIMENSIONS, AXES } from './queries.js';
import { Heatmap } from './heatmap.js';
import { LineChart } from './linechart.js';
import { ParallelView } from './parallel.js';
import { AbComparison } from './ab.js';
import { addCellSeries } from './clicks.js';
import { viewStateOf, applyViewState } from './view_state.js';
import { exportButtons, exportChart } from './chart_export.js';
import { saveBlob } from '../host/download.js';
import { el, field, selectEl, searchableSelect, tagPicker, splitter, spinner, axisText } from './widgets.js';
import { t, onLanguage } from '../i18n.js';
import { onTheme } from '../host/prefs.js';
import { LATER } from '../later.js';
import { testHooks } from './test_hooks.js';

/** X-01: an element or option whose text follows the language. @template {HTMLElement} E @param {E} e @param {string} key @returns {E} */
function keyed(e, key) {
  e.dataset.i18n = key;
  e.textContent = t(key);
  return e;
}

/** @param {string} name  'Step' | 'Rank' | 'Module Name' */
const axisKey = (name) => /** @type {Record<string, string>} */ ({ Step: 'trStep', Rank: 'trRank', 'Module Name': 'trModuleName' })[name] || name;
/** The English name of a dimension ('module_name' -> 'Module Name'). @param {string} dim */
const dimensionName = (dim) => (DIMENSIONS.find((d) => d.value === dim) || { text: dim }).text;

/** @typedef {{metric: string, stat: string, dimension: import('./queries.js').Dimension, value: string, tags: string[], mode: string,
 *             compare: string, view: import('./compare.js').View}} State  compare: run B's file name, '' = none */

export class TrendWorkspace {
  // The controls and charts build() makes (from the constructor).
  /** @type {HTMLSelectElement} */ dbSel = LATER;
  /** @type {HTMLSelectElement} */ metricSel = LATER;
  /** @type {HTMLSelectElement} */ statSel = LATER;
  /** @type {HTMLSelectElement} */ dimSel = LATER;
  /** @type {HTMLSelectElement} */ mode = LATER;
  /** @type {HTMLSelectElement} */ scaleSel = LATER;
  /** @type {HTMLSelectElement} */ cmpSel = LATER;
  /** @type {HTMLSelectElement} */ viewSel = LATER;
  /** @type {ReturnType<typeof searchableSelect>} */ valueSel = LATER;
  /** @type {ReturnType<typeof tagPicker>} */ tagSel = LATER;
  /** @type {HTMLElement} */ info = LATER;
  /** @type {HTMLElement} */ heatTitle = LATER;
  /** @type {Heatmap} */ heat = LATER;
  /** @type {ReturnType<typeof spinner>} */ heatSpin = LATER;
  /** @type {LineChart} */ line = LATER;
  /** @type {ReturnType<typeof spinner>} */ lineSpin = LATER;
  /** @type {ParallelView} */ parallel = LATER;

  /**
   * @param {HTMLElement} host @param {import('../engine/client.js').EngineClient} engine
   * @param {{onError: (failure: unknown) => void, onState?: () => void}} opts  onState: viewState() may have changed (BEY-04)
   */
  constructor(host, engine, opts) {
    this.host = host;
    this.engine = engine;
    this.opts = opts;
    this.q = new TrendQueries(engine);
    /** @type {Map<string, Blob|null>} the opened files (null: opened by URL, nothing to download or keep) */
    this.files = new Map();
    this.current = '';
    /** @type {{name: string, stats: string[]}[]} */
    this.metrics = [];
    /** @type {State} */
    this.state = { metric: '', stat: '', dimension: 'step', value: '', tags: [], mode: 'gradient', compare: '', view: 'diff' };
    /** @type {AbComparison|null} */
    this.ab = null;
    this.gen = 0;
    this.busy = 0;
    this.loads = 0;
    this.timings = { query: 0, build: 0, redraw: 0 };
    /** @type {Set<string>} */
    this.pending = new Set();
    this.build();
    window.__visprobeTrend = testHooks(this);
  }

  build() {
    const h = this.host;
    h.textContent = '';
    const layout = el('div', undefined, 'tr-layout');
    const bar = el('aside', undefined, 'tr-toolbar');
    bar.dataset.testid = 'trend-toolbar';
    this.dbSel = selectEl('tr-db');
    this.dbSel.addEventListener('change', () => this.run(() => this.switchTo(this.dbSel.value)));
    this.metricSel = selectEl('tr-metric');
    this.metricSel.addEventListener('change', () => this.run(() => this.onMetric(this.metricSel.value)));
    this.statSel = selectEl('tr-stat');
    this.statSel.addEventListener('change', () => this.run(() => this.onStat(this.statSel.value)));
    this.dimSel = selectEl('tr-dimension');
    for (const d of DIMENSIONS) this.dimSel.append(keyed(new Option('', d.value), axisKey(d.text)));
    this.dimSel.addEventListener('change', () => this.run(() => this.onDimension(/** @type {import('./queries.js').Dimension} */ (this.dimSel.value))));
    this.valueSel = searchableSelect('tr-value', (v) => this.run(() => this.onValue(v)));
    this.tagSel = tagPicker((list) => this.run(() => this.onTags(list)));
    this.mode = selectEl('tr-mode');
    this.mode.append(keyed(new Option('', 'gradient'), 'trGradient'), keyed(new Option('', 'segmented'), 'trSegmented'));
    this.mode.addEventListener('change', () => this.onMode(this.mode.value));
    this.scaleSel = selectEl('tr-scale');
    this.scaleSel.append(keyed(new Option('', 'linear'), 'trLinear'), keyed(new Option('', 'log'), 'trLog'), keyed(new Option('', 'quantile'), 'trQuantile'));
    this.scaleSel.addEventListener('change', () => this.onScale(this.scaleSel.value));
    const dl = keyed(el('button', undefined, 'tr-download'), 'trDownload');
    dl.dataset.testid = 'trend-download';
    dl.addEventListener('click', () => { const f = this.files.get(this.current); if (f) saveBlob(f, this.current); });
    this.cmpSel = selectEl('tr-compare');
    this.cmpSel.addEventListener('change', () => this.run(() => this.onCompare(this.cmpSel.value)));
    this.viewSel = selectEl('tr-view');
    this.viewSel.append(new Option('A − B', 'diff'), new Option('A', 'a'), new Option('B', 'b'));
    this.viewSel.addEventListener('change', () => this.onView(/** @type {import('./compare.js').View} */ (this.viewSel.value)));
    this.info = el('dl', undefined, 'tr-info');
    const about = el('div', undefined, 'tr-about');
    about.append(keyed(el('h4'), 'trThisFile'), this.info);
    bar.append(field('trDb', 'trDbHelp', this.dbSel), dl, field('trCompare', 'trCompareHelp', this.cmpSel),
               field('trView', 'trViewHelp', this.viewSel), field('trMetric', 'trMetricHelp', this.metricSel),
               field('trStat', 'trStatHelp', this.statSel), field('trDimension', 'trDimensionHelp', this.dimSel),
               field('trValue', 'trValueHelp', this.valueSel.box), field('trTags', 'trTagsHelp', this.tagSel.box),
               field('trMode', 'trModeHelp', this.mode), field('trScale', 'trScaleHelp', this.scaleSel), about);
    const charts = el('div', undefined, 'tr-charts');
    const tabs = el('div', undefined, 'tr-tabs');
    const tabTrend = keyed(el('button', undefined, 'tr-tab active'), 'trTabTrend');
    const tabPar = keyed(el('button', undefined, 'tr-tab'), 'trTabParallel');
    tabPar.dataset.testid = 'tab-parallel';
    tabs.append(tabTrend, tabPar);
    const stack = el('div', undefined, 'tr-stack');
    const heatPane = el('section', undefined, 'tr-pane tr-heat-pane');
    const heatHead = el('div', undefined, 'tr-pane-head');
    this.heatTitle = el('span', t('trHeatMap'), 'tr-pane-title');
    heatHead.append(this.heatTitle, exportButtons('heat', (k) => exportChart(this, 'heat', k).catch((e) => this.opts.onError(e))));
    heatPane.append(heatHead);
    this.heat = new Heatmap(heatPane, { onClick: (c) => this.run(() => this.addSeries(c)), onRange: () => this.notify(),
                                        onScale: (kind) => this.onScale(kind) });
    // The flat-scale hint in the pane's header line (between the title and the exports): it covers no cell.
    heatHead.insertBefore(this.heat.flat, heatHead.lastChild);
    this.heatSpin = spinner(heatPane);
    const linePane = el('section', undefined, 'tr-pane tr-line-pane');
    const lineHead = el('div', undefined, 'tr-pane-head');
    const lineTools = el('span', undefined, 'tr-pane-tools');
    lineHead.append(keyed(el('span', undefined, 'tr-pane-title'), 'trTrend'), lineTools);
    linePane.append(lineHead);
    this.line = new LineChart(linePane, lineTools);
    this.line.onChange = () => this.notify();
    lineTools.append(exportButtons('line', (k) => exportChart(this, 'line', k).catch((e) => this.opts.onError(e))));
    this.lineSpin = spinner(linePane);
    const relayout = () => { /* the charts observe their own size */ };
    stack.append(heatPane, splitter(stack, heatPane, 'y', 0.2, 0.9, relayout), linePane);
    const par = el('div', undefined, 'tr-parallel');
    par.hidden = true;
    this.parallel = new ParallelView(par, this.engine);
    tabTrend.addEventListener('click', () => { stack.hidden = false; par.hidden = true; tabTrend.classList.add('active'); tabPar.classList.remove('active'); });
    tabPar.addEventListener('click', () => { stack.hidden = true; par.hidden = false; tabPar.classList.add('active'); tabTrend.classList.remove('active'); });
    charts.append(tabs, stack, par);
    layout.append(bar, splitter(layout, bar, 'x', 0.1, 0.3, relayout), charts);
    h.append(layout);
    onLanguage(() => this.relabel());
    onTheme(() => { this.heat.draw(true); this.line.render(); });   // issue 46: axis texts in the new theme's colours
  }

  /** X-01: the texts drawn from data (heat-map title, axis names, the line chart) in the new language. */
  relabel() {
    this.heatTitle.textContent = this.noMetric ? t('trNoMetric') : this.heatTitleText();
    if (this.names && this.state.dimension) {
      const axes = AXES[this.state.dimension];
      this.names.xName = axisText(axes.x);
      this.names.yName = axisText(axes.y);
      this.heat.draw(true);
    }
    if (this.state.dimension === 'step' && this.valueSel.options.length)   // `Step4 (iter 1, µ1)` in the new language
      this.valueSel.set(this.valueSel.options.map((o) => ({ value: o.value, text: this.q.stepText(Number(o.value)) })), this.valueSel.value);
    if (this.state.stat) this.line.setAxes(this.lineAxes());
    this.line.relabel();   // the legend in the new language (issue 46: it kept the old one)
    this.line.render();
  }

  /** Runs one user action; a failure is shown, stale results are dropped by the generation check. @param {() => Promise<void>} fn */
  async run(fn) {
    this.busy += 1;
    this.host.dataset.state = 'busy';
    try {
      await fn();
    } catch (e) {
      this.opts.onError(new MessageError(pageMessage('TrendViewError', { m: messageOf(e) })));
    } finally {
      this.busy -= 1;
      if (!this.busy) this.host.dataset.state = 'ready';
      this.notify();
    }
  }

  notify() {
    if (this.opts.onState) this.opts.onState();
  }

  /** BEY-04: the deep-link section (view_state.js). */
  viewState() {
    return viewStateOf(this);
  }

  /** BEY-04: restores a viewState() once the database is open (view_state.js). @param {Record<string, string>} v */
  async applyState(v) {
    await applyViewState(this, v);
  }

  /**
   * A .trend.db the engine has just opened: list it and show it (the last opened is current).
   * @param {string} name @param {Blob|null} file  null: opened by URL
   */
  async add(name, file) {
    this.files.set(name, file);
    const first = this.host.hidden;
    this.host.hidden = false;
    if (first) this.host.scrollIntoView({ block: 'start' });
    await this.run(() => this.reset(name));
  }

  /** Lists a file without showing it (a restored session's run B; opened in the worker on first query). @param {string} name @param {Blob} file */
  keep(name, file) {
    this.files.set(name, file);
  }

  /** Another opened file (the worker keeps every opened one; queries name theirs). @param {string} name */
  async switchTo(name) {
    if (!this.files.has(name) || name === this.current) return;
    await this.reset(name);
  }

  /** Queries on one opened file; a restarted engine gets the file again, without making it current. @param {string} name */
  queriesFor(name) {
    return new TrendQueries(this.engine, name, async () => {
      const file = this.files.get(name);
      if (!file) throw new Error(t('trNoLongerOpen', name));
      await this.engine.openDb(name, file, { current: false });   // a Blob: read lazily by the worker
    });
  }

  /** Run B: '' ends the comparison and restores the single view; selections are kept. @param {string} name */
  async onCompare(name) {
    await this.setCompare(name);
    await this.loadValues(true);
  }

  /** Run B without loading the heat map. @param {string} name */
  async setCompare(name) {
    this.ab = null;
    this.state.compare = '';
    if (name && this.files.has(name) && name !== this.current) {
      const qb = this.queriesFor(name);
      await qb.open();
      this.ab = new AbComparison(this.q, qb, this.current, name);
      this.state.compare = name;
    }
    this.cmpSel.value = this.state.compare;
    this.viewSel.disabled = !this.ab;
  }

  /** A, B or A − B of the loaded comparison: no query; categories, zoom and series stay. @param {import('./compare.js').View} view */
  onView(view) {
    this.state.view = view;
    this.viewSel.value = view;
    if (!this.ab || !this.ab.aligned || !this.names) return;
    const v = this.ab.view(view);
    this.heat.setData(v.cube, this.names, { ...v.opts, keepWindow: true });
    this.heatTitle.textContent = this.heatTitleText();
    this.notify();
  }

  /** @param {string} kind */
  onScale(kind) {
    if (!['linear', 'log', 'quantile'].includes(kind)) return;
    this.scaleSel.value = kind;
    this.heat.setScale(/** @type {'linear'|'log'|'quantile'} */ (kind));   // (checked above)
    this.notify();
  }

  /** Every selection back to its default (§10.2, TR-03), then the start-up sequence of §10.3. @param {string} name */
  async reset(name) {
    const gen = ++this.gen;
    this.current = name;
    this.q = this.queriesFor(name);
    this.ab = null;
    this.dbSel.replaceChildren(...[...this.files.keys()].sort().map((n) => new Option(n, n)));
    this.dbSel.value = name;
    this.cmpSel.replaceChildren(keyed(new Option('', ''), 'trNone'), ...[...this.files.keys()].sort().filter((n) => n !== name).map((n) => new Option(n, n)));
    this.cmpSel.value = '';
    this.cmpSel.disabled = this.files.size < 2;
    this.viewSel.value = 'diff';
    this.viewSel.disabled = true;
    this.line.clear();
    await this.q.open();
    const [metrics, info, shape] = await Promise.all([this.q.catalogue(), this.q.info(), this.q.runShape().catch(() => null)]);
    if (gen !== this.gen) return;
    if (shape) this.parallel.setRun(shape);   // issue 46: the parallelism form starts from this run
    this.metrics = metrics;
    this.info.replaceChildren();
    for (const [k, v] of info) {
      const dd = el('dd', v);
      dd.dataset.testid = 'trend-' + k.replace(/\W+/g, '-');
      this.info.append(el('dt', k), dd);
    }
    this.metricSel.replaceChildren(...metrics.map((m) => new Option(m.name, m.name)));
    this.mode.value = 'gradient';
    this.heat.mode = 'gradient';
    this.scaleSel.value = 'linear';
    this.heat.scaleKind = 'linear';
    this.state = { metric: '', stat: '', dimension: 'step', value: '', tags: [], mode: 'gradient', compare: '', view: 'diff' };
    this.dimSel.value = 'step';
    this.noMetric = !metrics.length;
    if (!metrics.length) {
      this.tagSel.set([], []);
      this.valueSel.set([], '');
      this.statSel.replaceChildren();
      this.heatTitle.textContent = t('trNoMetric');
      return;
    }
    await this.onMetric(metrics[0].name);
  }

  /** Metric: stat := first, tags cleared and reloaded for this metric (U-3), values refetched, first value. @param {string} metric */
  async onMetric(metric) {
    if (await this.setMetric(metric)) await this.loadValues(false);
  }

  /** The metric's statistics and tags, without loading values; false when a newer action overtook it. @param {string} metric */
  async setMetric(metric) {
    const m = this.metrics.find((x) => x.name === metric);
    this.state.metric = metric;
    this.metricSel.value = metric;
    this.statSel.replaceChildren(...(m ? m.stats : []).map((s) => new Option(s, s)));
    this.state.stat = m && m.stats.length ? m.stats[0] : '';
    this.statSel.value = this.state.stat;
    this.state.tags = [];
    const gen = ++this.gen;
    /** @type {{name: string, category: string}[]} */
    let tags = [];
    try { tags = await this.q.tags(metric); } catch { tags = []; }   // no tag tables: no tags
    if (gen !== this.gen) return false;
    this.tagList = tags;
    this.tagSel.set(tags, []);
    return true;
  }

  /** Statistic: tags cleared, values refetched, first value. @param {string} stat */
  async onStat(stat) {
    this.state.stat = stat;
    this.state.tags = [];
    this.tagSel.set(this.tagList || [], []);
    await this.loadValues(false);
  }

  /** @param {import('./queries.js').Dimension} dim */
  async onDimension(dim) {
    this.state.dimension = dim;
    await this.loadValues(false);
  }

  /** Tags: values refetched with the tag *names* (U-4); the current value kept while valid (U-8). @param {string[]} list */
  async onTags(list) {
    this.state.tags = list;
    await this.loadValues(true);
  }

  /** @param {string} value */
  async onValue(value) {
    this.state.value = value;
    await this.loadHeat();
  }

  /** @param {string} mode */
  onMode(mode) {
    this.state.mode = mode;
    this.heat.setMode(mode);
    this.timings.redraw = this.heat.lastRedrawMs;
    this.notify();
  }

  tagNames() {
    return [...new Set(this.state.tags.map((t) => t.split('::')[0]))];
  }

  /** The Value list of the dimension (Q2 or Q4), then the heat map. @param {boolean} keep */
  async loadValues(keep) {
    const gen = ++this.gen;
    const s = this.state;
    /** @type {{value: string, text: string}[]} */
    let list;
    if (s.dimension === 'module_name') {
      list = (await this.q.modules(s.metric, this.tagNames())).map((m) => ({ value: String(m.id), text: m.label }));
    } else {
      const ext = await this.q.extents();
      if (this.ab) {   // every step / rank of either run
        const b = await this.ab.qb.extents();
        const union = (/** @type {number[]} */ p, /** @type {number[]} */ q) => [...new Set([...p, ...q])].sort((u, v) => u - v);
        ext.steps = union(ext.steps, b.steps);
        ext.ranks = union(ext.ranks, b.ranks);
      }
      list = s.dimension === 'step' ? ext.steps.map((v) => ({ value: String(v), text: this.q.stepText(v) }))
        : ext.ranks.map((v) => ({ value: String(v), text: `Rank${v}` }));
    }
    if (gen !== this.gen) return;
    const value = keep && list.some((o) => o.value === s.value) ? s.value : list.length ? list[0].value : '';
    s.value = value;
    this.valueSel.set(list, value);
    await this.loadHeat();
  }

  /** Q6 for the current selection; every reload clears the line chart (TR-03). */
  async loadHeat() {
    const gen = ++this.gen;
    const s = this.state;
    this.line.clear();
    this.pending.clear();
    const axes = AXES[s.dimension];
    this.line.setAxes(this.lineAxes());
    // Issue 46: ticks and tooltips give a step the same text (its iteration and micro step)
    const q = this.q;
    const xTick = axes.x === 'Step' ? (/** @type {number} */ x) => q.stepTick(x) : (/** @type {number} */ x) => String(x);
    const names = { xName: axisText(axes.x), yName: axisText(axes.y), xText: xTick, xTick, byModule: s.dimension !== 'module_name' };
    this.names = names;
    const empty = { xs: [], ys: [], xi: new Int32Array(0), yi: new Int32Array(0), v: new Float64Array(0), rows: 0 };
    const ab = this.ab;
    if (ab) ab.note = '';
    this.heatTitle.textContent = this.heatTitleText();
    if (s.value === '' || !s.stat) {
      this.heat.setData(empty, names);
      this.loads += 1;
      return;
    }
    this.heatSpin.show(true);
    try {
      const t0 = performance.now();
      let cube;
      /** @type {import('./heatmap.js').HeatOptions} */
      let opts = {};
      try {
        const sel = { metric: s.metric, stat: s.stat, dimension: s.dimension, value: Number(s.value), tags: this.tagNames() };
        if (ab) {
          await ab.load(sel);
          ({ cube, opts } = ab.view(s.view));
        } else {
          cube = await this.q.heatmap(sel);
        }
      } catch (e) {
        if (gen === this.gen) this.heat.setData(empty, names);   // no stale map under an error
        throw e;
      }
      if (gen !== this.gen) return;
      const t1 = performance.now();
      this.heat.mode = s.mode;
      this.heat.setData(cube, names, opts);
      this.heatTitle.textContent = this.heatTitleText();
      this.timings = { query: t1 - t0, build: performance.now() - t1, redraw: this.heat.lastRedrawMs };
      this.loads += 1;
    } finally {
      if (gen === this.gen) this.heatSpin.show(false);
    }
  }

  /** The line chart's axes: x named by the dimension, its steps shown as iterations (issue 46), y by the statistic. */
  lineAxes() {
    const s = this.state;
    const q = this.q;
    /** @type {((x: number) => string)|undefined} */
    const xTick = s.dimension === 'step' ? (x) => q.stepTick(x) : s.dimension === 'rank' ? (x) => String(x) : undefined;
    return { x: axisText(dimensionName(s.dimension)), y: s.stat, xTick };
  }

  heatTitleText() {
    const s = this.state;
    const axes = AXES[s.dimension];
    const what = `${s.metric} / ${s.stat} / ${axisText(axes.x)} × ${axisText(axes.y)}`;
    if (!this.ab) return `${t('trHeatMap')} — ${what}`;
    const view = { a: 'A', b: 'B', diff: 'A − B' }[s.view];
    return `${t('trHeatMap')} — ${view} (A: ${this.current}, B: ${this.ab.nameB}) — ${what}${this.ab.note ? ` — ${this.ab.note}` : ''}`;
  }

  /** Q7 of a clicked cell as a series (clicks.js). @param {import('./heatmap.js').CellHit} c */
  async addSeries(c) {
    await addCellSeries(this, c);
  }

}
