// @ts-check
// Sessions (web-ui BEY-03): the databases views were made from, kept in the browser's own storage
// so a reload or the "Recent results" list reopens a view without re-ingesting the dumps. The
// origin-private file system (OPFS) when the browser has it, else IndexedDB; nothing leaves the
// machine. Up to MAX_ENTRIES results, newest first: graph databases, and .trend.db files with the
// one each is compared with (kind 'trend', `more`), each keyed by the content fingerprint of its
// database and remembering the URL fragment its view last had. A build the engine made in OPFS is
// kept by reference (`opfs-run`: its run folder, which the engine's sweeps spare, see keptRuns()).
// Beyond MAX_ENTRIES or MAX_STORED_BYTES in total the oldest go. "Forget" deletes them all.

const DIR = 'visprobe-sessions';
/** Where the engine worker builds databases (engine/opfs_fs.js RUNS_DIR). */
const RUNS_DIR = 'visprobe-runs';
const IDB = 'visprobe-sessions';
/** The list of kept results (JSON, newest first). */
const LIST = 'visprobe.recent';
/** The one session kept before the list (migrated into it on first read). */
const LEGACY = 'visprobe.session';
/** Databases above this size are not kept (the tab holds them twice while saving); the total is held below it too. */
export const MAX_STORED_BYTES = 1.5e9;
export const MAX_ENTRIES = 8;
/** Dispatched on window when entries are added, removed or reordered (not for a fragment). */
export const CHANGED = 'visprobe-recent';

/**
 * @typedef {{id: string, key: string, kind: 'graph'|'trend', name: string, backend: string, bytes: number, time: number,
 *            hash: string, files: string[], ref?: {run: string, file: string}, more: {name: string, bytes: number}[]}} Entry
 *   files: the stored files (OPFS names in DIR, or IndexedDB keys), the database first; none for 'opfs-run'
 */

/**
 * A content fingerprint: SHA-256 (when available) over the size and up to 4 MB sampled from the
 * start, middle and end of the bytes; FNV-1a otherwise. Cheap on a 1 GB database: only the samples
 * are read from the Blob.
 * @param {Blob} blob
 */
export async function fingerprint(blob) {
  const n = blob.size;
  const part = 1 << 20;
  const offsets = n <= 4 * part ? [0] : [0, Math.floor(n / 3), Math.floor((2 * n) / 3), n - part];
  const pieces = await Promise.all(offsets.map(async (o) => new Uint8Array(await blob.slice(o, n <= 4 * part ? n : o + part).arrayBuffer())));
  const size = new TextEncoder().encode(String(n));
  const total = pieces.reduce((s, p) => s + p.length, size.length);
  const sample = new Uint8Array(total);
  let off = 0;
  sample.set(size, off); off += size.length;
  for (const p of pieces) { sample.set(p, off); off += p.length; }
  if (globalThis.crypto && crypto.subtle) {
    const d = new Uint8Array(await crypto.subtle.digest('SHA-256', sample));
    return [...d.slice(0, 12)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  let h = 0x811c9dc5;
  for (let i = 0; i < sample.length; ++i) { h ^= sample[i]; h = Math.imul(h, 0x01000193) >>> 0; }
  return 'f' + h.toString(16).padStart(8, '0') + n.toString(16);
}

async function opfs() {
  try {
    if (!navigator.storage || typeof navigator.storage.getDirectory !== 'function') return null;
    const rootDir = await navigator.storage.getDirectory();
    const dir = await rootDir.getDirectoryHandle(DIR, { create: true });
    // Writable streams are what the main thread may use (sync handles are worker-only).
    const probe = await dir.getFileHandle('.probe', { create: true });
    if (typeof probe.createWritable !== 'function') return null;
    return dir;
  } catch {
    return null;
  }
}

/** @returns {Promise<IDBDatabase>} */
function idb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(IDB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore('db');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** @param {'readonly'|'readwrite'} mode @param {(s: IDBObjectStore) => IDBRequest} fn */
async function idbDo(mode, fn) {
  const d = await idb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = d.transaction('db', mode);
      const req = fn(tx.objectStore('db'));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    d.close();
  }
}

/** @param {Record<string, unknown>|null} v  as stored (JSON) @returns {Entry|null} a well-formed entry, or null */
function valid(v) {
  if (!v || typeof v.key !== 'string' || typeof v.name !== 'string' || typeof v.id !== 'string') return null;
  const kind = v.kind === 'trend' ? 'trend' : 'graph';
  const more = Array.isArray(v.more)
    ? v.more.filter((/** @type {{name?: unknown}|null} */ m) => m && typeof m.name === 'string')
      .map((/** @type {{name: string, bytes?: unknown}} */ m) => ({ name: m.name, bytes: Number(m.bytes) || 0 }))
    : [];
  const files = Array.isArray(v.files) ? v.files.map(String) : [];
  const r = /** @type {{run?: unknown, file?: unknown}|null|undefined} */ (v.ref);
  const ref = r && typeof r === 'object' ? { run: String(r.run), file: String(r.file) } : undefined;
  return { id: v.id, key: v.key, kind, name: v.name, backend: String(v.backend || ''), bytes: Number(v.bytes) || 0,
           time: Number(v.time) || 0, hash: typeof v.hash === 'string' ? v.hash : '', files, ref, more };
}

/** The single session of earlier versions as an entry of the list (its files keep their names). */
function legacy() {
  const v = JSON.parse(localStorage.getItem(LEGACY) || 'null');
  if (!v || typeof v.key !== 'string' || typeof v.name !== 'string') return [];
  const more = Array.isArray(v.more) ? v.more : [];
  const files = v.backend === 'opfs-run' ? [] : ['session.db', ...more.map((/** @type {unknown} */ _, /** @type {number} */ i) => `session-${i + 1}.db`)];
  const e = valid({ ...v, id: 'legacy', time: Date.now(), hash: '', files });
  return e ? [e] : [];
}

/** @returns {Entry[]} the kept results, newest first */
export function list() {
  try {
    const raw = localStorage.getItem(LIST);
    if (raw === null && localStorage.getItem(LEGACY) !== null) {
      const moved = legacy();
      localStorage.setItem(LIST, JSON.stringify(moved));
      localStorage.removeItem(LEGACY);
      return moved;
    }
    const v = JSON.parse(raw || '[]');
    return Array.isArray(v) ? /** @type {Entry[]} */ (v.map(valid).filter(Boolean)) : [];
  } catch {
    return [];
  }
}

/** @param {Entry[]} entries @param {boolean} [announce] */
function write(entries, announce = true) {
  try { localStorage.setItem(LIST, JSON.stringify(entries)); } catch { /* no storage */ }
  if (announce) window.dispatchEvent(new Event(CHANGED));
}

/** The kept result of this fingerprint (of this kind when given). @param {string} key @param {string} [kind] */
export function find(key, kind) {
  return list().find((e) => e.key === key && (!kind || e.kind === kind)) || null;
}

/** The size of a result: its database and the ones kept with it. @param {Entry} e */
export const sizeOf = (e) => e.bytes + e.more.reduce((n, m) => n + m.bytes, 0);

/** The OPFS run folders the kept results read (every engine sweep must spare them). */
export function keptRuns() {
  return list().filter((e) => e.backend === 'opfs-run' && e.ref).map((e) => String(e.ref && e.ref.run));
}

/** The file names being written in this tab (no prune removes them before their entry is listed). */
const writing = new Set();

/**
 * Writes the blobs of a new entry: OPFS when it can, else IndexedDB. A picked File is written from
 * disk as it is read, without a copy in memory. @param {string} id @param {Blob[]} all
 * @returns {Promise<{backend: string, files: string[]}>}
 */
async function writeFiles(id, all) {
  const files = all.map((_, i) => `${id}-${i}.db`);
  for (const f of files) writing.add(f);
  try {
    const dir = await opfs();
    if (dir) {
      try {
        for (let i = 0; i < all.length; ++i) {
          const fh = await dir.getFileHandle(files[i], { create: true });
          const w = await fh.createWritable();
          await w.write(all[i]);
          await w.close();
        }
        return { backend: 'opfs', files };
      } catch { await dropFiles({ backend: 'opfs', files }); }
    }
    for (let i = 0; i < all.length; ++i) await idbDo('readwrite', (s) => s.put(all[i], files[i]));
    return { backend: 'indexeddb', files };
  } finally {
    for (const f of files) writing.delete(f);
  }
}

/**
 * Keeps `blob` as a result (newest first; a result with the same fingerprint and kind is replaced),
 * with `more` databases shown with it (a trend comparison's run B).
 * @param {string} key @param {string} name @param {Blob} blob
 * @param {{kind?: 'graph'|'trend', more?: {name: string, blob: Blob}[], ref?: {run: string, file: string}, hash?: string, replaces?: string}} [opts]
 *   ref: the OPFS file of a build (worker's run folder) that `blob` reads; kept by name, not copied;
 *   replaces: the fingerprint this one replaces (the database edited since it was kept)
 * @returns {Promise<string>} the backend used ('opfs' | 'opfs-run' | 'indexeddb'), or '' when not kept
 */
export async function save(key, name, blob, opts = {}) {
  const kind = opts.kind || 'graph';
  const more = opts.more || [];
  const names = (/** @type {{name: string}[]} */ l) => l.map((m) => m.name).join('\n');
  const same = find(key, kind);
  if (same && same.name === name && names(same.more) === names(more)) {
    touch(same.id, opts.hash);
    return same.backend;
  }
  const all = [blob, ...more.map((m) => m.blob)];
  const id = Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
  /** @type {Entry} */
  const e = { id, key, kind, name, backend: '', bytes: blob.size, time: Date.now(), hash: opts.hash || '', files: [], more: more.map((m) => ({ name: m.name, bytes: m.blob.size })) };
  if (opts.ref && !more.length) {
    // A database the engine built in OPFS: the entry names its file, nothing is copied.
    Object.assign(e, { backend: 'opfs-run', ref: opts.ref });
  } else {
    if (all.reduce((n, b) => n + b.size, 0) > MAX_STORED_BYTES) return '';
    Object.assign(e, await writeFiles(id, all));
  }
  const old = opts.replaces ? find(opts.replaces, kind) : null;
  if (!e.hash) e.hash = (same || old)?.hash || '';
  const rest = list().filter((x) => x.kind !== kind || (x.key !== key && x.key !== old?.key));
  const kept = [e, ...rest];
  /** @type {Entry[]} */
  const evicted = [];
  // The newest stays even alone above the budget (a build in OPFS is never copied).
  while (kept.length > 1 && (kept.length > MAX_ENTRIES || kept.reduce((n, x) => n + sizeOf(x), 0) > MAX_STORED_BYTES))
    evicted.push(/** @type {Entry} */ (kept.pop()));
  write(kept);
  for (const x of [...evicted, ...(same ? [same] : []), ...(old && old !== same ? [old] : [])]) await dropFiles(x);
  return e.backend;
}

/** Moves a result to the front (it was shown again); hash: its view's fragment. @param {string} id @param {string} [hash] */
export function touch(id, hash) {
  const all = list();
  const e = all.find((x) => x.id === id);
  if (!e) return;
  e.time = Date.now();
  if (hash) e.hash = hash;
  write([e, ...all.filter((x) => x !== e)]);
}

/** The view of a kept result moved: its fragment is remembered (no event). @param {string} kind @param {string} key @param {string} hash */
export function setHash(kind, key, hash) {
  const all = list();
  const e = all.find((x) => x.key === key && x.kind === kind);
  if (!e || e.hash === hash) return;
  e.hash = hash;
  write(all, false);
}

/**
 * A stored file as a Blob (an OPFS File or IndexedDB's Blob: read when used, not here).
 * @param {Entry} e @param {number} i @returns {Promise<Blob|null>}
 */
async function read(e, i) {
  if (e.backend === 'opfs-run') {
    if (i || !e.ref) return null;
    const rootDir = await navigator.storage.getDirectory();
    const run = await (await rootDir.getDirectoryHandle(RUNS_DIR)).getDirectoryHandle(String(e.ref.run));
    return (await run.getFileHandle(String(e.ref.file))).getFile();
  }
  const file = e.files[i];
  if (!file) return null;
  if (e.backend === 'opfs') {
    const dir = await opfs();
    return dir ? (await dir.getFileHandle(file)).getFile() : null;
  }
  const v = /** @type {Blob|ArrayBuffer|undefined} */ (await idbDo('readonly', (s) => s.get(file)));   // (what save() put)
  return v instanceof Blob ? v : v && v.byteLength !== undefined ? new Blob([v]) : null;
}

/**
 * Where in OPFS a result's database is (folder names from the root, then the file), or null: the
 * worker opens it there and holds it open, so no sweep or removal takes it while it is shown.
 * @param {Entry} e
 */
function pathOf(e) {
  if (e.backend === 'opfs-run' && e.ref) return [RUNS_DIR, String(e.ref.run), String(e.ref.file)];
  if (e.backend === 'opfs' && e.files[0]) return [DIR, e.files[0]];
  return null;
}

/** A kept result with its bytes (Blobs), or null when its files are gone. @param {string} id */
export async function load(id) {
  const e = list().find((x) => x.id === id);
  if (!e) return null;
  try {
    const data = await read(e, 0);
    if (!data) return null;
    /** @type {{name: string, data: Blob}[]} */
    const more = [];
    for (const [i, m] of e.more.entries()) {
      const d = await read(e, i + 1);
      if (d) more.push({ name: m.name, data: d });
    }
    return { ...e, data, more, path: pathOf(e) };
  } catch {
    return null;
  }
}

/** Deletes a result's stored files (a file the worker holds open stays until a later prune). @param {{backend: string, files: string[]}} e */
async function dropFiles(e) {
  if (!e.files.length) return;
  if (e.backend === 'opfs') {
    const dir = await opfs();
    for (const f of e.files) await dir?.removeEntry(f).catch(() => {});
  } else if (e.backend === 'indexeddb') {
    for (const f of e.files) await idbDo('readwrite', (s) => s.delete(f)).catch(() => {});
  }
}

/** Removes one result from the list and its files from storage. @param {string} id */
export async function remove(id) {
  const all = list();
  const e = all.find((x) => x.id === id);
  if (!e) return;
  write(all.filter((x) => x !== e));
  await dropFiles(e);
}

/**
 * Files no result names (a removal the worker's lock refused, an interrupted save): deleted when
 * no longer open. OPFS files written in the last minute are left to another tab's save.
 */
export async function prune() {
  const named = new Set(list().flatMap((e) => e.files));
  const dir = await opfs();
  if (dir) {
    for await (const [name, h] of dir.entries()) {
      if (name === '.probe' || named.has(name) || writing.has(name) || h.kind !== 'file') continue;
      const age = Date.now() - (await /** @type {FileSystemFileHandle} */ (h).getFile().then((f) => f.lastModified).catch(() => 0));
      if (age > 60e3) await dir.removeEntry(name).catch(() => {});
    }
  }
  try {
    const keys = /** @type {IDBValidKey[]} */ (await idbDo('readonly', (s) => s.getAllKeys()));
    for (const k of keys) if (!named.has(String(k)) && !writing.has(String(k))) await idbDo('readwrite', (s) => s.delete(k));
  } catch { /* no IndexedDB */ }
}

/** "Forget stored data": every kept result, from both backends. */
export async function forget() {
  try { localStorage.removeItem(LIST); localStorage.removeItem(LEGACY); } catch { /* no storage */ }
  window.dispatchEvent(new Event(CHANGED));
  try {
    if (navigator.storage && typeof navigator.storage.getDirectory === 'function') {
      const rootDir = await navigator.storage.getDirectory();
      // A file the worker holds open (the graph shown) makes the folder stay: its other files go.
      await rootDir.removeEntry(DIR, { recursive: true }).catch(async () => {
        const dir = await rootDir.getDirectoryHandle(DIR);
        for await (const name of dir.keys()) await dir.removeEntry(name).catch(() => {});
      });
    }
  } catch { /* no OPFS */ }
  try { await idbDo('readwrite', (s) => s.clear()); } catch { /* no IndexedDB */ }
}
