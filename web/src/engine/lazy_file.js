// @ts-check
// A database sql.js reads lazily: the bytes come from a dropped File (FileReaderSync in this worker)
// or from a URL (synchronous Range requests), a block at a time, never the whole file.
//
// How it plugs into the stock sql.js 1.12 dist (which has no WORKERFS and copies every database into
// its in-memory FS): its Database constructor writes the given bytes into a MEMFS file, and MEMFS,
// for a first write at offset 0, keeps `bytes.slice(0, length)` as the file's contents. That slice is
// a LazyContents: MEMFS's read() takes `contents.subarray(a, b)` (and `contents[i]` for reads of 8
// bytes or fewer), its in-place write() calls `contents.set(src, at)`, and its growth check keeps the
// contents when `contents.length` already covers the new size. So pages are read on demand, and
// what SQLite writes (manual matching) stays in an overlay of modified blocks; the file never
// grows into a whole-file copy. Nothing else of MEMFS touches the contents except readFile (sql.js's
// export), which the worker avoids for lazy databases (exportBlob).
import { MessageError, pageMessage } from '../engine_text.js';

// Bytes read per miss, and clean blocks kept (48 MiB; 96 for URLs). For URLs each miss is a synchronous Range
// request; 8 MiB blocks (12 kept) measured worse: on a 2.1 GB file the first draw read 2,094 MB
// instead of 350 MB, the pages the queries touch being spread over the file. A dropped file's misses
// are cheap, so its blocks are 256 KiB: the first children query of a 2,000-child module on the
// 200,000-node fixture took 50-55 ms instead of 65-80 ms with 1 MiB blocks.
const FILE_BLOCK = 1 << 18, FILE_CACHE = 192;
const URL_BLOCK = 1 << 20, URL_CACHE = 96;
const MAX_SPAN_BYTES = 16 << 20;   // one read-ahead request reads at most 16 MiB
const CAPACITY = 2 ** 50;       // what `length` reports once stored: MEMFS never reallocates

/**
 * @typedef {{size: number, read: (start: number, end: number) => Uint8Array, blob?: Blob, label: string}} ByteSource
 */

/** A dropped File or Blob, read with FileReaderSync (workers only). @param {Blob} blob @param {string} label @returns {ByteSource} */
export function blobSource(blob, label) {
  const reader = new FileReaderSync();
  return {
    size: blob.size,
    blob,
    label,
    read: (start, end) => {
      try {
        return new Uint8Array(reader.readAsArrayBuffer(blob.slice(start, end)));
      } catch (e) {
        throw new MessageError(pageMessage('FileUnreadableAt', { name: label, start, end, m: String(/** @type {Error} */ (e).message) }), 'DbReadError');
      }
    },
  };
}

/**
 * A URL on a server that answers Range requests (synchronous XHR: workers only). HEAD gives the size;
 * a one-byte probe must come back 206, else the server sends whole files and the message says so.
 * @param {string} url @returns {ByteSource}
 */
export function urlSource(url) {
  const head = new XMLHttpRequest();
  head.open('HEAD', url, false);
  try { head.send(null); } catch (e) {
    throw new MessageError(pageMessage('CannotReached', { url, m: String(/** @type {Error} */ (e).message) }), 'DbOpenError');
  }
  if (head.status !== 200) throw new MessageError(pageMessage('ServerAnswered', { url, status: head.status, text: head.statusText }), 'DbOpenError');
  const size = Number(head.getResponseHeader('Content-Length'));
  if (!Number.isFinite(size) || size <= 0)
    throw new MessageError(pageMessage('ServerGivesNoContent', { url }), 'DbOpenError');
  const read = (/** @type {number} */ start, /** @type {number} */ end) => {
    const x = new XMLHttpRequest();
    x.open('GET', url, false);
    x.responseType = 'arraybuffer';
    x.setRequestHeader('Range', `bytes=${start}-${end - 1}`);
    x.send(null);
    if (x.status !== 206)
      throw new MessageError(pageMessage('NoRangeRequests', { url, status: x.status }), 'DbNoRange');
    const bytes = new Uint8Array(x.response);
    if (bytes.length !== end - start)
      throw new MessageError(pageMessage('ShortRangeRead', { url, n: end - start, at: start, got: bytes.length }), 'DbReadError');
    return bytes;
  };
  read(0, 1);   // the Range probe
  return { size, read, label: url };
}

/**
 * The blocks of one lazily read database: clean blocks read from the source (an LRU of
 * `cacheBlocks`), and the blocks SQLite wrote (`dirty`, kept for good).
 */
class LazyBlocks {
  /** @param {ByteSource} source */
  constructor(source) {
    this.source = source;
    this.blockSize = source.blob ? FILE_BLOCK : URL_BLOCK;
    this.cacheBlocks = source.blob ? FILE_CACHE : URL_CACHE;
    this.maxSpan = MAX_SPAN_BYTES / this.blockSize;
    /** @type {Map<number, Uint8Array>} */ this.clean = new Map();   // LRU by insertion order
    /** @type {Map<number, Uint8Array>} */ this.dirty = new Map();   // blocks SQLite wrote: kept for good
    this.reads = 0;
    this.bytesRead = 0;
    this.extent = source.size;   // the file's size as SQLite has made it (writes past the end grow it)
    // Read-ahead: a miss right after the previous miss's span (a scan along the file) reads a span
    // twice as long as the last, up to maxSpan blocks, in one request; any other miss reads one
    // block. Over HTTP each synchronous request costs far more than its bytes (see README).
    this.nextMiss = -1;
    this.span = 1;
  }

  /** @param {number} b */
  has(b) { return this.dirty.has(b) || this.clean.has(b); }

  /** Block `b`, read (with the blocks after it that a scan will want) on a miss. @param {number} b */
  block(b) {
    const d = this.dirty.get(b);
    if (d) return d;
    const c = this.clean.get(b);
    if (c) { this.clean.delete(b); this.clean.set(b, c); return c; }
    return this.miss(b);
  }

  /** Reads block `b` and the span after it into the clean blocks. @param {number} b */
  miss(b) {
    const BLOCK = this.blockSize, size = this.source.size;
    this.span = b === this.nextMiss ? Math.min(this.maxSpan, this.span * 2) : 1;
    let n = 1;
    while (n < this.span && (b + n) * BLOCK < size && !this.has(b + n)) n++;
    const start = b * BLOCK;
    const end = Math.min(size, start + n * BLOCK);
    const got = end > start ? this.source.read(start, end) : new Uint8Array(0);
    this.reads += 1;
    this.bytesRead += Math.max(0, end - start);
    this.nextMiss = b + n;
    /** @type {Uint8Array|undefined} */ let c;
    for (let i = n - 1; i >= 0; i--) {   // the block asked for goes in last: the newest in the LRU
      const blk = new Uint8Array(BLOCK);
      blk.set(got.subarray(Math.min(got.length, i * BLOCK), Math.min(got.length, (i + 1) * BLOCK)));
      this.clean.set(b + i, blk);
      if (i === 0) c = blk;
    }
    while (this.clean.size > this.cacheBlocks) this.clean.delete(/** @type {number} */ (this.clean.keys().next().value));
    return /** @type {Uint8Array} */ (c);
  }

  /** Bytes [start, end) as one array (a view when they lie in one block). @param {number} start @param {number} end */
  range(start, end) {
    const BLOCK = this.blockSize;
    if (end <= start) return new Uint8Array(0);
    const b0 = Math.floor(start / BLOCK), b1 = Math.floor((end - 1) / BLOCK);
    if (b0 === b1) return this.block(b0).subarray(start - b0 * BLOCK, end - b0 * BLOCK);
    const out = new Uint8Array(end - start);
    for (let b = b0; b <= b1; b++) {
      const from = Math.max(start, b * BLOCK), to = Math.min(end, (b + 1) * BLOCK);
      out.set(this.block(b).subarray(from - b * BLOCK, to - b * BLOCK), from - start);
    }
    return out;
  }

  /** @param {ArrayLike<number> & {subarray?: Function}} src @param {number} at */
  write(src, at) {
    const BLOCK = this.blockSize;
    const bytes = src instanceof Uint8Array ? src : Uint8Array.from(src);
    this.extent = Math.max(this.extent, at + bytes.length);
    let done = 0;
    while (done < bytes.length) {
      const pos = at + done, b = Math.floor(pos / BLOCK), off = pos - b * BLOCK;
      let d = this.dirty.get(b);
      if (!d) { d = this.block(b).slice(); this.dirty.set(b, d); this.clean.delete(b); }
      const n = Math.min(bytes.length - done, BLOCK - off);
      d.set(bytes.subarray(done, done + n), off);
      done += n;
    }
  }

  stats() { return { reads: this.reads, bytesRead: this.bytesRead, dirtyBlocks: this.dirty.size, cachedBlocks: this.clean.size }; }

  /**
   * The database as a Blob without reading it: the source's own bytes where SQLite wrote nothing,
   * the modified blocks where it did (`size`: the file's current size, MEMFS's usedBytes).
   * @param {number} size
   */
  exportBlob(size) {
    const BLOCK = this.blockSize, source = this.source;
    if (!source.blob) return null;
    /** @type {BlobPart[]} */ const parts = [];
    let pos = 0;
    for (const b of [...this.dirty.keys()].sort((x, y) => x - y)) {
      const start = b * BLOCK;
      if (start >= size) break;
      if (start > pos) parts.push(source.blob.slice(pos, Math.min(start, source.size)));
      if (start > source.size) parts.push(new Uint8Array(start - Math.max(pos, source.size)));
      parts.push(/** @type {Uint8Array<ArrayBuffer>} */ (this.dirty.get(b)).subarray(0, Math.min(BLOCK, size - start)));
      pos = start + BLOCK;
    }
    if (pos < size) parts.push(source.blob.slice(pos, size));
    return new Blob(parts, { type: 'application/octet-stream' });
  }
}

/** Whether a property key is an index (MEMFS's `contents[i]`). @param {PropertyKey} key */
const isIndex = (key) => typeof key === 'string' && key.length > 0 && key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57;

/**
 * The stand-in for the Uint8Array sql.js hands MEMFS (the header's comment: what MEMFS calls on
 * it): its slice() is the contents MEMFS keeps, reading and writing through `blocks`.
 * @param {LazyBlocks} blocks
 */
function memfsBytes(blocks) {
  const methods = {
    subarray: (/** @type {number} */ a, /** @type {number} */ b) => blocks.range(a, b),
    set: (/** @type {ArrayLike<number>} */ src, /** @type {number} */ at = 0) => blocks.write(src, at),
    buffer: null,
  };
  const stored = new Proxy(methods, {
    get(target, key) {
      if (key === 'length' || key === 'byteLength') return CAPACITY;
      if (isIndex(key)) {
        const i = Number(key);
        return blocks.range(i, i + 1)[0];
      }
      return /** @type {Record<PropertyKey, unknown>} */ (target)[key];
    },
    set(target, key, value) {
      if (isIndex(key)) {
        blocks.write([value], Number(key));
        return true;
      }
      return false;
    },
  });
  const handed = new Proxy({ ...methods, slice: () => stored }, {
    get(target, key) {
      if (key === 'length' || key === 'byteLength') return blocks.source.size;
      return /** @type {Record<PropertyKey, unknown>} */ (target)[key];
    },
  });
  return /** @type {Uint8Array} */ (/** @type {unknown} */ (handed));
}

/**
 * The object handed to `new SQL.Database(...)`: its slice(0, size) becomes the MEMFS contents.
 * @param {ByteSource} source
 */
export function lazyDatabaseBytes(source) {
  const blocks = new LazyBlocks(source);
  return {
    // Stands in for the Uint8Array sql.js hands MEMFS (the header's comment: what MEMFS calls on it).
    bytes: memfsBytes(blocks),
    source,
    stats: () => blocks.stats(),
    size: () => blocks.extent,
    /** The database as a Blob without reading it (LazyBlocks.exportBlob). @param {number} size */
    exportBlob: (size) => blocks.exportBlob(size),
  };
}
