// @ts-check
// Matching panel (web-ui §8.3, compare graphs): searchable, virtualised pickers of the unmatched and
// matched nodes of each side with up / down arrows, Match / Unmatch (with descendants), and the
// .vis.config files of the manual edits (generate, apply). Issue 46: a .vis.config stays the flat
// {"debug node": "bench node"} object msProbe's tb_graph_ascend reads and writes; a Debug node
// unmatched by hand is written as {"debug node": ""} (msProbe pairs it with no node: its
// get_parent_node_list("") is [], an empty link), so a file saved after an unmatch says so, and
// applying it unmatches the node again.
import { el, tel, setText, setTitle, setPlaceholder, toast, checkbox } from './dom.js';
import { VirtualList, appendHighlighted } from './virtual_list.js';
import { saveBlob as save } from '../host/download.js';
import { t } from '../i18n.js';
import { engineText, messageOf } from '../engine_text.js';
import { entriesFromFileList } from '../intake/files.js';
import { handMadeLinks, linkRow } from './queries.js';

/** A searchable select over a long list of names: an input, ▲ ▼, and a virtualised dropdown. */
export class NodePicker {
  /** @param {string} id @param {string} labelKey @param {(name: string) => void} onChoose */
  constructor(id, labelKey, onChoose) {
    this.labelKey = labelKey;
    this.onChoose = onChoose;
    /** @type {string[]} */
    this.names = [];
    /** @type {string[]} */
    this.shown = [];
    this.value = '';
    this.el = el('div', undefined, 'ws-picker');
    this.el.dataset.testid = 'picker-' + id.replace(/^ws-/, '');
    this.label = tel('label', labelKey, undefined, 0);
    this.label.setAttribute('for', id);
    this.input = /** @type {HTMLInputElement} */ (el('input'));
    this.input.id = id;
    this.input.autocomplete = 'off';
    this.input.setAttribute('role', 'combobox');
    setPlaceholder(this.input, 'searchByName');
    const up = el('button', '▲');
    setTitle(up, 'previous');
    const down = el('button', '▼');
    setTitle(down, 'next');
    up.addEventListener('click', () => this.step(-1));
    down.addEventListener('click', () => this.step(1));
    const row = el('div', undefined, 'ws-picker-row');
    row.append(this.input, up, down);
    this.list = new VirtualList({
      className: 'ws-list ws-picker-list', rowHeight: 28,
      render: (li, name) => { li.title = name; appendHighlighted(li, name, this.input.value === this.value ? '' : this.input.value); },
      onPick: (name) => { this.choose(name); this.close(); },
    });
    this.list.el.hidden = true;
    this.el.append(this.label, row, this.list.el);
    this.input.addEventListener('focus', () => this.open());
    this.input.addEventListener('input', () => this.filter(this.input.value));
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') { this.close(); this.input.blur(); }
      if (e.key === 'Enter' && this.shown.length) { this.choose(this.shown[Math.max(0, this.list.current)]); this.close(); }
    });
    this.input.addEventListener('blur', () => setTimeout(() => {
      if (!this.el.contains(document.activeElement)) this.close();
    }, 150));
  }

  /** @param {string[]} names */
  setItems(names) {
    this.names = names;
    setText(this.label, this.labelKey, names.length);
    this.el.dataset.count = String(names.length);
    if (this.value && !names.includes(this.value)) this.set('');
    if (!this.list.el.hidden) this.filter(this.input.value === this.value ? '' : this.input.value);
  }

  /** Sets the shown value without selecting in the graph. @param {string} name */
  set(name) {
    this.value = name;
    this.input.value = name;
    const i = this.names.indexOf(name);
    if (!this.list.el.hidden) this.list.setCurrent(this.shown.indexOf(name));
    return i >= 0;
  }

  /** @param {string} name */
  choose(name) {
    this.set(name);
    this.onChoose(name);
  }

  open() {
    this.list.el.hidden = false;
    this.filter('');
    this.input.select();
  }

  close() {
    this.list.el.hidden = true;
    this.input.value = this.value;
  }

  /** @param {string} text */
  filter(text) {
    const needle = text.toLowerCase();
    this.shown = needle ? this.names.filter((n) => n.toLowerCase().includes(needle)) : this.names;
    this.list.setItems(this.shown, 'noData');
    this.list.setCurrent(this.shown.indexOf(this.value));
  }

  /** MAT-02 arrows. @param {number} dir */
  step(dir) {
    if (!this.names.length) { toast(t('listEmpty'), 'warn'); return; }
    const cur = this.names.indexOf(this.value);
    let i = cur < 0 ? (dir > 0 ? 0 : this.names.length - 1) : cur + dir;
    if (i < 0) { toast(t('reachedTop'), 'info'); i = 0; }
    if (i >= this.names.length) { toast(t('reachedBottom'), 'info'); i = this.names.length - 1; }
    this.choose(this.names[i]);
  }
}

/**
 * MAT-06: the .vis.config files of this session (generated here or opened), by file name. They
 * outlive a workspace: another source, step or rank lists them too.
 * @type {Map<string, string>}
 */
const CONFIGS = new Map();

/**
 * What the matching panel uses of the workspace (Workspace.buildPanels makes it): the engine's
 * queries, matches, unmatches, tensor folders and database facts, the task, the pane of a side (0:
 * Debug, 1: Bench), the shared name lists and their invalidation, the jump to a node, the refresh
 * after a match and the database's name.
 * @typedef {{engine: Pick<import('../engine/client.js').EngineClient, 'query'|'match'|'unmatch'|'tensorFolders'|'dbStats'>, task: string,
 *            pane: (side: number) => import('./pane.js').Pane|undefined,
 *            names: (side: number) => Promise<import('./name_index.js').NameIndex>, invalidateNames: () => void,
 *            selectFromList: (p: import('./pane.js').Pane, name: string) => Promise<void>, afterMatch: () => Promise<void>,
 *            dbName: () => string}} MatchingDeps
 */

export class MatchingPanel {
  /** @param {MatchingDeps} deps */
  constructor(deps) {
    this.deps = deps;
    this.el = el('div', undefined, 'ws-matching ws-panel');
    this.el.dataset.testid = 'matching';
    this.loaded = false;
    const choose = (/** @type {number} */ side) => (/** @type {string} */ name) => {
      const p = deps.pane(side);
      if (p && name) deps.selectFromList(p, name);
    };
    this.dbgUnmatched = new NodePicker('ws-dbg-unmatched', 'debugUnmatched', choose(0));
    this.bchUnmatched = new NodePicker('ws-bch-unmatched', 'benchUnmatched', choose(1));
    this.dbgMatched = new NodePicker('ws-dbg-matched', 'debugMatched', choose(0));
    this.bchMatched = new NodePicker('ws-bch-matched', 'benchMatched', choose(1));
    const tensorTask = deps.task === 'all';
    // MAT-01 1: match configuration files.
    const cfg = el('fieldset', undefined, 'ws-group ws-config');
    cfg.append(tel('legend', 'matchConfigFile'));
    // The select of the session's files: choosing one applies it. A file from disk joins the list.
    this.configSel = /** @type {HTMLSelectElement} */ (el('select'));
    this.configSel.id = 'ws-config';
    this.configSel.dataset.i18nAria = 'chooseConfig';
    this.configSel.setAttribute('aria-label', t('chooseConfig'));
    setTitle(this.configSel, 'chooseConfigHelp');
    this.configSel.addEventListener('change', async () => {
      const name = this.configSel.value;
      this.configSel.value = '';   // back to the prompt: the same file can be applied again
      const text = CONFIGS.get(name);
      if (name && text !== undefined) await this.applyConfig(name, text);
    });
    this.fillConfigs();
    const openLab = el('label', undefined, 'button');
    const apply = /** @type {HTMLInputElement} */ (el('input'));
    apply.type = 'file';
    apply.accept = '.config,.json';
    apply.id = 'ws-apply-config';
    apply.hidden = true;
    apply.addEventListener('change', async () => {
      const f = apply.files && apply.files[0];
      apply.value = '';
      if (!f) return;
      const text = await f.text();
      CONFIGS.set(f.name, text);
      this.fillConfigs();
      await this.applyConfig(f.name, text);
    });
    openLab.append(tel('span', 'openConfig'), apply);
    const gen = tel('button', 'generateConfig');
    gen.id = 'ws-gen-config';
    setTitle(gen, 'generateConfigHelpUnmatch');
    gen.addEventListener('click', () => this.generateConfig());
    cfg.append(this.configSel, openLab, gen);
    // MAT-01 2 and 3.
    const create = el('fieldset', undefined, 'ws-group');
    const d1 = checkbox('alsoDescendants', true);
    d1.input.id = 'ws-descendants';
    d1.label.hidden = tensorTask;
    const matchBtn = tel('button', 'match', 'primary');
    matchBtn.id = 'ws-match';
    create.append(tel('legend', 'createMatch'), this.dbgUnmatched.el, this.bchUnmatched.el, d1.label, matchBtn);
    const remove = el('fieldset', undefined, 'ws-group');
    const d2 = checkbox('alsoDescendants', true);
    d2.input.id = 'ws-descendants-unmatch';
    d2.label.hidden = tensorTask;
    const unmatchBtn = tel('button', 'unmatch');
    unmatchBtn.id = 'ws-unmatch';
    remove.append(tel('legend', 'removeMatch'), this.dbgMatched.el, this.bchMatched.el, d2.label, unmatchBtn);
    this.msg = el('p', '', 'ws-match-msg');
    this.msg.dataset.testid = 'match-msg';
    this.el.append(cfg, create, remove, this.msg);
    if (tensorTask) this.el.prepend(this.tensorFoldersGroup());
    this.descMatch = d1.input;
    this.descUnmatch = d2.input;
    matchBtn.addEventListener('click', () => this.doMatch(true));
    unmatchBtn.addEventListener('click', () => this.doMatch(false));
  }

  /** MAT-06: the prompt, then the session's .vis.config files by name. */
  fillConfigs() {
    const prompt = new Option(t('chooseConfig'), '');
    prompt.dataset.i18n = 'chooseConfig';
    this.configSel.replaceChildren(prompt, ...[...CONFIGS.keys()].sort().map((n) => new Option(n, n)));
    this.configSel.value = '';
    this.configSel.disabled = !CONFIGS.size;
  }

  /** @param {string} text @param {boolean} ok */
  say(text, ok) {
    this.msg.textContent = text;
    this.msg.className = 'ws-match-msg ' + (ok ? 'ok' : 'bad');
    toast(text, ok ? 'ok' : 'error');
  }

  /** The four lists of the current scope (micro-step filtered, SEL-03); loaded when the panel is first shown. */
  async refresh() {
    const p = this.deps.pane(0);
    if (!p) return;
    this.loaded = true;
    this.el.dataset.loading = '1';
    const [dbg, bch] = await Promise.all([this.deps.names(0), this.deps.names(1)]);
    const split = (/** @type {import('./name_index.js').NameIndex} */ idx) => {
      /** @type {string[]} */
      const un = [];
      /** @type {string[]} */
      const ma = [];
      for (let i = 0; i < idx.names.length; ++i) {
        if (!idx.inMicro(i, p.opts.micro)) continue;
        (idx.unmatched[i] ? un : ma).push(idx.names[i]);
      }
      return [un, ma];
    };
    const [du, dm] = split(dbg);
    const [bu, bm] = split(bch);
    this.dbgUnmatched.setItems(du);
    this.dbgMatched.setItems(dm);
    this.bchUnmatched.setItems(bu);
    this.bchMatched.setItems(bm);
    delete this.el.dataset.loading;
    this.el.dataset.ready = String((Number(this.el.dataset.ready) || 0) + 1);
  }

  reset() {
    this.loaded = false;
    for (const pk of [this.dbgUnmatched, this.bchUnmatched, this.dbgMatched, this.bchMatched]) { pk.set(''); pk.setItems([]); }
    this.msg.textContent = '';
  }

  /**
   * MAT-02: an unmatched node fills its side's unmatched picker and clears the matched ones; a
   * matched node fills both matched pickers and clears the unmatched ones.
   * @param {boolean} debug @param {import('./layout.js').GNode} n @param {string|null} counterpart
   */
  onSelect(debug, n, counterpart) {
    if (!n.link.length) {
      this.dbgMatched.set('');
      this.bchMatched.set('');
      (debug ? this.dbgUnmatched : this.bchUnmatched).set(n.name);
    } else {
      this.dbgUnmatched.set('');
      this.bchUnmatched.set('');
      (debug ? this.dbgMatched : this.bchMatched).set(n.name);
      (debug ? this.bchMatched : this.dbgMatched).set(counterpart || '');
    }
  }

  /**
   * Real-data task: the dump folders whose .pt / .npy files a match reads. A build made on this page
   * brings its own; a database opened from a file needs them chosen (read in place, never uploaded).
   */
  tensorFoldersGroup() {
    const box = el('fieldset', undefined, 'ws-group ws-tensor-folders');
    box.dataset.testid = 'tensor-folders';
    setTitle(box, 'tensorFoldersHelp');
    const state = this.tensorState = el('p', '', 'ws-tensor-state');
    state.dataset.testid = 'tensor-state';
    /** @type {{name: string, entries: import('../engine/protocol.js').FileEntry[]}[]} */
    const chosen = [];
    const picker = (/** @type {number} */ side, /** @type {string} */ key) => {
      const lab = el('label', undefined, 'button');
      const input = /** @type {HTMLInputElement} */ (el('input'));
      input.type = 'file';
      input.webkitdirectory = true;
      input.multiple = true;
      input.hidden = true;
      input.id = side ? 'ws-bench-folder' : 'ws-debug-folder';
      input.addEventListener('change', async () => {
        if (!input.files || !input.files.length) return;
        chosen[side] = entriesFromFileList(input.files);
        input.value = '';
        if (chosen[0] && chosen[1]) {
          await this.deps.engine.tensorFolders({ target: chosen[0].entries, golden: chosen[1].entries,
                                               targetName: chosen[0].name, goldenName: chosen[1].name });
          setText(state, 'tensorFoldersChosen', chosen[0].name || '.', chosen[1].name || '.');
        } else {
          setText(state, 'tensorFoldersChosen', chosen[0] ? chosen[0].name : '…', chosen[1] ? chosen[1].name : '…');
        }
      });
      lab.append(tel('span', key), input);
      return lab;
    };
    setText(state, 'tensorFoldersNone');
    this.deps.engine.dbStats(this.deps.dbName()).then((st) => {
      if (st && st.tensors) setText(state, 'tensorFoldersBuild', st.tensors.target || '.', st.tensors.golden || '.');
    }).catch(() => {});
    box.append(tel('legend', 'tensorFolders'), picker(0, 'debugFolder'), picker(1, 'benchFolder'), this.tensorState);
    return box;
  }

  /** An engine message, with the way out when tensor files are missing. @param {unknown} e */
  failureText(e) {
    const m = messageOf(e);
    return typeof m !== 'string' && m.id === 'TensorFilesRequiredReal' ? t('tensorFoldersNeeded') : engineText(m);
  }

  /** MAT-03 / MAT-04, then MAT-05. @param {boolean} match */
  async doMatch(match) {
    const p = /** @type {import('./pane.js').Pane} */ (this.deps.pane(0));
    const npu = match ? this.dbgUnmatched.value : this.dbgMatched.value;
    const bench = match ? this.bchUnmatched.value : this.bchMatched.value;
    const args = { step: p.opts.step, rank: p.opts.rank, npu, bench, descendants: (match ? this.descMatch : this.descUnmatch).checked };
    try {
      if (match && !npu) throw new Error(t('selectDebugUnmatched'));
      if (match && !bench) throw new Error(t('selectBenchUnmatched'));
      if (!match && (!npu || !bench)) throw new Error(t('selectToUnmatch'));
      if (match) await this.deps.engine.match(args); else await this.deps.engine.unmatch(args);
    } catch (e) {
      this.say(this.failureText(e), false);
      return;
    }
    this.deps.invalidateNames();
    await this.deps.afterMatch();
    this.say(t(match ? 'matchOk' : 'unmatchOk'), true);
  }

  /**
   * MAT-06 and issue 46: the Debug side's hand-made state of this step and rank, in execution order:
   * {debug: bench} for a node matched by hand, {debug: ""} for one unmatched by hand (modified = 1,
   * as msProbe marks both).
   */
  async generateConfig() {
    const p = /** @type {import('./pane.js').Pane} */ (this.deps.pane(0));
    /** @type {[string, string][]} */
    const entries = [];
    for (const { name: node, link } of await handMadeLinks(this.deps.engine, p.opts.step, p.opts.rank)) {
      const peer = lastOf(link);
      if (peer !== undefined) entries.push([node, peer === null ? '' : peer]);
    }
    const name = `${this.deps.dbName().replace(/\.vis\.db$|\.db$/, '')}_${p.opts.step}_${p.opts.rank}.vis.config`;
    const text = JSON.stringify(Object.fromEntries(entries), null, 4);   // own keys only, "__proto__" included
    CONFIGS.set(name, text);
    this.fillConfigs();
    save(new Blob([text], { type: 'application/json' }), name);
    this.say(t('fileGenerated', name), true);
  }

  /** A node's link and type in this step and rank (undefined: no such node). @param {{step: number, rank: number}} scope @param {string} side @param {string} name */
  async nodeOf(scope, side, name) {
    const r = await linkRow(this.deps.engine, [scope.step, scope.rank, side], name);
    return r ? { peer: lastOf(r.link) || null, type: r.type } : undefined;
  }

  /** {debug: ""}: the node's pair undone (already unmatched: nothing to do). @param {{step: number, rank: number}} scope @param {string} npu */
  async unmatchEntry(scope, npu) {
    const n = await this.nodeOf(scope, 'NPU', npu);
    if (!n) throw new Error(t('configNoNode', scope.step, scope.rank));
    if (n.peer) await this.deps.engine.unmatch({ ...scope, npu, bench: n.peer, descendants: false });
  }

  /**
   * {debug: bench}: matched (without descendants). A node matched to another one first lets it go,
   * so the file's pairs win over the pairs the build made; a pair matched already fails as before.
   * @param {{step: number, rank: number}} scope @param {string} npu @param {unknown} bench  (from the file: checked to be a string)
   */
  async matchEntry(scope, npu, bench) {
    if (typeof bench !== 'string') throw new Error(t('notPairs'));
    const [n, b] = await Promise.all([this.nodeOf(scope, 'NPU', npu), this.nodeOf(scope, 'Bench', bench)]);
    if (n && b && n.type === b.type) {
      if (n.peer && n.peer !== bench) await this.deps.engine.unmatch({ ...scope, npu, bench: n.peer, descendants: false });
      if (b.peer && b.peer !== npu) {
        const other = await this.nodeOf(scope, 'Bench', bench);   // the line above may have freed it (twins)
        if (other && other.peer && other.peer !== npu) await this.deps.engine.unmatch({ ...scope, npu: other.peer, bench, descendants: false });
      }
    }
    await this.deps.engine.match({ ...scope, npu, bench, descendants: false });
  }

  /**
   * MAT-06: applies a .vis.config: its unmatches ({debug: ""}) first, then its pairs, each without
   * descendants; the toast counts them and names the first that failed, with why.
   * @param {string} name @param {string} text
   */
  async applyConfig(name, text) {
    /** @type {Record<string, unknown>} */
    let pairs;
    try {
      pairs = JSON.parse(text);
      if (!pairs || typeof pairs !== 'object' || Array.isArray(pairs)) throw new Error(t('notPairs'));
    } catch (e) {
      this.say(`${name}: ${/** @type {Error} */ (e).message}`, false);
      return;
    }
    const p = /** @type {import('./pane.js').Pane} */ (this.deps.pane(0));
    const scope = { step: p.opts.step, rank: p.opts.rank };
    const entries = Object.keys(pairs).filter((k) => k !== '__proto__').map((k) => /** @type {[string, unknown]} */ ([k, pairs[k]]));
    let ok = 0;
    /** @type {string[]} */
    const failed = [];
    for (const [npu] of entries.filter(([, v]) => v === '')) {
      try { await this.unmatchEntry(scope, npu); ok += 1; } catch (e) { failed.push(t('configUnmatchFailed', npu, this.failureText(e))); }
    }
    for (const [npu, bench] of entries.filter(([, v]) => v !== '')) {
      try { await this.matchEntry(scope, npu, bench); ok += 1; } catch (e) { failed.push(`${npu} → ${String(bench)}: ${this.failureText(e)}`); }
    }
    this.deps.invalidateNames();
    await this.deps.afterMatch();
    this.say(t('configApplied', ok + failed.length, ok, failed.length) + (failed.length ? `\n${failed[0]}` : ''), !failed.length);
  }
}

/** The counterpart a stored link names: its last element; null for an empty link; undefined when unreadable. @param {import('../engine/protocol.js').SqlValue} link */
function lastOf(link) {
  if (link === null || link === undefined || link === '') return null;
  try {
    const l = JSON.parse(String(link));
    if (!Array.isArray(l)) return undefined;
    return l.length ? String(l[l.length - 1]) : null;
  } catch {
    return undefined;
  }
}
