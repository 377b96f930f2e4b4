// @ts-check
// Issue 19: the breadcrumb of the selected node: its ancestors from the root, each a button that
// selects it (names set as text).
import { el } from './dom.js';

/**
 * @param {HTMLElement} box @param {import('./layout.js').GNode} n  the selected node (its parent chain is loaded)
 * @param {(name: string) => void} onPick
 */
export function drawBreadcrumb(box, n, onPick) {
  box.textContent = '';
  const chain = [];
  for (let a = /** @type {import('./layout.js').GNode|null} */ (n); a; a = a.parent) chain.unshift(a);
  chain.forEach((a, i) => {
    if (i) box.append(el('span', '›', 'ws-crumb-sep'));
    const b = el('button', a.depth <= 1 ? a.name : a.name.split('.').slice(-3).join('.'), 'ws-crumb');
    b.title = a.name;
    b.dataset.name = a.name;
    if (a === n) b.setAttribute('aria-current', 'true');
    else b.addEventListener('click', () => onPick(a.name));
    box.append(b);
  });
}
