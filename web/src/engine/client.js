// @ts-check
// The page's handle on the engine worker: promises per request id, progress callbacks, and
// cancel = terminate + restart (the page stays usable).
import { Req, Ev } from './protocol.js';

export class EngineClient {
  /** @param {string} workerUrl @param {'module'|'classic'} [type] */
  constructor(workerUrl, type = 'module') {
    this.workerUrl = workerUrl;
    this.workerType = type;
    this.nextId = 1;
    /** @type {Map<number, {resolve: Function, reject: Function, onEvent?: Function}>} */
    this.pending = new Map();
    this.start();
  }

  start() {
    this.worker = new Worker(this.workerUrl, { type: this.workerType });
    this.worker.onmessage = (ev) => this.onMessage(ev.data);
    this.worker.onerror = (ev) => {
      const err = new Error(`The engine stopped: ${ev.message || 'worker error'}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
  }

  /** @param {any} msg */
  onMessage(msg) {
    const p = this.pending.get(msg.requestId);
    if (!p) return;
    if (msg.error) {
      this.pending.delete(msg.requestId);
      const e = new Error(msg.error.message);
      e.name = msg.error.name;
      p.reject(e);
    } else if (msg.type === Ev.RESULT) {
      this.pending.delete(msg.requestId);
      p.resolve(msg.data);
    } else if (p.onEvent) {
      p.onEvent(msg.type, msg.data);
    }
  }

  /** @param {string} type @param {any} args @param {Function} [onEvent] @param {Transferable[]} [transfer] */
  request(type, args, onEvent, transfer) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onEvent });
      this.worker.postMessage({ id, type, args }, { transfer: transfer || [] });
    });
  }

  run(args, onEvent) { return this.request(Req.RUN, args, onEvent); }
  /** data2db on a dropped dump or monitor folder (trend-analyzer §12). */
  trend(args, onEvent) { return this.request(Req.TREND, args, onEvent); }
  /**
   * @param {string} name @param {ArrayBuffer|Blob} bytes
   * @param {{current?: boolean, opfsPath?: string[]|null}} [opts] current: false keeps the current database;
   *   opfsPath: where in OPFS the Blob is (the worker opens it there and holds it open)
   */
  openDb(name, bytes, opts = {}) {
    // A Blob (a dropped File) is read lazily by the worker: it is passed, not copied.
    if (bytes instanceof Blob) return this.request(Req.OPEN_DB, { name, file: bytes, current: opts.current !== false, opfsPath: opts.opfsPath || null });
    return this.request(Req.OPEN_DB, { name, bytes, current: opts.current !== false }, undefined, [bytes]);
  }
  /** A database on a static host, read with HTTP Range requests. @param {string} name @param {string} url */
  openUrl(name, url) { return this.request(Req.OPEN_DB, { name, url, current: true }); }
  /** Read statistics of a lazily opened database (blocks read, bytes read). @param {string} [name] */
  dbStats(name) { return this.request(Req.DB_STATS, name ? { name } : {}); }
  /** @param {string} sql @param {any[]} [params] @param {string} [db] an open database by name; default the current one */
  query(sql, params, db) { return this.request(Req.QUERY, db ? { sql, params, db } : { sql, params }); }
  /** @param {string} [name] an open database by name; default the current one */
  exportDb(name) { return this.request(Req.EXPORT_DB, name ? { name } : {}); }
  /** EXPLAIN QUERY PLAN of every statement run so far (tests). @param {string} [db] */
  queryPlans(db) { return this.request(Req.QUERY_PLANS, db ? { db } : {}); }
  /** What this browser's worker can do: {opfs}. */
  caps() { return this.request(Req.CAPS, {}); }
  /** Removes the OPFS run folders but the open databases' and `keep`. @param {string[]} [keep] */
  sweepOpfs(keep) { return this.request(Req.SWEEP_OPFS, { keep: keep || [] }); }
  match(args) { return this.request(Req.MATCH, args); }
  tensorFolders(args) { return this.request(Req.TENSOR_FOLDERS, args); }
  unmatch(args) { return this.request(Req.UNMATCH, args); }
  /** Problem badges of one graph (BEY-08). @param {{step: number, rank: number, side: string, db?: string}} args */
  badges(args) { return this.request(Req.BADGES, args); }
  /** The warning and error bounds of the database's legend (engine rule). @param {{db?: string}} [args] */
  thresholds(args) { return this.request(Req.THRESHOLDS, args || {}); }
  /** Megatron layout of a parallel configuration (trend-analyzer §11.7). @param {Record<string, any>} config */
  parallelLayout(config) { return this.request(Req.PARALLEL_LAYOUT, config); }

  cancel() {
    this.worker.terminate();
    const err = new Error('Cancelled.');
    err.name = 'Cancelled';
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.start();
  }
}
