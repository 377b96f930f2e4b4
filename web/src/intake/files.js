// @ts-check
// Dropped or picked folders -> flat lists of {path, file} relative to the folder, and the layout
// read from the paths alone, before any byte is read (rankN, stepN/rankN, one rank).

/** @typedef {import('../engine/protocol.js').FileEntry} FileEntry */

/** @param {FileList|File[]} list  files from <input webkitdirectory> */
export function entriesFromFileList(list) {
  const files = Array.from(list);
  const entries = files.map((f) => ({ path: f.webkitRelativePath || f.name, file: f }));
  return stripCommonRoot(entries);
}

/** @param {FileEntry[]} entries */
function stripCommonRoot(entries) {
  if (!entries.length) return { name: '', entries };
  const first = entries[0].path.split('/')[0];
  const all = entries.every((e) => e.path.includes('/') && e.path.split('/')[0] === first);
  if (!all) return { name: '', entries };
  return { name: first, entries: entries.map((e) => ({ path: e.path.slice(first.length + 1), file: e.file })) };
}

/** @param {DataTransfer} dt */
export async function entriesFromDrop(dt) {
  const roots = [];
  for (const item of Array.from(dt.items)) {
    const entry = item.webkitGetAsEntry && item.webkitGetAsEntry();
    if (entry) roots.push(entry);
  }
  /** @type {FileEntry[]} */
  const out = [];
  /** @param {FileSystemEntry} entry @param {string} prefix */
  async function walk(entry, prefix) {
    if (entry.isFile) {
      const fe = /** @type {FileSystemFileEntry} */ (entry);
      /** @type {File} */
      const file = await new Promise((res, rej) => fe.file(res, rej));
      out.push({ path: prefix + entry.name, file });
    } else if (entry.isDirectory) {
      const reader = /** @type {FileSystemDirectoryEntry} */ (entry).createReader();
      for (;;) {
        /** @type {FileSystemEntry[]} */
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const child of batch) await walk(child, prefix + entry.name + '/');
      }
    }
  }
  for (const r of roots) await walk(r, '');
  if (roots.length === 1 && roots[0].isDirectory) return stripCommonRoot(out);
  return { name: '', entries: out };
}

const RANK = /^rank(0|[1-9][0-9]*)?$/;
const STEP = /^step(0|[1-9][0-9]*)?$/;
const FILES = ['construct.json', 'dump.json', 'stack.json'];

/**
 * Layout of a folder from its paths (spec graph-engine §3), for display before the run; the
 * engine checks it again and has the last word.
 * @param {FileEntry[]} entries
 * The text is a dictionary key with its arguments.
 * @returns {Layout & {missing: string[]}}
 */
export function describeLayout(entries) {
  const layout = layoutOf(entries);
  const missing = layout.kind === 'files' || layout.kind === 'ranks' || layout.kind === 'steps' ? missingFiles(entries, layout.kind) : [];
  // One rank folder lacking a file: not described by the three files it should hold.
  return { ...layout, missing, key: layout.kind === 'files' && missing.length ? 'layoutOneRank' : layout.key };
}

/**
 * The msProbe files a rank folder lacks (construct.json, dump.json, stack.json: the build reads all
 * three), as paths in the chosen folder: what the summary names before Build, which stays off.
 * @param {FileEntry[]} entries @param {string} kind
 */
function missingFiles(entries, kind) {
  const have = new Set(entries.map((e) => e.path));
  const depth = kind === 'files' ? 0 : kind === 'ranks' ? 1 : 2;
  const rankDirs = depth === 0 ? [''] : [...new Set(entries.map((e) => e.path.split('/')).filter((p) => p.length > depth)
    .map((p) => p.slice(0, depth).join('/')))].filter((d) => d.split('/').every((x, i) => (depth === 2 && i === 0 ? STEP : RANK).test(x)));
  const out = [];
  for (const d of rankDirs.sort()) for (const f of FILES) if (!have.has(d ? `${d}/${f}` : f)) out.push(d ? `${d}/${f}` : f);
  return out;
}

/**
 * What a dropped folder holds: its kind, the dictionary key and arguments of its text.
 * @typedef {{kind: 'files'|'ranks'|'steps'|'monitor'|'database'|'unknown', key: string, args: (string|number)[], bytes: number,
 *            steps: string[], ranks: string[]}} Layout
 */

/** @param {FileEntry[]} entries @returns {Layout} */
function layoutOf(entries) {
  const bytes = entries.reduce((n, e) => n + e.file.size, 0);
  const top = new Set(entries.map((e) => e.path.split('/')[0]));
  const dirs = [...new Set(entries.filter((e) => e.path.includes('/')).map((e) => e.path.split('/')[0]))];
  /** @type {{bytes: number, steps: string[], ranks: string[], args: (string|number)[]}} */
  const base = { bytes, steps: [], ranks: [], args: [] };
  if (entries.length === 1 && /\.(vis|trend)\.db$|\.db$/.test(entries[0].path)) return { ...base, kind: 'database', key: 'layoutDatabase' };
  if (FILES.some((f) => top.has(f))) return { ...base, kind: 'files', key: 'layoutFiles' };
  if (dirs.length && dirs.every((d) => RANK.test(d))) return { ...base, kind: 'ranks', ranks: dirs, key: 'layoutRanks', args: [dirs.length, dirs.join(', ')] };
  if (dirs.length && dirs.every((d) => STEP.test(d))) {
    const ranks = [...new Set(entries.filter((e) => e.path.split('/').length > 2).map((e) => e.path.split('/')[1]))];
    return { ...base, kind: 'steps', steps: dirs, ranks, key: 'layoutSteps', args: [dirs.length, ranks.length] };
  }
  // A monitor run (trend-analyzer §2.3): <time>-rank<r>-<id>/ folders of CSV files; trend only.
  const monitor = dirs.filter((d) => /^[\w-]{0,20}-rank\d{1,5}-/.test(d));
  if (monitor.length && entries.some((e) => e.path.endsWith('.csv')))
    return { ...base, kind: 'monitor', key: 'layoutMonitor', args: [monitor.length] };
  return { ...base, kind: 'unknown', key: 'layoutUnknown' };
}
