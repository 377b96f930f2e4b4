// @ts-check
// Search panel (web-ui §8.2): Debug | Bench, a search box, "Node list (N)" with previous / next
// and a virtualised list of every node of the side (micro-step filtered) in execution order. The
// names come from the shared NameIndex; a query is a scan of one string, so the debounce is short.
import { el, tel, setText, setTitle, setPlaceholder } from './dom.js';
import { VirtualList, appendHighlighted } from './virtual_list.js';
import { NameIndex } from './name_index.js';

/** SRCH-03 allows 150 ms; PERF-G3 wants results 100 ms after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 30;

/**
 * What the search panel uses of the workspace (Workspace.buildPanels makes it): whether it compares,
 * the pane of a side (0: Debug, 1: Bench; none before the first load), the shared name list of a side
 * and the jump that reveals, centres and selects a node.
 * @typedef {{compare: boolean, pane: (side: number) => import('./pane.js').Pane|undefined, names: (side: number) => Promise<NameIndex>,
 *            selectFromList: (p: import('./pane.js').Pane, name: string) => Promise<void>}} SearchDeps
 */

export class SearchPanel {
  /** @param {SearchDeps} deps */
  constructor(deps) {
    this.deps = deps;
    this.el = el('div', undefined, 'ws-search ws-panel');
    this.el.dataset.testid = 'search';
    this.side = 0;
    /** @type {NameIndex|null} */
    this.index = null;
    /** @type {number[]} */
    this.hits = [];
    this.seq = 0;
    // SRCH-01: Debug | Bench (Bench disabled for a single graph).
    const radios = el('div', undefined, 'ws-radios');
    radios.setAttribute('role', 'radiogroup');
    this.radios = [0, 1].map((side) => {
      const input = /** @type {HTMLInputElement} */ (el('input'));
      input.type = 'radio';
      input.name = 'ws-search-side-' + Math.random().toString(36).slice(2);
      input.value = String(side);
      input.checked = side === 0;
      input.disabled = side === 1 && !deps.compare;
      input.dataset.testid = side ? 'search-bench' : 'search-debug';
      input.addEventListener('change', () => { if (input.checked) this.setSide(side); });
      const lab = el('label');
      lab.append(input, ' ', tel('span', side ? 'bench' : 'debug'));
      radios.append(lab);
      return input;
    });
    this.input = /** @type {HTMLInputElement} */ (el('input'));
    this.input.type = 'search';
    setPlaceholder(this.input, 'searchByName');
    this.input.maxLength = 200;
    this.input.id = 'ws-search';
    let timer = 0;
    this.input.addEventListener('input', () => {
      clearTimeout(timer);
      timer = window.setTimeout(() => this.run(), SEARCH_DEBOUNCE_MS);
    });
    // Enter jumps to the first hit (then the next), the query run now if it is still waiting.
    this.input.addEventListener('keydown', async (e) => {
      if (e.key !== 'Enter') return;
      e.preventDefault();
      if (this.list.el.dataset.query !== this.input.value) {
        clearTimeout(timer);
        await this.run();
      }
      this.step(1);
    });
    this.count = tel('h4', 'nodeList', 'ws-count', 0);
    const nav = el('div', undefined, 'ws-filter-nav');
    const prev = el('button', '▲');
    setTitle(prev, 'previous');
    prev.dataset.testid = 'search-prev';
    const next = el('button', '▼');
    setTitle(next, 'next');
    next.dataset.testid = 'search-next';
    prev.addEventListener('click', () => this.step(-1));
    next.addEventListener('click', () => this.step(1));
    this.msg = el('span', '', 'ws-filter-msg');
    this.msg.dataset.testid = 'search-msg';
    nav.append(this.input, prev, next);
    this.list = new VirtualList({
      className: 'ws-list ws-results', testid: 'search-list', rowHeight: 40,
      key: (i) => this.index ? this.index.names[i] : '',
      render: (li, i) => {
        const name = this.index ? this.index.names[i] : '';
        li.title = name;
        appendHighlighted(li, name, NameIndex.highlightOf(this.input.value));
      },
      onPick: (i) => { this.msg.textContent = ''; this.pick(i); },
    });
    this.el.append(radios, nav, this.count, this.msg, this.list.el);
  }

  get pane() { return this.deps.pane(this.side) || this.deps.pane(0); }

  /** SRCH-02: the radio switches the list and keeps the query. @param {number} side */
  async setSide(side) {
    this.side = side;
    this.index = null;
    await this.run();
  }

  /** SRCH-02: a new scope: back to Debug, empty query, lists reloaded. */
  reset() {
    this.side = 0;
    this.radios[0].checked = true;
    this.input.value = '';
    this.index = null;
    this.msg.textContent = '';
    this.run();
  }

  async run() {
    const seq = ++this.seq;
    if (!this.index) {
      this.list.el.dataset.loading = '1';
      const idx = await this.deps.names(this.side);
      if (seq !== this.seq) return;
      this.index = idx;
      delete this.list.el.dataset.loading;
    }
    const p = this.pane;
    if (!p) return;
    const query = this.input.value;
    this.hits = this.index.search(query, p.opts.micro);
    this.list.setItems(this.hits, '');
    setText(this.count, 'nodeList', this.hits.length);
    // Tests and benchmarks wait for this: the results of exactly this query are shown.
    this.list.el.dataset.query = query;
    this.sync();
  }

  /** SRCH-01 previous / next (as FLT-05). @param {number} dir */
  step(dir) {
    this.msg.textContent = '';
    if (!this.hits.length) { setText(this.msg, 'noData'); return; }
    const cur = this.list.current;
    let i = cur < 0 ? (dir > 0 ? 0 : this.hits.length - 1) : cur + dir;
    if (i < 0) { setText(this.msg, 'reachedTop'); i = 0; }
    if (i >= this.hits.length) { setText(this.msg, 'reachedBottom'); i = this.hits.length - 1; }
    this.list.setCurrent(i);
    this.pick(this.hits[i]);
  }

  /** @param {number} i */
  pick(i) {
    if (!this.index) return;
    const p = this.pane;
    if (p) this.deps.selectFromList(p, this.index.names[i]);
  }

  /** SRCH-02: a node selected in this side's graph highlights and scrolls to its row. */
  sync() {
    const p = this.pane;
    const name = p && p.selected ? p.selected.name : null;
    const i = name ? this.list.indexOfKey(name) : -1;
    if (i !== this.list.current) this.list.setCurrent(i);
  }
}
