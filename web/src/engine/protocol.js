// @ts-check
// The only place worker message names are spelled (requests {id, type, args}; replies
// {requestId, type, data} or {requestId, error: {name, message}}).
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
  TREND: 'TREND'         // args: {data: FileEntry[], options: {format, microStep, mapping}} -> {ok, ..., databases: [{name, bytes}]}
});
export const Ev = Object.freeze({ LOG: 'LOG', PROGRESS: 'PROGRESS', RESULT: 'RESULT' });

/** @typedef {{path: string, file: Blob}} FileEntry  path relative to the dropped folder */
