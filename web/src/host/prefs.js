// @ts-check
// the language and theme toggles. Any button carrying data-pref="theme" or
// data-pref="language" (the page header's, the graph workspace's rail) toggles through one click
// listener and shows the current state, so the header and the rail never disagree.
import { applyLanguage, setLanguage, language, t } from '../i18n.js';

const THEME_KEY = 'visprobe.theme';
/** @type {Set<() => void>} */
const themeListeners = new Set();

/** @returns {'light'|'dark'} */
export function theme() { return document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light'; }

/** The icon, tooltip and accessible name of every toggle button on the page. */
export function paintPrefButtons() {
  const dark = theme() === 'dark';
  for (const b of document.querySelectorAll('[data-pref=theme]')) {
    const e = /** @type {HTMLElement} */ (b);
    const key = dark ? 'themeLight' : 'themeDark';
    e.textContent = dark ? '☀' : '☾';
    e.dataset.i18nTitle = key;
    e.dataset.i18nAria = key;
    e.title = t(key);
    e.setAttribute('aria-label', t(key));
  }
  const zh = language() === 'zh';
  for (const b of document.querySelectorAll('[data-pref=language]')) {
    const e = /** @type {HTMLElement} */ (b);
    // The header names the language a click switches to; the narrow rail button abbreviates it.
    // Latin letters beside the Chinese: a machine without a CJK font draws 中文 as empty boxes.
    e.textContent = e.dataset.compact ? (zh ? 'EN' : 'ZH') : (zh ? 'English' : '中文 ZH');
    e.dataset.i18nTitle = 'language';
    e.dataset.i18nAria = 'language';
    e.title = t('language');
    e.setAttribute('aria-label', t('language'));
  }
}

/** @param {'light'|'dark'} th */
function applyTheme(th) {
  document.documentElement.dataset.theme = th;
  paintPrefButtons();
  for (const fn of themeListeners) fn();
}

export function toggleTheme() {
  const next = theme() === 'dark' ? 'light' : 'dark';
  try { localStorage.setItem(THEME_KEY, next); } catch { /* not persisted */ }
  applyTheme(next);
}

export function toggleLanguage() {
  setLanguage(language() === 'zh' ? 'en' : 'zh');
  paintPrefButtons();
}

/** Calls fn after each theme change, until signal aborts. @param {() => void} fn @param {AbortSignal} [signal] */
export function onTheme(fn, signal) {
  themeListeners.add(fn);
  if (signal) signal.addEventListener('abort', () => themeListeners.delete(fn));
}

/** Initial theme (the saved choice, else the OS preference) and language; one click listener for every toggle. */
export function initPrefs() {
  let th = '';
  try { th = localStorage.getItem(THEME_KEY) || ''; } catch { /* no storage */ }
  if (th !== 'light' && th !== 'dark') th = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  document.documentElement.dataset.theme = th;
  applyLanguage();
  paintPrefButtons();
  document.addEventListener('click', (e) => {
    const b = /** @type {Element} */ (e.target).closest && /** @type {HTMLElement|null} */ (/** @type {Element} */ (e.target).closest('[data-pref]'));
    if (!b) return;
    if (b.dataset.pref === 'theme') toggleTheme();
    else if (b.dataset.pref === 'language') toggleLanguage();
  });
}
