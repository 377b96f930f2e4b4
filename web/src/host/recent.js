// @ts-check
// BEY-03, issue 46: the kept results (host/store.js) the user can reach. A "Recent results"
// section at the top of the start screen (the drawer), shown when the list is not empty, and the
// same list under the app bar's "Recent" button: each result with its name, kind, size and time,
// a click reopens it as it was left, × removes it. "Forget stored data" asks first in a <dialog>
// that says how many results go, Cancel focused. Names are only ever set as text.
import * as store from './store.js';
import { t, language, onLanguage } from '../i18n.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @typedef {{open: (e: store.Entry) => Promise<unknown>, removed: (e: store.Entry) => void, forget: () => Promise<void>}} Actions
 */
/** @type {Actions} */
let actions;

/** @param {number} n bytes */
export function sizeText(n) {
  if (n < 1e6) return `${Math.max(1, Math.round(n / 1e3))} KB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
}

/** @param {number} ms */
function timeText(ms) {
  const d = new Date(ms);
  const today = new Date().toDateString() === d.toDateString();
  const opts = /** @type {Intl.DateTimeFormatOptions} */ (today ? { hour: '2-digit', minute: '2-digit' }
                                                                : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  return d.toLocaleString(language() === 'zh' ? 'zh-CN' : 'en-GB', opts);
}

/** @param {string} tag @param {string} cls @param {string} [text] */
function el(tag, cls, text) {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** One result: open button (name), kind, size, time, remove. @param {store.Entry} e @param {() => void} done */
function item(e, done) {
  const li = el('li', 'recent-item');
  li.dataset.testid = 'recent-item';
  li.dataset.kind = e.kind;
  li.dataset.key = e.key;
  li.dataset.id = e.id;
  const label = e.more.length ? `${e.name}  ·  ${t('recentRunB', e.more.map((m) => m.name).join(', '))}` : e.name;
  const open = /** @type {HTMLButtonElement} */ (el('button', 'recent-open', label));
  open.type = 'button';
  open.dataset.testid = 'recent-open';
  open.title = t('recentOpen', e.name);
  open.addEventListener('click', () => { done(); actions.open(e); });
  const kind = el('span', `recent-kind recent-kind-${e.kind}`, t(e.kind === 'trend' ? 'recentKindTrend' : 'recentKindGraph'));
  kind.dataset.testid = 'recent-kind';
  const size = el('span', 'recent-size', sizeText(store.sizeOf(e)));
  const time = /** @type {HTMLTimeElement} */ (el('time', 'recent-time', e.time ? timeText(e.time) : ''));
  if (e.time) time.dateTime = new Date(e.time).toISOString();
  const remove = /** @type {HTMLButtonElement} */ (el('button', 'recent-remove', '×'));
  remove.type = 'button';
  remove.dataset.testid = 'recent-remove';
  remove.title = t('recentRemove', e.name);
  remove.setAttribute('aria-label', t('recentRemove', e.name));
  remove.addEventListener('click', async () => {
    const ul = li.parentElement;
    const next = /** @type {HTMLElement|null} */ (li.nextElementSibling || li.previousElementSibling);
    const nextId = next ? next.dataset.id || '' : '';
    await store.remove(e.id);
    actions.removed(e);
    // The list was drawn again: the focus stays in it, on the neighbour's remove button.
    const b = ul && nextId ? /** @type {HTMLElement|null} */ (ul.querySelector(`[data-id="${CSS.escape(nextId)}"] .recent-remove`)) : null;
    if (b) b.focus();
  });
  li.append(open, kind, size, time, remove);
  return li;
}

/** The drawer's section (made here: the drawer's markup belongs to the intake). */
function drawerSection() {
  let sec = document.getElementById('recent');
  if (sec) return sec;
  sec = el('section', 'recent');
  sec.id = 'recent';
  sec.dataset.testid = 'recent';
  const h = el('h2', '', t('recentResults'));
  h.dataset.i18n = 'recentResults';
  h.id = 'recent-title';
  sec.setAttribute('aria-labelledby', h.id);
  const ul = el('ul', 'recent-list');
  ul.dataset.testid = 'recent-list';
  sec.append(h, ul);
  const drawer = $('drawer');
  drawer.insertBefore(sec, drawer.querySelector('.intake'));
  return sec;
}

function setMenu(/** @type {boolean} */ open) {
  const menu = $('recent-menu');
  menu.hidden = !open;
  $('toolbar-recent').setAttribute('aria-expanded', String(open));
}

function render() {
  const entries = store.list();
  const sec = drawerSection();
  sec.hidden = !entries.length;
  const lists = [/** @type {HTMLElement} */ (sec.querySelector('.recent-list'))];
  const menu = $('recent-menu');
  let ml = /** @type {HTMLElement|null} */ (menu.querySelector('.recent-list'));
  if (!ml) {
    ml = el('ul', 'recent-list');
    ml.dataset.testid = 'recent-menu-list';
    ml.setAttribute('aria-label', t('recentResults'));
    menu.append(ml);
  }
  lists.push(ml);
  for (const ul of lists) ul.replaceChildren(...entries.map((e) => item(e, () => setMenu(false))));
  $('toolbar-recent').hidden = !entries.length;
  if (!entries.length) setMenu(false);
}

/** The confirmation of "Forget stored data": how many results go; Cancel has the focus. */
function askForget() {
  const dialog = /** @type {HTMLDialogElement} */ ($('forget-dialog'));
  const n = store.list().length;
  const text = $('forget-text');
  text.dataset.i18n = 'forgetAsk';
  text.dataset.i18nArgs = JSON.stringify([n]);
  text.textContent = t('forgetAsk', n);
  dialog.returnValue = '';
  dialog.showModal();
  /** @type {HTMLElement} */ (dialog.querySelector('[value=cancel]')).focus();
}

/** @param {Actions} a */
export function initRecent(a) {
  actions = a;
  const button = $('toolbar-recent');
  button.addEventListener('click', () => setMenu($('recent-menu').hidden));
  document.addEventListener('pointerdown', (e) => {
    const anchor = button.parentElement;
    if (!$('recent-menu').hidden && anchor && !anchor.contains(/** @type {Node} */ (e.target))) setMenu(false);
  });
  $('recent-menu').addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.stopPropagation(); setMenu(false); button.focus(); }
  });
  const dialog = /** @type {HTMLDialogElement} */ ($('forget-dialog'));
  $('forget-stored').addEventListener('click', askForget);
  dialog.addEventListener('close', () => { if (dialog.returnValue === 'forget') actions.forget(); });
  window.addEventListener(store.CHANGED, render);
  // Another tab of the page kept or removed a result.
  window.addEventListener('storage', (e) => { if (e.key === null || e.key === 'visprobe.recent') render(); });
  onLanguage(render);
  render();
}
