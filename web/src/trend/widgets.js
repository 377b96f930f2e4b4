// @ts-check
// Small DOM pieces of the trend workspace: labelled controls with a "?" help, a searchable select,
// the tag multi-select, splitters, spinners and the theme colours charts draw with. Every text
// goes in as textContent.
import { brushX, brushY } from 'd3-brush';
import { scaleLinear } from 'd3-scale';
import { t, onLanguage } from '../i18n.js';

/** @template {keyof HTMLElementTagNameMap} K @param {K} tag @param {string} [text] @param {string} [cls] */
export function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/** axis and dimension names as shown (the data keeps the English ones). @param {string} name */
export function axisText(name) {
  const key = { Step: 'trStep', Rank: 'trRank', 'Module Name': 'trModuleName' }[name];
  return key ? t(key) : name;
}

/**
 * A toolbar row: label, "?" help (title + accessible name), then the control. Label and help are
 * dictionary keys: they follow the language toggle.
 * @param {string} label @param {string} help @param {HTMLElement} control
 */
export function field(label, help, control) {
  const row = el('div', undefined, 'tr-field');
  const head = el('div', undefined, 'tr-field-head');
  const lab = el('label', t(label));
  lab.dataset.i18n = label;
  if (control.id) lab.htmlFor = control.id;
  const q = el('span', '?', 'tr-help');
  q.tabIndex = 0;
  q.title = t(help);
  q.dataset.i18nTitle = help;
  q.setAttribute('role', 'img');
  q.setAttribute('aria-label', t(help));
  q.dataset.i18nAria = help;
  head.append(lab, q);
  row.append(head, control);
  return row;
}

/** @param {string} id */
export function selectEl(id) {
  const s = /** @type {HTMLSelectElement} */ (el('select'));
  s.id = id;
  s.dataset.testid = id;
  return s;
}

/**
 * A select with a filter box above it (case-insensitive substring of the option text). The
 * current value stays listed while filtered out, so the control never lies about the state.
 * @param {string} id @param {(value: string) => void} onChange
 */
export function searchableSelect(id, onChange) {
  const box = el('div', undefined, 'tr-searchable');
  const search = /** @type {HTMLInputElement} */ (el('input'));
  search.type = 'search';
  search.placeholder = t('trFilter');
  search.dataset.i18nPlaceholder = 'trFilter';
  search.id = id + '-search';
  search.dataset.testid = id + '-search';
  const sel = selectEl(id);
  box.append(search, sel);
  /** @type {{value: string, text: string}[]} */
  let options = [];
  let current = '';
  const MAX = 5000;   // a <select> with more options gets slow to open; the filter narrows it
  const render = () => {
    const needle = search.value.trim().toLowerCase();
    const list = needle ? options.filter((o) => o.text.toLowerCase().includes(needle)) : options;
    const frag = document.createDocumentFragment();
    const cur = options.find((o) => o.value === current);
    if (cur && !list.slice(0, MAX).includes(cur)) frag.append(new Option(cur.text, cur.value));
    for (const o of list.slice(0, MAX)) frag.append(new Option(o.text, o.value));
    sel.textContent = '';
    sel.append(frag);
    sel.value = current;
    sel.disabled = !options.length;
  };
  search.addEventListener('input', render);
  sel.addEventListener('change', () => { current = sel.value; onChange(current); });
  return {
    box, select: sel, search,
    /** @param {{value: string, text: string}[]} list @param {string} value */
    set(list, value) { options = list; current = value; search.value = ''; render(); },
    get value() { return current; },
    has: (/** @type {string} */ v) => options.some((o) => o.value === v),
    get options() { return options; },
  };
}

/**
 * Tag multi-select: a filter box and a list of checkboxes, each showing the tag and, in grey on the
 * right, its category. An option's value is `<tag>::<category>` (§10.3).
 * @param {(values: string[]) => void} onChange
 */
export function tagPicker(onChange) {
  const box = el('div', undefined, 'tr-tags');
  box.dataset.testid = 'tr-tags';
  const top = el('div', undefined, 'tr-tags-top');
  const search = /** @type {HTMLInputElement} */ (el('input'));
  search.type = 'search';
  search.placeholder = t('trFilterTags');
  search.dataset.i18nPlaceholder = 'trFilterTags';
  search.id = 'tr-tags-search';
  search.dataset.testid = 'tr-tags-search';
  const count = el('span', '', 'tr-tags-count');
  const clear = el('button', t('clear'));
  clear.dataset.i18n = 'clear';
  clear.title = t('trDeselectTags');
  clear.dataset.i18nTitle = 'trDeselectTags';
  clear.dataset.testid = 'tr-tags-clear';
  top.append(search, count, clear);
  const list = el('ul', undefined, 'tr-tags-list');
  box.append(top, list);
  /** @type {{name: string, category: string}[]} */
  let tags = [];
  /** @type {Set<string>} */
  let chosen = new Set();
  const render = () => {
    const needle = search.value.trim().toLowerCase();
    list.textContent = '';
    const frag = document.createDocumentFragment();
    for (const t of tags) {
      if (needle && !t.name.toLowerCase().includes(needle)) continue;
      const key = `${t.name}::${t.category}`;
      const li = el('li');
      const lab = el('label');
      const cb = /** @type {HTMLInputElement} */ (el('input'));
      cb.type = 'checkbox';
      cb.value = key;
      cb.checked = chosen.has(key);
      cb.dataset.testid = 'tag-option';
      lab.append(cb, el('span', t.name, 'tr-tag-name'), el('span', t.category, 'tr-tag-cat'));
      li.append(lab);
      frag.append(li);
    }
    list.append(frag);
    count.textContent = chosen.size ? t('trTagsSelected', chosen.size) : tags.length ? t('trTagsNone') : t('trNoTags');
    /** @type {HTMLButtonElement} */ (clear).disabled = !chosen.size;
  };
  search.addEventListener('input', render);
  onLanguage(render);
  list.addEventListener('change', (e) => {
    const cb = /** @type {HTMLInputElement} */ (e.target);
    if (cb.checked) chosen.add(cb.value); else chosen.delete(cb.value);
    render();
    onChange([...chosen]);
  });
  clear.addEventListener('click', () => { chosen.clear(); render(); onChange([]); });
  return {
    box,
    /** @param {{name: string, category: string}[]} list @param {string[]} values */
    set(list, values) { tags = list; chosen = new Set(values); search.value = ''; render(); },
    get values() { return [...chosen]; },
  };
}

/**
 * A draggable divider resizing `first` between min and max share of `container`.
 * @param {HTMLElement} container @param {HTMLElement} first @param {'x'|'y'} axis
 * @param {number} min @param {number} max @param {() => void} onResize
 */
export function splitter(container, first, axis, min, max, onResize) {
  const bar = el('div', undefined, axis === 'x' ? 'tr-split-x' : 'tr-split-y');
  bar.setAttribute('role', 'separator');
  bar.addEventListener('pointerdown', (e) => {
    bar.setPointerCapture(e.pointerId);
    const box = container.getBoundingClientRect();
    const move = (/** @type {PointerEvent} */ ev) => {
      const share = axis === 'x' ? (ev.clientX - box.left) / box.width : (ev.clientY - box.top) / box.height;
      first.style.flexBasis = `${(Math.min(max, Math.max(min, share)) * 100).toFixed(2)}%`;
      onResize();
    };
    const up = () => { bar.removeEventListener('pointermove', move); bar.removeEventListener('pointerup', up); };
    bar.addEventListener('pointermove', move);
    bar.addEventListener('pointerup', up);
  });
  return bar;
}

/** A spinner overlay for a chart pane; `show(true)` while its query runs. @param {HTMLElement} pane */
export function spinner(pane) {
  const s = el('div', undefined, 'tr-spinner');
  s.hidden = true;
  s.append(el('div', undefined, 'tr-spinner-wheel'));
  pane.append(s);
  return { show: (/** @type {boolean} */ on) => { s.hidden = !on; } };
}

/** Chart colours from the CSS variables of the workspace (light / dark theme). @param {Element} node */
export function themeOf(node) {
  const cs = getComputedStyle(node);
  const v = (/** @type {string} */ name, /** @type {string} */ d) => cs.getPropertyValue(name).trim() || d;
  return { fg: v('--tr-fg', '#222'), muted: v('--tr-muted', '#666'), bg: v('--tr-bg', '#fff'), grid: v('--tr-grid', '#e3e6eb') };
}

/**
 * A window slider (d3-brush) over a continuous domain; it reports the window when released.
 * @template {SVGGElement|SVGSVGElement} E
 * @param {import('d3-selection').Selection<E, unknown, null, undefined>} parent @param {'x'|'y'} orient
 * @param {(a: number, b: number) => void} onEnd
 */
export function windowSlider(parent, orient, onEnd) {
  const g = parent.append('g').attr('class', 'tr-slider').attr('data-testid', `slider-${orient}`);
  const brush = (orient === 'x' ? brushX() : brushY()).handleSize(8);
  let scale = scaleLinear();
  /** @type {[number, number]} */
  let last = [0, 1];
  brush.on('end', (ev) => {
    if (!ev.sourceEvent) return;   // moved by code
    if (!ev.selection) { g.call(brush.move, [scale(last[0]), scale(last[1])]); return; }
    const [p0, p1] = ev.selection;
    last = [scale.invert(p0), scale.invert(p1)];
    onEnd(last[0], last[1]);
  });
  return {
    g,
    /** @param {number} x0 @param {number} y0 @param {number} x1 @param {number} y1 @param {[number, number]} domain */
    layout(x0, y0, x1, y1, domain) {
      brush.extent([[x0, y0], [x1, y1]]);
      g.call(brush);
      g.select('.overlay').attr('fill', 'currentColor').attr('fill-opacity', 0.08);
      g.select('.selection').attr('fill', '#5b8ff9').attr('fill-opacity', 0.35).attr('stroke', '#5b8ff9');
      scale = scaleLinear().domain(domain).range(orient === 'x' ? [x0, x1] : [y0, y1]);
    },
    /** @param {number} a @param {number} b */
    set(a, b) { last = [a, b]; g.call(brush.move, [scale(a), scale(b)]); },
  };
}
