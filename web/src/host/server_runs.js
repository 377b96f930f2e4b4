// @ts-check
// The page served by `visprobe serve LOGDIR`: the runs under LOGDIR in one searchable list (graph
// and trend databases, shard parts, dump folders, monitor runs), opened in one click (databases
// read lazily with HTTP Range requests, several at once), and builds / data2db run by the server
// with their progress streamed here. On a static host /api/info does not answer and nothing of
// this shows. Every text from the server is set as textContent.
import { t, onLanguage } from '../i18n.js';
import { toast } from '../graph/dom.js';

/** A run under LOGDIR (api/runs); summary: what the server read of it (tb_config fields, a dump's layout...). @typedef {{path: string, kind: string, size: number, mtime: number, summary: Record<string, unknown>}} Run */
/** visprobe serve's api/info (core/app/serve.cc). @typedef {{server: string, version: string, logdir: string, readOnly: boolean}} ServerInfo */
/** @typedef {{id: number, kind: string, label: string, output: string, state: string, percent: number, error: string, results: string[], log: string[]}} Job */

/**
 * The server's /api/info, or null on a static host. visprobe serve marks its answers with a
 * Server-Timing entry, so a static host is never asked for /api/info (its 404 would be a console error).
 */
/** @returns {Promise<ServerInfo|null>} */
export async function detectServer() {
  try {
    const nav = /** @type {PerformanceNavigationTiming|undefined} */ (performance.getEntriesByType('navigation')[0]);
    const timed = nav && Array.isArray(nav.serverTiming) && nav.serverTiming.some((t) => t.name === 'visprobe-serve');
    if (!timed && !/(^|;\s*)visprobe_serve=1/.test(document.cookie)) return null;
    const r = await fetch('api/info', { cache: 'no-store' });
    if (!r.ok) return null;
    const info = await r.json();
    return info && info.server === 'visprobe' ? info : null;
  } catch {
    return null;
  }
}

/** The URL of a file under LOGDIR (the token travels as the cookie the first page load set). @param {string} path */
export const fileUrl = (path) => new URL(`api/file?path=${encodeURIComponent(path)}`, location.href).href;

const sizeText = (/** @type {number} */ b) => (b >= 1e9 ? `${(b / 1e9).toFixed(2)} GB` : b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : `${Math.max(1, Math.round(b / 1e3))} kB`);
const timeText = (/** @type {number} */ s) => new Date(s * 1000).toLocaleString();

/** A short description of a run's summary. @param {Run} r */
function summaryText(r) {
  const s = r.summary || {};
  if (r.kind === 'graph' || r.kind === 'part') return [s.graph_type, s.task && `task ${s.task}`, s.rank_list && `ranks ${s.rank_list}`, s.step_list && `steps ${s.step_list}`].filter(Boolean).join(' · ');
  if (r.kind === 'trend') return s.max_step !== undefined ? `steps ${s.min_step}-${s.max_step} · ranks 0-${s.max_rank}` : '';
  if (r.kind === 'dump') return s.layout === 'steps' ? `stepN/rankN: ${s.steps} steps` : s.layout === 'ranks' ? `rankN: ${s.ranks} ranks` : t('serverOneRank');
  if (r.kind === 'monitor') return `${s.ranks} ${t('serverRankFolders')}`;
  return '';
}

/** An element with a class and a text (either may be empty). @param {string} tag @param {string} [cls] @param {string} [text] */
function h(tag, cls = '', text = '') {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text) e.textContent = text;
  return e;
}

/** @typedef {{info: ServerInfo, openGraphs: (runs: {name: string, url: string}[]) => Promise<void>, openTrends: (files: File[]) => Promise<void>}} App */
/** Starts a build or data2db on the server (the body sent as JSON) and follows it in the jobs list. @typedef {(kind: string, body: Record<string, unknown>) => void} Start */

/** @param {App} app */
export function initServerRuns(app) {
  const box = /** @type {HTMLElement} */ (document.getElementById('server-runs'));
  box.hidden = false;
  document.body.dataset.server = '1';
  /** @type {Run[]} */ let runs = [];
  /** @type {Set<string>} */
  const selected = new Set();
  const title = h('h2');
  const search = /** @type {HTMLInputElement} */ (h('input'));
  search.type = 'search';
  search.id = 'server-search';
  const openSel = /** @type {HTMLButtonElement} */ (h('button', 'primary'));
  openSel.id = 'server-open-selected';
  openSel.type = 'button';
  const list = h('table', 'server-list');
  list.dataset.testid = 'server-runs';
  const tbody = h('tbody');
  list.append(tbody);
  const jobsBox = h('div', 'server-jobs');
  jobsBox.dataset.testid = 'server-jobs';
  /** @type {Start} */
  const start = (kind, body) => { startJob(kind, body, (id) => followJob(jobsBox, id, (chosen) => openRuns(app, chosen), load)); };
  const form = buildForm(app.info.readOnly, start);
  const bar = h('div', 'server-bar');
  bar.append(search, openSel);
  box.append(title, bar, list, form.el, jobsBox);

  const texts = () => {
    title.textContent = t('serverRuns', app.info.logdir || '');
    search.placeholder = t('serverSearch');
    openSel.textContent = t('serverOpenSelected', selected.size);
    openSel.disabled = selected.size === 0;
    form.texts();
  };
  onLanguage(() => { texts(); render(); });

  async function load() {
    try {
      const r = await fetch('api/runs', { cache: 'no-store' });
      if (!r.ok) throw new Error(`${r.status} ${(await r.json().catch(() => ({}))).error || r.statusText}`);
      runs = (await r.json()).runs || [];
    } catch (e) {
      toast(t('serverListFailed', /** @type {Error} */ (e).message), 'warn');
      return;
    }
    for (const p of [...selected]) if (!runs.some((r) => r.path === p)) selected.delete(p);
    render();
    form.fill(runs);
  }

  function render() {
    const q = search.value.trim().toLowerCase();
    tbody.replaceChildren();
    const row = { selected, picked: texts, open: (/** @type {Run} */ r) => openRuns(app, [r]), build: form.choose, output: form.output, start,
                  readOnly: app.info.readOnly };
    for (const r of runs) if (!q || r.path.toLowerCase().includes(q) || r.kind.includes(q)) tbody.append(runRow(r, row));
    texts();
  }

  openSel.addEventListener('click', () => openRuns(app, runs.filter((r) => selected.has(r.path))));
  search.addEventListener('input', render);
  texts();
  load();
  // New files appear without a restart (as TensorBoard's run list reloads).
  window.setInterval(() => { if (!document.hidden) load(); }, 5000);
}

/**
 * One run of the list: its check box (databases), kind, path, size, time, summary and actions: Open
 * (databases), Build (dumps: chosen in the build form) and Trend (dumps, monitor runs).
 * @param {Run} r
 * @param {{selected: Set<string>, picked: () => void, open: (r: Run) => void, build: (path: string) => void, output: () => string,
 *          start: Start, readOnly: boolean}} o
 */
function runRow(r, o) {
  const tr = h('tr');
  tr.dataset.path = r.path;
  tr.dataset.kind = r.kind;
  const pick = h('td');
  if (r.kind === 'graph' || r.kind === 'trend') {
    const c = /** @type {HTMLInputElement} */ (h('input'));
    c.type = 'checkbox';
    c.checked = o.selected.has(r.path);
    c.setAttribute('aria-label', r.path);
    c.addEventListener('change', () => { if (c.checked) o.selected.add(r.path); else o.selected.delete(r.path); o.picked(); });
    pick.append(c);
  }
  const act = h('td', 'server-act');
  if (r.kind === 'graph' || r.kind === 'trend') {
    const b = h('button', '', t('serverOpen'));
    b.addEventListener('click', () => o.open(r));
    act.append(b);
  } else if (r.kind === 'dump' || r.kind === 'monitor') {
    if (r.kind === 'dump') {
      const b = h('button', '', t('serverBuildThis'));
      b.addEventListener('click', () => o.build(r.path));
      act.append(b);
    }
    const d = h('button', '', t('serverTrendThis'));
    d.addEventListener('click', () => o.start('data2db', { data: r.path, output: o.output(), options: { format: r.kind === 'monitor' ? 'monitor' : 'auto' } }));
    act.append(d);
    if (o.readOnly) act.querySelectorAll('button').forEach((x) => { /** @type {HTMLButtonElement} */ (x).disabled = true; });
  }
  tr.append(pick, h('td', `server-kind kind-${r.kind}`, t(`serverKind_${r.kind}`)), h('td', 'server-path', r.path || '.'),
            h('td', 'server-size', sizeText(r.size)), h('td', 'server-time', timeText(r.mtime)), h('td', 'server-summary', summaryText(r)), act);
  return tr;
}

/** Opens databases: graph ones as sources (the first shown), trend ones together (A/B). @param {App} app @param {Run[]} chosen */
async function openRuns(app, chosen) {
  const graphs = chosen.filter((r) => r.kind === 'graph').map((r) => ({ name: r.path.split('/').pop() || r.path, url: fileUrl(r.path) }));
  const trends = chosen.filter((r) => r.kind === 'trend');
  if (trends.length) {
    const files = [];
    // Names in the trend views: the file's own, or with its folder when two share one (runs/a/x, runs/b/x).
    const base = (/** @type {string} */ p) => p.split('/').pop() || p;
    const dup = (/** @type {string} */ p) => trends.filter((x) => base(x.path) === base(p)).length > 1;
    for (const r of trends) {
      const resp = await fetch(fileUrl(r.path));
      if (!resp.ok) { toast(t('serverListFailed', `${r.path}: ${resp.status}`), 'warn'); return; }
      files.push(new File([await resp.blob()], dup(r.path) ? r.path.split('/').slice(-2).join('_') : base(r.path)));
    }
    await app.openTrends(files);
  }
  if (graphs.length) await app.openGraphs(graphs);
}

/**
 * POSTs a build or data2db and follows it. @param {string} kind @param {Record<string, unknown>} body  sent as JSON
 * @param {(id: number) => void} follow
 */
async function startJob(kind, body, follow) {
  const r = await fetch(`api/${kind}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const out = await r.json().catch(() => ({}));
  if (!r.ok) { toast(out.error || `${r.status}`, 'warn'); return; }
  follow(out.id);
}

/**
 * One line per job in `jobsBox`, updated from its event stream until it ends; a finished job's
 * results open in one click, and the run list reloads.
 * @param {HTMLElement} jobsBox @param {number} id @param {(runs: Run[]) => void} open @param {() => void} reload
 */
function followJob(jobsBox, id, open, reload) {
  const row = h('div', 'server-job');
  row.dataset.job = String(id);
  const label = h('span', 'server-job-label');
  const prog = /** @type {HTMLProgressElement} */ (h('progress'));
  prog.max = 100;
  const state = h('span', 'server-job-state');
  state.dataset.testid = 'job-state';
  const cancel = h('button', '', t('cancel'));
  cancel.addEventListener('click', () => fetch(`api/jobs/${id}/cancel`, { method: 'POST' }));
  const tail = h('pre', 'server-job-log');
  row.append(label, prog, state, cancel, tail);
  jobsBox.prepend(row);
  const es = new EventSource(`api/jobs/${id}/events`);
  es.onmessage = (ev) => {
    /** @type {Job} */ const j = JSON.parse(ev.data);
    label.textContent = `${j.kind === 'build' ? 'graph_visualize' : 'data2db'} ${j.label}`;
    if (j.percent >= 0) prog.value = j.percent; else prog.removeAttribute('value');
    state.textContent = t(`serverJob_${j.state}`) + (j.error ? `: ${j.error}` : '');
    row.dataset.state = j.state;
    tail.textContent = j.log.slice(-3).join('\n');
    if (j.state === 'done' || j.state === 'failed' || j.state === 'cancelled') {
      es.close();
      cancel.remove();
      if (j.state === 'done') {
        for (const p of j.results) {
          const b = h('button', 'primary', t('serverOpenResult', p.split('/').pop() || p));
          b.addEventListener('click', () => open([{ path: p, kind: p.endsWith('.trend.db') ? 'trend' : 'graph', size: 0, mtime: 0, summary: {} }]));
          row.append(b);
        }
      }
      reload();
    }
  };
  es.onerror = () => { if (row.dataset.state !== 'done') state.textContent = t('serverJobLost'); es.close(); };
}

/**
 * The build form: target and golden dump folders under LOGDIR, msProbe's options, output folder.
 * @param {boolean} readOnly  the server runs nothing (the form is disabled) @param {Start} start
 */
function buildForm(readOnly, start) {
  const el = /** @type {HTMLFieldSetElement} */ (h('fieldset', 'server-build'));
  el.dataset.testid = 'server-build';
  const legend = h('legend');
  const target = /** @type {HTMLSelectElement} */ (h('select'));
  target.id = 'server-target';
  const golden = /** @type {HTMLSelectElement} */ (h('select'));
  golden.id = 'server-golden';
  const oc = /** @type {HTMLInputElement} */ (h('input'));
  oc.type = 'checkbox';
  oc.id = 'server-oc';
  const fm = /** @type {HTMLInputElement} */ (h('input'));
  fm.type = 'checkbox';
  fm.id = 'server-fm';
  const merge = /** @type {HTMLInputElement} */ (h('input'));
  merge.id = 'server-merge';
  merge.placeholder = '--rank_size 4 4 --tp 2 2 --pp 2 2';
  const out = /** @type {HTMLInputElement} */ (h('input'));
  out.id = 'server-output';
  const go = /** @type {HTMLButtonElement} */ (h('button', 'primary'));
  go.id = 'server-build-go';
  go.type = 'button';
  const labels = { t: h('label'), g: h('label'), oc: h('label'), fm: h('label'), m: h('label'), o: h('label') };
  const span = () => h('span');
  const [st, sg, soc, sfm, sm, so] = [span(), span(), span(), span(), span(), span()];
  labels.t.append(st, target);
  labels.g.append(sg, golden);
  labels.oc.append(oc, soc);
  labels.fm.append(fm, sfm);
  labels.m.append(sm, merge);
  labels.o.append(so, out);
  el.append(legend, labels.t, labels.g, labels.oc, labels.fm, labels.m, labels.o, go);
  if (readOnly) el.disabled = true;
  go.addEventListener('click', () => {
    if (!target.value) return;
    /** @type {Record<string, unknown>} */ const options = { overflowCheck: oc.checked, fuzzyMatch: fm.checked };
    const m = merge.value.trim().split(/\s+/);
    for (let i = 0; i < m.length; ++i) {
      const key = { '--rank_size': 'rankSize', '--tp': 'tp', '--pp': 'pp', '--vpp': 'vpp', '--order': 'order' }[m[i]];
      if (!key) continue;
      const vals = [];
      while (i + 1 < m.length && !m[i + 1].startsWith('--')) vals.push(m[++i]);
      options[key] = vals.join(' ');
    }
    start('build', { target: target.value, golden: golden.value || undefined, output: out.value.trim(), options });
  });
  return {
    el,
    output: () => out.value.trim(),
    choose: (/** @type {string} */ p) => { target.value = p; el.scrollIntoView({ block: 'nearest' }); },
    fill: (/** @type {Run[]} */ all) => {
      const dumps = all.filter((r) => r.kind === 'dump').map((r) => r.path);
      for (const [sel, none] of /** @type {[HTMLSelectElement, boolean][]} */ ([[target, false], [golden, true]])) {
        const keep = sel.value;
        sel.replaceChildren();
        if (none) sel.append(Object.assign(h('option', '', t('serverNoGolden')), { value: '' }));
        for (const d of dumps) sel.append(Object.assign(h('option', '', d || '.'), { value: d }));
        if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
      }
    },
    texts: () => {
      legend.textContent = t('serverBuildLegend');
      st.textContent = t('targetDump');
      sg.textContent = t('goldenDump');
      soc.textContent = t('optOc');
      sfm.textContent = t('optFm');
      sm.textContent = t('graphMerge');
      so.textContent = t('serverOutput');
      out.placeholder = t('serverOutputHint');
      go.textContent = t('serverBuildGo');
    },
  };
}
