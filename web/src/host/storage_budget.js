// @ts-check
// How much a run in this tab may hold. msProbe's schema costs about 1.8x the dump.json bytes
// (measured: 1.10 GB -> 1.97 GB). Where the worker builds into OPFS (storage.opfs) the database is
// not held in memory and the browser's storage quota is the bound; else the tab holds the database
// twice (engine file + sql.js), so runs stay below MAX_DUMP_BYTES of dump.

export const MAX_DUMP_BYTES = 600e6;
export const DB_PER_DUMP_BYTE = 2.0;

/** free: bytes the quota leaves (Infinity when unknown). @type {{opfs: boolean, free: number}} */
export const storage = { opfs: false, free: Infinity };

/** What the worker can do and how much the quota leaves. @param {import('../engine/client.js').EngineClient} engine */
export async function probeStorage(engine) {
  try {
    storage.opfs = !!(await engine.caps()).opfs;
    const e = storage.opfs && navigator.storage && navigator.storage.estimate ? await navigator.storage.estimate() : null;
    storage.free = e && e.quota ? Math.max(0, e.quota - (e.usage || 0)) : Infinity;
  } catch {
    storage.opfs = false;
  }
}
