// @ts-check
// The engine's Web Worker: mounts the dropped files with WORKERFS so the C++ engine reads them
// with plain file I/O, runs graph_visualize, and keeps the finished database open in sql.js for
// the views' queries. Nothing here decides anything the engine decides.
import { Req, Ev } from './protocol.js';
import { badgesOf, hasBadgeTable, refreshBadges, thresholdsOf } from './badges.js';
import { blobSource, lazyDatabaseBytes, urlSource } from './lazy_file.js';
import { createPool, opfsAvailable, opfsFilesystem, slotOf, sweepRuns } from './opfs_fs.js';
import { checkEngineSupport } from './wasm_features.js';
import { manualMatch, manualUnmatch, keepTensorFolders, setTensorFolders, tensorFolderNames } from './manual_match.js';
import { engineOutput, describeFailure, logStatements, queryPlans } from './worker_diag.js';
import { namedMessage, valueOf } from './engine_call.js';
import { MessageError, messageOf, pageMessage } from '../engine_text.js';
/** @typedef {import('./protocol.js').EngineMessage} EngineMessage */

/** @typedef {import('visprobe-wasm/visprobe_web.mjs').VisprobeModule} VisprobeModule */
/** @typedef {import('sql.js').Database} Database */
/** @typedef {ReturnType<typeof lazyDatabaseBytes>} LazyBytes */
/** A database kept in OPFS: its run folder, file, and the sync handle held open on it (the lock). @typedef {{run: string, file: string, lock: FileSystemSyncAccessHandle}} OpfsFile */
/**
 * How the worker loads its two modules. `engine` receives the engine module's output functions
 * (emscripten's print / printErr), which keep its last lines for an abort's report.
 * @typedef {{engine: (out: EngineOutput) => Promise<VisprobeModule>, sql: () => Promise<import('sql.js').SqlJsStatic>}} Loaders
 * @typedef {import('./worker_diag.js').EngineOutput} EngineOutput
 */

/** @type {VisprobeModule|null} */ let engine = null;
/** @type {import('sql.js').SqlJsStatic|null} */ let SQL = null;
// Every open database by name (several .trend.db for the A/B comparison, BEY-11); `db` is the
// current one, which QUERY without a `db` name, MATCH, UNMATCH and EXPORT_DB use.
/** @type {Map<string, {db: Database, kind: string, lazy: LazyBytes|null, opfs?: OpfsFile}>} */
const open = new Map();
/** @type {Database|null} */ let db = null;
let dbName = '';
let runCount = 0;
// This worker's run folders in OPFS are named after it, so two tabs never share one.
const tabId = Math.random().toString(36).slice(2, 10);
/** null: not probed yet. @type {boolean|null} */
let opfsOk = null;

/** @type {Loaders} */
let loaders;

/** The engine module on its way (one load, however many requests wait for it). @type {Promise<void>|null} */
let engineLoading = null;

/** The loaded engine module (after loadEngine). @returns {VisprobeModule} */
function mod() {
  if (!engine) throw new Error('The engine module is not loaded.');
  return engine;
}

/** The loaded sql.js (after loadSql). @returns {import('sql.js').SqlJsStatic} */
function sqlJs() {
  if (!SQL) throw new Error('sql.js is not loaded.');
  return SQL;
}

async function loadEngine() {
  if (!engine) {
    checkEngineSupport();
    if (!engineLoading) {
      engineLoading = loaders.engine(engineOutput).then((m) => {
        // The database grows in MEMFS by small steps past 16 MB (x1.125), copying the whole file
        // each time; grow it by doubling instead (measured on a 240 MB compare: see README).
        const MEMFS = m.FS.filesystems.MEMFS;
        const expand = MEMFS.expandFileStorage;
        MEMFS.expandFileStorage = function (node, capacity) {
          const prev = node.contents ? node.contents.length : 0;
          if (prev >= capacity) return;
          return expand.call(this, node, Math.max(capacity, prev * 2));
        };
        engine = m;
      });
    }
    try {
      await engineLoading;
    } catch (e) {
      engineLoading = null;   // the next request tries again and reports the failure itself
      throw e;
    }
  }
  await loadSql();
}

/**
 * After a database opens: the engine module loads (fetch and compile) in the background, so the
 * first request that needs it (the legend's thresholds behind First divergence, computed badges,
 * manual matching) does not wait for it. A failure is left to that request to report.
 */
function warmEngine() {
  if (!engine && !engineLoading) setTimeout(() => { loadEngine().catch(() => {}); }, 0);
}

/** sql.js alone: opening and querying a database does not need the engine module. */
async function loadSql() {
  if (!SQL) {
    SQL = await loaders.sql();
    logStatements(/** @type {Record<string, Function>} */ (/** @type {unknown} */ (SQL.Database.prototype)));
  }
}

/** @param {number} id @param {string} type @param {unknown} data @param {Transferable[]} [transfer] */
function reply(id, type, data, transfer) { self.postMessage({ requestId: id, type, data }, { transfer: transfer || [] }); }

/** @param {number} id @param {unknown} e */
function fail(id, e) {
  self.postMessage({ requestId: id, error: describeFailure(e) });
}

/**
 * Opens bytes as database `name` (replacing one of that name) and makes it current unless
 * `current` is false. A graph database replaces the other graph databases: the graph workspace
 * shows one at a time. `lazy` (lazy_file.js): a dropped file or a URL read a block at a time; it
 * costs the pages the queries touch, not its size.
 * @param {string} name @param {Uint8Array|null} bytes @param {boolean} [current] @param {LazyBytes|null} [lazy]
 * @param {OpfsFile} [opfs] a database kept in OPFS (its lock is closed with it)
 */
function openDatabase(name, bytes, current = true, lazy = null, opfs = undefined) {
  let next;
  try {
    next = new (sqlJs().Database)(lazy ? lazy.bytes : bytes);
    // The pages the views touch stay in SQLite's cache (32 MiB) above the reader's blocks (48 MiB).
    if (lazy) next.exec('PRAGMA cache_size=-32768');
  } catch (e) {
    throw new MessageError(pageMessage('NotSqliteDatabase', { name, m: String(/** @type {Error} */ (e).message) }), 'DbOpenError');
  }
  let names;
  try {
    const tables = next.exec("SELECT name FROM sqlite_master WHERE type='table'")[0];
    names = tables ? tables.values.map((r) => String(r[0])) : [];
  } catch (e) {
    next.close();
    throw new MessageError(pageMessage('NotSqliteDatabase', { name, m: String(/** @type {Error} */ (e).message) }), 'DbOpenError');
  }
  // A graph database (.vis.db: tb_nodes) or a trend database (.trend.db: trend_data / global_stats).
  const kind = names.includes('tb_nodes') ? 'vis' : (names.includes('trend_data') || names.includes('global_stats')) ? 'trend' : '';
  if (!kind) {
    next.close();
    throw new MessageError(pageMessage('NotVisprobeMsprobeDatabase', { name }), 'DbOpenError');
  }
  for (const [n, o] of [...open]) if (n === name || (kind === 'vis' && o.kind === 'vis')) closeDatabase(n);
  open.set(name, { db: next, kind, lazy, opfs });
  if (current || !db) { db = next; dbName = name; }
  return { name, kind, tables: names };
}

/** @param {string} name */
function closeDatabase(name) {
  const o = open.get(name);
  if (!o) return;
  o.db.close();
  // The run folder stays until the next sweep (a kept session may name it); only the lock goes.
  if (o.opfs) try { o.opfs.lock.close(); } catch { /* closed */ }
  open.delete(name);
  if (o.db === db) { db = null; dbName = ''; }
}

/** The database a QUERY names, else the current one. @param {string|undefined} name */
function databaseOf(name) {
  if (!name) {
    if (!db) throw new MessageError(pageMessage('NoDatabaseOpen'));
    return db;
  }
  const o = open.get(name);
  if (!o) throw new MessageError(pageMessage('NotOpen', { name }), 'DbNotOpen');
  return o.db;
}

/** @param {import('./protocol.js').FileEntry[]} files @param {string} where */
function mount(files, where) {
  const FS = mod().FS;
  FS.mkdirTree(where);
  FS.mount(mod().WORKERFS || FS.filesystems.WORKERFS, { blobs: files.map(f => ({ name: f.path, data: f.file })) }, where);
}

/**
 * Messages name the user's own folders: each mount path of this run (`/run5/target/...`) becomes the
 * dropped folder's name (`noconstruct/step0/rank0/construct.json`), the output folder disappears
 * (`build_....vis.db`). Longest first, so `/run5/target/x` never turns into `<name>/target/x`.
 * @param {[string, string][]} mounts [mount path, user's name ('' = drop it)]
 * @returns {(text: string) => string}
 */
export function userPaths(mounts) {
  const pairs = [...mounts].sort((a, b) => b[0].length - a[0].length);
  return (text) => {
    let s = String(text ?? '');
    for (const [from, to] of pairs) {
      s = s.split(from + '/').join(to ? to + '/' : '');
      s = s.split(from).join(to || '.');
    }
    return s;
  };
}

/** The OPFS run folders to spare: this worker's open databases and those the page names. @param {string[]} [more] */
function opfsKeep(more) {
  return [...[...open.values()].filter((o) => o.opfs).map((o) => /** @type {OpfsFile} */ (o.opfs).run), ...(more || [])];
}

/** The File of an OPFS file (path: folder names, then the file) and a sync handle held open on it. @param {string[]} path */
async function openOpfsFile(path) {
  let dir = await navigator.storage.getDirectory();
  for (const part of path.slice(0, -1)) dir = await dir.getDirectoryHandle(part);
  const handle = await dir.getFileHandle(path[path.length - 1]);
  const file = await handle.getFile();
  const lock = await handle.createSyncAccessHandle();
  return { file, lock };
}

/** The storage the browser grants this page and what it uses (MB), for the quota message. */
async function quotaNumbers() {
  try {
    const e = await navigator.storage.estimate();
    return { quotaMB: Math.round((e.quota || 0) / 1e6), usageMB: Math.round((e.usage || 0) / 1e6) };
  } catch {
    return null;
  }
}

/**
 * The engine's typed request (wasm/bindings.cc GraphRequest; core's GraphVisualizeArgs), no command
 * line. Graph-merge values go as the tokens typed (spec §15); the engine checks them as the CLI does.
 * A layer-mapping file is mounted under `root`/mapping.
 * @param {import('./protocol.js').RunArgs} args @param {{root: string, target: string, golden: string, out: string}} at
 * @returns {import('visprobe-wasm/visprobe_web.mjs').GraphRequest}
 */
function graphRequest(args, at) {
  const o = args.options || {};
  const tokens = (/** @type {string|undefined} */ v) => (v && String(v).trim() ? String(v).trim().split(/\s+/) : undefined);
  /** @type {import('visprobe-wasm/visprobe_web.mjs').GraphRequest} */
  const request = { targetPath: at.target + (o.targetSub ? '/' + o.targetSub : ''), outputPath: at.out,
                    rankSize: tokens(o.rankSize), tp: tokens(o.tp), pp: tokens(o.pp), vpp: tokens(o.vpp), order: tokens(o.order),
                    overflowCheck: !!o.overflowCheck, fuzzyMatch: !!o.fuzzyMatch };
  if (args.golden) request.goldenPath = at.golden + (o.goldenSub ? '/' + o.goldenSub : '');
  if (o.mapping) {
    const mapDir = `${at.root}/mapping`;
    mount([{ path: o.mapping.name, file: o.mapping }], mapDir);
    request.layerMappingFile = `${mapDir}/${o.mapping.name}`;
  } else if (o.layerMapping) {
    request.layerMapping = true;
  }
  return request;
}

/**
 * The end of a run whose database went to OPFS: the database opened lazily from its OPFS file, or
 * (none written) the reason, with the storage's own error or the quota when it failed.
 * @param {number} id @param {import('./protocol.js').RunArgs} args @param {import('./opfs_fs.js').Pool} pool
 * @param {{ok: boolean, dbPath: string}} result @param {{ok: boolean, message: EngineMessage}} plain
 * @param {VisprobeModule['FS']} FS @param {string} out  the folder the pool is mounted on
 */
async function finishInOpfs(id, args, pool, result, plain, FS, out) {
  const slot = result.ok ? slotOf(FS, result.dbPath) : null;
  FS.unmount(out);
  pool.close();
  if (!slot) {
    if (pool.quotaError) Object.assign(plain, { quota: await quotaNumbers() });
    else if (pool.ioError && !plain.ok) {
      // SQLite reports any storage failure as "disk I/O error": say what the browser's storage said.
      const e = /** @type {Error & {op: string, at: number}} */ (pool.ioError);
      const storage = pageMessage('OpfsFailed', { op: e.op, at: e.at, name: e.name, m: messageOf(e) });
      plain.message = pageMessage('TwoLines', { a: plain.message, b: storage });
    }
    await sweepRuns(opfsKeep(args.keepRuns));
    reply(id, Ev.RESULT, result.ok ? { ...plain, ok: false, message: pageMessage('EngineWroteNo', { path: result.dbPath }) } : plain);
    return;
  }
  for (const s of pool.slots) if (s !== slot) await pool.dir.removeEntry(s.file).catch(() => {});
  // Read through a File of the OPFS file (FileReaderSync, as a dropped file); the open handle
  // is the lock that keeps other tabs' sweeps off it.
  const file = await slot.handle.getFile();
  const lock = await slot.handle.createSyncAccessHandle();
  const name = /** @type {string} */ (result.dbPath.split('/').pop());
  keepTensorFolders(name, args);
  const info = openDatabase(name, null, true, lazyDatabaseBytes(blobSource(file, name)), { run: pool.name, file: slot.file, lock });
  reply(id, Ev.RESULT, { ...plain, db: { ...info, opfs: { run: pool.name, file: slot.file }, size: file.size } });
}

/** @param {number} id @param {import('./protocol.js').RunArgs} args */
async function run(id, args) {
  await loadEngine();
  const engine = mod();
  const FS = engine.FS;
  const n = ++runCount;
  const at = { root: `/run${n}`, target: `/run${n}/target`, golden: `/run${n}/golden`, out: `/run${n}/out` };
  mount(args.target, at.target);
  if (args.golden) mount(args.golden, at.golden);
  FS.mkdirTree(at.out);
  const o = args.options || {};
  // The database goes to OPFS when this browser can write it synchronously (not bounded by wasm
  // memory), else to MEMFS. Earlier runs' folders go first, except the open ones and the session's.
  if (opfsOk === null) opfsOk = await opfsAvailable();
  /** @type {import('./opfs_fs.js').Pool|null} */ let pool = null;
  if (opfsOk && !o.inMemory) {
    await sweepRuns(opfsKeep(args.keepRuns));
    pool = await createPool(`${tabId}-${n}`, 3);
    FS.mount(opfsFilesystem(FS, pool), {}, at.out);
  }
  const request = graphRequest(args, at);
  const named = userPaths([[at.target, args.targetName || 'target'], [at.golden, args.goldenName || 'golden'],
                           [`${at.root}/mapping`, ''], [at.out, '']]);
  const t0 = performance.now();
  const response = engine.graphVisualize(request, '', (e) => {
    if (e.type === 'log') reply(id, Ev.LOG, { level: e.level, line: named(e.line), message: namedMessage(named, e.message) });
    else reply(id, Ev.PROGRESS, { percent: e.percent, running: e.running });
  });
  const seconds = (performance.now() - t0) / 1000;
  const v = response.value || { dbPath: '', rows: 0, dumpBytes: 0 };
  const result = { ok: response.status.code === 'ok', dbPath: v.dbPath };
  const plain = { ok: result.ok, code: response.status.code, message: namedMessage(named, response.status.message), dbPath: v.dbPath,
                  rows: v.rows, dumpBytes: v.dumpBytes, seconds, stored: pool ? 'opfs' : 'memory' };
  if (o.mapping) FS.unmount(`${at.root}/mapping`);
  FS.unmount(at.target);
  if (args.golden) FS.unmount(at.golden);
  if (pool) return finishInOpfs(id, args, pool, result, plain, FS, at.out);
  if (!result.ok) {
    reply(id, Ev.RESULT, plain);
    return;
  }
  // Hand sql.js the MEMFS file's own bytes (no intermediate copy); sql.js copies them into its
  // heap, then the engine's file is dropped.
  const node = FS.lookupPath(result.dbPath).node;
  const bytes = node.contents.subarray(0, node.usedBytes);
  const info = openDatabase(/** @type {string} */ (result.dbPath.split('/').pop()), bytes);
  keepTensorFolders(info.name, args);
  FS.unlink(result.dbPath);
  reply(id, Ev.RESULT, { ...plain, db: info });
}

/**
 * data2db on the dropped folder: the engine writes dump_data.trend.db and/or monitor_data.trend.db
 * into MEMFS; their bytes go back to the page (transferred), which opens them like picked files.
 * @param {number} id @param {import('./protocol.js').TrendArgs} args
 */
async function trend(id, args) {
  await loadEngine();
  const engine = mod();
  const FS = engine.FS;
  const root = `/trend${++runCount}`;
  const data = `${root}/data`;
  const out = `${root}/out`;
  mount(args.data, data);
  FS.mkdirTree(out);
  const o = args.options || {};
  // The engine's typed request (wasm/bindings.cc Data2Db; core's Data2DbArgs).
  /** @type {import('visprobe-wasm/visprobe_web.mjs').Data2DbRequest} */
  const request = { data: data + (o.dataSub ? '/' + o.dataSub : ''), db: out, format: o.format || 'auto', microStep: o.microStep !== false };
  if (o.mapping) {
    mount([{ path: o.mapping.name, file: o.mapping }], `${root}/mapping`);
    request.mapping = `${root}/mapping/${o.mapping.name}`;
  }
  const named = userPaths([[data, args.dataName || 'data'], [`${root}/mapping`, ''], [out, '']]);
  const t0 = performance.now();
  const response = engine.data2db(request, new Date().toISOString().replace(/\.\d+Z$/, 'Z'), (e) => {
    if (e.type === 'log') reply(id, Ev.LOG, { level: e.level, line: named(e.line), message: namedMessage(named, e.message) });
    else reply(id, Ev.PROGRESS, { percent: e.percent, running: e.running });
  });
  const seconds = (performance.now() - t0) / 1000;
  FS.unmount(data);
  if (o.mapping) FS.unmount(`${root}/mapping`);
  /** @type {{name: string, bytes: ArrayBuffer}[]} */
  const databases = [];
  const result = response.value || { dbPaths: [], rows: 0, inputBytes: 0 };
  for (const path of result.dbPaths) {
    const node = FS.lookupPath(path).node;
    databases.push({ name: path.split('/').pop() || 'data.trend.db', bytes: node.contents.slice(0, node.usedBytes).buffer });
    FS.unlink(path);
  }
  reply(id, Ev.RESULT, { ok: response.status.code === 'ok', code: response.status.code, message: namedMessage(named, response.status.message), rows: result.rows,
                         inputBytes: result.inputBytes, seconds, databases }, databases.map((d) => d.bytes));
}

/**
 * Installs the message handler. The http build loads the engine module and the wasm files next
 * to the worker; the one-file build (file://) has both compiled in.
 * @param {Loaders} l
 */
export function installWorker(l) {
  loaders = l;
  self.onmessage = onMessage;
}

/**
 * The engine's plot_model_parallelism layout; a validation failure becomes an error reply.
 * @param {import('../trend/parallel.js').ParallelConfig} config
 */
function parallelLayout(config) {
  const response = mod().parallelLayout(JSON.stringify(config || {}));
  if (response.status.code !== 'ok') throw new MessageError(response.status.message, 'ParallelConfigError');
  return valueOf(response);
}

/**
 * OPEN_DB: a File or a URL opens lazily; bytes (a database kept in IndexedDB, a built one) as they are.
 * @param {number} id @param {import('./protocol.js').OpenDbArgs} args
 */
async function openDb(id, args) {
  await loadSql();
  let file = args.file;
  let opfs;
  if (file && Array.isArray(args.opfsPath) && args.opfsPath.length >= 2) {
    // A file kept in OPFS (a session): read it through its handle's File and hold the handle
    // open, so that a sweep or the next session's save cannot remove it while it is shown.
    const at = await openOpfsFile(args.opfsPath).catch(() => null);
    if (at) { file = at.file; opfs = { run: args.opfsPath[0] === 'visprobe-runs' ? args.opfsPath[1] : '', file: args.opfsPath[args.opfsPath.length - 1], lock: at.lock }; }
  }
  const lazy = file ? lazyDatabaseBytes(blobSource(file, args.name)) : args.url ? lazyDatabaseBytes(urlSource(args.url)) : null;
  const bytes = /** @type {ArrayBuffer} */ (args.bytes);   // (read only when there is no file and no url)
  let info;
  try {
    info = openDatabase(args.name, lazy ? null : new Uint8Array(bytes), args.current !== false, lazy, opfs);
  } catch (e) {
    if (opfs) opfs.lock.close();
    throw e;
  }
  reply(id, Ev.RESULT, { ...info, lazy: !!lazy, size: lazy ? lazy.source.size : bytes.byteLength });
  if (info.kind === 'vis') warmEngine();
}

/**
 * EXPORT_DB: the bytes of the open database `name` (else the current one).
 * @param {number} id @param {{name?: string}} args
 */
function exportDb(id, args) {
  const name = args && args.name ? String(args.name) : dbName;
  const entry = open.get(name);
  const blob = entry && entry.lazy ? entry.lazy.exportBlob(entry.lazy.size()) : null;
  if (blob && entry && entry.lazy) {   // (blob implies both)
    // A dropped file or a build in OPFS: its own bytes and the blocks SQLite changed, nothing
    // read (a Blob of parts). `opfs`: where the unchanged build lives (a session can name it).
    const clean = entry.lazy.stats().dirtyBlocks === 0;
    reply(id, Ev.RESULT, { name, bytes: blob, opfs: entry.opfs && clean ? { run: entry.opfs.run, file: entry.opfs.file } : null });
    return;
  }
  const bytes = databaseOf(args && args.name ? name : undefined).export();
  // sql.js re-opens the database after export; keep the same handle.
  reply(id, Ev.RESULT, { name, bytes: bytes.buffer }, [bytes.buffer]);
}

async function onMessage(/** @type {MessageEvent} */ ev) {
  const { id, type, args } = /** @type {import('./protocol.js').Request} */ (ev.data);
  try {
    if (type === Req.RUN) await run(id, args);
    else if (type === Req.TREND) await trend(id, args);
    else if (type === Req.OPEN_DB) await openDb(id, args);
    else if (type === Req.DB_STATS) {
      const entry = open.get(args && args.name ? String(args.name) : dbName);
      const engineState = engine ? 'loaded' : engineLoading ? 'loading' : 'none';
      const tensors = tensorFolderNames(args && args.name ? String(args.name) : dbName);
      reply(id, Ev.RESULT, entry && entry.lazy ? { lazy: true, size: entry.lazy.source.size, opfs: entry.opfs ? entry.opfs.run : '', engine: engineState, tensors, ...entry.lazy.stats() }
                                               : { lazy: false, opfs: '', engine: engineState, tensors });
    } else if (type === Req.QUERY_PLANS) {
      reply(id, Ev.RESULT, queryPlans(databaseOf(args && args.db)));
    } else if (type === Req.CAPS) {
      if (opfsOk === null) opfsOk = await opfsAvailable();
      reply(id, Ev.RESULT, { opfs: opfsOk });
    } else if (type === Req.SWEEP_OPFS) {
      // "Forget stored data": every run folder but the open databases' (removed at the next sweep).
      reply(id, Ev.RESULT, opfsOk === false ? { removed: 0, kept: 0 } : await sweepRuns(opfsKeep(args && args.keep)));
    } else if (type === Req.QUERY) {
      const res = databaseOf(args.db).exec(args.sql, args.params || []);
      reply(id, Ev.RESULT, res.length ? { columns: res[0].columns, values: res[0].values } : { columns: [], values: [] });
    } else if (type === Req.TENSOR_FOLDERS) {
      const name = args && args.db ? String(args.db) : dbName;
      if (!name) throw new MessageError(pageMessage('NoDatabaseOpen'));
      setTensorFolders(name, args);
      reply(id, Ev.RESULT, { db: name });
    } else if (type === Req.MATCH || type === Req.UNMATCH) {
      if (!db) throw new MessageError(pageMessage('NoDatabaseOpen'));
      await loadEngine();
      const env = { db, dbName, engine: mod(), mount, userPaths };
      const out = type === Req.MATCH ? manualMatch(env, args) : manualUnmatch(env, args);
      refreshBadges(mod(), db, args.step, args.rank);
      reply(id, Ev.RESULT, out);
    } else if (type === Req.BADGES) {
      // The engine module only for files without stored badges (it computes them).
      const d = databaseOf(args.db);
      if (!hasBadgeTable(d)) await loadEngine();
      reply(id, Ev.RESULT, badgesOf(engine, d, args));
    } else if (type === Req.THRESHOLDS) {
      await loadEngine();
      reply(id, Ev.RESULT, thresholdsOf(mod(), databaseOf(args && args.db)));
    } else if (type === Req.PARALLEL_LAYOUT) {
      await loadEngine();
      reply(id, Ev.RESULT, parallelLayout(args));
    } else if (type === Req.CHECK_MAPPING) {
      await loadEngine();
      const r = mod().checkLayerMapping(String(args.text), String(args.name));
      reply(id, Ev.RESULT, { ok: r.status.code === 'ok', message: r.status.message });
    } else if (type === Req.EXPORT_DB) {
      exportDb(id, args);
    } else {
      throw new MessageError(pageMessage('UnknownRequest', { type: String(type) }));
    }
  } catch (e) {
    fail(id, e);
  }
}
