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

/**
 * The Emscripten filesystem over a pool; mount it with FS.mount(opfsFilesystem(FS, pool), {}, dir).
 * @param {any} FS @param {Pool} pool
 */
export function opfsFilesystem(FS, pool) {
  const err = (/** @type {number} */ code) => new FS.ErrnoError(code);
  /** @type {any} */ let fsType;
  /**
   * One call of the sync access handle; a failure is kept (the first one) for the run's message,
   * since SQLite reports every storage failure as "disk I/O error".
   * @template T @param {string} op @param {number} at @param {() => T} fn @returns {T}
   */
  const guard = (op, at, fn) => {
    try {
      return fn();
    } catch (e) {
      if (/** @type {Error} */ (e).name === 'QuotaExceededError') { pool.quotaError = /** @type {Error} */ (e); throw err(E.NOSPC); }
      if (!pool.ioError) pool.ioError = Object.assign(/** @type {Error} */ (e), { op, at });
      throw err(E.IO);
    }
  };
  const size = (/** @type {any} */ node) => (node.slot ? guard('getSize', 0, () => node.slot.access.getSize()) : 4096);
  const node_ops = {
    getattr(/** @type {any} */ node) {
      const t = new Date(node.timestamp);
      const n = size(node);
      return { dev: 1, ino: node.id, mode: node.mode, nlink: 1, uid: 0, gid: 0, rdev: 0, size: n,
               atime: t, mtime: t, ctime: t, blksize: 4096, blocks: Math.ceil(n / 4096) };
    },
    setattr(/** @type {any} */ node, /** @type {any} */ attr) {
      if (attr.mode !== undefined) node.mode = attr.mode;
      if (attr.timestamp !== undefined) node.timestamp = attr.timestamp;
      if (attr.size !== undefined && node.slot) {
        guard('truncate', attr.size, () => node.slot.access.truncate(attr.size));
        node.slot.checkedTo = Math.min(node.slot.checkedTo || 0, attr.size);
      }
    },
    lookup() { throw FS.genericErrors[E.NOENT] || err(E.NOENT); },
    mknod(/** @type {any} */ parent, /** @type {string} */ name, /** @type {number} */ mode) {
      if ((mode & S_IFMT) === S_IFDIR) return createNode(parent, name, DIR_MODE, null);
      const slot = pool.slots.find((s) => !s.used);
      if (!slot) throw err(E.NOSPC);
      slot.used = true;
      slot.checkedTo = 0;
      slot.access.truncate(0);
      return createNode(parent, name, mode, slot);
    },
    rename(/** @type {any} */ node, /** @type {any} */ newDir, /** @type {string} */ newName) {
      const old = newDir.contents[newName];
      if (old) {
        if (old.slot) free(old);
        else if (Object.keys(old.contents).length) throw err(E.NOTEMPTY);
        FS.hashRemoveNode(old);
      }
      delete node.parent.contents[node.name];
      node.name = newName;
      newDir.contents[newName] = node;
      node.parent = newDir;
    },
    unlink(/** @type {any} */ parent, /** @type {string} */ name) {
      const node = parent.contents[name];
      if (node && node.slot) free(node);
      delete parent.contents[name];
    },
    rmdir(/** @type {any} */ parent, /** @type {string} */ name) {
      const node = parent.contents[name];
      if (Object.keys(node.contents).length) throw err(E.NOTEMPTY);
      delete parent.contents[name];
    },
    readdir(/** @type {any} */ node) { return ['.', '..', ...Object.keys(node.contents)]; },
    symlink() { throw err(E.PERM); },
    readlink() { throw err(E.INVAL); },
  };
  const stream_ops = {
    read(/** @type {any} */ stream, /** @type {Int8Array} */ buffer, /** @type {number} */ offset, /** @type {number} */ length, /** @type {number} */ position) {
      const access = stream.node.slot.access;
      const n = guard('read', position, () => access.read(buffer.subarray(offset, offset + length), { at: position }));
      if (n < length && !pool.ioError) {
        // A short read inside the file: the storage lost what it said it wrote (SQLite then
        // reports "disk I/O error"); kept for the run's message.
        const total = guard('getSize', position, () => access.getSize());
        if (position + n < total) {
          pool.ioError = Object.assign(new Error(`read ${n} of ${length} bytes inside a file of ${total} bytes`), { name: 'ShortRead', op: 'read', at: position });
        }
      }
      return n;
    },
    write(/** @type {any} */ stream, /** @type {Int8Array} */ buffer, /** @type {number} */ offset, /** @type {number} */ length, /** @type {number} */ position) {
      const slot = stream.node.slot;
      const n = guard('write', position, () => {
        const w = slot.access.write(buffer.subarray(offset, offset + length), { at: position });
        if (w < length) throw Object.assign(new Error(`wrote ${w} of ${length} bytes`), { name: 'QuotaExceededError' });
        // A private window's OPFS past its limit answers 2^32 - 8 (measured): nothing was written.
        if (w > length) throw Object.assign(new Error(`the storage answered ${w} bytes written for ${length}`), { name: 'StorageLost' });
        return w;
      });
      // Every CHECK_BYTES of growth: the file really is that long. A private window's in-memory
      // OPFS (Chromium 156, measured) stops growing a file at about 1.5 GB and reports every write
      // as done; without this check SQLite found out later as "disk I/O error".
      const end = position + n;
      if (end > (slot.checkedTo || 0) + CHECK_BYTES) {
        slot.checkedTo = end;
        const total = guard('getSize', position, () => slot.access.getSize());
        if (total < end) {
          if (!pool.ioError) pool.ioError = Object.assign(new Error(`the file stayed at ${total} bytes after a write up to byte ${end}`), { name: 'StorageLost', op: 'write', at: position });
          throw err(E.IO);
        }
      }
      return n;
    },
    llseek(/** @type {any} */ stream, /** @type {number} */ offset, /** @type {number} */ whence) {
      let position = offset;
      if (whence === 1) position += stream.position;
      else if (whence === 2 && stream.node.slot) position += size(stream.node);
      if (position < 0) throw err(E.INVAL);
      return position;
    },
    fsync(/** @type {any} */ stream) { if (stream.node.slot) guard('flush', 0, () => stream.node.slot.access.flush()); return 0; },
  };
  /** @param {any} parent @param {string} name @param {number} mode @param {any} slot */
  function createNode(parent, name, mode, slot) {
    const node = FS.createNode(parent, name, mode, 0);
    node.node_ops = node_ops;
    node.stream_ops = stream_ops;
    node.timestamp = Date.now();
    node.slot = slot;
    node.contents = slot ? null : {};
    if (parent) parent.contents[name] = node;
    return node;
  }
  /** @param {any} node */
  function free(node) {
    node.slot.access.truncate(0);
    node.slot.used = false;
    node.slot = null;
  }
  fsType = { mount: () => createNode(null, '/', DIR_MODE, null) };
  return fsType;
}

/**
 * The pool slot that holds `name` in the mounted folder `where`, or null.
 * @param {any} FS @param {string} path
 */
export function slotOf(FS, path) {
  try {
    const node = FS.lookupPath(path).node;
    return node.slot || null;
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
