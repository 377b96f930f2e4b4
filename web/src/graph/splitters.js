// @ts-check
// The workspace's three splitters (issue 19, issue 46): Debug | Bench, side panel | panes, and the
// graphs over the detail dock. Each drags with pointer capture and tells the panes to re-measure;
// the side panel's width is remembered.
import { el } from './dom.js';

const SIDE_KEY = 'visprobe.sideWidth';
export const SIDE_MIN = 180;
export const SIDE_MAX = 640;

/**
 * A splitter element that calls `move(event)` while dragged.
 * @param {string} cls @param {string} testid @param {'horizontal'|'vertical'} orientation
 * @param {(ev: PointerEvent) => void} move @param {() => void} [done]
 */
function splitter(cls, testid, orientation, move, done) {
  const s = el('div', undefined, cls);
  s.dataset.testid = testid;
  s.setAttribute('role', 'separator');
  s.setAttribute('aria-orientation', orientation);
  s.addEventListener('pointerdown', (e) => {
    if (e.target !== s) return;   // a button on the splitter
    s.setPointerCapture(e.pointerId);
    const up = () => {
      s.removeEventListener('pointermove', move);
      s.removeEventListener('pointerup', up);
      if (done) done();
    };
    s.addEventListener('pointermove', move);
    s.addEventListener('pointerup', up);
  });
  return s;
}

/**
 * Debug | Bench: the Debug pane's share of the row, 20-80 %.
 * @param {HTMLElement} panes @param {HTMLElement[]} hosts @param {() => void} resized
 */
export function paneSplitter(panes, hosts, resized) {
  return splitter('ws-splitter', 'splitter', 'vertical', (ev) => {
    const box = panes.getBoundingClientRect();
    const share = Math.min(0.8, Math.max(0.2, (ev.clientX - box.left) / box.width));
    hosts[0].style.flex = `0 0 ${(share * 100).toFixed(2)}%`;
    hosts[1].style.flex = '1 1 0';
    resized();
  });
}

/**
 * Side panel | panes: the side panel's width (SIDE_MIN-SIDE_MAX px), remembered.
 * @param {HTMLElement} side @param {() => void} resized
 */
export function sideSplitter(side, resized) {
  let stored = 0;
  try { stored = Number(localStorage.getItem(SIDE_KEY)) || 0; } catch { /* no storage */ }
  if (stored) side.style.flexBasis = `${Math.min(SIDE_MAX, Math.max(SIDE_MIN, stored))}px`;
  return splitter('ws-side-splitter', 'side-splitter', 'vertical', (ev) => {
    const left = side.getBoundingClientRect().left;
    side.style.flexBasis = `${Math.round(Math.min(SIDE_MAX, Math.max(SIDE_MIN, ev.clientX - left)))}px`;
    resized();
  }, () => {
    try { localStorage.setItem(SIDE_KEY, String(Math.round(side.getBoundingClientRect().width))); } catch { /* not kept */ }
  });
}

/**
 * Graphs over the detail dock: the dock's height (60 px up to the workspace's height - 160 px).
 * @param {HTMLElement} host the workspace @param {() => void} resized
 */
export function dockSplitter(host, resized) {
  return splitter('ws-dock-splitter', 'dock-splitter', 'horizontal', (ev) => {
    const box = host.getBoundingClientRect();
    const px = Math.min(box.height - 160, Math.max(60, box.bottom - ev.clientY));
    host.style.setProperty('--dock-h', `${Math.round(px)}px`);
    resized();
  });
}
