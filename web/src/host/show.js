// @ts-check
// The databases the page shows (moved out of main.js, behaviour unchanged but for the Graph | Trend
// switch of host/views.js): a graph database in the graph workspace, with its summary in the
// drawer and its session kept (host/keep_session.js); another source of the data-selection popover
// (SEL-02); a .trend.db in the trend workspace (trend/session.js). Text from a database is only
// ever set as textContent.
import { Workspace } from '../graph/workspace.js';
import { TrendSession } from '../trend/session.js';
import * as urlState from './url_state.js';
import * as views from './views.js';
import { addSource, findSource, getCurrentSource, setCurrentSource, sourceList, keepCurrentSource } from './sources.js';
import { toast } from '../graph/dom.js';
import { t as translate } from '../i18n.js';
import { setDrawer } from './app_shell.js';
import { engineText, messageOf } from '../engine_text.js';
import { setError, setEngineError } from '../engine_messages.js';
import { fillSummary } from './db_summary.js';
import { keepSession } from './keep_session.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
// The largest lazily read database the all-graphs name table scans (256 MB).
const LIKE_SCAN_BYTES = 256e6;

/** @type {import('../engine/client.js').EngineClient} */
let engine;
/** @type {(key: string, percent?: number, ...args: unknown[]) => void} */
let setStatus;

/** SEL-02: shows another source (File or Directory change in the data-selection popover). @param {string} id */
async function switchSource(id) {
  const next = findSource(id);
  if (!next || next === getCurrentSource()) return;
  setStatus('openingSource', undefined, next.name);
  try {
    await keepCurrentSource(engine);
    if (!next.blob && next.url) {
      const info = await engine.openUrl(next.name, next.url);
      await showDatabase(info.name, { source: next });
    } else {
      if (!next.blob) throw new Error(translate('sourceGone', next.name));
      const info = await engine.openDb(next.name, next.blob);
      await showDatabase(info.name, { file: next.blob, source: next });
    }
    setStatus('databaseOpened', 100);
  } catch (e) {
    setStatus('statusFailed', 0);
    throw e;
  }
}

/**
 * @param {string} name
 * @param {{restoreHash?: string, key?: string, file?: Blob, source?: import('./sources.js').Source}} [opts]
 */
async function showDatabase(name, opts = {}) {
  const source = setCurrentSource(opts.source || addSource('', name, opts.file || null));
  views.chrome('graph', name, opts.key);   // the trend view (if any) steps aside, kept as it is
  $('db-name').textContent = name;
  await fillSummary(engine, $('summary'));
  /** @type {HTMLTableSectionElement} */ ($('nodes').querySelector('tbody')).textContent = '';
  // The all-graphs name table is a LIKE over every row (a full scan): on a large database read
  // lazily (a dropped file, OPFS, a URL) that reads the whole file, so it is offered only below
  // LIKE_SCAN_BYTES; the workspace's search panel finds names through index3 in either case.
  const stats = await engine.dbStats().catch(() => ({ lazy: false, size: 0 }));
  /** @type {HTMLElement} */ ($('result').querySelector('.nodes')).hidden = !!stats.lazy && Number(stats.size) > LIKE_SCAN_BYTES;
  try {
    if (graph) graph.destroy();
    const ws = new Workspace($('workspace'), engine, {
      dbName: name,
      onState: () => views.changed(),
      onEdit: () => { source.edited = true; if (!source.url) keepSession(engine, $('workspace'), name); },
      sources: () => sourceList(source.id),
      onSource: switchSource,
      onIntake: () => {
        setDrawer(true);
        $('slot-target').focus({ preventScroll: true });
      },
      onCopyLink: async () => {
        try { await navigator.clipboard.writeText(urlState.link()); toast(translate('linkCopied'), 'ok'); }
        catch { toast(urlState.link(), 'info'); }
      },
    });
    graph = ws;
    window.visprobeGraph = graph;   // read by the tests and benchmarks
    views.registerGraph(ws);
    await graph.open();
    if (opts.restoreHash) {
      await urlState.restore('graph', opts.restoreHash);
      $('workspace').dataset.restored = '1';
    } else if (!source.url) {
      // A hosted database (`?db=`) needs no session: its URL opens it again, and keeping a copy
      // would read the whole file over HTTP (27 s and 2 GB for a 2 GB file, measured).
      keepSession(engine, $('workspace'), name, opts.file);
    }
    urlState.changed();
  } catch (e) {
    const m = messageOf(e);
    setError(() => translate('graphOpenFailed', engineText(m)));
  }
}

/** @type {Workspace|null} */
let graph = null;
/** BEY-03/04: the trend workspace and its kept session (trend/session.js). @type {TrendSession} */
let trendSession;

/**
 * A .trend.db the worker opened: the trend workspace (its own module). A restored session also
 * lists its run B and applies the fragment's trend section.
 * @param {string} name @param {Blob|null} file  null: opened by URL
 * @param {{restoreHash?: string, key?: string, more?: {name: string, file: Blob}[]}} [opts]
 */
async function showTrendDatabase(name, file, opts = {}) {
  views.chrome('trend', name, opts.key);   // the graph (if any) steps aside, kept as it is
  await trendSession.show(name, file, opts);
}

/**
 * @param {import('../engine/client.js').EngineClient} client
 * @param {(key: string, percent?: number, ...args: unknown[]) => void} status  the status line by dictionary key
 */
export function initShow(client, status) {
  engine = client;
  setStatus = status;
  trendSession = new TrendSession($('trend'), engine, { onError: setEngineError });
  return { showDatabase, showTrendDatabase, trendSession };
}
