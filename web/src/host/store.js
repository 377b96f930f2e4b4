// @ts-check
// Sessions (web-ui BEY-03): the database a view was made from, kept in the browser's own storage
// so a reload restores the view without re-ingesting the dumps. The origin-private file system
// (OPFS) when the browser has it, else IndexedDB. One session is kept (the last one shown): a graph
// database, or a .trend.db with the one it is compared with (kind 'trend', `more`), keyed by the
// content fingerprint of the first; nothing leaves the machine. "Forget" deletes it.

const DIR = 'visprobe-sessions';
/** Where the engine worker builds databases (engine/opfs_fs.js RUNS_DIR). */
const RUNS_DIR = 'visprobe-runs';
const IDB = 'visprobe-sessions';
const META = 'visprobe.session';
/** Databases above this size are not kept (the tab holds them twice while saving). */
export const MAX_STORED_BYTES = 1.5e9;

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
    if (typeof (/** @type {any} */ (probe)).createWritable !== 'function') return null;
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

/** @returns {{key: string, name: string, backend: string, bytes: number, kind?: string, more?: {name: string, bytes: number}[]}|null} */
export function stored() {
  try {
    const v = JSON.parse(localStorage.getItem(META) || 'null');
    return v && typeof v.key === 'string' && typeof v.name === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** The stored file of the session's i-th database. @param {number} i */
const slot = (i) => (i ? `session-${i}.db` : 'session.db');

/**
 * Keeps `blob` as the session database (replacing the previous session), with `more` databases
 * shown with it (a trend comparison's run B). A picked File is written from disk as it is read,
 * without a copy in memory.
 * @param {string} key @param {string} name @param {Blob} blob
 * @param {{kind?: string, more?: {name: string, blob: Blob}[], ref?: {run: string, file: string}}} [opts]
 *   ref: the OPFS file of a build (worker's run folder) that `blob` reads; kept by name, not copied
 * @returns {Promise<string>} the backend used ('opfs' | 'opfs-run' | 'indexeddb'), or '' when not kept
 */
export async function save(key, name, blob, opts = {}) {
  const kind = opts.kind || 'graph';
  const more = opts.more || [];
  const all = [blob, ...more.map((m) => m.blob)];
  const cur = stored();
  const names = (/** @type {{name: string}[]} */ list) => list.map((m) => m.name).join('\n');
  if (cur && cur.key === key && cur.name === name && (cur.kind || 'graph') === kind && names(cur.more || []) === names(more)) return cur.backend;
  if (opts.ref && !more.length) {
    // A database the engine built in OPFS: the session names its file, nothing is copied.
    await forget();
    localStorage.setItem(META, JSON.stringify({ key, name, backend: 'opfs-run', ref: opts.ref, bytes: blob.size, kind, more: [] }));
    return 'opfs-run';
  }
  if (all.reduce((n, b) => n + b.size, 0) > MAX_STORED_BYTES) return '';
  await forget();
  let backend = '';
  const dir = await opfs();
  if (dir) {
    try {
      for (let i = 0; i < all.length; ++i) {
        const fh = await dir.getFileHandle(slot(i), { create: true });
        const w = await (/** @type {any} */ (fh)).createWritable();
        await w.write(all[i]);
        await w.close();
      }
      backend = 'opfs';
    } catch { backend = ''; }
  }
  if (!backend) {
    for (let i = 0; i < all.length; ++i) await idbDo('readwrite', (s) => s.put(all[i], slot(i)));
    backend = 'indexeddb';
  }
  localStorage.setItem(META, JSON.stringify({ key, name, backend, bytes: blob.size, kind,
                                              more: more.map((m) => ({ name: m.name, bytes: m.blob.size })) }));
  return backend;
}

/**
 * The session's i-th file as a Blob (an OPFS File or IndexedDB's Blob: read when used, not here).
 * @param {any} cur the stored meta @param {number} i @returns {Promise<Blob|null>}
 */
async function read(cur, i) {
  if (cur.backend === 'opfs-run') {
    if (i || !cur.ref) return null;
    const rootDir = await navigator.storage.getDirectory();
    const run = await (await rootDir.getDirectoryHandle(RUNS_DIR)).getDirectoryHandle(String(cur.ref.run));
    return (await run.getFileHandle(String(cur.ref.file))).getFile();
  }
  if (cur.backend === 'opfs') {
    const dir = await opfs();
    if (!dir) return null;
    return (await dir.getFileHandle(slot(i))).getFile();
  }
  const v = /** @type {any} */ (await idbDo('readonly', (s) => s.get(slot(i))));
  return v instanceof Blob ? v : v && v.byteLength !== undefined ? new Blob([v]) : null;
}

/**
 * Where in OPFS the session's first file is (folder names from the root, then the file), or null:
 * the worker opens it there and holds it open, so no sweep or save removes it while it is shown.
 * @param {any} cur
 */
function pathOf(cur) {
  if (cur.backend === 'opfs-run' && cur.ref) return [RUNS_DIR, String(cur.ref.run), String(cur.ref.file)];
  if (cur.backend === 'opfs') return [DIR, slot(0)];
  return null;
}

/** The OPFS run folder the kept session reads (the engine's sweeps spare it), or ''. */
export function keptRun() {
  const cur = stored();
  return cur && cur.backend === 'opfs-run' && cur.ref ? String(cur.ref.run) : '';
}

/** The kept database if its fingerprint is `key` (any when key is empty). @param {string} [key] */
export async function load(key) {
  const cur = stored();
  if (!cur || (key && cur.key !== key)) return null;
  try {
    const data = await read(cur, 0);
    if (!data) return null;
    /** @type {{name: string, data: Blob}[]} */
    const more = [];
    for (const [i, m] of (cur.more || []).entries()) {
      const d = await read(cur, i + 1);
      if (d) more.push({ name: String(m.name), data: d });
    }
    return { ...cur, data, more, path: pathOf(cur) };
  } catch {
    return null;
  }
}

/** "Forget stored data": deletes the kept database from both backends. */
export async function forget() {
  try { localStorage.removeItem(META); } catch { /* no storage */ }
  try {
    if (navigator.storage && typeof navigator.storage.getDirectory === 'function') {
      const rootDir = await navigator.storage.getDirectory();
      await rootDir.removeEntry(DIR, { recursive: true }).catch(() => {});
    }
  } catch { /* no OPFS */ }
  try { await idbDo('readwrite', (s) => s.clear()); } catch { /* no IndexedDB */ }
}
