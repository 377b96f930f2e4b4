// @ts-check
// Manual matching (web-ui MAT-03 / MAT-04) on the worker's open database. Every rule is the
// engine's (core/compare/manual_pairing.h, bound as manualMatch): which nodes pair (the selected
// pair, with descendants their children by key in order, the forward / backward twin), each row's
// matched_node_link and the NPU rows' recomputed items (in tensor mode from the pair's .pt / .npy
// files, on the dump folders a build brought or the page gave). This module only transports: it
// answers the engine's row reads from this database (the engine's own SQLite cannot read sql.js's
// file) and writes back the updates the engine decided, in one transaction.
import { namedMessage, valueOf } from './engine_call.js';

/** @typedef {import('./protocol.js').FileEntry} FileEntry */
/** @typedef {import('./protocol.js').MatchArgs} MatchArgs */
/** @typedef {import('visprobe-wasm/visprobe_web.mjs').MatchNodeRow} MatchNodeRow */
/** @typedef {import('visprobe-wasm/visprobe_web.mjs').MatchedNodeUpdate} MatchedNodeUpdate */
/**
 * What a request works on: the current database and its name, the engine, the worker's mount.
 * @typedef {{db: import('sql.js').Database, dbName: string, engine: import('visprobe-wasm/visprobe_web.mjs').VisprobeModule,
 *            mount: (files: FileEntry[], where: string) => void,
 *            userPaths: (mounts: [string, string][]) => (text: string) => string}} MatchEnv
 */

/** The request's database and engine (one request at a time in the worker; set by bind). */
let db = /** @type {MatchEnv['db']} */ (/** @type {unknown} */ (null));
let engine = /** @type {MatchEnv['engine']} */ (/** @type {unknown} */ (null));
let dbName = '';
/** @type {(files: import('./protocol.js').FileEntry[], where: string) => void} */
let mount = () => {};
/** @type {(mounts: [string, string][]) => (text: string) => string} */
let userPaths = () => (text) => text;

/** @param {MatchEnv} env */
function bind(env) {
  ({ db, dbName, engine, mount, userPaths } = env);
}

/**
 * The engine's row reader over (step, rank) of the database: the tb_nodes row of a name on one side
 * by column name, or null. One prepared statement for the request; free it after.
 * @param {number} step @param {number} rank
 */
function rowReader(step, rank) {
  const st = db.prepare('SELECT node_name, node_type, up_node, sub_nodes, matched_node_link, input_data, output_data, dump_data_dir FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?');
  const read = (/** @type {'NPU'|'Bench'} */ side, /** @type {string} */ name) => {
    st.bind([step, rank, side, name]);
    return st.step() ? /** @type {MatchNodeRow} */ (/** @type {unknown} */ (st.getAsObject())) : null;
  };
  return { read, free: () => st.free() };
}

function task() {
  const r = db.exec('SELECT task FROM tb_config')[0];
  return r ? String(r.values[0][0]) : '';
}

/**
 * Tensor-mode matching reads the dump folders: those of the build that made the database (kept from
 * its RUN), or those the page gave with TENSOR_FOLDERS. By database name.
 * @type {Map<string, {target: import('./protocol.js').FileEntry[], golden: import('./protocol.js').FileEntry[], targetName: string, goldenName: string}>}
 */
const tensorFolders = new Map();
let tensorMounts = 0;

/** The engine's updates written back, in its order, in one transaction. @param {MatchArgs} a @param {MatchedNodeUpdate[]} updates */
function writeUpdates(a, updates) {
  db.run('BEGIN');
  try {
    for (const u of updates) {
      if (u.setItems) {
        db.run('UPDATE tb_nodes SET matched_node_link = ?, precision_index = ?, input_data = ?, output_data = ?, modified = 1 WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
               [u.matchedNodeLink, u.precisionIndex, u.inputData, u.outputData, a.step, a.rank, u.side, u.nodeName]);
      } else {
        db.run('UPDATE tb_nodes SET matched_node_link = ?, modified = 1 WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
               [u.matchedNodeLink, a.step, a.rank, u.side, u.nodeName]);
      }
    }
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  }
}

/**
 * A match or an unmatch: the engine's plan over this database's rows (with the database's tensor
 * folders mounted when it has some), then its updates written.
 * @param {MatchEnv} env @param {MatchArgs} a @param {boolean} unmatch @returns {import('./protocol.js').MatchResult}
 */
function matchOrUnmatch(env, a, unmatch) {
  bind(env);
  const roots = mountTensorFolders();
  const rows = rowReader(a.step, a.rank);
  try {
    const response = engine.manualMatch({ task: task(), npu: a.npu, bench: a.bench, descendants: Boolean(a.descendants),
                                          unmatch, targetRoot: roots ? roots.target : '', goldenRoot: roots ? roots.golden : '' },
                                        rows.read);
    // Messages name the user's folders, not the mount points.
    if (roots) response.status.message = namedMessage(roots.named, response.status.message);
    const plan = valueOf(response);
    writeUpdates(a, plan.updates);
    return { pairs: plan.pairs };
  } finally {
    rows.free();
    if (roots) unmountTensorFolders(roots);
  }
}

/** @param {MatchEnv} env @param {MatchArgs} a @returns {import('./protocol.js').MatchResult} */
export function manualMatch(env, a) {
  return matchOrUnmatch(env, a, false);
}

/** Mounts the current database's tensor folders (WORKERFS, read in place); null when there are none. */
function mountTensorFolders() {
  const f = tensorFolders.get(dbName);
  if (!f) return null;
  const root = `/tensors${++tensorMounts}`;
  const roots = { target: `${root}/target`, golden: `${root}/golden`,
                  named: userPaths([[`${root}/target`, f.targetName || 'target'], [`${root}/golden`, f.goldenName || 'golden']]) };
  mount(f.target, roots.target);
  mount(f.golden, roots.golden);
  return roots;
}

/** @param {{target: string, golden: string}} roots */
function unmountTensorFolders(roots) {
  engine.FS.unmount(roots.target);
  engine.FS.unmount(roots.golden);
}

/** @param {MatchEnv} env @param {MatchArgs} a @returns {import('./protocol.js').MatchResult} */
export function manualUnmatch(env, a) {
  return matchOrUnmatch(env, a, true);
}

/** A compare's dump folders stay known to tensor-mode matching on its database (the Files are references). */
export function keepTensorFolders(/** @type {string} */ name, /** @type {import('./protocol.js').RunArgs} */ args) {
  if (args.golden) setTensorFolders(name, args);
}

/**
 * The dump folders tensor-mode matching reads for database `name` (TENSOR_FOLDERS; a compare's RUN).
 * @param {string} name @param {{target: FileEntry[], golden: FileEntry[]|null, targetName?: string, goldenName?: string}} args
 */
export function setTensorFolders(name, args) {
  tensorFolders.set(name, { target: args.target || [], golden: args.golden || [], targetName: args.targetName || '', goldenName: args.goldenName || '' });
}

/** The names of those folders, or null (DB_STATS). @param {string} name */
export function tensorFolderNames(name) {
  const tf = tensorFolders.get(name);
  return tf ? { target: tf.targetName, golden: tf.goldenName } : null;
}
