// @ts-check
// The engine's output folder in the origin-private file system (OPFS), so a build is not bounded by
// wasm memory: an Emscripten filesystem whose files are OPFS files written through
// FileSystemSyncAccessHandle (synchronous, workers only). Handles can only be created
// asynchronously, so a run gets a small pool of them first (the engine writes one `.tmp` file,
// renames it when complete, and SQLite runs without a journal); creating a file takes a free one,
// rename relabels it, unlink truncates it and gives it back. Directories live in memory.
//
// Chromium 156 (measured): getFile() works while a sync handle is open, and removeEntry() of a
// file another handle holds open fails, so a handle kept open is the lock that keeps a database a
// tab shows from being swept by another tab.
import { MessageError, pageMessage } from '../engine_text.js';

const E = { PERM: 63, NOENT: 44, IO: 29, EXIST: 20, ISDIR: 31, INVAL: 28, NOSPC: 51, NOTEMPTY: 55 };
const DIR_MODE = 0o40777, S_IFMT = 0o170000, S_IFDIR = 0o40000;
/** How much a file grows between two checks of its real size (see write). */
const CHECK_BYTES = 64 * 1024 * 1024;
export const RUNS_DIR = 'visprobe-runs';

/** Whether this worker can write OPFS files synchronously. */
export async function opfsAvailable() {
  try {
    if (!navigator.storage || typeof navigator.storage.getDirectory !== 'function') return false;
    if (typeof FileSystemFileHandle === 'undefined' || typeof FileSystemFileHandle.prototype.createSyncAccessHandle !== 'function') return false;
    await navigator.storage.getDirectory();
    return true;
  } catch {
    return false;
  }
}

/** The folder all runs' databases live under. */
export async function runsDir() {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(RUNS_DIR, { create: true });
}

/**
 * A run's folder `name` under RUNS_DIR with `count` open files (slot-0 ... slot-N).
 * @param {string} name @param {number} count
 */
export async function createPool(name, count) {
  const dir = await (await runsDir()).getDirectoryHandle(name, { create: true });
  /** @type {{file: string, handle: FileSystemFileHandle, access: FileSystemSyncAccessHandle, used: boolean, checkedTo?: number}[]} */
  const slots = [];
  for (let i = 0; i < count; ++i) {
    const file = `slot-${i}`;
    const handle = await dir.getFileHandle(file, { create: true });
    const access = await handle.createSyncAccessHandle();
    access.truncate(0);
    slots.push({ file, handle, access, used: false });
  }
  return {
    name, dir, slots,
    /** Set when a write failed for the storage quota: the run's message says so. */
    quotaError: /** @type {Error|null} */ (null),
    /** The first other storage failure (SQLite only says "disk I/O error"): the run's message names it. */
    ioError: /** @type {Error|null} */ (null),
    /** Closes every handle (the files stay). */
    close() {
      for (const s of slots) {
        try { s.access.flush(); } catch { /* closed */ }
        try { s.access.close(); } catch { /* closed */ }
      }
    },
  };
}

/** A run's pool of open OPFS files (createPool). @typedef {Awaited<ReturnType<typeof createPool>>} Pool */
/** One open OPFS file of a pool. @typedef {Pool['slots'][number]} Slot */
/** @typedef {import('visprobe-wasm/visprobe_web.mjs').EmscriptenFS} EmscriptenFS */
/**
 * A node of this filesystem (emscripten's FS node with this file's fields): a file holds a pool
 * slot (contents null), a directory its children by name (contents, slot null).
 * @typedef {{id: number, name: string, mode: number, timestamp: number, parent: OpfsNode, slot: Slot|null,
 *            contents: Record<string, OpfsNode>|null, node_ops: object, stream_ops: object}} OpfsNode
 */

/** The stream argument of emscripten's stream operations (streams are opened on files). @typedef {{node: OpfsNode, position: number}} OpfsStream */

/**
 * The state the node and stream operations share: emscripten's FS, the pool, and the helpers
 * over them. The operations themselves are plain objects (emscripten calls them without `this`).
 */
class OpfsContext {
  /** @param {EmscriptenFS} FS @param {Pool} pool */
  constructor(FS, pool) {
    this.FS = FS;
    this.pool = pool;
    this.node_ops = nodeOps(this);
    this.stream_ops = streamOps(this);
  }

  /** @param {number} code */
  err(code) { return new this.FS.ErrnoError(code); }

  /**
   * One call of the sync access handle; a failure is kept (the first one) for the run's message,
   * since SQLite reports every storage failure as "disk I/O error".
   * @template T @param {string} op @param {number} at @param {() => T} fn @returns {T}
   */
  guard(op, at, fn) {
    try {
      return fn();
    } catch (e) {
      if (/** @type {Error} */ (e).name === 'QuotaExceededError') { this.pool.quotaError = /** @type {Error} */ (e); throw this.err(E.NOSPC); }
      if (!this.pool.ioError) this.pool.ioError = Object.assign(/** @type {Error} */ (e), { op, at });
      throw this.err(E.IO);
    }
  }

  /** A file's size, a directory's 4096. @param {OpfsNode} node */
  size(node) { const slot = node.slot; return slot ? this.guard('getSize', 0, () => slot.access.getSize()) : 4096; }

  /** @param {OpfsNode|null} parent @param {string} name @param {number} mode @param {Slot|null} slot */
  createNode(parent, name, mode, slot) {
    const node = /** @type {OpfsNode} */ (/** @type {unknown} */ (this.FS.createNode(parent, name, mode, 0)));   // (given this file's fields below)
    node.node_ops = this.node_ops;
    node.stream_ops = this.stream_ops;
    node.timestamp = Date.now();
    node.slot = slot;
    node.contents = slot ? null : {};
    if (parent) kids(parent)[name] = node;
    return node;
  }

  /** Gives a file's slot back to the pool, emptied. @param {OpfsNode} node a file */
  free(node) {
    const slot = /** @type {Slot} */ (node.slot);
    slot.access.truncate(0);
    slot.used = false;
    node.slot = null;
  }
}

/** A directory's children (emscripten calls the directory operations on directories only). @param {OpfsNode} dir */
const kids = (dir) => /** @type {Record<string, OpfsNode>} */ (dir.contents);

/** The node operations of the filesystem (emscripten's node_ops). @param {OpfsContext} fs */
function nodeOps(fs) {
  return {
    getattr(/** @type {OpfsNode} */ node) {
      const t = new Date(node.timestamp);
      const n = fs.size(node);
      return { dev: 1, ino: node.id, mode: node.mode, nlink: 1, uid: 0, gid: 0, rdev: 0, size: n,
               atime: t, mtime: t, ctime: t, blksize: 4096, blocks: Math.ceil(n / 4096) };
    },
    setattr(/** @type {OpfsNode} */ node, /** @type {{mode?: number, timestamp?: number, size?: number}} */ attr) {
      if (attr.mode !== undefined) node.mode = attr.mode;
      if (attr.timestamp !== undefined) node.timestamp = attr.timestamp;
      const slot = node.slot, to = attr.size;
      if (to !== undefined && slot) {
        fs.guard('truncate', to, () => slot.access.truncate(to));
        slot.checkedTo = Math.min(slot.checkedTo || 0, to);
      }
    },
    lookup() { throw fs.FS.genericErrors[E.NOENT] || fs.err(E.NOENT); },
    mknod(/** @type {OpfsNode} */ parent, /** @type {string} */ name, /** @type {number} */ mode) {
      if ((mode & S_IFMT) === S_IFDIR) return fs.createNode(parent, name, DIR_MODE, null);
      const slot = fs.pool.slots.find((s) => !s.used);
      if (!slot) throw fs.err(E.NOSPC);
      slot.used = true;
      slot.checkedTo = 0;
      slot.access.truncate(0);
      return fs.createNode(parent, name, mode, slot);
    },
    rename(/** @type {OpfsNode} */ node, /** @type {OpfsNode} */ newDir, /** @type {string} */ newName) {
      const old = kids(newDir)[newName];
      if (old) {
        if (old.slot) fs.free(old);
        else if (Object.keys(kids(old)).length) throw fs.err(E.NOTEMPTY);
        fs.FS.hashRemoveNode(old);
      }
      delete kids(node.parent)[node.name];
      node.name = newName;
      kids(newDir)[newName] = node;
      node.parent = newDir;
    },
    unlink(/** @type {OpfsNode} */ parent, /** @type {string} */ name) {
      const node = kids(parent)[name];
      if (node && node.slot) fs.free(node);
      delete kids(parent)[name];
    },
    rmdir(/** @type {OpfsNode} */ parent, /** @type {string} */ name) {
      const node = kids(parent)[name];
      if (Object.keys(kids(node)).length) throw fs.err(E.NOTEMPTY);
      delete kids(parent)[name];
    },
    readdir(/** @type {OpfsNode} */ node) { return ['.', '..', ...Object.keys(kids(node))]; },
    symlink() { throw fs.err(E.PERM); },
    readlink() { throw fs.err(E.INVAL); },
  };
}

/** The stream operations of the filesystem (emscripten's stream_ops). @param {OpfsContext} fs */
function streamOps(fs) {
  return {
    read(/** @type {OpfsStream} */ stream, /** @type {Int8Array} */ buffer, /** @type {number} */ offset, /** @type {number} */ length, /** @type {number} */ position) {
      return readAt(fs, /** @type {Slot} */ (stream.node.slot), buffer.subarray(offset, offset + length), length, position);
    },
    write(/** @type {OpfsStream} */ stream, /** @type {Int8Array} */ buffer, /** @type {number} */ offset, /** @type {number} */ length, /** @type {number} */ position) {
      return writeAt(fs, /** @type {Slot} */ (stream.node.slot), buffer.subarray(offset, offset + length), length, position);
    },
    llseek(/** @type {OpfsStream} */ stream, /** @type {number} */ offset, /** @type {number} */ whence) {
      let position = offset;
      if (whence === 1) position += stream.position;
      else if (whence === 2 && stream.node.slot) position += fs.size(stream.node);
      if (position < 0) throw fs.err(E.INVAL);
      return position;
    },
    fsync(/** @type {OpfsStream} */ stream) { const slot = stream.node.slot; if (slot) fs.guard('flush', 0, () => slot.access.flush()); return 0; },
  };
}

/**
 * A read of `length` bytes of a file at `position` into `into`.
 * @param {OpfsContext} fs @param {Slot} slot @param {Int8Array} into @param {number} length @param {number} position
 */
function readAt(fs, slot, into, length, position) {
  const access = slot.access;
  const n = fs.guard('read', position, () => access.read(into, { at: position }));
  if (n < length && !fs.pool.ioError) {
    // A short read inside the file: the storage lost what it said it wrote (SQLite then
    // reports "disk I/O error"); kept for the run's message.
    const total = fs.guard('getSize', position, () => access.getSize());
    if (position + n < total) {
      fs.pool.ioError = Object.assign(new MessageError(pageMessage('ReadBytesInsideFile', { r: n, n: length, size: total }), 'ShortRead'), { op: 'read', at: position });
    }
  }
  return n;
}

/**
 * A write of `length` bytes from `from` into a file at `position`.
 * @param {OpfsContext} fs @param {Slot} slot @param {Int8Array} from @param {number} length @param {number} position
 */
function writeAt(fs, slot, from, length, position) {
  const n = fs.guard('write', position, () => {
    const w = slot.access.write(from, { at: position });
    if (w < length) throw new MessageError(pageMessage('WroteBytes', { w, n: length }), 'QuotaExceededError');
    // A private window's OPFS past its limit answers 2^32 - 8 (measured): nothing was written.
    if (w > length) throw new MessageError(pageMessage('StorageAnsweredBytesWritten', { w, n: length }), 'StorageLost');
    return w;
  });
  // Every CHECK_BYTES of growth: the file really is that long. A private window's in-memory
  // OPFS (Chromium 156, measured) stops growing a file at about 1.5 GB and reports every write
  // as done; without this check SQLite found out later as "disk I/O error".
  const end = position + n;
  if (end > (slot.checkedTo || 0) + CHECK_BYTES) {
    slot.checkedTo = end;
    const total = fs.guard('getSize', position, () => slot.access.getSize());
    if (total < end) {
      if (!fs.pool.ioError) fs.pool.ioError = Object.assign(new MessageError(pageMessage('FileStayedBytesAfter', { size: total, end }), 'StorageLost'), { op: 'write', at: position });
      throw fs.err(E.IO);
    }
  }
  return n;
}

/**
 * The Emscripten filesystem over a pool; mount it with FS.mount(opfsFilesystem(FS, pool), {}, dir).
 * @param {EmscriptenFS} FS @param {Pool} pool @returns {{mount: () => OpfsNode}}
 */
export function opfsFilesystem(FS, pool) {
  const fs = new OpfsContext(FS, pool);
  return { mount: () => fs.createNode(null, '/', DIR_MODE, null) };
}

/**
 * The pool slot that holds `name` in the mounted folder `where`, or null.
 * @param {EmscriptenFS} FS @param {string} path @returns {Slot|null}
 */
export function slotOf(FS, path) {
  try {
    const node = FS.lookupPath(path).node;
    return /** @type {Slot|null|undefined} */ (node.slot) || null;
  } catch {
    return null;
  }
}

/**
 * Removes every run folder except those named in `keep` (this tab's open databases and the kept
 * session); a folder whose file another tab holds open cannot be removed and stays.
 * @param {Iterable<string>} keep @returns {Promise<{removed: number, kept: number}>}
 */
export async function sweepRuns(keep) {
  const spare = new Set(keep);
  let removed = 0, kept = 0;
  try {
    const dir = await runsDir();
    for await (const name of dir.keys()) {
      if (spare.has(name)) { kept += 1; continue; }
      try { await dir.removeEntry(name, { recursive: true }); removed += 1; } catch { kept += 1; }
    }
  } catch { /* no OPFS */ }
  return { removed, kept };
}
