// @ts-check
// Deep links (web-ui BEY-04): the URL fragment holds the view state as sections of key=value
// pairs, one section per owner: `#db=<fingerprint>&graph.step=0&graph.sel=0:Module.x&trend.metric=norm`.
// A view registers a section with a getter and an applier; it calls changed() when its state
// moves, and the fragment is rewritten (replaceState, debounced) without a history entry per click.
//   register('trend', { get: () => ({metric, stat}), apply: (s) => ... })   // the trend workspace

/** @typedef {Record<string, string>} Section */
/** @type {Map<string, {get: () => Section, apply: (s: Section) => Promise<void>|void}>} */
const sections = new Map();
let timer = 0;
/** @type {Section} fields outside any section (the database fingerprint) */
let top = {};

/** The fragment parsed into {top, sections}. @param {string} [hash] */
export function parse(hash = location.hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  /** @type {Section} */
  const base = {};
  /** @type {Record<string, Section>} */
  const bySection = {};
  for (const [k, v] of params) {
    const dot = k.indexOf('.');
    if (dot < 0) { base[k] = v; continue; }
    const name = k.slice(0, dot);
    if (name === '__proto__' || name === 'constructor') continue;
    // An own entry only: a section named after an inherited member (toString) never reaches the built-in.
    if (!Object.prototype.hasOwnProperty.call(bySection, name)) bySection[name] = {};
    bySection[name][k.slice(dot + 1)] = v;
  }
  return { top: base, sections: bySection };
}

/** @param {string} name @param {{get: () => Section, apply: (s: Section) => Promise<void>|void}} owner */
export function register(name, owner) {
  sections.set(name, owner);
  return () => { if (sections.get(name) === owner) sections.delete(name); };
}

/** Fields outside the sections, e.g. {db: fingerprint}; null values remove a field. @param {Record<string, string|null>} fields */
export function setTop(fields) {
  for (const [k, v] of Object.entries(fields)) {
    if (v === null) delete top[k]; else top[k] = v;
  }
  changed();
}

/** The fragment for the current state of every registered section. */
export function build() {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(top)) p.set(k, v);
  for (const [name, owner] of sections) {
    let s;
    try { s = owner.get(); } catch { continue; }
    for (const [k, v] of Object.entries(s || {})) if (v !== undefined && v !== null && v !== '') p.set(`${name}.${k}`, String(v));
  }
  return p.toString();
}

/** A section's state changed: rewrite the fragment soon. */
export function changed() {
  clearTimeout(timer);
  timer = window.setTimeout(flush, 250);
}

export function flush() {
  clearTimeout(timer);
  const next = build();
  if (location.hash.replace(/^#/, '') !== next) history.replaceState(null, '', next ? '#' + next : location.pathname + location.search);
}

/** Applies the saved state of one section (after its view opened). @param {string} name @param {string} [hash] */
export async function restore(name, hash) {
  const owner = sections.get(name);
  const s = parse(hash).sections[name];
  if (owner && s) await owner.apply(s);
}

/** The page's URL with the current fragment (for "Copy link"). */
export function link() {
  flush();
  return location.href;
}

/** Starts from the fragment the page was opened with (its top fields are kept). @param {string} [hash] */
export function init(hash = location.hash) {
  top = { ...parse(hash).top };
}
