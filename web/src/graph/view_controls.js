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

/**
 * Appends the controls to `bar`.
 * @param {any} ws the Workspace @param {HTMLElement} bar
 */
export function buildViewControls(ws, bar) {
  // BEY-09: the first divergence and the flagged leaves around it, one action each.
  const nav = el('span', undefined, 'ws-nav-buttons');
  const navButton = (/** @type {string} */ text, /** @type {string} */ id, /** @type {string} */ tip, /** @type {() => any} */ fn) => {
    const b = text ? el('button', text) : tel('button', tip);
    b.dataset.testid = id;
    if (text) setTitle(b, tip);
    b.addEventListener('click', () => { Promise.resolve(fn()).catch((e) => toast(String(e.message || e), 'error')); });
    nav.append(b);
  };
  navButton('', 'bar-first', 'firstDivergence', () => ws.navigator.first());
  navButton('◀', 'bar-prev', 'prevFlagged', () => ws.navigator.step(-1));
  navButton('▶', 'bar-next', 'nextFlagged', () => ws.navigator.step(1));
  navButton('⚠◀', 'bar-prev-warning', 'prevWarning', () => ws.navigator.stepKind(-1, 'warning'));
  navButton('⚠▶', 'bar-next-warning', 'nextWarning', () => ws.navigator.stepKind(1, 'warning'));
  bar.append(nav);
  // GR-09 view controls.
  const controls = el('span', undefined, 'ws-controls');
  const toggle = (/** @type {string} */ key, /** @type {string} */ id, /** @type {(on: boolean) => void} */ fn) => {
    const c = checkbox(key, true);
    c.input.id = id;
    c.label.classList.add('ws-toggle');
    c.input.addEventListener('change', () => fn(c.input.checked));
    controls.append(c.label);
    return c.input;
  };
  toggle(ws.compare ? 'debugMinimap' : 'minimap', 'ws-minimap-0', (on) => ws.setMinimap(0, on));
  if (ws.compare) {
    toggle('benchMinimap', 'ws-minimap-1', (on) => ws.setMinimap(1, on));
    ws.syncBox = toggle('syncExpansion', 'ws-sync', () => {});
    // Synced pan / zoom: on by default in a compare (issue 46: Debug and Bench drifted apart after
    // an expand), and the user's choice is remembered.
    ws.syncViewBox = toggle('syncView', 'ws-sync-view', (on) => {
      try { localStorage.setItem(SYNC_VIEW_KEY, on ? '1' : '0'); } catch { /* not persisted */ }
      if (on && ws.panes[0]) ws.syncView(ws.panes[0]);
    });
    let stored = null;
    try { stored = localStorage.getItem(SYNC_VIEW_KEY); } catch { /* no storage */ }
    ws.syncViewBox.checked = stored !== '0';
  }
  // Issue 19: every action of the toolbar has a key, all listed in this one overlay (keys.js).
  const shortcuts = /** @type {HTMLDetailsElement} */ (el('details', undefined, 'ws-shortcuts'));
  shortcuts.dataset.testid = 'shortcuts';
  const sum = tel('summary', 'shortcuts');
  const keys = el('dl');
  for (const { keys: k, what, literal } of KEYMAP) keys.append(literal ? el('dt', k) : tel('dt', k), tel('dd', what));
  shortcuts.append(sum, keys);
  ws.shortcuts = shortcuts;
  // Issue 19: expand all / collapse all / expand to depth N, on both panes.
  const depthBox = el('span', undefined, 'ws-depth');
  const expandAll = el('button', '⊞');
  expandAll.dataset.testid = 'expand-all';
  setTitle(expandAll, 'expandAll');
  expandAll.addEventListener('click', () => { ws.expandDepth(Infinity).catch((e) => toast(String(e.message || e), 'error')); });
  const collapseAll = el('button', '⊟');
  collapseAll.dataset.testid = 'collapse-all';
  setTitle(collapseAll, 'collapseAll');
  collapseAll.addEventListener('click', () => { ws.expandDepth(1).catch((e) => toast(String(e.message || e), 'error')); });
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
    if (d > 0) ws.expandDepth(d).catch((e) => toast(String(e.message || e), 'error'));
  });
  depthBox.append(expandAll, collapseAll, depthSel);
  const fit = tel('button', 'fitToScreen');
  fit.dataset.testid = 'fit';
  fit.addEventListener('click', () => ws.panes.forEach((p) => p.fit()));
  controls.append(depthBox, shortcuts, fit);
  const exportSvg = el('button', 'SVG');
  setTitle(exportSvg, 'exportSvg');
  exportSvg.addEventListener('click', () => exportGraph(ws.panes, 'svg'));
  const exportPng = el('button', 'PNG');
  setTitle(exportPng, 'exportPng');
  exportPng.addEventListener('click', () => exportGraph(ws.panes, 'png'));
  const exportCsvBtn = el('button', 'CSV');
  setTitle(exportCsvBtn, 'exportCsv');
  exportCsvBtn.addEventListener('click', () => exportCsv(ws.detail.el));
  // One menu for the three exports (the view controls fit one line at 1600 px, issue 19).
  const exportMenu = /** @type {HTMLDetailsElement} */ (el('details', undefined, 'ws-export-menu'));
  exportMenu.dataset.testid = 'export-menu';
  const exportList = el('div', undefined, 'ws-export-list');
  exportList.append(exportSvg, exportPng, exportCsvBtn);
  // The keyboard's export actions click these (keys.js runAction).
  ws.exportButtons = { svg: exportSvg, png: exportPng, csv: exportCsvBtn };
  for (const b of [exportSvg, exportPng, exportCsvBtn]) b.addEventListener('click', () => { exportMenu.open = false; });
  exportMenu.append(tel('summary', 'exportMenu'), exportList);
  controls.append(exportMenu);
  if (ws.opts.onCopyLink) {
    const copyLink = el('button', '🔗');
    copyLink.dataset.testid = 'copy-link';
    setTitle(copyLink, 'copyLink');
    copyLink.addEventListener('click', () => ws.opts.onCopyLink && ws.opts.onCopyLink());
    controls.append(copyLink);
  }
  bar.append(controls);
}

/**
 * GR-07 / GR-12: the legend of shapes, colours and markers.
 * @param {HTMLElement} box @param {{overflow: boolean, compare: boolean, colors: Array<{colour: string, lo: number, hi: number, level?: string}>}} o
 */
export function drawLegend(box, o) {
  box.textContent = '';
  for (const [cls, key, tip] of [['shape-module', 'kindModule', ''], ['shape-leaf', 'kindLeaf', 'kindLeafHelp'],
                                 ['shape-apis', 'kindApis', 'kindApisHelp'], ['shape-fused', 'kindFused', 'kindFusedHelp']]) {
    const item = el('span', undefined, 'ws-kind');
    item.append(el('i', undefined, cls), tel('span', key));
    if (tip) setTitle(item, tip);
    box.append(item);
  }
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
    for (const c of o.colors) swatch(c.colour, `${c.level || ''} [${c.lo}, ${c.hi}]`);
    swatch(themed(UNMATCHED), t('unmatched'));
  } else {
    swatch(themed(WHITE), t('noPrecision'));
  }
  // GR-12 markers.
  box.append(el('span', `↗ ↙ ⇄ ${t('markerComm')}   ⊕ ${t('markerMerged')}   • ${t('markerModified')}`, 'ws-muted'));
}
