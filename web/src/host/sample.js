// @ts-check
// The sample beside the page (scripts/make_sample.sh: sample/index.json lists its files): a
// compare pair ("Load the sample") and a monitor run ("Load the trend sample"), fetched as the
// FileEntry lists a dropped folder gives.
import { t } from '../i18n.js';

/** The sample's index, or an error that says plainly where there is none (marked `plain`). */
async function sampleIndex() {
  let r = null;
  try { r = await fetch('sample/index.json'); } catch { r = null; }
  const index = r && r.ok ? await r.json().catch(() => null) : null;
  if (!index || typeof index !== 'object') throw Object.assign(new Error(t('noSampleHere')), { plain: true });
  return index;
}

/**
 * The files of one part of the sample. @param {'target'|'golden'|'trend'} part
 * @returns {Promise<import('../engine/protocol.js').FileEntry[]>}
 */
export async function sampleEntries(part) {
  const index = await sampleIndex();
  if (!index[part]) throw Object.assign(new Error(t('noSampleHere')), { plain: true });
  const entries = [];
  for (const path of index[part]) entries.push({ path, file: await (await fetch(`sample/${part}/${path}`)).blob() });
  return entries;
}
