// @ts-check
// BEY-03/04 for the trend workspace: the workspace of the page's .trend.db files, its section of
// the URL fragment, and its session: the current .trend.db (and run B when comparing) kept with the
// browser's recent results (host/store.js), and restored from there with the fragment's trend
// section. The graph view may step in front of it (host/views.js): it is suspended, not dropped.
import { TrendWorkspace } from './workspace.js';
import * as urlState from '../host/url_state.js';
import * as store from '../host/store.js';
import * as views from '../host/views.js';

export class TrendSession {
  /**
   * @param {HTMLElement} host @param {import('../engine/client.js').EngineClient} engine
   * @param {{onError: (failure: unknown) => void}} opts
   */
  constructor(host, engine, opts) {
    this.host = host;
    this.engine = engine;
    this.opts = opts;
    /** @type {TrendWorkspace|null} */
    this.trend = null;
    /** @type {(() => void)|null} */
    this.unregister = null;
    /** The trend files last kept (current and run B): a new pair is kept again. */
    this.kept = '';
    /** The fingerprint of the current file once kept. */
    this.key = '';
    this.restoring = false;
    this.saving = Promise.resolve();
  }

  /** The graph's view in front: no trend section in the URL; the workspace and its files stay. */
  suspend() {
    if (this.unregister) { this.unregister(); this.unregister = null; }
  }

  /** Shown again as it was left (the Graph | Trend switch). */
  resume() {
    const ws = this.trend;
    if (!ws) return;
    if (!this.unregister) this.unregister = urlState.register('trend', { get: () => ws.viewState(), apply: (st) => ws.applyState(st) });
    this.host.hidden = false;
    this.kept = '';
    this.keep();   // kept again only when the recent list lost it
  }

  /**
   * BEY-03 for the trend workspace: keep the current .trend.db (and run B when comparing) in the
   * browser's storage, keyed by the current file's fingerprint, whenever that pair changes.
   */
  keep() {
    if (!this.trend || !this.trend.current || this.restoring) return;
    const ws = this.trend;
    const sig = `${ws.current}\n${ws.state.compare}`;
    if (sig === this.kept) {
      if (this.key) views.kept('trend', ws.current, this.key);
      return;
    }
    this.kept = sig;
    const box = this.host;
    box.dataset.session = 'pending';
    this.saving = this.saving.then(async () => {
      if (sig !== this.kept) return;   // overtaken by a newer pair
      try {
        const [name, cmp] = sig.split('\n');
        const blob = ws.files.get(name);
        if (!blob) { box.dataset.session = ''; return; }
        const b = cmp ? ws.files.get(cmp) : undefined;
        const key = await store.fingerprint(blob);
        const backend = await store.save(key, name, blob, { kind: 'trend', more: b ? [{ name: cmp, blob: b }] : [] });
        if (sig !== this.kept) return;
        box.dataset.session = backend ? `${backend}:${key}` : '';
        if (backend) { this.key = key; views.kept('trend', name, key); }
      } catch (e) {
        box.dataset.session = '';
        console.warn('session not kept:', e);
      }
    });
  }

  /**
   * A .trend.db the worker opened, in the trend workspace (its own module). A restored session also
   * lists its run B and applies the fragment's trend section.
   * @param {string} name @param {Blob|null} file  null: opened by URL
   * @param {{restoreHash?: string, key?: string, more?: {name: string, file: Blob}[]}} [opts]
   */
  async show(name, file, opts = {}) {
    if (!this.trend) {
      this.trend = new TrendWorkspace(this.host, this.engine, {
        onError: this.opts.onError,
        onState: () => { views.changed(); this.keep(); },
      });
    }
    const ws = this.trend;
    if (!this.unregister) this.unregister = urlState.register('trend', { get: () => ws.viewState(), apply: (st) => ws.applyState(st) });
    for (const m of opts.more || []) ws.keep(m.name, m.file);
    if (!opts.restoreHash) {
      await ws.add(name, file);
      this.keep();
    } else {
      // The kept pair is what the store holds: the restore itself saves nothing.
      this.kept = `${name}\n${(opts.more || [])[0]?.name || ''}`;
      this.key = opts.key || '';
      this.restoring = true;
      try {
        await ws.add(name, file);
        await urlState.restore('trend', opts.restoreHash);
      } finally {
        this.restoring = false;
      }
      this.host.dataset.restored = '1';
      this.keep();   // only when the restored pair differs from the kept one
    }
    urlState.changed();
  }
}
