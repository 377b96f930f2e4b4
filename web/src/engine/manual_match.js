// @ts-check
// Manual matching (web-ui MAT-03 / MAT-04) on the worker's open database: the pairs' rows are
// recomputed by the engine (compareStored: the rows it writes; in tensor mode from the pair's
// .pt / .npy files, on the dump folders a build brought or the page gave) and written back.

/** @typedef {import('./protocol.js').FileEntry} FileEntry */
/** @typedef {import('./protocol.js').MatchArgs} MatchArgs */
/**
 * A node's row as matching reads it. subs, links: its sub_nodes and matched_node_link lists.
 * @typedef {{name: string, type: string, up: string, subs: string[], links: string[], input: string|null,
 *            output: string|null, dataDir: string}} NodeRow
 */
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


/** json.dumps of a list of strings (", " separators, non-ASCII escaped). @param {string[]} list */
function pyJsonList(list) {
  const esc = (/** @type {string} */ s) => JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
  return '[' + list.map(esc).join(', ') + ']';
}

/** @param {number} step @param {number} rank @param {string} side @param {string} name @returns {NodeRow|null} */
function row(step, rank, side, name) {
  const st = db.prepare('SELECT node_name, node_type, up_node, sub_nodes, matched_node_link, input_data, output_data, dump_data_dir FROM tb_nodes WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?');
  try {
    st.bind([step, rank, side, name]);
    if (!st.step()) return null;
    const [n, type, up, sub, link, input, output, dataDir] = st.get();
    let links = [];
    let subs = [];
    try { links = JSON.parse(/** @type {string} */ (link) || '[]'); } catch { links = []; }
    try { subs = sub ? JSON.parse(/** @type {string} */ (sub)) : []; } catch { subs = []; }
    // (node_name, up_node, input_data, output_data: TEXT columns)
    return { name: /** @type {string} */ (n), type: String(type), up: /** @type {string} */ (up), subs, links,
             input: /** @type {string|null} */ (input), output: /** @type {string|null} */ (output), dataDir: dataDir == null ? '' : String(dataDir) };
  } finally {
    st.free();
  }
}

/** @param {number} step @param {number} rank @param {string} side @param {string} name */
function ancestors(step, rank, side, name) {
  /** @type {string[]} */
  const out = [];
  let cur = row(step, rank, side, name);
  for (let guard = 0; cur && cur.up && guard < 10000; ++guard) {
    out.unshift(cur.up);
    cur = row(step, rank, side, cur.up);
  }
  return out;
}

const twinOf = (/** @type {string} */ name) => (name.includes('forward') ? name.split('forward').join('backward') : name.split('backward').join('forward'));

// Children paired by key (module class + direction, or API name + direction, plus type), in order.
/** @param {NodeRow} r */
function childKey(r) {
  const seg = r.name.split('.').filter((s) => !/^\d+$/.test(s));
  return r.type + ':' + seg.slice(r.type === '0' ? -2 : 1).join('.');
}

/** The rows of `names` on one side of the request's (step, rank), those that exist. @param {MatchArgs} a @param {string} side @param {string[]} names */
function rowsOf(a, side, names) {
  return /** @type {NodeRow[]} */ (names.map((s) => row(a.step, a.rank, side, s)).filter((r) => r));
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

/** The first data file a node's items name (to find its folder), or ''. @param {string} items */
function firstDataName(items) {
  const m = /"data_name": "([^"]+)"/g;
  for (let r = m.exec(items || ''); r; r = m.exec(items || '')) if (r[1] !== '-1' && r[1] !== 'N/A') return r[1];
  return '';
}

/**
 * The pair's two tensor folders under the mounted roots (core LocateTensorDir: the stored
 * dump_data_dir re-rooted under the folder given for each side).
 * @param {{target: string, golden: string}} roots @param {NodeRow} n @param {NodeRow} b
 */
function tensorDirs(roots, n, b) {
  const where = (/** @type {NodeRow} */ r, /** @type {string} */ root) => {
    const probe = firstDataName(r.input || '') || firstDataName(r.output || '');
    if (!probe) return '';
    const found = engine.locateTensors(r.dataDir || '', root, probe);
    if (!found.ok) throw new Error(found.message);
    return found.inputData;
  };
  return { npu: where(n, roots.target), bench: where(b, roots.golden) };
}

/** @param {MatchArgs} a @param {NodeRow} n @param {NodeRow} b @param {{target: string, golden: string}|null} roots */
function matchPair(a, n, b, roots) {
  const t = task();
  const dirs = t === 'all' && roots ? tensorDirs(roots, n, b) : { npu: '', bench: '' };
  const res = engine.compareStored(t, n.name, n.input || '{}', n.output || '{}', b.input || '{}', b.output || '{}', dirs.npu, dirs.bench);
  if (!res.ok) throw new Error(res.message);
  const nLink = pyJsonList([...ancestors(a.step, a.rank, 'Bench', b.name), b.name]);
  const bLink = pyJsonList([...ancestors(a.step, a.rank, 'NPU', n.name), n.name]);
  db.run('UPDATE tb_nodes SET matched_node_link = ?, precision_index = ?, input_data = ?, output_data = ?, modified = 1 WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
         [nLink, res.precision < 0 ? null : res.precision, res.inputData, res.outputData, a.step, a.rank, 'NPU', n.name]);
  db.run('UPDATE tb_nodes SET matched_node_link = ?, modified = 1 WHERE step = ? AND rank = ? AND data_source = ? AND node_name = ?',
         [bLink, a.step, a.rank, 'Bench', b.name]);
}

/** @param {MatchArgs} a @param {NodeRow} n @param {NodeRow} b */
function unmatchPair(a, n, b) {
  const input = engine.stripFields(n.input || '{}');
  const output = engine.stripFields(n.output || '{}');
  if (!input.ok) throw new Error(input.message);
  if (!output.ok) throw new Error(output.message);
  db.run("UPDATE tb_nodes SET matched_node_link = '[]', precision_index = NULL, input_data = ?, output_data = ?, modified = 1 WHERE step = ? AND rank = ? AND data_source = 'NPU' AND node_name = ?",
         [input.inputData, output.inputData, a.step, a.rank, n.name]);
  db.run("UPDATE tb_nodes SET matched_node_link = '[]', modified = 1 WHERE step = ? AND rank = ? AND data_source = 'Bench' AND node_name = ?",
         [a.step, a.rank, b.name]);
}

/** @param {MatchEnv} env @param {MatchArgs} a @returns {import('./protocol.js').MatchResult} */
export function manualMatch(env, a) {
  bind(env);
  const n = row(a.step, a.rank, 'NPU', a.npu);
  const b = row(a.step, a.rank, 'Bench', a.bench);
  if (!n) throw new Error('Please select the debug-side unmatched node!');
  if (!b) throw new Error('Please select the bench-side unmatched node!');
  if (n.links.length || b.links.length) throw new Error('Both nodes must be unmatched.');
  if (n.type !== b.type) throw new Error('Node types differ');
  /** @type {[string, string][]} */
  const pairs = [];
  const roots = task() === 'all' ? mountTensorFolders() : null;
  const visit = (/** @type {NodeRow} */ x, /** @type {NodeRow} */ y) => {
    matchPair(a, x, y, roots);
    pairs.push([x.name, y.name]);
    if (!a.descendants) return;
    /** @type {Map<string, NodeRow[]>} */
    const groups = new Map();
    for (const c of rowsOf(a, 'Bench', y.subs).filter((r) => !r.links.length)) {
      const k = childKey(c);
      if (!groups.has(k)) groups.set(k, []);
      /** @type {NodeRow[]} */ (groups.get(k)).push(c);
    }
    for (const c of rowsOf(a, 'NPU', x.subs).filter((r) => !r.links.length)) {
      const list = groups.get(childKey(c));
      if (list && list.length) visit(c, /** @type {NodeRow} */ (list.shift()));
    }
  };
  db.run('BEGIN');
  try {
    visit(n, b);
    const tn = row(a.step, a.rank, 'NPU', twinOf(n.name));
    const tb = row(a.step, a.rank, 'Bench', twinOf(b.name));
    if (tn && tb && tn.name !== n.name && !tn.links.length && !tb.links.length && tn.type === tb.type) visit(tn, tb);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    // Messages name the user's folders, not the mount points.
    if (roots && e instanceof Error) e.message = roots.named(e.message);
    throw e;
  } finally {
    if (roots) unmountTensorFolders(roots);
  }
  return { pairs };
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
  bind(env);
  const n = row(a.step, a.rank, 'NPU', a.npu);
  const b = row(a.step, a.rank, 'Bench', a.bench);
  if (!n || !b) throw new Error('Please select the nodes to be unmatched!');
  if (n.links[n.links.length - 1] !== b.name || b.links[b.links.length - 1] !== n.name) throw new Error('These nodes are not matched with each other');
  /** @type {[string, string][]} */
  const pairs = [];
  const visit = (/** @type {NodeRow} */ x, /** @type {NodeRow} */ y) => {
    unmatchPair(a, x, y);
    pairs.push([x.name, y.name]);
    if (!a.descendants) return;
    for (const c of rowsOf(a, 'NPU', x.subs).filter((r) => r.links.length)) {
      const peer = row(a.step, a.rank, 'Bench', c.links[c.links.length - 1]);
      if (peer && peer.links[peer.links.length - 1] === c.name) visit(c, peer);
    }
  };
  db.run('BEGIN');
  try {
    visit(n, b);
    const tn = row(a.step, a.rank, 'NPU', twinOf(n.name));
    const tb = row(a.step, a.rank, 'Bench', twinOf(b.name));
    if (tn && tb && tn.name !== n.name && tn.links[tn.links.length - 1] === tb.name) visit(tn, tb);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  }
  return { pairs };
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
