// @ts-check
// Issue 46, item 3: the graph and the trend result of a tab side by side. The app bar's
// Graph | Trend switch shows the other one as it was left: its workspace unhidden when it is still
// live (the worker keeps a .trend.db open beside the graph database, and a .trend.db opens beside a
// shown graph without replacing it), else reopened from the kept results (host/store.js) with the
// URL fragment its view last had. Each view's fragment goes to its kept result as it changes, so a
// reload restores the active one and the switch brings back the other. The recent-results list
// (host/recent.js) reopens any kept result the same way.
import * as urlState from './url_state.js';
import * as store from './store.js';
import { enterApp } from './app_shell.js';
import { initRecent } from './recent.js';
import { t } from '../i18n.js';
import { toast } from '../graph/dom.js';
import { hasGraphRows } from '../graph/queries.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @typedef {{engine: import('../engine/client.js').EngineClient, trendSession: import('../trend/session.js').TrendSession,
 *   showGraph: (name: string, opts: {restoreHash?: string, key?: string, file?: Blob, source?: import('./sources.js').Source}) => Promise<void>,
 *   showTrend: (name: string, file: Blob|null, opts: {restoreHash?: string, key?: string, more?: {name: string, file: Blob}[]}) => Promise<void>,
 *   addSource: (dir: string, name: string, blob: Blob|null, url?: string) => import('./sources.js').Source,
 *   currentSource: () => import('./sources.js').Source|null,
 *   keepSource: () => Promise<void>, onShown: (name: string) => void, afterForget: () => Promise<void>|void,
 *   setNotice: (text: string) => void, setStatus: (key: string, percent?: number) => void,
 *   setError: (text: string|(() => string)|null|undefined) => void}} Deps
 */
/** @type {Deps} */
let deps;
/** @typedef {'graph'|'trend'} Kind */
/** The view shown and, per kind, the database in its workspace: name, fingerprint (its kept result) and last fragment. */
const state = {
  /** @type {Kind|''} */ active: '',
  /** @type {{name: string, key: string, hash: string, ws: import('../graph/workspace.js').Workspace|null, unregister: (() => void)|null}} */
  graph: { name: '', key: '', hash: '', ws: null, unregister: null },
  trend: { name: '', key: '', hash: '' },
};
let timer = 0;
let busy = false;

/** @param {string} hash @param {string} key the fragment with its db field set */
function withDb(hash, key) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  p.set('db', key);
  return '#' + p.toString();
}

/** The active view's fragment, kept in memory and with its kept result (so a reload or a switch restores it). */
export function remember() {
  clearTimeout(timer);
  const kind = state.active;
  if (!kind) return;
  const v = state[kind];
  v.hash = '#' + urlState.build();
  if (v.key) store.setHash(kind, v.key, v.hash);
}

/** A view's state changed: the fragment is rewritten soon, and remembered with its result. */
export function changed() {
  urlState.changed();
  clearTimeout(timer);
  timer = window.setTimeout(remember, 600);
}

/**
 * A database is shown in a workspace: the other view steps aside, the app bar names it.
 * @param {Kind} kind @param {string} name @param {string} [key] its fingerprint when known (restored)
 */
export function chrome(kind, name, key = '') {
  if (state.active) remember();
  if (kind === 'graph') {
    deps.trendSession.suspend();
    $('trend').hidden = true;
    $('result').hidden = false;
  } else {
    if (state.graph.unregister) { state.graph.unregister(); state.graph.unregister = null; }
    $('workspace').hidden = true;
    $('result').hidden = true;
  }
  state.active = kind;
  Object.assign(state[kind], { name, key, hash: '' });
  urlState.setTop({ db: key || null });
  enterApp();
  $('app-db').textContent = name;
  $('download').hidden = kind !== 'graph';
  document.querySelector('main')?.classList.add('wide');   // the panes use the whole width
  deps.onShown(name);
  paintSwitch();
}

/** The graph workspace just made: its section of the fragment. @param {import('../graph/workspace.js').Workspace} ws */
export function registerGraph(ws) {
  state.graph.ws = ws;
  if (state.graph.unregister) state.graph.unregister();
  state.graph.unregister = urlState.register('graph', { get: () => ws.viewState(), apply: (st) => ws.applyState(st) });
}

/**
 * A view's database was kept (or found kept): its fingerprint goes into the URL while it is shown.
 * @param {Kind} kind @param {string} name @param {string} key
 */
export function kept(kind, name, key) {
  const v = state[kind];
  if (kind === 'graph' && v.name !== name) return;   // another graph was shown meanwhile
  v.name = name;
  v.key = key;
  if (state.active === kind) {
    urlState.setTop({ db: key });
    remember();
  } else if (v.hash) {
    store.setHash(kind, key, withDb(v.hash, key));
  }
  paintSwitch();
}

/** The fingerprint of the database in a kind's workspace ('' until kept). @param {Kind} kind */
export const keyOf = (kind) => state[kind].key;

/** The worker restarted (Cancel): no database is open in it any more. */
export function workerRestarted() {
  state.graph.ws = null;
}

/** Whether the worker's current database is the graph's (a .trend.db opened from a URL replaces it). */
async function graphCurrent() {
  if (!state.graph.ws) return false;
  return hasGraphRows(deps.engine);
}

/**
 * A picked .db file into the worker: a .trend.db beside a shown graph (the graph stays current),
 * a graph database in place of the shown one. @param {string} name @param {Blob} file
 */
export async function openFile(name, file) {
  const current = !state.graph.ws;
  let info = await deps.engine.openDb(name, file, { current });
  if (info.kind !== 'trend' && !current && !(await graphCurrent())) info = await deps.engine.openDb(name, file);
  return info;
}

/** The newest kept result of a kind. @param {Kind} kind */
const newest = (kind) => store.list().find((e) => e.kind === kind) || null;

/** Which kinds the switch can show: live in this tab, or kept. */
function known() {
  const list = store.list();
  const ts = deps.trendSession;
  return { graph: !!state.graph.ws || list.some((e) => e.kind === 'graph'),
           trend: !!(ts.trend && ts.trend.current) || list.some((e) => e.kind === 'trend') };
}

function paintSwitch() {
  const box = $('view-switch');
  if (!box) return;
  const k = known();
  box.hidden = !(k.graph && k.trend);
  for (const b of box.querySelectorAll('button')) b.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (b).dataset.view === state.active));
}

/** The graph again: its live workspace when the worker still has its database, else reopened. */
async function showGraph() {
  const g = state.graph;
  if (g.ws && await graphCurrent()) {
    const hash = g.hash;
    chrome('graph', g.name, g.key);
    g.hash = hash;
    $('workspace').hidden = false;
    registerGraph(g.ws);
    urlState.changed();
    return;
  }
  const e = (g.key && store.find(g.key, 'graph')) || (!g.ws ? newest('graph') : null);
  if (e) { await openEntry(e, e.key === g.key && g.hash ? withDb(g.hash, e.key) : undefined); return; }
  // Not kept (a hosted database, or too large): from the tab's source.
  const src = g.ws ? deps.currentSource() : null;
  if (!src || (!src.url && !src.blob)) return;
  const info = src.url ? await deps.engine.openUrl(src.name, src.url) : await deps.engine.openDb(src.name, /** @type {Blob} */ (src.blob));   // (no url: a blob)
  await deps.showGraph(info.name, { source: src, file: src.blob || undefined, restoreHash: g.hash, key: g.key });
}

/** The trend workspace again: as it was when it is live, else the newest kept trend result. */
async function showTrend() {
  const ts = deps.trendSession;
  if (ts.trend && ts.trend.current) {
    const tr = state.trend;
    const hash = tr.hash;
    chrome('trend', ts.trend.current, tr.key);
    tr.hash = hash;
    ts.resume();
    urlState.changed();
    return;
  }
  const e = newest('trend');
  if (e) await openEntry(e);
}

/** The switch: the other view. @param {Kind} kind */
export async function show(kind) {
  if (busy || kind === state.active) return;
  busy = true;
  try {
    remember();
    if (kind === 'graph') await showGraph(); else await showTrend();
  } catch (e) {
    deps.setError(String(/** @type {Error} */ (e).message || e));
  } finally {
    busy = false;
    paintSwitch();
  }
}

/**
 * A kept result shown again with its view (hash: the fragment to restore, by default the one it
 * last had). The one already in a live workspace is switched to.
 * @param {store.Entry} e @param {string} [hash]
 */
export async function openEntry(e, hash) {
  const ts = deps.trendSession;
  const live = e.kind === 'graph' ? state.graph.key === e.key && state.graph.ws && await graphCurrent()
                                  : state.trend.key === e.key && ts.trend && ts.trend.current === e.name;
  if (live && !hash) {
    if (state.active !== e.kind) await (e.kind === 'graph' ? showGraph() : showTrend());
    store.touch(e.id);
    return true;
  }
  const restoreHash = hash || (e.hash ? withDb(e.hash, e.key) : `#db=${e.key}`);
  deps.setNotice(t('restoring'));
  try {
    const found = await store.load(e.id);
    if (!found) throw new Error(t('recentGone', e.name));
    if (found.kind === 'trend') {
      // Trend databases are small and held in memory (openDb hands the bytes to the worker).
      const data = await found.data.arrayBuffer();
      const file = new Blob([data]);
      const more = [];
      for (const m of found.more) more.push({ name: m.name, file: new Blob([await m.data.arrayBuffer()]) });
      const info = await deps.engine.openDb(found.name, data, { current: !state.graph.ws });
      await deps.showTrend(info.name, file, { restoreHash, key: e.key, more });
    } else {
      await deps.keepSource();
      // Lazily, from where it is kept (an OPFS file the worker holds open, or IndexedDB's Blob);
      // no copy of the bytes here: the source is exported from the worker if it is ever left.
      const info = await deps.engine.openDb(found.name, found.data, { opfsPath: found.path });
      await deps.showGraph(info.name, { restoreHash, key: e.key, source: deps.addSource('', info.name, null) });
    }
    store.touch(e.id);
    deps.setStatus('statusRestored', 100);
    return true;
  } catch (err) {
    const m = /** @type {Error} */ (err).message;
    deps.setError(() => t('restoreFailed', m));
    return false;
  } finally {
    deps.setNotice('');
  }
}

/** BEY-03/04: the kept result the URL names, with the view of its fragment. */
export async function restoreFromUrl() {
  const hash = location.hash;
  const { top } = urlState.parse(hash);
  const e = top.db ? store.find(top.db) : null;
  return e ? openEntry(e, hash) : false;
}

/** A result left the list: a view showing it no longer names it in the URL. @param {store.Entry} e */
function removed(e) {
  const v = state[e.kind];
  if (v.key !== e.key) return;
  v.key = '';
  if (e.kind === 'trend') deps.trendSession.key = '';
  if (state.active === e.kind) urlState.setTop({ db: null });
  $(e.kind === 'graph' ? 'workspace' : 'trend').dataset.session = '';
}

/** "Forget stored data" (after the dialog): every kept result and every build in OPFS but the one shown. */
async function forgetAll() {
  await store.forget();
  await deps.engine.sweepOpfs([]).catch(() => {});
  state.graph.key = '';
  state.trend.key = '';
  deps.trendSession.key = '';
  urlState.setTop({ db: null });
  $('workspace').dataset.session = '';
  $('trend').dataset.session = '';
  await deps.afterForget();
  toast(t('forgotten'), 'ok');
}

/** @param {Deps} d */
export function initViews(d) {
  deps = d;
  for (const b of $('view-switch').querySelectorAll('button'))
    b.addEventListener('click', () => { show(/** @type {Kind} */ (/** @type {HTMLElement} */ (b).dataset.view)); });
  window.addEventListener(store.CHANGED, paintSwitch);
  // A reload (or a closed tab) keeps the fragment the active view has at that moment.
  window.addEventListener('pagehide', remember);
  initRecent({ open: (e) => openEntry(e), removed, forget: forgetAll });
  store.prune().catch(() => {});
}
