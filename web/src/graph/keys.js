// @ts-check
// Issue 19: the keyboard map of the graph workspace, in one place: the key handler reads it and
// the shortcuts overlay lists it. W/A/S/D/0 and the wheel act on the pane under the pointer
// (pane.js); the page's own keys (I: build / open data, Ctrl+S: download, T: theme, L: language)
// are handled by host/app_shell.js and listed here too.
import { toast } from './dom.js';

/** keys: what the overlay shows (an i18n key unless literal); what: the action's i18n key. */
export const KEYMAP = [
  { keys: '?', what: 'helpShortcuts', literal: true },
  { keys: 'I', what: 'buildOpenData', literal: true },
  { keys: 'Ctrl+S', what: 'downloadDb', literal: true },
  { keys: 'F', what: 'firstDivergence', literal: true },
  { keys: 'N / P', what: 'nextPrevFlagged', literal: true },
  { keys: 'Shift+N / Shift+P', what: 'nextPrevWarning', literal: true },
  { keys: 'M', what: 'toggleMinimaps', literal: true },
  { keys: 'X', what: 'syncExpansion', literal: true },
  { keys: '/', what: 'panelSearch', literal: true },
  { keys: 'E', what: 'expandAll', literal: true },
  { keys: 'C', what: 'collapseAll', literal: true },
  { keys: '1 … 9', what: 'expandToDepth', literal: true },
  { keys: 'V', what: 'fitToScreen', literal: true },
  { keys: 'Y', what: 'syncView', literal: true },
  { keys: 'B', what: 'collapseBench', literal: true },
  { keys: 'W', what: 'zoomIn', literal: true },
  { keys: 'S', what: 'zoomOut', literal: true },
  { keys: 'A', what: 'moveLeft', literal: true },
  { keys: 'D', what: 'moveRight', literal: true },
  { keys: 'shortcutWheel', what: 'scroll', literal: false },
  { keys: 'shortcutCtrlWheel', what: 'zoomAtPointer', literal: false },
  { keys: '0', what: 'resetView', literal: true },
  { keys: 'Alt+S', what: 'exportSvg', literal: true },
  { keys: 'Alt+G', what: 'exportPng', literal: true },
  { keys: 'Alt+C', what: 'exportCsv', literal: true },
  { keys: 'Alt+K', what: 'copyLink', literal: true },
  { keys: 'T', what: 'themeDark', literal: true },
  { keys: 'L', what: 'language', literal: true },
  { keys: 'Esc', what: 'closeOverlay', literal: true },
];

/**
 * The workspace action of a key press, or '' (pane keys and the page's keys are not actions here).
 * @param {KeyboardEvent} e
 */
export function actionOf(e) {
  if (e.ctrlKey || e.metaKey) return '';
  const code = e.code || '';
  if (e.altKey) {
    return { KeyS: 'exportSvg', KeyG: 'exportPng', KeyC: 'exportCsv', KeyK: 'copyLink' }[code] || '';
  }
  if (e.key === 'Escape') return 'escape';
  if (e.key === '?') return 'help';
  if (e.key === '/') return 'search';
  if (/^[1-9]$/.test(e.key)) return 'depth' + e.key;
  if (e.shiftKey && (e.key === 'N' || e.key === 'P')) return e.key === 'N' ? 'nextWarning' : 'prevWarning';
  return { f: 'first', n: 'next', p: 'prev', e: 'expandAll', c: 'collapseAll', v: 'fit', y: 'syncView', b: 'bench', m: 'minimaps',
           x: 'syncExpansion' }[e.key.toLowerCase()] || '';
}

/**
 * Runs one workspace action of actionOf() on the graph workspace `ws`; false when it is not one
 * this workspace has (no Bench pane, no link to copy).
 * @param {import('./workspace.js').Workspace} ws
 * @param {string} action @param {{svg: HTMLElement, png: HTMLElement, csv: HTMLElement}} exports  the toolbar's export buttons
 */
export function runAction(ws, action, exports) {
  /** A toolbar checkbox toggled as a click would (false when the workspace has none). @param {HTMLInputElement|undefined} box */
  const flip = (box) => {
    if (!box) return false;
    box.checked = !box.checked;
    box.dispatchEvent(new Event('change'));
    return true;
  };
  const fail = (/** @type {unknown} */ e) => toast(e, 'error');
  switch (action) {
    case 'first': ws.navigator.first().catch(fail); return true;
    case 'next': ws.navigator.step(1).catch(() => {}); return true;
    case 'prev': ws.navigator.step(-1).catch(() => {}); return true;
    case 'nextWarning': ws.navigator.stepKind(1, 'warning').catch(fail); return true;
    case 'prevWarning': ws.navigator.stepKind(-1, 'warning').catch(fail); return true;
    case 'minimaps': {
      // Both minimap boxes follow the first: all on, or all off.
      const boxes = /** @type {HTMLInputElement[]} */ ([...ws.host.querySelectorAll('#ws-minimap-0, #ws-minimap-1')]);
      if (!boxes.length) return false;
      const on = !boxes[0].checked;
      for (const b of boxes) if (b.checked !== on) flip(b);
      return true;
    }
    case 'syncExpansion': return flip(ws.syncBox);
    case 'expandAll': ws.expandDepth(Infinity).catch(fail); return true;
    case 'collapseAll': ws.expandDepth(1).catch(fail); return true;
    case 'fit': ws.panes.forEach((p) => p.fit()); return true;
    case 'help': if (ws.shortcuts) ws.shortcuts.open = !ws.shortcuts.open; return true;
    // Esc closes the shortcuts overlay (as it says it does); other Esc handlers run otherwise.
    case 'escape': if (!ws.shortcuts || !ws.shortcuts.open) return false; ws.shortcuts.open = false; return true;
    case 'search': {
      // The search box itself (the panel's side radio buttons come before it).
      ws.showPanel('search');
      ws.search.input.focus();
      return true;
    }
    case 'syncView': return flip(ws.syncViewBox);
    case 'bench': {
      const b = /** @type {HTMLElement|null} */ (ws.host.querySelector('[data-testid=collapse-bench]'));
      if (!b) return false;
      b.click();
      return true;
    }
    case 'exportSvg': exports.svg.click(); return true;
    case 'exportPng': exports.png.click(); return true;
    case 'exportCsv': exports.csv.click(); return true;
    case 'copyLink': if (!ws.opts.onCopyLink) return false; ws.opts.onCopyLink(); return true;
    default:
      if (action.startsWith('depth')) { ws.expandDepth(Number(action.slice(5))).catch(fail); return true; }
      return false;
  }
}
