// @ts-check
// Small DOM helpers of the graph workspace. Text always goes in as text, never as HTML.
import { t } from '../i18n.js';
import { engineText, messageOf } from '../engine_text.js';

/** @param {string} tag @param {string} [text] @param {string} [cls] @returns {HTMLElement} */
export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/**
 * An element whose text follows the language toggle: the key and its arguments are kept in
 * data attributes and applyLanguage() re-translates them.
 * @param {string} tag @param {string} key @param {string} [cls] @param {...unknown} args
 */
export function tel(tag, key, cls, ...args) {
  const e = el(tag, undefined, cls);
  setText(e, key, ...args);
  return e;
}

/** @param {HTMLElement} e @param {string} key @param {...unknown} args */
export function setText(e, key, ...args) {
  e.dataset.i18n = key;
  if (args.length) e.dataset.i18nArgs = JSON.stringify(args); else delete e.dataset.i18nArgs;
  e.textContent = t(key, ...args);
}

/** A native tooltip that follows the language. @param {HTMLElement} e @param {string} key */
export function setTitle(e, key) {
  e.dataset.i18nTitle = key;
  e.title = t(key);
}

/** @param {HTMLInputElement} e @param {string} key */
export function setPlaceholder(e, key) {
  e.dataset.i18nPlaceholder = key;
  e.placeholder = t(key);
}

/**
 * APP-05: a toast at the top centre; errors stay until clicked. An error may be a failure (an
 * Error, the engine's MessageError): its message in the page's language.
 * @param {unknown} text @param {'ok'|'info'|'warn'|'error'} [kind]
 */
export function toast(text, kind = 'info') {
  let box = document.querySelector('.toasts');
  if (!box) {
    box = el('div', undefined, 'toasts');
    box.setAttribute('role', 'status');
    document.body.append(box);
  }
  const item = el('div', kind === 'error' ? engineText(messageOf(text)) : String(text), 'toast ' + kind);
  item.dataset.testid = 'toast';
  box.append(item);
  const remove = () => item.remove();
  item.addEventListener('click', remove);
  if (kind !== 'error') setTimeout(remove, 2500);
}

/** A labelled checkbox; the label text follows the language. @param {string} key @param {boolean} checked */
export function checkbox(key, checked) {
  const input = /** @type {HTMLInputElement} */ (el('input'));
  input.type = 'checkbox';
  input.checked = checked;
  const label = el('label');
  label.append(input, ' ', tel('span', key));
  return { input, label };
}

/**
 * SEL-01: a searchable select: a label, the select, and a filter box that hides the options whose
 * text does not contain it (case-insensitive; the chosen option stays listed). Option texts are
 * text; an option with a key follows the language.
 * @param {string} id @param {string} labelKey @param {(value: string) => void} onChange
 */
export function filterSelect(id, labelKey, onChange) {
  const box = el('div', undefined, 'ws-field');
  const label = tel('label', labelKey);
  label.setAttribute('for', id);
  const select = /** @type {HTMLSelectElement} */ (el('select'));
  select.id = id;
  const filter = /** @type {HTMLInputElement} */ (el('input'));
  filter.type = 'search';
  filter.id = id + '-filter';
  filter.maxLength = 200;
  setPlaceholder(filter, 'filterOptions');
  filter.dataset.i18nAria = 'filterOptions';
  filter.setAttribute('aria-label', t('filterOptions'));
  const row = el('div', undefined, 'ws-field-row');
  row.append(select, filter);
  box.append(label, row);
  const apply = () => {
    const needle = filter.value.trim().toLowerCase();
    for (const o of select.options) o.hidden = !!needle && !o.selected && !o.text.toLowerCase().includes(needle);
  };
  filter.addEventListener('input', apply);
  select.addEventListener('change', () => onChange(select.value));
  return {
    box, select, filter,
    /** @param {Array<[string|number, string, string?]>} options  [value, text, i18n key] @param {string} [value] */
    set(options, value) {
      select.textContent = '';
      for (const [v, text, key] of options) {
        const o = new Option(key ? t(key) : text, String(v));
        if (key) o.dataset.i18n = key;
        select.append(o);
      }
      if (value !== undefined) select.value = value;
      filter.value = '';
      apply();
    },
  };
}
