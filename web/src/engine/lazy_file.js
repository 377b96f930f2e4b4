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
        throw Object.assign(new Error(`${label} could not be read at bytes ${start}-${end} (${/** @type {Error} */ (e).message}); ` +
          'was the file moved or changed after it was opened?'), { name: 'DbReadError' });
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
    throw Object.assign(new Error(`${url} cannot be reached (${/** @type {Error} */ (e).message}).`), { name: 'DbOpenError' });
  }
  if (head.status !== 200) throw Object.assign(new Error(`${url}: the server answered ${head.status} ${head.statusText}.`), { name: 'DbOpenError' });
  const size = Number(head.getResponseHeader('Content-Length'));
  if (!Number.isFinite(size) || size <= 0)
    throw Object.assign(new Error(`${url}: the server gives no Content-Length, so the database cannot be read in parts.`), { name: 'DbOpenError' });
  const read = (/** @type {number} */ start, /** @type {number} */ end) => {
    const x = new XMLHttpRequest();
    x.open('GET', url, false);
    x.responseType = 'arraybuffer';
    x.setRequestHeader('Range', `bytes=${start}-${end - 1}`);
    x.send(null);
    if (x.status !== 206)
      throw Object.assign(new Error(`${url} does not answer HTTP Range requests (status ${x.status} instead of 206): ` +
        'host it on a server that does (scripts/static_server.py, nginx, S3, GitHub Pages do), or download it and open the file.'),
      { name: 'DbNoRange' });
    const bytes = new Uint8Array(x.response);
    if (bytes.length !== end - start)
      throw Object.assign(new Error(`${url}: asked for ${end - start} bytes at ${start}, got ${bytes.length}.`), { name: 'DbReadError' });
    return bytes;
  };
  read(0, 1);   // the Range probe
  return { size, read, label: url };
}

/**
 * The object handed to `new SQL.Database(...)`: its slice(0, size) becomes the MEMFS contents.
 * @param {ByteSource} source
 */
export function lazyDatabaseBytes(source) {
  const BLOCK = source.blob ? FILE_BLOCK : URL_BLOCK;
  const CACHE_BLOCKS = source.blob ? FILE_CACHE : URL_CACHE;
  const MAX_SPAN = MAX_SPAN_BYTES / BLOCK;
  /** @type {Map<number, Uint8Array>} */ const clean = new Map();   // LRU by insertion order
  /** @type {Map<number, Uint8Array>} */ const dirty = new Map();   // blocks SQLite wrote: kept for good
  let reads = 0;
  let bytesRead = 0;
  let extent = source.size;   // the file's size as SQLite has made it (writes past the end grow it)

  // Read-ahead: a miss right after the previous miss's span (a scan along the file) reads a span
  // twice as long as the last, up to MAX_SPAN blocks, in one request; any other miss reads one
  // block. Over HTTP each synchronous request costs far more than its bytes (see README).
  let nextMiss = -1;
  let span = 1;
  const have = (/** @type {number} */ b) => dirty.has(b) || clean.has(b);

  /** @param {number} b */
  function block(b) {
    const d = dirty.get(b);
    if (d) return d;
    let c = clean.get(b);
    if (c) { clean.delete(b); clean.set(b, c); return c; }
    span = b === nextMiss ? Math.min(MAX_SPAN, span * 2) : 1;
    let n = 1;
    while (n < span && (b + n) * BLOCK < source.size && !have(b + n)) n++;
    const start = b * BLOCK;
    const end = Math.min(source.size, start + n * BLOCK);
    const got = end > start ? source.read(start, end) : new Uint8Array(0);
    reads += 1;
    bytesRead += Math.max(0, end - start);
    nextMiss = b + n;
    for (let i = n - 1; i >= 0; i--) {   // the block asked for goes in last: the newest in the LRU
      const blk = new Uint8Array(BLOCK);
      blk.set(got.subarray(Math.min(got.length, i * BLOCK), Math.min(got.length, (i + 1) * BLOCK)));
      clean.set(b + i, blk);
      if (i === 0) c = blk;
    }
    while (clean.size > CACHE_BLOCKS) clean.delete(/** @type {number} */ (clean.keys().next().value));
    return /** @type {Uint8Array} */ (c);
  }

  /** Bytes [start, end) as one array (a view when they lie in one block). @param {number} start @param {number} end */
  function range(start, end) {
    if (end <= start) return new Uint8Array(0);
    const b0 = Math.floor(start / BLOCK), b1 = Math.floor((end - 1) / BLOCK);
    if (b0 === b1) return block(b0).subarray(start - b0 * BLOCK, end - b0 * BLOCK);
    const out = new Uint8Array(end - start);
    for (let b = b0; b <= b1; b++) {
      const from = Math.max(start, b * BLOCK), to = Math.min(end, (b + 1) * BLOCK);
      out.set(block(b).subarray(from - b * BLOCK, to - b * BLOCK), from - start);
    }
    return out;
  }

  /** @param {ArrayLike<number> & {subarray?: Function}} src @param {number} at */
  function write(src, at) {
    const bytes = src instanceof Uint8Array ? src : Uint8Array.from(src);
    extent = Math.max(extent, at + bytes.length);
    let done = 0;
    while (done < bytes.length) {
      const pos = at + done, b = Math.floor(pos / BLOCK), off = pos - b * BLOCK;
      let d = dirty.get(b);
      if (!d) { d = block(b).slice(); dirty.set(b, d); clean.delete(b); }
      const n = Math.min(bytes.length - done, BLOCK - off);
      d.set(bytes.subarray(done, done + n), off);
      done += n;
    }
  }

  const methods = {
    subarray: (/** @type {number} */ a, /** @type {number} */ b) => range(a, b),
    set: (/** @type {ArrayLike<number>} */ src, /** @type {number} */ at = 0) => write(src, at),
    buffer: null,
  };
  /** @param {number} length */
  const view = (length) => new Proxy(methods, {
    get(target, key) {
      if (key === 'length' || key === 'byteLength') return length;
      if (typeof key === 'string' && key.length && key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57) {
        const i = Number(key);
        return range(i, i + 1)[0];
      }
      return /** @type {Record<PropertyKey, unknown>} */ (target)[key];
    },
    set(target, key, value) {
      if (typeof key === 'string' && key.length && key.charCodeAt(0) >= 48 && key.charCodeAt(0) <= 57) {
        write([value], Number(key));
        return true;
      }
      return false;
    },
  });
  const stored = view(CAPACITY);
  const handed = new Proxy({ ...methods, slice: () => stored }, {
    get(target, key) {
      if (key === 'length' || key === 'byteLength') return source.size;
      return /** @type {Record<PropertyKey, unknown>} */ (target)[key];
    },
  });

  return {
    // Stands in for the Uint8Array sql.js hands MEMFS (the header's comment: what MEMFS calls on it).
    bytes: /** @type {Uint8Array} */ (/** @type {unknown} */ (handed)),
    source,
    stats: () => ({ reads, bytesRead, dirtyBlocks: dirty.size, cachedBlocks: clean.size }),
    size: () => extent,
    /**
     * The database as a Blob without reading it: the source's own bytes where SQLite wrote nothing,
     * the modified blocks where it did (`size`: the file's current size, MEMFS's usedBytes).
     * @param {number} size
     */
    exportBlob(size) {
      if (!source.blob) return null;
      /** @type {BlobPart[]} */ const parts = [];
      let pos = 0;
      for (const b of [...dirty.keys()].sort((x, y) => x - y)) {
        const start = b * BLOCK;
        if (start >= size) break;
        if (start > pos) parts.push(source.blob.slice(pos, Math.min(start, source.size)));
        if (start > source.size) parts.push(new Uint8Array(start - Math.max(pos, source.size)));
        parts.push(/** @type {Uint8Array<ArrayBuffer>} */ (dirty.get(b)).subarray(0, Math.min(BLOCK, size - start)));
        pos = start + BLOCK;
      }
      if (pos < size) parts.push(source.blob.slice(pos, size));
      return new Blob(parts, { type: 'application/octet-stream' });
    },
  };
}
