// @ts-check
// The graph workspace's view-control bar (GR-09, BEY-09, issue 19): First divergence and the
// flagged-node arrows, minimap and sync toggles, expand all / collapse all / depth N, the shortcut
// overlay, Fit to screen, the export menu and the copy-link button. It calls back into the
// workspace; the state it creates (syncBox, syncViewBox, shortcuts, exportButtons) is kept on the workspace.
import { el, tel, setTitle, toast, checkbox } from './dom.js';
import { exportGraph, exportCsv } from './export.js';
import { KEYMAP } from './keys.js';
import { WHITE, UNMATCHED, OVERFLOW, themed } from './colours.js';
import { t } from '../i18n.js';

const SYNC_VIEW_KEY = 'visprobe.syncView';
const MINIMAP_KEY = 'visprobe.minimaps';

/** A remembered on / off choice. @param {string} key @param {boolean} fallback */
function remembered(key, fallback) {
  let v = null;
  try { v = localStorage.getItem(key); } catch { /* no storage */ }
  return v === null ? fallback : v === '1';
}

/** @param {string} key @param {boolean} on */
function remember(key, on) {
  try { localStorage.setItem(key, on ? '1' : '0'); } catch { /* not persisted */ }
}

/** @typedef {import('./workspace.js').Workspace} Workspace */
/** A click's promise, its failure shown as a toast. @param {() => unknown} fn */
const guarded = (fn) => () => { Promise.resolve(fn()).catch((e) => toast(e, 'error')); };

/**
 * Appends the controls to `bar`.
 * @param {Workspace} ws @param {HTMLElement} bar
 */
export function buildViewControls(ws, bar) {
  bar.append(navButtons(ws));
  // GR-09 view controls. Issue 46: one toolbar row; the four toggles live in the View menu, and
  // the minimaps start hidden (an inset over the pane's corner, shown when wanted: M or the menu).
  const controls = el('span', undefined, 'ws-controls');
  const viewMenu = viewToggles(ws);
  // Issue 19: every action of the toolbar has a key, all listed in this one overlay (keys.js).
  const shortcuts = /** @type {HTMLDetailsElement} */ (el('details', undefined, 'ws-shortcuts'));
  shortcuts.dataset.testid = 'shortcuts';
  const sum = tel('summary', 'shortcuts');
  const keys = el('dl');
  for (const { keys: k, what, literal } of KEYMAP) keys.append(literal ? el('dt', k) : tel('dt', k), tel('dd', what));
  shortcuts.append(sum, keys);
  ws.shortcuts = shortcuts;
  const fit = tel('button', 'fitToScreen');
  fit.dataset.testid = 'fit';
  fit.addEventListener('click', () => ws.panes.forEach((p) => p.fit()));
  controls.append(depthControls(ws), fit, viewMenu, shortcuts);
  const exportMenu = exportControls(ws);
  controls.append(exportMenu);
  if (ws.opts.onCopyLink) {
    // Issue 46: a word, not an emoji (the glyph needed an emoji font).
    const copyLink = tel('button', 'copyLinkShort');
    copyLink.dataset.testid = 'copy-link';
    setTitle(copyLink, 'copyLink');
    copyLink.addEventListener('click', () => ws.opts.onCopyLink && ws.opts.onCopyLink());
    controls.append(copyLink);
  }
  bar.append(controls);
  // One fold open at a time; a click elsewhere closes them.
  const folds = /** @type {HTMLDetailsElement[]} */ ([viewMenu, exportMenu]);
  for (const f of folds) f.addEventListener('toggle', () => { if (f.open) for (const g of folds) if (g !== f) g.open = false; });
  document.addEventListener('pointerdown', (e) => {
    for (const f of folds) if (f.open && !f.contains(/** @type {Node} */ (e.target))) f.open = false;
  }, { signal: ws.abort.signal });
}

/** BEY-09: the first divergence and the flagged leaves around it, one action each. @param {Workspace} ws */
function navButtons(ws) {
  const nav = el('span', undefined, 'ws-nav-buttons');
  const navButton = (/** @type {string} */ text, /** @type {string} */ id, /** @type {string} */ tip, /** @type {() => unknown} */ fn) => {
    const b = text ? el('button', text) : tel('button', tip);
    b.dataset.testid = id;
    if (text) setTitle(b, tip);
    b.addEventListener('click', guarded(fn));
    nav.append(b);
  };
  navButton('', 'bar-first', 'firstDivergence', () => ws.navigator.first());
  navButton('◀', 'bar-prev', 'prevFlagged', () => ws.navigator.step(-1));
  navButton('▶', 'bar-next', 'nextFlagged', () => ws.navigator.step(1));
  navButton('⚠◀', 'bar-prev-warning', 'prevWarning', () => ws.navigator.stepKind(-1, 'warning'));
  navButton('⚠▶', 'bar-next-warning', 'nextWarning', () => ws.navigator.stepKind(1, 'warning'));
  return nav;
}

/**
 * The View menu: the minimap toggles and, in a compare, synchronised expansion and pan / zoom (the
 * workspace keeps the last two as syncBox and syncViewBox). @param {Workspace} ws
 */
function viewToggles(ws) {
  const viewMenu = /** @type {HTMLDetailsElement} */ (el('details', undefined, 'ws-view-menu ws-menu-fold'));
  viewMenu.dataset.testid = 'view-menu';
  const viewList = el('div', undefined, 'ws-fold-list');
  viewMenu.append(tel('summary', 'viewMenu'), viewList);
  const toggle = (/** @type {string} */ key, /** @type {string} */ id, /** @type {boolean} */ on, /** @type {(on: boolean) => void} */ fn) => {
    const c = checkbox(key, on);
    c.input.id = id;
    c.label.classList.add('ws-toggle');
    c.input.addEventListener('change', () => fn(c.input.checked));
    viewList.append(c.label);
    return c.input;
  };
  const minimapsOn = remembered(MINIMAP_KEY, false);
  const minimapToggle = (/** @type {number} */ i) => (/** @type {boolean} */ on) => {
    remember(MINIMAP_KEY, on);
    ws.setMinimap(i, on);
  };
  toggle(ws.compare ? 'debugMinimap' : 'minimap', 'ws-minimap-0', minimapsOn, minimapToggle(0));
  if (ws.compare) {
    toggle('benchMinimap', 'ws-minimap-1', minimapsOn, minimapToggle(1));
    ws.syncBox = toggle('syncExpansion', 'ws-sync', true, () => {});
    // Synced pan / zoom: on by default in a compare (issue 46: Debug and Bench drifted apart after
    // an expand), and the user's choice is remembered.
    ws.syncViewBox = toggle('syncView', 'ws-sync-view', remembered(SYNC_VIEW_KEY, true), (on) => {
      remember(SYNC_VIEW_KEY, on);
      if (on && ws.panes[0]) ws.syncView(ws.panes[0]);
    });
  }
  return viewMenu;
}

/** Issue 19: expand all / collapse all / expand to depth N, on both panes. @param {Workspace} ws */
function depthControls(ws) {
  const depthBox = el('span', undefined, 'ws-depth');
  const expandAll = el('button', '⊞');
  expandAll.dataset.testid = 'expand-all';
  setTitle(expandAll, 'expandAll');
  expandAll.addEventListener('click', guarded(() => ws.expandDepth(Infinity)));
  const collapseAll = el('button', '⊟');
  collapseAll.dataset.testid = 'collapse-all';
  setTitle(collapseAll, 'collapseAll');
  collapseAll.addEventListener('click', guarded(() => ws.expandDepth(1)));
  const depthSel = /** @type {HTMLSelectElement} */ (el('select'));
  depthSel.dataset.testid = 'expand-depth';
  depthSel.dataset.i18nAria = 'expandToDepth';
  depthSel.setAttribute('aria-label', t('expandToDepth'));
  setTitle(depthSel, 'expandToDepth');
  depthSel.append(tel('option', 'depthN'));
  for (let d = 1; d <= 9; ++d) { const o = el('option', String(d)); /** @type {HTMLOptionElement} */ (o).value = String(d); depthSel.append(o); }
  depthSel.addEventListener('change', () => {
    const d = Number(depthSel.value);
    depthSel.selectedIndex = 0;
    if (d > 0) ws.expandDepth(d).catch((e) => toast(e, 'error'));
  });
  depthBox.append(expandAll, collapseAll, depthSel);
  return depthBox;
}

/**
 * One menu for the three exports (the view controls fit one line at 1600 px, issue 19); the
 * keyboard's export actions click its buttons (keys.js runAction, through ws.exportButtons).
 * @param {Workspace} ws
 */
function exportControls(ws) {
  const exportSvg = el('button', 'SVG');
  setTitle(exportSvg, 'exportSvg');
  exportSvg.addEventListener('click', () => exportGraph(ws.panes, 'svg'));
  const exportPng = el('button', 'PNG');
  setTitle(exportPng, 'exportPng');
  exportPng.addEventListener('click', () => exportGraph(ws.panes, 'png'));
  const exportCsvBtn = el('button', 'CSV');
  setTitle(exportCsvBtn, 'exportCsv');
  exportCsvBtn.addEventListener('click', () => exportCsv(ws.detail.el));
  const exportMenu = /** @type {HTMLDetailsElement} */ (el('details', undefined, 'ws-export-menu'));
  exportMenu.dataset.testid = 'export-menu';
  const exportList = el('div', undefined, 'ws-export-list');
  exportList.append(exportSvg, exportPng, exportCsvBtn);
  ws.exportButtons = { svg: exportSvg, png: exportPng, csv: exportCsvBtn };
  for (const b of [exportSvg, exportPng, exportCsvBtn]) b.addEventListener('click', () => { exportMenu.open = false; });
  exportMenu.append(tel('summary', 'exportMenu'), exportList);
  return exportMenu;
}

/**
 * GR-07 / GR-08 / GR-12: the legend, in the toolbar's one row (issue 46): the colour scale inline,
 * the shapes and markers in a fold beside it.
 * @param {HTMLElement} box @param {{overflow: boolean, compare: boolean, colors: Array<{colour: string, lo: number, hi: number, level?: string}>}} o
 */
export function drawLegend(box, o) {
  const wasOpen = !!box.querySelector('details[open]');
  box.textContent = '';
  const swatch = (/** @type {string} */ colour, /** @type {string} */ text) => {
    const item = el('span', undefined, 'ws-swatch');
    const chip = el('i');
    chip.style.background = colour;
    item.append(chip, text);
    box.append(item);
  };
  if (o.overflow) {
    for (const k of ['medium', 'high', 'critical']) swatch(OVERFLOW[k], t(k));
  } else if (o.compare) {
    // The level names the database carries (pass / warning / error) in the page's language.
    for (const c of o.colors) swatch(themed(c.colour), `${c.level ? t(c.level) : ''} [${c.lo}, ${c.hi}]`);
    swatch(themed(UNMATCHED), t('unmatched'));
  } else {
    swatch(themed(WHITE), t('noPrecision'));
  }
  const shapes = /** @type {HTMLDetailsElement} */ (el('details', undefined, 'ws-menu-fold ws-shapes'));
  shapes.dataset.testid = 'legend-shapes';
  shapes.open = wasOpen;
  const list = el('div', undefined, 'ws-fold-list');
  for (const [cls, key, tip] of [['shape-module', 'kindModule', ''], ['shape-leaf', 'kindLeaf', 'kindLeafHelp'],
                                 ['shape-apis', 'kindApis', 'kindApisHelp'], ['shape-fused', 'kindFused', 'kindFusedHelp']]) {
    const item = el('span', undefined, 'ws-kind');
    item.append(el('i', undefined, cls), tel('span', key));
    if (tip) setTitle(item, tip);
    list.append(item);
  }
  // GR-12 markers.
  list.append(el('span', `↗ ↙ ⇄ ${t('markerComm')}`, 'ws-muted'), el('span', `⊕ ${t('markerMerged')}`, 'ws-muted'),
              el('span', `• ${t('markerModified')}`, 'ws-muted'));
  shapes.append(tel('summary', 'legendShapes'), list);
  box.append(shapes);
}
