// @ts-check
// The page's handle on the engine worker: promises per request id, progress callbacks, and
// cancel = terminate + restart (the page stays usable).
import { Req, Ev } from './protocol.js';
import { MessageError, pageMessage } from '../engine_text.js';

/** @typedef {import('./protocol.js').FileEntry} FileEntry */
/** @typedef {import('./protocol.js').LogEvent} LogEvent */
/** @typedef {import('./protocol.js').ProgressEvent} ProgressEvent */
/** What RUN and TREND report while they run. @typedef {(...e: ['LOG', LogEvent] | ['PROGRESS', ProgressEvent]) => void} OnEvent */
/**
 * A worker's message: an event or the answer of request `requestId`, or its failure.
 * @typedef {{requestId: number, type?: string, data?: unknown, error?: import('./protocol.js').FailureReply}} Reply
 */

export class EngineClient {
  /** @param {string} workerUrl @param {'module'|'classic'} [type] */
  constructor(workerUrl, type = 'module') {
    this.workerUrl = workerUrl;
    this.workerType = type;
    this.nextId = 1;
    /** @type {Map<number, {resolve: (data: unknown) => void, reject: (e: Error) => void, onEvent?: OnEvent}>} */
    this.pending = new Map();
    /** @type {Worker} */
    this.worker = this.start();
  }

  /** Starts the worker (also this.worker). */
  start() {
    const worker = this.worker = new Worker(this.workerUrl, { type: this.workerType });
    worker.onmessage = (ev) => this.onMessage(ev.data);
    worker.onerror = (ev) => {
      const err = new MessageError(pageMessage('EngineStopped', { m: ev.message ? String(ev.message) : pageMessage('WorkerError') }));
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    return worker;
  }

  /** @param {Reply} msg */
  onMessage(msg) {
    const p = this.pending.get(msg.requestId);
    if (!p) return;
    if (msg.error) {
      this.pending.delete(msg.requestId);
      const e = msg.error.engineMessage ? new MessageError(msg.error.engineMessage, msg.error.name) : new Error(msg.error.message);
      e.name = msg.error.name;
      p.reject(e);
    } else if (msg.type === Ev.RESULT) {
      this.pending.delete(msg.requestId);
      p.resolve(msg.data);
    } else if (p.onEvent) {
      p.onEvent(.../** @type {['LOG', LogEvent]} */ ([msg.type, msg.data]));
    }
  }

  /**
   * @template T the answer's type (protocol.js)
   * @param {string} type @param {unknown} args @param {OnEvent} [onEvent] @param {Transferable[]} [transfer]
   * @returns {Promise<T>}
   */
  request(type, args, onEvent, transfer) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: /** @type {(data: unknown) => void} */ (resolve), reject, onEvent });
      this.worker.postMessage({ id, type, args }, { transfer: transfer || [] });
    });
  }

  /** @param {import('./protocol.js').RunArgs} args @param {OnEvent} [onEvent] @returns {Promise<import('./protocol.js').RunResult>} */
  run(args, onEvent) { return this.request(Req.RUN, args, onEvent); }
  /**
   * data2db on a dropped dump or monitor folder (trend-analyzer §12).
   * @param {import('./protocol.js').TrendArgs} args @param {OnEvent} [onEvent] @returns {Promise<import('./protocol.js').TrendResult>}
   */
  trend(args, onEvent) { return this.request(Req.TREND, args, onEvent); }
  /**
   * @param {string} name @param {ArrayBuffer|Blob} bytes
   * @param {{current?: boolean, opfsPath?: string[]|null}} [opts] current: false keeps the current database;
   *   opfsPath: where in OPFS the Blob is (the worker opens it there and holds it open)
   * @returns {Promise<import('./protocol.js').DbInfo>}
   */
  openDb(name, bytes, opts = {}) {
    // A Blob (a dropped File) is read lazily by the worker: it is passed, not copied.
    if (bytes instanceof Blob) return this.request(Req.OPEN_DB, { name, file: bytes, current: opts.current !== false, opfsPath: opts.opfsPath || null });
    return this.request(Req.OPEN_DB, { name, bytes, current: opts.current !== false }, undefined, [bytes]);
  }
  /** A database on a static host, read with HTTP Range requests. @param {string} name @param {string} url @returns {Promise<import('./protocol.js').DbInfo>} */
  openUrl(name, url) { return this.request(Req.OPEN_DB, { name, url, current: true }); }
  /** Read statistics of a lazily opened database (blocks read, bytes read). @param {string} [name] @returns {Promise<import('./protocol.js').DbStats>} */
  dbStats(name) { return this.request(Req.DB_STATS, name ? { name } : {}); }
  /**
   * @param {string} sql @param {import('./protocol.js').SqlValue[]} [params] @param {string} [db] an open database by name; default the current one
   * @returns {Promise<import('./protocol.js').QueryResult>}
   */
  query(sql, params, db) { return this.request(Req.QUERY, db ? { sql, params, db } : { sql, params }); }
  /** @param {string} [name] an open database by name; default the current one @returns {Promise<import('./protocol.js').ExportResult>} */
  exportDb(name) { return this.request(Req.EXPORT_DB, name ? { name } : {}); }
  /** EXPLAIN QUERY PLAN of every statement run so far (tests). @param {string} [db] @returns {Promise<{sql: string, plan: string[]}[]>} */
  queryPlans(db) { return this.request(Req.QUERY_PLANS, db ? { db } : {}); }
  /** What this browser's worker can do: {opfs}. @returns {Promise<{opfs: boolean}>} */
  caps() { return this.request(Req.CAPS, {}); }
  /** Removes the OPFS run folders but the open databases' and `keep`. @param {string[]} [keep] @returns {Promise<import('./protocol.js').SweepResult>} */
  sweepOpfs(keep) { return this.request(Req.SWEEP_OPFS, { keep: keep || [] }); }
  /** @param {import('./protocol.js').MatchArgs} args @returns {Promise<import('./protocol.js').MatchResult>} */
  match(args) { return this.request(Req.MATCH, args); }
  /** @param {import('./protocol.js').TensorFoldersArgs} args @returns {Promise<{db: string}>} */
  tensorFolders(args) { return this.request(Req.TENSOR_FOLDERS, args); }
  /** @param {import('./protocol.js').MatchArgs} args @returns {Promise<import('./protocol.js').MatchResult>} */
  unmatch(args) { return this.request(Req.UNMATCH, args); }
  /**
   * Problem badges of one graph (BEY-08). @param {{step: number, rank: number, side: string, db?: string}} args
   * @returns {Promise<import('./protocol.js').BadgesResult>}
   */
  badges(args) { return this.request(Req.BADGES, args); }
  /** The warning and error bounds of the database's legend (engine rule). @param {{db?: string}} [args] @returns {Promise<import('./protocol.js').Thresholds>} */
  thresholds(args) { return this.request(Req.THRESHOLDS, args || {}); }
  /**
   * Megatron layout of a parallel configuration (trend-analyzer §11.7).
   * @param {import('../trend/parallel.js').ParallelConfig} config @returns {Promise<import('../trend/parallel.js').Layout>}
   */
  parallelLayout(config) { return this.request(Req.PARALLEL_LAYOUT, config); }
  /**
   * Whether -lm can use a layer-mapping file: the engine reads its text as the run would.
   * @param {{text: string, name: string}} args @returns {Promise<{ok: boolean, message: string}>}
   */
  checkMapping(args) { return this.request(Req.CHECK_MAPPING, args); }

  cancel() {
    this.worker.terminate();
    const err = new MessageError(pageMessage('Cancelled'), 'Cancelled');
    err.name = 'Cancelled';
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.start();
  }
}
