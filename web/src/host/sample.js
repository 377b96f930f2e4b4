// @ts-check
// The sample (scripts/make_sample.sh): a compare pair ("Load the sample") and a monitor run ("Load
// the trend sample"), given as the FileEntry lists a dropped folder gives. Beside the page,
// sample/index.json lists its files and each is fetched. Issue 46: the one-file page
// (visprobe.html) carries the sample inside, since a page opened from disk cannot fetch the files
// beside it: web/build.mjs defines VISPROBE_SAMPLE, the files packed (a 4-byte little-endian header
// length, the JSON header {index, files: [part, path, offset, length][]}, the bytes), gzipped, in
// base64; it is unpacked once, on the first click.
import { t } from '../i18n.js';

/* global VISPROBE_SAMPLE */

/** An error that says plainly there is no sample (marked `plain`). */
const noSample = () => Object.assign(new Error(t('noSampleHere')), { plain: true });

/** @typedef {{index: Record<string, string[]>, blob: (part: string, path: string) => Blob}} Sample */
/** @type {Promise<Sample>|null} */
let inside = null;

/** The sample inside the page (one-file build), unpacked once; null when the page has none. */
function embeddedSample() {
  if (typeof VISPROBE_SAMPLE !== 'string' || typeof DecompressionStream === 'undefined') return null;
  if (!inside) inside = unpack(VISPROBE_SAMPLE);
  return inside;
}

/** @param {string} base64 @returns {Promise<Sample>} */
async function unpack(base64) {
  const packed = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const head = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + n)));
  const base = 4 + n;
  /** @type {Map<string, [number, number]>} */
  const at = new Map();
  for (const [part, path, off, len] of head.files) at.set(`${part}/${path}`, [Number(off), Number(len)]);
  return {
    index: head.index,
    blob: (part, path) => {
      const [off, len] = at.get(`${part}/${path}`) || [0, 0];
      return new Blob([bytes.subarray(base + off, base + off + len)]);
    },
  };
}

/** The index of the sample beside the page, or an error that says plainly there is none. */
async function sampleIndex() {
  let r = null;
  try { r = await fetch('sample/index.json'); } catch { r = null; }
  const index = r && r.ok ? await r.json().catch(() => null) : null;
  if (!index || typeof index !== 'object') throw noSample();
  return index;
}

/**
 * The files of one part of the sample. @param {'target'|'golden'|'trend'} part
 * @returns {Promise<import('../engine/protocol.js').FileEntry[]>}
 */
export async function sampleEntries(part) {
  const packed = embeddedSample();
  if (packed) {
    const s = await packed;
    if (!Array.isArray(s.index[part])) throw noSample();
    return s.index[part].map((path) => ({ path, file: s.blob(part, path) }));
  }
  const index = await sampleIndex();
  if (!index[part]) throw noSample();
  const entries = [];
  for (const path of index[part]) entries.push({ path, file: await (await fetch(`sample/${part}/${path}`)).blob() });
  return entries;
}
