// @ts-check
// Sessions (web-ui BEY-03): the database a view was made from, kept in the browser's own storage
// so a reload restores the view without re-ingesting the dumps. The origin-private file system
// (OPFS) when the browser has it, else IndexedDB. One database is kept (the last one shown),
// keyed by a content fingerprint; nothing leaves the machine. "Forget" deletes it.

const DIR = 'visprobe-sessions';
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

/** @returns {{key: string, name: string, backend: string, bytes: number}|null} */
export function stored() {
  try {
    const v = JSON.parse(localStorage.getItem(META) || 'null');
    return v && typeof v.key === 'string' && typeof v.name === 'string' ? v : null;
  } catch {
    return null;
  }
}

/**
 * Keeps `blob` as the session database (replacing the previous one). A picked File is written
 * from disk as it is read, without a copy in memory.
 * @param {string} key @param {string} name @param {Blob} blob
 * @returns {Promise<string>} the backend used ('opfs' | 'indexeddb'), or '' when not kept
 */
export async function save(key, name, blob) {
  if (blob.size > MAX_STORED_BYTES) return '';
  const cur = stored();
  if (cur && cur.key === key) return cur.backend;
  await forget();
  let backend = '';
  const dir = await opfs();
  if (dir) {
    try {
      const fh = await dir.getFileHandle('session.db', { create: true });
      const w = await (/** @type {any} */ (fh)).createWritable();
      await w.write(blob);
      await w.close();
      backend = 'opfs';
    } catch { backend = ''; }
  }
  if (!backend) {
    await idbDo('readwrite', (s) => s.put(blob, 'session.db'));
    backend = 'indexeddb';
  }
  localStorage.setItem(META, JSON.stringify({ key, name, backend, bytes: blob.size }));
  return backend;
}

/** The kept database if its fingerprint is `key` (any when key is empty). @param {string} [key] */
export async function load(key) {
  const cur = stored();
  if (!cur || (key && cur.key !== key)) return null;
  try {
    if (cur.backend === 'opfs') {
      const dir = await opfs();
      if (!dir) return null;
      const file = await (await dir.getFileHandle('session.db')).getFile();
      return { ...cur, data: await file.arrayBuffer() };
    }
    const v = /** @type {any} */ (await idbDo('readonly', (s) => s.get('session.db')));
    if (!v || typeof v.arrayBuffer !== 'function') return null;
    return { ...cur, data: await v.arrayBuffer() };
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
  try { await idbDo('readwrite', (s) => s.delete('session.db')); } catch { /* no IndexedDB */ }
}
