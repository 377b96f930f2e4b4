// @ts-check
/**
 * SEL-01 / IN-05: every graph database of this tab is a source, grouped by directory: the dropped
 * target folder of a build, '' for the opened files. The worker holds one graph database at a
 * time (each costs its whole size in its heap); the others stay here as blobs (a picked file is
 * not even read). A source built or edited in the worker has no blob until it is left: then it is
 * exported first. A database opened from a URL (`?db=`) keeps its URL instead: it is opened again
 * from there (exporting it would read the whole hosted file).
 * @typedef {{id: string, dir: string, name: string, blob: Blob|null, edited: boolean, url: string}} Source
 */
/** @type {Source[]} */
const sources = [];
/** @type {Source|null} */
let currentSource = null;

/** @param {string} dir @param {string} name @param {Blob|null} blob @param {string} [url] @returns {Source} */
export function addSource(dir, name, blob, url = '') {
  let s = sources.find((x) => x.dir === dir && x.name === name);
  if (!s) {
    s = { id: String(sources.length + 1), dir, name, blob, edited: false, url };
    sources.push(s);
  }
  s.blob = blob;
  s.url = url;
  s.edited = false;
  return s;
}

/** @param {string} id @returns {Source|undefined} */
export function findSource(id) {
  return sources.find((x) => x.id === id);
}

/** The source the worker holds (the one shown), or null. */
export function getCurrentSource() {
  return currentSource;
}

/** @param {Source} s @returns {Source} */
export function setCurrentSource(s) {
  currentSource = s;
  return s;
}

/**
 * The Directory / File lists of the data-selection popover (Workspace's `sources` option).
 * @param {string} current  the id of the source shown
 */
export function sourceList(current) {
  return { list: sources.map(({ id, dir, name: n }) => ({ id, dir, name: n })), current };
}

/**
 * The current source as a blob when only the worker holds it (built here, or edited since it was
 * opened): called before the worker replaces its graph database (another one opened or built).
 * @param {import('../engine/client.js').EngineClient} engine
 */
export async function keepCurrentSource(engine) {
  const cur = currentSource;
  if (!cur || ((cur.blob || cur.url) && !cur.edited)) return;
  try {
    const { bytes } = await engine.exportDb(cur.name);
    cur.blob = new Blob([bytes]);
    cur.edited = false;
  } catch (e) {
    console.warn(`${cur.name} could not be kept:`, e);   // no longer open in the worker
  }
}
