// @ts-check
// Precision / overflow filter panel (web-ui §8.1): mode switch, bucket checkboxes with the node
// colours, the matching Debug leaves in a virtualised list with a name filter and previous / next.
import { el, tel, setText, setTitle, setPlaceholder } from './dom.js';
import { VirtualList, appendHighlighted } from './virtual_list.js';
import { bucketFill, OVERFLOW, UNMATCHED, FILTER_BUCKETS, themed } from './colours.js';
import { t } from '../i18n.js';
import { scopeRowids, filterRows, LEAF, COLOURED, UNMATCHED as UNMATCHED_SQL } from './queries.js';
import { onTheme } from '../host/prefs.js';
import { LATER } from '../later.js';

/**
 * GR-07 in either theme: the swatches are painted as the nodes are (themed), and repainted when the
 * theme changes. One listener for the module; panels whose element left the page are dropped.
 * @type {Set<FilterPanel>}
 */
const LIVE = new Set();
let listening = false;
function repaintOnTheme(/** @type {FilterPanel} */ panel) {
  LIVE.add(panel);
  if (listening) return;
  listening = true;
  onTheme(() => {
    for (const p of [...LIVE]) {
      if (!p.el.isConnected) { LIVE.delete(p); continue; }
      p.paintSwatches();
    }
  });
}

/**
 * Issue 46: the lists count what the navigator flags (panel_navigator.js): Warning and Error are
 * every node by its own precision index, modules included (a module whose outputs diverge while its
 * leaves pass is where the divergence shows), with the bounds of the file's legend by the engine's
 * rule (the navigator's and the badges'); Pass, Unmatched and the overflow levels are leaf notions.
 * @param {string} key @param {{warning: number, error: number}} b
 */
function condOf(key, b) {
  const w = Number(b.warning);
  const e = Number(b.error);
  switch (key) {
    case 'pass': return `(${LEAF} AND precision_index >= 0 AND precision_index < ${w})`;
    case 'warning': return `(${COLOURED} AND precision_index >= ${w} AND precision_index < ${e})`;
    case 'error': return `(${COLOURED} AND precision_index >= ${e})`;
    case 'unmatched': return `(${LEAF} AND ${UNMATCHED_SQL})`;
    default: return `(${LEAF} AND overflow_level = '${key === 'medium' || key === 'high' ? key : 'critical'}')`;
  }
}

/** The fixed FLT-04 bounds, until the file's are known. */
const DEFAULT_BOUNDS = { warning: FILTER_BUCKETS[1].lo, error: FILTER_BUCKETS[2].lo };

/**
 * What the filter panel uses of the workspace (Workspace.buildPanels makes it): the engine's queries
 * and legend bounds, the file's settings (compare, overflow check, colour table), the panes (the
 * first is Debug's), the colour mode of the panes and the jump that reveals, centres and selects a node.
 * @typedef {{engine: Pick<import('../engine/client.js').EngineClient, 'query'|'thresholds'>, compare: boolean, overflowCheck: boolean,
 *            colors: import('./colours.js').ColourBucket[], panes: import('./pane.js').Pane[], setMode: (m: string) => void,
 *            selectFromList: (p: import('./pane.js').Pane, name: string) => Promise<void>}} FilterDeps
 */

export class FilterPanel {
  /** @type {{value: string}} the mode radios as one value (made by modeSwitch) */ mode = LATER;

  /** @param {FilterDeps} ws */
  constructor(ws) {
    this.ws = ws;
    this.el = el('div', undefined, 'ws-filter ws-panel');
    this.el.dataset.testid = 'filter';
    /** @type {Array<{name: string, colour: string}>} */
    this.rows = [];
    /** @type {Array<{name: string, colour: string}>} */
    this.shown = [];
    /** Whether a level is ticked (else the empty list says to tick one). */
    this.ticked = false;
    this.seq = 0;
    const modeBox = this.modeSwitch();
    // FLT-02 title with the thresholds (FLT-04 note).
    const title = el('h4');
    this.title = tel('span', 'precisionError');
    const help = el('span', '?', 'ws-help');
    help.dataset.testid = 'filter-help';
    this.help = help;
    /** The legend's warning / error bounds (asked from the engine on the first list). */
    this.bounds = DEFAULT_BOUNDS;
    /** @type {Promise<void>|null} */
    this.boundsAsked = null;
    this.helpText();
    help.tabIndex = 0;
    title.append(this.title, ' ', help);
    this.checks = el('div', undefined, 'ws-checks');
    this.count = tel('h4', 'nodeList', 'ws-count', 0);
    const nav = el('div', undefined, 'ws-filter-nav');
    this.name = /** @type {HTMLInputElement} */ (el('input'));
    this.name.type = 'search';
    setPlaceholder(this.name, 'searchByName');
    this.name.maxLength = 200;
    this.name.id = 'ws-filter-name';
    this.name.addEventListener('input', () => this.applyName());
    const prev = el('button', '▲');
    prev.id = 'ws-filter-prev';
    setTitle(prev, 'previous');
    const next = el('button', '▼');
    next.id = 'ws-filter-next';
    setTitle(next, 'next');
    prev.addEventListener('click', () => this.step(-1));
    next.addEventListener('click', () => this.step(1));
    this.msg = el('span', '', 'ws-filter-msg');
    nav.append(this.name, prev, next);
    this.list = new VirtualList({
      className: 'ws-list ws-filter-list', testid: 'filter-list', rowHeight: 40,
      key: (r) => r.name,
      render: (li, r) => {
        const chip = el('i', undefined, 'ws-chip');
        chip.style.background = themed(r.colour);
        li.title = r.name;
        li.append(chip);
        appendHighlighted(li, r.name, this.name.value);
      },
      onPick: (r) => { this.msg.textContent = ''; this.pick(r.name); },
    });
    this.el.append(modeBox, title, this.checks, this.count, nav, this.msg, this.list.el);
    this.fillChecks();
    repaintOnTheme(this);
  }

  /**
   * FLT-01: a two-segment control Precision error | Overflow (radio buttons: arrow keys move between
   * the segments). Overflow is disabled, with the reason as tooltip, without -oc data. Sets this.mode.
   */
  modeSwitch() {
    const ws = this.ws;
    const modeBox = el('div', undefined, 'ws-mode ws-segmented');
    modeBox.id = 'ws-mode';
    modeBox.setAttribute('role', 'radiogroup');
    modeBox.dataset.i18nAria = 'colourMode';
    modeBox.setAttribute('aria-label', t('colourMode'));
    /** @type {Record<string, HTMLInputElement>} */
    const radios = {};
    for (const [value, key] of [['precision', 'precisionError'], ['overflow', 'overflow']]) {
      const seg = el('label', undefined, 'ws-segment');
      seg.dataset.testid = 'mode-' + value;
      const r = /** @type {HTMLInputElement} */ (el('input'));
      r.type = 'radio';
      r.name = 'ws-mode';
      r.value = value;
      r.checked = value === 'precision';
      if (value === 'overflow' && !ws.overflowCheck) {
        r.disabled = true;
        setTitle(seg, 'noOverflowData');   // on the segment: a disabled input shows no tooltip
      }
      r.addEventListener('change', () => { if (r.checked) { ws.setMode(value); this.fillChecks(); } });
      seg.append(r, tel('span', key));
      modeBox.append(seg);
      radios[value] = r;
    }
    /** The mode ('precision' | 'overflow'); setting it does not recolour (setMode does). */
    this.mode = {
      get value() { return radios.overflow.checked ? 'overflow' : 'precision'; },
      set value(v) { radios[v === 'overflow' ? 'overflow' : 'precision'].checked = true; },
    };
    return modeBox;
  }

  /** The box swatches and the visible rows' chips in the current theme. */
  paintSwatches() {
    for (const cb of this.checks.querySelectorAll('input[type=checkbox]')) {
      const chip = /** @type {HTMLElement|null} */ (cb.nextElementSibling);
      if (chip) chip.style.background = this.colourOf(/** @type {HTMLInputElement} */ (cb).value);
    }
    this.list.draw();
  }

  /** GR-07: the swatch of a bucket is the fill a node of that bucket gets (in this theme). @param {string} key */
  colourOf(key) {
    return themed(this.rawColourOf(key));
  }

  /** The bucket's colour as the file's table gives it. @param {string} key */
  rawColourOf(key) {
    if (key === 'unmatched') return UNMATCHED;
    if (OVERFLOW[key]) return OVERFLOW[key];
    if (key === 'pass') return bucketFill(0, this.ws.colors);
    if (key === 'warning' || key === 'error') return bucketFill(this.bounds[key], this.ws.colors);
    return UNMATCHED;
  }

  /** FLT-02 / FLT-03 boxes for the current mode; clears the list (FLT-01). */
  fillChecks() {
    const overflow = this.mode.value === 'overflow';
    setText(this.title, overflow ? 'overflow' : 'precisionError');
    this.checks.textContent = '';
    const keys = overflow ? ['medium', 'high', 'critical'] : ['pass', 'warning', 'error', 'unmatched'];
    for (const key of keys) {
      const lab = el('label', undefined, 'ws-swatch');
      const cb = /** @type {HTMLInputElement} */ (el('input'));
      cb.type = 'checkbox';
      cb.value = key;
      cb.dataset.testid = 'filter-' + key;
      // FLT-02: a single graph has no precision: only Unmatched is meaningful.
      if (!overflow && !this.ws.compare && key !== 'unmatched') cb.disabled = true;
      cb.addEventListener('change', () => this.run());
      const chip = el('i');
      chip.style.background = this.colourOf(key);
      lab.append(cb, chip, tel('span', key));
      this.checks.append(lab);
    }
    this.name.value = '';
    this.msg.textContent = '';
    this.rows = [];
    this.applyName();
  }

  /** FLT-07: back to Precision mode, no box, no list, no name filter. */
  reset() {
    if (this.mode.value !== 'precision') { this.mode.value = 'precision'; this.ws.setMode('precision'); }
    this.fillChecks();
  }

  /** The "?" text with the bounds in use (FLT-04 note). */
  helpText() {
    setTitle(this.help, 'filterHelpFlagged');
    this.help.dataset.i18nTitleArgs = JSON.stringify([this.bounds.warning, this.bounds.error]);
    this.help.title = t('filterHelpFlagged', this.bounds.warning, this.bounds.error);
  }

  /** The legend's bounds by the engine's rule, asked once (the fixed ones if the engine cannot say). */
  ensureBounds() {
    if (!this.boundsAsked) {
      this.boundsAsked = Promise.resolve(this.ws.engine.thresholds()).then((b) => {
        if (b && Number.isFinite(Number(b.warning)) && Number.isFinite(Number(b.error))) this.bounds = { warning: Number(b.warning), error: Number(b.error) };
      }, () => { /* the fixed bounds */ }).then(() => { this.helpText(); this.paintSwatches(); });
    }
    return this.boundsAsked;
  }

  /**
   * FLT-04 with the navigator's notion (issue 46): Debug nodes (micro-step filtered) of any checked
   * bucket, in execution order: Warning / Error at every level, the others leaves.
   */
  async run() {
    const keys = [...this.checks.querySelectorAll('input:checked')].map((c) => /** @type {HTMLInputElement} */ (c).value);
    const seq = ++this.seq;
    this.msg.textContent = '';
    const p = this.ws.panes[0];
    // Issue 46: with no level ticked the empty list says what to do, not 'No data'.
    this.ticked = keys.length > 0;
    if (!keys.length || !p) { this.rows = []; this.applyName(); this.done(); return; }
    await this.ensureBounds();
    const where = keys.map((k) => condOf(k, this.bounds)).join(' OR ');
    const range = (await scopeRowids(this.ws.engine, p.opts.step, p.opts.rank, 'NPU')) || [0, -1];
    if (seq !== this.seq) return;
    const found = await filterRows(this.ws.engine, range, [p.opts.step, p.opts.rank, 'NPU'], p.opts.micro, where);
    if (seq !== this.seq) return;
    const overflow = this.mode.value === 'overflow';
    const { warning, error } = this.bounds;
    const bucket = (/** @type {number} */ v) => (v >= error ? 'error' : v >= warning ? 'warning' : 'pass');
    this.rows = found.map(({ name, precision, level, unmatched }) => ({
      name,
      colour: overflow ? OVERFLOW[String(level)] || '#FFFFFF'
        : unmatched && this.ws.compare ? UNMATCHED : precision === null ? '#FFFFFF' : this.rawColourOf(bucket(Number(precision))),
    }));
    this.name.value = '';
    this.applyName();
    this.done();
  }

  done() { this.count.dataset.done = String((Number(this.count.dataset.done) || 0) + 1); }

  /** FLT-05: case-insensitive substring filter of the rows. */
  applyName() {
    const needle = this.name.value.toLowerCase();
    this.shown = needle ? this.rows.filter((r) => r.name.toLowerCase().includes(needle)) : this.rows;
    this.list.setItems(this.shown, this.ticked ? 'noData' : 'filterTickHint');
    setText(this.count, 'nodeList', this.shown.length);
    this.sync();
  }

  /** FLT-05: previous / next within the filtered rows. @param {number} dir */
  step(dir) {
    this.msg.textContent = '';
    const rows = this.shown;
    if (!rows.length) { setText(this.msg, 'noData'); return; }
    const cur = this.list.current;
    let i = cur < 0 ? (dir > 0 ? 0 : rows.length - 1) : cur + dir;
    if (i < 0) { setText(this.msg, 'reachedTop'); i = 0; }
    if (i >= rows.length) { setText(this.msg, 'reachedBottom'); i = rows.length - 1; }
    this.list.setCurrent(i);
    this.pick(rows[i].name);
  }

  /** @param {string} name */
  pick(name) {
    const p = this.ws.panes[0];
    if (p) this.ws.selectFromList(p, name);
  }

  /** FLT-06: the selected Debug node's row is highlighted and scrolled into view. */
  sync() {
    const p = this.ws.panes[0];
    const name = p && p.selected ? p.selected.name : null;
    const i = name ? this.list.indexOfKey(name) : -1;
    if (i !== this.list.current) this.list.setCurrent(i);
  }
}
