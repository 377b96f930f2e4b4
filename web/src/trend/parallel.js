// @ts-check
// The Megatron TP / PP / VPP / DP chart (trend-analyzer.md §11): a form, the engine's layout
// (Module.parallelLayout through the worker, §11.7), drawn with D3 as §11.5 says: one row per TP
// group with row 0 at the bottom, one column per virtual pipeline stage, cells coloured by model
// copy with their layer texts, tick labels, title and the "Model Copies" legend.
import { select } from 'd3-selection';
import { el, field } from './widgets.js';
import { standaloneSvg, saveSvg, savePng } from './export.js';
import { t, onLanguage } from '../i18n.js';
import { onTheme } from '../host/prefs.js';
import { engineText, messageOf } from '../engine_text.js';

/**
 * @typedef {{world_size: number, num_layers: number, tp: number, pp: number, vpp: number, dp: number, order: string,
 *   standalone_embedding_stage: boolean, title: string, colors: string[],
 *   rows: {index: number, label: string, ranks: number[], model_copy: number, cells: string[]}[]}} Layout
 * `colors`: the colour of each model copy (§11.5), chosen by the engine (core/trend/parallel_layout.cc
 * ModelCopyColor): the page draws with them and keeps no palette of its own.
 */

/**
 * The engine's plot_model_parallelism arguments (§11.1; PARALLEL_LAYOUT). undefined: not given.
 * @typedef {{world_size: number|undefined, num_layers: number|undefined, tensor_parallel_size: number,
 *   pipeline_parallel_size: number, order: string, standalone_embedding_stage: boolean,
 *   num_layers_per_virtual_pipeline_stage?: number}} ParallelConfig
 */

/** [argument, label key, help key, default] (X-01: keys of i18n.js) */
const FIELDS = [
  ['world_size', 'parWorldSize', 'parWorldSizeHelp', '8'],
  ['num_layers', 'parLayers', 'parLayersHelp', '24'],
  ['tensor_parallel_size', 'parTp', 'parTpHelp', '2'],
  ['pipeline_parallel_size', 'parPp', 'parPpHelp', '2'],
  ['num_layers_per_virtual_pipeline_stage', 'parVirtual', 'parVirtualHelp', ''],
];

/**
 * X-01 (issue 46): the engine's English title and row labels in the page's language. The engine
 * keeps msProbe's text; the page translates the two forms it writes and leaves any other text.
 * @param {string} text
 */
export function layoutText(text) {
  const title = /^Model Parallelism Configuration \| Total Layers: (\d+) \| DP=(\d+) \| TP=(\d+) \| PP=(\d+) \| VPP=(\d+)$/.exec(text);
  if (title) return t('parTitle', ...title.slice(1));
  const group = /^Group(\d+): Ranks(\d+)-(\d+)$/.exec(text);
  return group ? t('parGroup', ...group.slice(1)) : text;
}

/** Width of a 14 px title: about 7.6 px a Latin character, 14 px a CJK one. @param {string} text */
const titleWidth = (text) => [...text].reduce((w, ch) => w + (/[\u3000-\u9fff\uff00-\uffef]/.test(ch) ? 14 : 7.6), 0);

export class ParallelView {
  /** @param {HTMLElement} host @param {{parallelLayout: (args: ParallelConfig) => Promise<Layout>}} engine */
  constructor(host, engine) {
    this.engine = engine;
    const form = el('form', undefined, 'tr-par-form');
    form.dataset.testid = 'parallel-form';
    /** @type {Record<string, HTMLInputElement>} */
    this.inputs = {};
    for (const [key, label, help, value] of FIELDS) {
      const i = /** @type {HTMLInputElement} */ (el('input'));
      i.type = 'number';
      i.min = '1';
      i.step = '1';
      i.id = `par-${key}`;
      i.value = value;
      this.inputs[key] = i;
      form.append(field(label, help, i));
    }
    const order = /** @type {HTMLInputElement} */ (el('input'));
    order.id = 'par-order';
    order.value = 'tp-cp-ep-dp-pp';
    this.inputs.order = order;
    form.append(field('parOrder', 'parOrderHelp', order));
    const sa = /** @type {HTMLInputElement} */ (el('input'));
    sa.type = 'checkbox';
    sa.id = 'par-standalone';
    this.inputs.standalone = sa;
    form.append(field('parStandalone', 'parStandaloneHelp', sa));
    const draw = el('button', t('parDraw'), 'primary');
    draw.dataset.i18n = 'parDraw';
    draw.dataset.testid = 'parallel-draw';
    const svgBtn = el('button', 'SVG');
    const pngBtn = el('button', 'PNG');
    svgBtn.type = pngBtn.type = 'button';
    svgBtn.title = pngBtn.title = t('parExport');
    svgBtn.dataset.i18nTitle = pngBtn.dataset.i18nTitle = 'parExport';
    svgBtn.addEventListener('click', () => this.export('svg'));
    pngBtn.addEventListener('click', () => this.export('png'));
    const bar = el('div', undefined, 'tr-par-buttons');
    bar.append(draw, svgBtn, pngBtn);
    form.append(bar);
    this.msg = el('div', '', 'tr-par-msg');
    this.msg.dataset.testid = 'parallel-msg';
    this.chart = el('div', undefined, 'tr-par-chart');
    this.chart.dataset.testid = 'parallel-chart';
    host.append(form, this.msg, this.chart);
    form.addEventListener('submit', (e) => { e.preventDefault(); this.run(); });
    /** @type {Layout|null} */
    this.layout = null;
    // The chart follows the theme (until its host leaves the page).
    const redraw = () => { if (!host.isConnected) return; if (this.layout) this.draw(this.layout); };
    onTheme(redraw);
    onLanguage(redraw);   // stage, axis and legend texts in the new language
  }

  /**
   * Issue 46: the form starts from the loaded run (the defaults were 8 devices and 24 layers
   * whatever was open): world size = its ranks, layers = its layer count, TP and PP 2 where they
   * divide them, else 1; no virtual pipeline. The user edits from there.
   * @param {{ranks: number, layers: number}} run
   */
  setRun(run) {
    const i = this.inputs;
    if (run.ranks > 0) i.world_size.value = String(run.ranks);
    if (run.layers > 0) i.num_layers.value = String(run.layers);
    const ws = Number(i.world_size.value);
    const tp = ws % 2 === 0 ? 2 : 1;
    const pp = (ws / tp) % 2 === 0 && Number(i.num_layers.value) % 2 === 0 ? 2 : 1;
    i.tensor_parallel_size.value = String(tp);
    i.pipeline_parallel_size.value = String(pp);
    i.num_layers_per_virtual_pipeline_stage.value = '';
  }

  args() {
    const num = (/** @type {string} */ k) => (this.inputs[k].value.trim() === '' ? undefined : Number(this.inputs[k].value));
    /** @type {ParallelConfig} */
    const a = { world_size: num('world_size'), num_layers: num('num_layers'), tensor_parallel_size: num('tensor_parallel_size') ?? 1,
                pipeline_parallel_size: num('pipeline_parallel_size') ?? 1, order: this.inputs.order.value.trim() || 'tp-cp-ep-dp-pp',
                standalone_embedding_stage: this.inputs.standalone.checked };
    const v = num('num_layers_per_virtual_pipeline_stage');
    if (v !== undefined) a.num_layers_per_virtual_pipeline_stage = v;
    return a;
  }

  async run() {
    this.msg.textContent = '';
    this.msg.className = 'tr-par-msg';
    try {
      this.draw(await this.engine.parallelLayout(this.args()));
    } catch (e) {
      // Issue 19: an invalid setting leaves no chart of the previous one behind.
      this.layout = null;
      this.chart.textContent = '';
      this.msg.textContent = engineText(messageOf(e));
      this.msg.className = 'tr-par-msg bad';
    }
  }

  /** Draws a layout (§11.7 JSON). @param {Layout} L */
  draw(L) {
    this.layout = L;
    const n = L.rows.length;
    const m = Math.max(1, L.vpp);
    const cells = n * m;
    if (cells > 20000) this.msg.textContent = t('parTooLarge', cells);
    else if (cells > 5000) this.msg.textContent = t('parLarge', cells);
    const cw = Math.max(70, Math.min(130, 900 / m));
    const rh = n > 60 ? 16 : n > 24 ? 22 : 30;
    const M = { top: 44, right: 190, bottom: 56, left: 170 };
    const pw = cw * m;
    const ph = rh * n;
    const legendH = 36 + L.dp * 16;
    // Issue 19: wide enough for the title (14 px text, about 7.6 px a character), which is centred
    // on the chart (it was centred on the cells and cut at 8 x 24).
    const title = layoutText(L.title);
    const W = Math.max(M.left + pw + M.right, Math.ceil(titleWidth(title)) + 40);
    // The page's theme (the chart was white in the dark theme).
    const dark = document.documentElement.dataset.theme === 'dark';
    const ink = dark ? '#e6e6e6' : '#222';
    const H = Math.max(M.top + ph + M.bottom, M.top + legendH);
    const svg = select(this.chart).selectAll('svg').data([0]).join('svg').attr('width', W).attr('height', H)
      .attr('font-family', 'system-ui, sans-serif').attr('data-testid', 'parallel-svg').attr('fill', ink);
    svg.selectAll('*').remove();
    svg.append('rect').attr('class', 'tr-par-bg').attr('width', W).attr('height', H).attr('fill', dark ? '#1a1a1a' : '#fff');
    const xc = (/** @type {number} */ c) => M.left + (c + 0.5) * cw;
    const yc = (/** @type {number} */ r) => M.top + (n - 1 - r + 0.5) * rh;   // row 0 at the bottom
    const grid = svg.append('g').attr('stroke', '#888').attr('stroke-opacity', 0.3).attr('stroke-dasharray', '3 3');
    for (let c = 0; c < m; ++c) grid.append('line').attr('x1', xc(c)).attr('x2', xc(c)).attr('y1', M.top).attr('y2', M.top + ph);
    L.rows.forEach((_, r) => grid.append('line').attr('x1', M.left).attr('x2', M.left + pw).attr('y1', yc(r)).attr('y2', yc(r)));
    const color = (/** @type {number} */ c) => L.colors[c];
    const body = svg.append('g');
    L.rows.forEach((row, r) => {
      for (let c = 0; c < m; ++c) {
        const g = body.append('g').attr('class', 'tr-par-cell').attr('data-row', r).attr('data-col', c);
        g.append('rect').attr('x', xc(c) - 0.45 * cw).attr('y', yc(r) - 0.45 * rh).attr('width', 0.9 * cw).attr('height', 0.9 * rh)
          .attr('fill', color(row.model_copy)).attr('fill-opacity', 0.8).attr('stroke', '#fff').attr('stroke-width', 1);
        const text = row.cells[c] || '';
        if (!text) continue;
        const tw = text.length * 5.2 + 6;
        g.append('rect').attr('x', xc(c) - tw / 2).attr('y', yc(r) - 7).attr('width', tw).attr('height', 14).attr('fill', '#fff').attr('fill-opacity', 0.3);
        g.append('text').attr('x', xc(c)).attr('y', yc(r)).attr('text-anchor', 'middle').attr('dominant-baseline', 'central')
          .attr('font-size', 9).attr('fill', '#222').text(text);
      }
    });
    const ticks = svg.append('g').attr('font-size', 10);
    L.rows.forEach((row, r) => ticks.append('text').attr('class', 'tr-par-ylabel').attr('x', M.left - 6).attr('y', yc(r))
      .attr('text-anchor', 'end').attr('dominant-baseline', 'central').text(layoutText(row.label)));
    for (let c = 0; c < m; ++c) ticks.append('text').attr('x', xc(c)).attr('y', M.top + ph + 14).attr('text-anchor', 'middle').text(t('parStage', c));
    svg.append('text').attr('x', M.left + pw / 2).attr('y', M.top + ph + 40).attr('text-anchor', 'middle').attr('font-size', 12).text(t('parVppAxis'));
    svg.append('text').attr('transform', `translate(16,${M.top + ph / 2}) rotate(-90)`).attr('text-anchor', 'middle').attr('font-size', 12).text(t('parTpAxis'));
    svg.append('text').attr('class', 'tr-par-title').attr('x', W / 2).attr('y', 22).attr('text-anchor', 'middle')
      .attr('font-size', 14).text(title);
    const legend = svg.append('g').attr('class', 'tr-par-legend').attr('transform', `translate(${M.left + pw + 24},${M.top})`).attr('font-size', 10);
    legend.append('text').attr('font-size', 11).attr('font-weight', 'bold').text(t('parCopies'));
    for (let c = 0; c < L.dp; ++c) {
      legend.append('rect').attr('x', 0).attr('y', 10 + c * 16).attr('width', 12).attr('height', 12).attr('fill', color(c)).attr('fill-opacity', 0.8);
      legend.append('text').attr('x', 18).attr('y', 20 + c * 16).text(t('parCopy', c + 1));
    }
  }

  /** @param {'svg'|'png'} kind */
  async export(kind) {
    const node = /** @type {SVGSVGElement|null} */ (this.chart.querySelector('svg'));
    if (!node || !this.layout) return;
    const L = this.layout;
    const name = `ws${L.world_size}_ln${L.num_layers}_tp${L.tp}_pp${L.pp}_vpp${L.vpp}.${kind}`;
    const svg = standaloneSvg(node);
    if (kind === 'svg') saveSvg(name, svg.text); else await savePng(name, svg);
  }
}
