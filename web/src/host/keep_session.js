// @ts-check
// BEY-03/04: the shown database kept in browser storage (the recent results, host/store.js) for a
// reload, a copied link or the Graph | Trend switch.
import * as store from './store.js';
import * as views from './views.js';

/**
 * BEY-03: keep the database just shown in the browser's storage (OPFS, else IndexedDB), keyed by a
 * content fingerprint that goes into the URL; a reload then restores the view from it. A picked
 * file is copied from disk as is; a database built here (or edited by a manual match) is exported
 * from the worker first. Runs in the background after the graph is drawn; a failure only means no
 * session.
 * @param {import('../engine/client.js').EngineClient} engine @param {HTMLElement} box  the workspace (its data-session)
 * @param {string} name @param {Blob} [file]
 */
export async function keepSession(engine, box, name, file) {
  box.dataset.session = 'pending';
  // An edit (no file: exported from the worker) replaces the result kept before it.
  const replaces = file ? '' : views.keyOf('graph');
  try {
    let blob = file;
    /** @type {{run: string, file: string}|null} */ let ref = null;
    if (!blob) {
      // After the first paint has settled: the export holds the worker for a moment on big files.
      await new Promise((res) => setTimeout(res, 1000));
      const { bytes, opfs } = await engine.exportDb();
      blob = new Blob([bytes]);
      ref = opfs || null;
    }
    if (!ref && blob.size > store.MAX_STORED_BYTES) { box.dataset.session = ''; return; }
    const key = await store.fingerprint(blob);
    // A build in OPFS is kept where it is (no copy); other databases are copied into storage.
    const backend = await store.save(key, name, blob, { ...(ref ? { ref } : {}), replaces });
    // The fingerprint goes into the URL (and the view's fragment to the kept result).
    if (backend) views.kept('graph', name, key);
    box.dataset.session = backend ? `${backend}:${key}` : '';
  } catch (e) {
    box.dataset.session = '';
    console.warn('session not kept:', e);
  }
}
