// @ts-check
// SEL-01: the data-selection popover of the rail: Directory (a group of sources: the dropped
// folder, or the opened files), File (source), Step, Rank, MicroStep (ALL, then 0 .. n-1).
// The rail's button opens it; Escape and a click elsewhere close it.
import { el, toast, filterSelect } from './dom.js';
import { t } from '../i18n.js';

export class SelectionPopover {
  /**
   * @param {{dbName: string, steps: number[], ranks: number[], microSteps: number, onScope: () => void,
   *          sources?: () => {list: {id: string, dir: string, name: string}[], current: string},
   *          onSource?: (id: string) => Promise<void>}} opts
   *   onScope: another step, rank or micro-step was chosen; sources: the graph databases of the
   *   tab by directory; onSource: show another one
   */
  constructor(opts) {
    const pop = el('div', undefined, 'ws-popover');
    pop.dataset.testid = 'data-selection';
    pop.setAttribute('role', 'dialog');
    pop.dataset.i18nAria = 'dataSelection';
    pop.setAttribute('aria-label', t('dataSelection'));
    pop.hidden = true;
    this.el = pop;
    const src = opts.sources ? opts.sources() : { list: [{ id: '', dir: '', name: opts.dbName }], current: '' };
    const cur = src.list.find((x) => x.id === src.current) || src.list[0] || { id: '', dir: '', name: opts.dbName };
    this.sourceName = cur.name;
    const switchTo = (/** @type {string} */ id) => {
      if (!opts.onSource || id === src.current) return;
      opts.onSource(id).catch((e) => {
        toast(e, 'error');
        dirSel.set(dirs, cur.dir);   // the selects show the source still shown
        fileSel.set(filesOf(cur.dir), cur.id);
      });
    };
    const filesOf = (/** @type {string} */ dir) => src.list.filter((x) => x.dir === dir).map((x) => /** @type {[string, string]} */ ([x.id, x.name]));
    // SEL-02: a new directory lists its files and opens the first.
    const dirSel = filterSelect('ws-dir', 'directory', (dir) => {
      const files = filesOf(dir);
      fileSel.set(files);
      if (files.length) switchTo(files[0][0]);
    });
    const dirs = [...new Set(src.list.map((x) => x.dir))].map((d) => /** @type {[string, string, string?]} */ (d ? [d, d] : ['', '', 'openedFiles']));
    dirSel.set(dirs, cur.dir);
    const fileSel = filterSelect('ws-file', 'file', switchTo);
    fileSel.set(filesOf(cur.dir), cur.id);
    dirSel.select.disabled = fileSel.select.disabled = !opts.onSource;
    const stepSel = filterSelect('ws-step', 'step', () => opts.onScope());
    stepSel.set(opts.steps.map((v) => [v, String(v)]));
    const rankSel = filterSelect('ws-rank', 'rank', () => opts.onScope());
    rankSel.set(opts.ranks.map((v) => [v, String(v)]));
    /** @type {Array<[number, string]>} */
    const micro = [[-1, 'ALL']];
    for (let i = 0; i < opts.microSteps; ++i) micro.push([i, String(i)]);
    const microSel = filterSelect('ws-micro', 'microStep', () => opts.onScope());
    microSel.set(micro);
    this.dirSel = dirSel.select;
    this.stepSel = stepSel.select;
    this.rankSel = rankSel.select;
    this.microSel = microSel.select;
    pop.append(dirSel.box, fileSel.box, stepSel.box, rankSel.box, microSel.box);
    /** @type {HTMLElement|null} */
    this.button = null;
  }

  /**
   * The rail's button opens and closes the popover; it closes on Escape and on a click elsewhere.
   * @param {HTMLElement} button @param {AbortSignal} signal
   */
  bind(button, signal) {
    const pop = this.el;
    this.button = button;
    button.addEventListener('click', () => this.show(pop.hidden));
    document.addEventListener('pointerdown', (e) => {
      const target = /** @type {Node} */ (e.target);
      if (!pop.hidden && !pop.contains(target) && !button.contains(target)) this.show(false);
    }, { signal });
    pop.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { this.show(false); button.focus(); }
    });
  }

  /** Opens or closes the popover. @param {boolean} open */
  show(open) {
    const button = /** @type {HTMLElement} */ (this.button);   // bind() came first
    this.el.hidden = !open;
    button.classList.toggle('open', open);
    button.setAttribute('aria-expanded', String(open));
    if (open) this.dirSel.focus();
  }
}
