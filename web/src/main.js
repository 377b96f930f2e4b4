// @ts-check
// The page: intake (drop / pick folders, open a .db), the run with the CLI's options, progress,
// errors, a summary of the database and a searchable node list. Text from a dump is only ever
// set as textContent, never as HTML.
import { EngineClient } from './engine/client.js';
import { entriesFromFileList, entriesFromDrop, describeLayout } from './intake/files.js';
import { saveBlob } from './host/download.js';
import * as urlState from './host/url_state.js';
import * as store from './host/store.js';
import * as views from './host/views.js';
import { addSource, getCurrentSource, keepCurrentSource } from './host/sources.js';
import { toast, setText } from './graph/dom.js';
import { t as translate } from './i18n.js';
import { initPrefs, toggleTheme, toggleLanguage } from './host/prefs.js';
import { setDrawer, inApp, wireAppShell } from './host/app_shell.js';
import { engineText, MessageError, pageMessage } from './engine_text.js';
/** @typedef {import('./engine/protocol.js').EngineMessage} EngineMessage */
import { setError, setEngineError, appendLog as log } from './engine_messages.js';
import { listNodes as listNodesOf } from './host/db_summary.js';
import { initShow } from './host/show.js';
import { storage, probeStorage, MAX_DUMP_BYTES, DB_PER_DUMP_BYTE } from './host/storage_budget.js';
import { detectServer, initServerRuns } from './host/server_runs.js';
import { sampleEntries } from './host/sample.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
// The one-file build defines VISPROBE_WORKER_SOURCE: its worker comes from a Blob URL (file://
// pages may not load worker scripts); the http build loads worker.js next to the page.
/* global VISPROBE_WORKER_SOURCE */
const engine = typeof VISPROBE_WORKER_SOURCE === 'string'
  ? new EngineClient(URL.createObjectURL(new Blob([VISPROBE_WORKER_SOURCE], { type: 'text/javascript' })), 'classic')
  : new EngineClient(new URL('./worker.js', import.meta.url).href);

// Exposed for the benchmarks and tests (read-only use).
window.visprobeEngine = engine;

// __VISPROBE_VERSION__: web/build.mjs defines it (declared in eslint.config.mjs and globals.d.ts).
$('app-version').textContent = typeof __VISPROBE_VERSION__ === 'string' ? __VISPROBE_VERSION__ : '';

/** A chosen folder: its name, files and what they look like. @typedef {{name: string, entries: import('./engine/protocol.js').FileEntry[], layout: ReturnType<typeof describeLayout>}} Chosen */
/** @type {{target: Chosen|null, golden: Chosen|null, mapping: File|null}} */
const chosen = { target: null, golden: null, mapping: null };

/** The CLI command that does this run on a machine, for the messages that send a user there. */
function cliCommand() {
  const t = chosen.target, g = chosen.golden;
  return `visprobe graph_visualize -tp ${t ? t.name || 'TARGET' : 'TARGET'}${g ? ` -gp ${g.name || 'GOLDEN'}` : ''} -o OUT`;
}

let shownDb = '';
/**
 * After a failed run the views still show the last database: say so above them and dim them, so
 * its graph is never taken for this run's (issue 18). Cleared when a database is shown.
 * @param {boolean} failed
 */
function markPrevious(failed) {
  const el = $('previous');
  const shown = ['workspace', 'trend', 'result'].filter((id) => !$(id).hidden);
  const on = failed && shown.length > 0;
  el.hidden = !on;
  if (on) setText(el, 'previousResult', shownDb);
  else { el.textContent = ''; delete el.dataset.i18n; }
  for (const id of ['workspace', 'trend', 'result']) $(id).classList.toggle('stale', on);
}

/** @param {string} text */
function setNotice(text) {
  const el = $('notice');
  el.hidden = !text;
  el.textContent = text || '';
}

/**
 * X-01: the status line by dictionary key; it follows the language toggle.
 * @param {string} key @param {number} [percent] @param {...unknown} args
 */
function setStatus(key, percent, ...args) {
  setText($('status'), key, ...args);
  if (percent !== undefined) /** @type {HTMLProgressElement} */ ($('progress')).value = percent;
}

// The graph and trend workspaces and the database each shows (host/show.js).
const { showDatabase, showTrendDatabase, trendSession } = initShow(engine, setStatus);

/** @param {import('./engine/protocol.js').FileEntry[]} entries */
function dumpBytes(entries) {
  return entries.filter((e) => e.path.endsWith('dump.json')).reduce((n, e) => n + e.file.size, 0);
}

function refresh() {
  const t = chosen.target;
  const g = chosen.golden;
  $('run').dataset.i18n = g ? 'compare' : 'build';
  $('run').textContent = translate(g ? 'compare' : 'build');
  /** @type {HTMLButtonElement} */ ($('run')).disabled = !t || t.layout.kind === 'unknown' || t.layout.kind === 'database' || t.layout.kind === 'monitor' ||
    t.layout.missing.length > 0 || (!!g && g.layout.missing.length > 0);
  /** @type {HTMLButtonElement} */ ($('run-trend')).disabled = !t || t.layout.kind === 'database';
  const total = (t ? dumpBytes(t.entries) : 0) + (g ? dumpBytes(g.entries) : 0);
  const box = $('subset-box');
  const select = /** @type {HTMLSelectElement} */ ($('subset'));
  select.textContent = '';
  box.hidden = true;
  const need = total * DB_PER_DUMP_BYTE;
  const tooBig = storage.opfs ? need > storage.free : total > MAX_DUMP_BYTES;
  const mb = (/** @type {number} */ n) => (n / 1e6).toFixed(0);
  if (t && tooBig && (t.layout.kind === 'steps' || t.layout.kind === 'ranks')) {
    // Too big for one tab (memory, or the storage quota with OPFS): offer one step (or rank) at a
    // time instead of crashing the tab.
    const subs = t.layout.kind === 'steps' ? t.layout.steps : t.layout.ranks;
    for (const s of subs) select.append(new Option(s, s));
    box.hidden = false;
    const steps = t.layout.kind === 'steps';
    setNotice(storage.opfs ? translate(steps ? 'tooBigQuotaSteps' : 'tooBigQuotaRanks', mb(total), mb(need), mb(storage.free), cliCommand())
                           : translate(steps ? 'tooBigSteps' : 'tooBigRanks', mb(total), mb(MAX_DUMP_BYTES)));
  } else if (t && tooBig) {
    setNotice(storage.opfs ? translate('tooBigQuota', mb(total), mb(need), mb(storage.free), cliCommand()) : translate('tooBig', mb(total)));
    /** @type {HTMLButtonElement} */ ($('run')).disabled = true;
  } else {
    setNotice('');
  }
}

/** @param {'target'|'golden'} side @param {{name: string, entries: import('./engine/protocol.js').FileEntry[]}} picked */
async function choose(side, picked) {
  if (inApp()) setDrawer(true);   // the app's drawer shows what was chosen and the Build button
  const layout = describeLayout(picked.entries);
  if (layout.kind === 'database' && side === 'target') {
    await openDbFile(picked.entries[0].file);
    return;
  }
  chosen[side] = { ...picked, layout };
  setError('');
  const text = document.createElement('span');
  setText(text, layout.key, ...layout.args);
  $(`layout-${side}`).replaceChildren(`${picked.name || '(files)'}: `, text, `, ${(layout.bytes / 1e6).toFixed(1)} MB`);
  if (layout.missing.length) {
    const miss = document.createElement('span');
    miss.className = 'layout-missing';
    miss.dataset.testid = `missing-${side}`;
    const shown = layout.missing.length > 6 ? [...layout.missing.slice(0, 6), `… (${layout.missing.length})`] : layout.missing;
    setText(miss, 'layoutMissing', shown.join(', '));
    $(`layout-${side}`).append(' — ', miss);
  }
  await probeStorage(engine);   // the quota left may have changed since the last choice
  refresh();
}

/** @param {File|Blob} file @param {string} [name] */
async function openDbFile(file, name) {
  setError('');
  try {
    // The worker reads the file lazily (a block at a time): no copy of it here or there.
    await keepCurrentSource(engine);
    // A .trend.db opens beside a shown graph (the Graph | Trend switch brings that back as it was).
    const info = await views.openFile(name || /** @type {File} */ (file).name || 'opened.vis.db', file);
    if (info.kind === 'trend') await showTrendDatabase(info.name, file);
    else await showDatabase(info.name, { file, source: addSource('', info.name, file) });
    setStatus('databaseOpened', 100);
  } catch (e) {
    setEngineError(e);
  }
}

/**
 * index.html?db=URL: a database on the page's own host (or a relative path), read lazily with HTTP
 * Range requests; nothing is downloaded whole. @param {string} spec
 */
async function openHostedDb(spec) {
  setError('');
  let url;
  try {
    url = new URL(spec, location.href);
  } catch {
    setError(translate('dbUrlBad', spec));
    return;
  }
  if (url.origin !== location.origin) {
    setError(translate('dbUrlOrigin', spec, location.origin));
    return;
  }
  const name = decodeURIComponent(url.pathname.split('/').pop() || 'hosted.vis.db');
  setStatus('openingSource', undefined, name);
  try {
    const info = await engine.openUrl(name, url.href);
    if (info.kind === 'trend') await showTrendDatabase(info.name, null);
    else await showDatabase(info.name, { source: addSource('', info.name, null, url.href) });
    setStatus('databaseOpened', 100);
  } catch (e) {
    setStatus('statusFailed', 0);
    setEngineError(e);
  }
}

/** Graph databases on the server: each a source read lazily over HTTP Range, the first shown. @param {{name: string, url: string}[]} runs */
async function openServerGraphs(runs) {
  setError('');
  try {
    await keepCurrentSource(engine);
    for (const r of [...runs].reverse()) {
      setStatus('openingSource', undefined, r.name);
      const info = await engine.openUrl(r.name, r.url);
      if (info.kind === 'trend') await showTrendDatabase(info.name, null);
      else await showDatabase(info.name, { source: addSource('', info.name, null, r.url) });
    }
    setStatus('databaseOpened', 100);
  } catch (e) {
    setStatus('statusFailed', 0);
    setEngineError(e);
  }
}

/** Trend databases from the server, opened together (A/B in the trend views). @param {File[]} files */
async function openServerTrends(files) {
  for (const f of files) await openDbFile(f, f.name);
}

async function runEngine() {
  const t = chosen.target;
  if (!t) return;
  setError('');
  $('result').hidden = true;
  $('log').textContent = '';
  /** @type {HTMLButtonElement} */ ($('run')).disabled = true;
  /** @type {HTMLButtonElement} */ ($('cancel')).disabled = false;
  setStatus('statusRunning', 0);
  const sub = $('subset-box').hidden ? '' : /** @type {HTMLSelectElement} */ ($('subset')).value;
  /** @type {EngineMessage} */
  let stage = pageMessage('Starting');
  const options = {
    overflowCheck: /** @type {HTMLInputElement} */ ($('opt-oc')).checked,
    fuzzyMatch: /** @type {HTMLInputElement} */ ($('opt-fm')).checked,
    layerMapping: /** @type {HTMLInputElement} */ ($('opt-lm')).checked,
    mapping: chosen.mapping,
    rankSize: /** @type {HTMLInputElement} */ ($('opt-rank-size')).value,
    tp: /** @type {HTMLInputElement} */ ($('opt-tp')).value,
    pp: /** @type {HTMLInputElement} */ ($('opt-pp')).value,
    vpp: /** @type {HTMLInputElement} */ ($('opt-vpp')).value,
    order: /** @type {HTMLInputElement} */ ($('opt-order')).value,
    targetSub: sub,
    goldenSub: sub && chosen.golden ? sub : '',
  };
  try {
    await keepCurrentSource(engine);
    const r = await engine.run({ target: t.entries, golden: chosen.golden ? chosen.golden.entries : null, options,
                                 targetName: t.name, goldenName: chosen.golden ? chosen.golden.name : '',
                                 keepRuns: store.keptRuns() },
      (type, data) => {
        if (type === 'LOG') {
          log(data.line, data.message);
          if (data.level === 'INFO') stage = data.message;
        } else if (type === 'PROGRESS') {
          if (data.running) setStatus('statusRunningAt', data.percent, data.percent.toFixed(0), engineText(stage));
          else setStatus('statusFinishing', data.percent);
        }
      });
    if (!r.ok) {
      const q = r.quota, command = cliCommand();
      setError(() => (q ? `${translate('quotaFull', q.usageMB, q.quotaMB, command)}\n` : '') + engineText(r.message));
      setStatus('statusFailed', 0);
      markPrevious(true);
    } else {
      setStatus('statusReady', 100, r.rows, r.seconds.toFixed(2));
      const db = /** @type {import('./engine/protocol.js').DbInfo} */ (r.db);   // (a run that is ok opened its database)
      await showDatabase(db.name, { source: addSource(t.name || '(files)', db.name, null) });
    }
  } catch (e) {
    const err = /** @type {Error} */ (e);
    setStatus(err.name === 'Cancelled' ? 'statusCancelled' : 'statusFailed', 0);
    if (err.name !== 'Cancelled') setEngineError(err);
    markPrevious(true);
  } finally {
    /** @type {HTMLButtonElement} */ ($('cancel')).disabled = true;
    refresh();
  }
}

/** data2db on the target folder (trend-analyzer §12); each database it writes opens in the trend views. */
async function runTrend() {
  const t = chosen.target;
  if (!t) return;
  setError('');
  $('log').textContent = '';
  /** @type {HTMLButtonElement} */ ($('run-trend')).disabled = true;
  /** @type {HTMLButtonElement} */ ($('cancel')).disabled = false;
  setStatus('statusTrendRunning', 0);
  /** @type {EngineMessage} */
  let stage = pageMessage('Starting');
  const options = {
    format: /** @type {HTMLSelectElement} */ ($('trend-format')).value,
    microStep: /** @type {HTMLInputElement} */ ($('opt-micro')).checked,
  };
  try {
    const r = await engine.trend({ data: t.entries, options, dataName: t.name }, (type, data) => {
      if (type === 'LOG') {
        log(data.line, data.message);
        if (data.level === 'INFO') stage = data.message;
      } else if (type === 'PROGRESS') {
        if (data.running) setStatus('statusTrendAt', data.percent, data.percent.toFixed(0), engineText(stage));
        else setStatus('statusFinishing', data.percent);
      }
    });
    if (!r.ok) throw new MessageError(r.message);
    if (!r.databases.length) throw new Error(translate('noTrendData'));
    // Issue 19: a second run keeps the first one's databases beside it (for A/B): a name already
    // open gets the suffix the CLI gives a repeated run (dump_data_1.trend.db, ...).
    const taken = new Set(trendSession.trend ? [...trendSession.trend.files.keys()] : []);
    for (const d of [...r.databases].reverse()) {
      let name = d.name;
      for (let k = 1; taken.has(name); ++k) name = d.name.replace(/(\.trend\.db)?$/, `_${k}$1`);
      taken.add(name);
      await openDbFile(new File([d.bytes], name), name);
    }
    setStatus('statusTrendReady', 100, r.seconds.toFixed(1), r.rows);
  } catch (e) {
    setEngineError(e);
    setStatus('statusFailed', 0);
    markPrevious(true);
  } finally {
    /** @type {HTMLButtonElement} */ ($('cancel')).disabled = true;
    refresh();
  }
}

async function download() {
  const cur = getCurrentSource();
  if (cur && cur.url && !cur.edited) {
    // A hosted database unchanged: the browser downloads it from its URL, streaming to disk.
    const a = document.createElement('a');
    a.href = cur.url;
    a.download = cur.name;
    document.body.append(a);
    a.click();
    a.remove();
    return;
  }
  const { name, bytes } = await engine.exportDb();
  saveBlob(new Blob([bytes], { type: 'application/vnd.sqlite3' }), name);
}

async function loadSample() {
  for (const side of /** @type {('target'|'golden')[]} */ (['target', 'golden']))
    await choose(side, { name: `sample ${side}`, entries: await sampleEntries(side) });
  /** @type {HTMLInputElement} */ ($('opt-oc')).checked = true;
}

/** The sample's monitor run, run through data2db in this tab. */
async function loadTrendSample() {
  await choose('target', { name: 'trend sample (monitor run)', entries: await sampleEntries('trend') });
  await runTrend();
}

/** @param {'target'|'golden'} side */
function wireSlot(side) {
  const slot = $(`slot-${side}`);
  slot.tabIndex = -1;   // focused by the rail's "Build / open data" (APP-03)
  slot.addEventListener('dragover', (e) => { e.preventDefault(); slot.classList.add('over'); });
  slot.addEventListener('dragleave', () => slot.classList.remove('over'));
  slot.addEventListener('drop', async (e) => {
    e.preventDefault();
    slot.classList.remove('over');
    if (e.dataTransfer) await choose(side, await entriesFromDrop(e.dataTransfer));
  });
  $(`pick-${side}`).addEventListener('change', async (e) => {
    const input = /** @type {HTMLInputElement} */ (e.target);
    if (input.files && input.files.length) await choose(side, entriesFromFileList(input.files));
    input.value = '';
  });
}

/** X-01 / X-02: language and theme (host/prefs.js); the sample buttons get their dictionary keys here (the one-file build without a sample removes them by id). */
function initLanguage() {
  const sample = document.getElementById('load-sample');
  if (sample) sample.dataset.i18n = 'loadSample';
  const trendSample = document.getElementById('load-trend-sample');
  if (trendSample) trendSample.dataset.i18n = 'loadTrendSample';
  initPrefs();
  wireAppShell({
    download: () => { download().catch((e) => setEngineError(e)); },
    toggleTheme, toggleLanguage,
    help: () => {
      const d = /** @type {HTMLDetailsElement|null} */ (document.querySelector('#workspace:not([hidden]) .ws-shortcuts'));
      if (d) d.open = !d.open; else toast(translate('helpNoWorkspace'), 'info');
    },
  });
}

function init() {
  initLanguage();
  const missing = ['Worker', 'WebAssembly', 'TextDecoder'].filter((k) => !(k in window));
  if (missing.length) { setError(translate('unsupportedBrowser', missing.join(', '))); return; }
  wireSlot('target');
  wireSlot('golden');
  $('pick-db').addEventListener('change', async (e) => {
    const input = /** @type {HTMLInputElement} */ (e.target);
    // Several files: opened last-name-first, so the first by name ends up current (§9 Q8).
    const files = input.files ? [...input.files].sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)) : [];
    input.value = '';
    for (const f of files) await openDbFile(f);
  });
  $('pick-yaml').addEventListener('change', async (e) => {
    const input = /** @type {HTMLInputElement} */ (e.target);
    const file = input.files && input.files[0];
    input.value = '';
    if (!file) return;
    try {
      // Checked before the run by the engine's own reader of -lm files (core CheckLayerMappingText),
      // so the page and the run accept the same files.
      const check = await engine.checkMapping({ text: await file.text(), name: file.name });
      if (!check.ok) throw new Error(engineText(check.message));
      chosen.mapping = file;
      $('yaml-name').textContent = file.name;
      /** @type {HTMLInputElement} */ ($('opt-lm')).checked = true;
      setError('');
    } catch (err) {
      chosen.mapping = null;
      $('yaml-name').textContent = '';
      setError(translate('notLayerMapping', file.name, /** @type {Error} */ (err).message));
    }
  });
  $('clear-golden').addEventListener('click', () => {
    chosen.golden = null;
    const none = document.createElement('span');
    none.dataset.i18n = 'buildOnly';
    none.textContent = translate('buildOnly');
    $('layout-golden').replaceChildren(none);
    refresh();
  });
  $('run').addEventListener('click', runEngine);
  $('run-trend').addEventListener('click', runTrend);
  $('cancel').addEventListener('click', () => { engine.cancel(); views.workerRestarted(); });
  $('download').addEventListener('click', download);
  urlState.init();
  views.initViews({ engine, trendSession, showGraph: showDatabase, showTrend: showTrendDatabase, addSource, currentSource: getCurrentSource,
                    keepSource: () => keepCurrentSource(engine), onShown: (name) => { markPrevious(false); shownDb = name; },
                    afterForget: () => probeStorage(engine).then(refresh), setNotice, setStatus, setError });
  probeStorage(engine).then(refresh);
  const hosted = new URLSearchParams(location.search).get('db');
  if (hosted) openHostedDb(hosted);
  else views.restoreFromUrl();
  // Served by `visprobe serve LOGDIR`: the runs on the server, and builds there.
  detectServer().then((info) => {
    if (info) initServerRuns({ info, openGraphs: openServerGraphs, openTrends: openServerTrends });
  });
  const sample = document.getElementById('load-sample');   // absent from a one-file page made without a sample
  if (sample) sample.addEventListener('click', () => loadSample().catch((e) => setError(e.plain ? e.message : translate('noSample', e.message))));
  const trendSample = document.getElementById('load-trend-sample');
  if (trendSample) trendSample.addEventListener('click', () => loadTrendSample().catch((e) => setError(e.plain ? e.message : translate('noSample', e.message))));
  let timer = 0;
  $('search').addEventListener('input', (e) => {
    clearTimeout(timer);
    const v = /** @type {HTMLInputElement} */ (e.target).value;
    timer = window.setTimeout(() => (v ? listNodesOf(engine, v, /** @type {HTMLTableSectionElement} */ ($('nodes').querySelector('tbody'))) : undefined), 150);
  });
}

init();
