// @ts-check
// The only place worker message names are spelled (requests {id, type, args}; replies
// {requestId, type, data} or {requestId, error: {name, message, engineMessage?}}).
export const Req = Object.freeze({
  RUN: 'RUN',            // args: {target: FileEntry[], golden: FileEntry[]|null, options, keepRuns?: string[]} -> {ok, ..., stored: 'opfs'|'memory', quota?, db: {..., opfs?: {run, file}}}
  OPEN_DB: 'OPEN_DB',    // args: {name, bytes: ArrayBuffer | file: Blob | url, current?: false}: added to the open set (same name replaced), current unless false; file and url open lazily -> {name, kind, tables, lazy, size}
  QUERY: 'QUERY',        // args: {sql, params, db?}: on database `db` (by name), else on the current one
  EXPORT_DB: 'EXPORT_DB', // args: {name?} -> {name, bytes: ArrayBuffer|Blob, opfs?: {run, file}}: the open database `name`, else the current one
  DB_STATS: 'DB_STATS',  // args: {name?} -> {lazy, opfs (run folder or ''), engine: 'none'|'loading'|'loaded', tensors: {target, golden}|null (TENSOR_FOLDERS), size?, reads?, bytesRead?, dirtyBlocks?, cachedBlocks?}
  QUERY_PLANS: 'QUERY_PLANS', // args: {db?} -> [{sql, plan: string[]}]: EXPLAIN QUERY PLAN of each statement run so far (tests)
  CAPS: 'CAPS',          // -> {opfs}: whether runs write their database to OPFS (else wasm memory)
  SWEEP_OPFS: 'SWEEP_OPFS', // args: {keep?: string[]} -> {removed, kept}: removes OPFS run folders but the open ones and `keep`
  MATCH: 'MATCH',        // args: {step, rank, npu, bench, descendants} -> {pairs}; tensor mode reads the files of TENSOR_FOLDERS
  TENSOR_FOLDERS: 'TENSOR_FOLDERS', // args: {db?, target: FileEntry[], golden: FileEntry[], targetName?, goldenName?}: the dump folders tensor-mode matching reads for database `db` (else the current one) -> {db}
  UNMATCH: 'UNMATCH',    // args: {step, rank, npu, bench, descendants} -> {pairs}
  BADGES: 'BADGES',      // args: {step, rank, side, db?} -> {source: 'stored'|'computed', rows: [name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow][]} (BEY-08)
  THRESHOLDS: 'THRESHOLDS', // args: {db?} -> {warning, error}: the bounds of the file's colour legend, by the engine's rule
  PARALLEL_LAYOUT: 'PARALLEL_LAYOUT',  // args: ParallelConfig (trend-analyzer §11.1) -> layout JSON (§11.7)
  CHECK_MAPPING: 'CHECK_MAPPING', // args: {text, name} -> {ok, message: EngineMessage}: whether -lm can use the layer-mapping file (the engine's reader)
  TREND: 'TREND'         // args: {data: FileEntry[], options: {format, microStep, mapping}} -> {ok, ..., databases: [{name, bytes}]}
});
export const Ev = Object.freeze({ LOG: 'LOG', PROGRESS: 'PROGRESS', RESULT: 'RESULT' });

/** @typedef {{path: string, file: Blob}} FileEntry  path relative to the dropped folder */
/**
 * A message of the engine or the worker (core/base/message.h MessageJson): id a VP_MESSAGE of
 * core/base/messages.def or a page message of engine_text.js ('' for a text with no id), args its
 * placeholders' values (a nested message for {name:t}), text the English. The page shows it with
 * engine_text.js engineText, by id.
 * @typedef {{id: string, args: Record<string, string|EngineMessage>, text: string}} EngineMessage
 */
/** A failure as the worker replies it: engineMessage when the failure is a message. @typedef {{name: string, message: string, engineMessage?: EngineMessage}} FailureReply */

// The requests' arguments and answers (checked by tsc: web_typecheck). Values SQLite returns.
/** @typedef {number|string|Uint8Array|null} SqlValue */
/** @typedef {{columns: string[], values: SqlValue[][]}} QueryResult  QUERY: the first statement's rows */
/**
 * RUN's options (the page's form; the worker turns them into the engine's GraphRequest).
 * @typedef {object} RunOptions
 * @property {boolean} [overflowCheck]
 * @property {boolean} [fuzzyMatch]
 * @property {boolean} [layerMapping]
 * @property {File|null} [mapping]  a layer-mapping file
 * @property {string} [rankSize]  the tokens typed, space separated (also tp, pp, vpp, order)
 * @property {string} [tp]
 * @property {string} [pp]
 * @property {string} [vpp]
 * @property {string} [order]
 * @property {string} [targetSub]  a sub-folder of the dropped folder ('' = all of it)
 * @property {string} [goldenSub]
 * @property {boolean} [inMemory]  write the database to wasm memory, not OPFS
 */
/**
 * @typedef {{target: FileEntry[], golden: FileEntry[]|null, options?: RunOptions, targetName?: string,
 *            goldenName?: string, keepRuns?: string[]}} RunArgs
 */
/** @typedef {{level: string, line: string, message: EngineMessage}} LogEvent  LOG: line, msProbe's log line; message, its message */
/** @typedef {{percent: number, running: boolean}} ProgressEvent  PROGRESS */
/**
 * RUN's answer. quota: the storage numbers when OPFS was full; db: the database it opened.
 * @typedef {{ok: boolean, code: string, message: EngineMessage, dbPath: string, rows: number, dumpBytes: number, seconds: number,
 *            stored: 'opfs'|'memory', quota?: {quotaMB: number, usageMB: number}|null, db?: DbInfo}} RunResult
 */
/**
 * An open database. opfs: where a build in OPFS lives; size: its bytes (lazily opened ones).
 * @typedef {{name: string, kind: string, tables: string[], lazy?: boolean, size?: number,
 *            opfs?: {run: string, file: string}}} DbInfo
 */
/** @typedef {{format?: string, microStep?: boolean, mapping?: File|null, dataSub?: string}} TrendOptions */
/** @typedef {{data: FileEntry[], options?: TrendOptions, dataName?: string}} TrendArgs */
/**
 * @typedef {{ok: boolean, code: string, message: EngineMessage, rows: number, inputBytes: number, seconds: number,
 *            databases: {name: string, bytes: ArrayBuffer}[]}} TrendResult
 */
/** @typedef {{step: number, rank: number, npu: string, bench: string, descendants: boolean}} MatchArgs */
/** @typedef {{pairs: [string, string][]}} MatchResult */
/**
 * @typedef {{db?: string, target: FileEntry[], golden: FileEntry[], targetName?: string, goldenName?: string}} TensorFoldersArgs
 */
/** [name, worst, n_error, n_warning, n_unmatched, n_overflow, worst_overflow] @typedef {[string, number|null, number, number, number, number, number]} BadgeRow */
/** @typedef {{source: 'stored'|'computed', rows: BadgeRow[]}} BadgesResult */
/** @typedef {{warning: number, error: number}} Thresholds */
/** @typedef {{name: string, bytes: ArrayBuffer|Blob, opfs?: {run: string, file: string}|null}} ExportResult */
/**
 * @typedef {{lazy: boolean, opfs: string, engine: 'none'|'loading'|'loaded', tensors: {target: string, golden: string}|null,
 *            size?: number, reads?: number, bytesRead?: number, dirtyBlocks?: number, cachedBlocks?: number}} DbStats
 */
/** @typedef {{removed: number, kept: number}} SweepResult */
/**
 * OPEN_DB's arguments: bytes (a database kept in IndexedDB, a build) or a file or a url, read
 * lazily; opfsPath: where in OPFS the file is (the worker holds it open).
 * @typedef {{name: string, bytes?: ArrayBuffer, file?: Blob, url?: string, current?: boolean, opfsPath?: string[]|null}} OpenDbArgs
 */
/** @typedef {{sql: string, params?: SqlValue[], db?: string}} QueryArgs */
/** @typedef {{step: number, rank: number, side: string, db?: string}} BadgesArgs */
/**
 * A request as the worker receives it: {id, type, args}, args by type.
 * @typedef {{id: number} & (
 *   {type: 'RUN', args: RunArgs} | {type: 'TREND', args: TrendArgs} | {type: 'OPEN_DB', args: OpenDbArgs} |
 *   {type: 'QUERY', args: QueryArgs} | {type: 'EXPORT_DB', args: {name?: string}} | {type: 'DB_STATS', args: {name?: string}} |
 *   {type: 'QUERY_PLANS', args: {db?: string}} | {type: 'CAPS', args: {}} | {type: 'SWEEP_OPFS', args: {keep?: string[]}} |
 *   {type: 'MATCH', args: MatchArgs} | {type: 'UNMATCH', args: MatchArgs} | {type: 'TENSOR_FOLDERS', args: TensorFoldersArgs} |
 *   {type: 'BADGES', args: BadgesArgs} | {type: 'THRESHOLDS', args: {db?: string}} |
 *   {type: 'PARALLEL_LAYOUT', args: import('../trend/parallel.js').ParallelConfig} |
 *   {type: 'CHECK_MAPPING', args: {text: string, name: string}})} Request
 */
