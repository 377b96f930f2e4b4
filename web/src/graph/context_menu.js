// @ts-check
// The context menu of a graph node (web-ui GI-03), opened by a right click in a pane: "Locate matched
// node" in a compare and the communication peers of the node, each coloured by its precision.
import { bucketFill, WHITE } from './colours.js';
import { el, tel, toast } from './dom.js';
import { t } from '../i18n.js';
import { distributedOf } from './queries.js';

/**
 * GI-03: context menu with "Locate matched node" (compare) and the communication peers.
 * @param {import('./workspace.js').Workspace} ws @param {import('./pane.js').Pane} p @param {import('./layout.js').GNode} n
 * @param {number} x @param {number} y
 */
export async function showContextMenu(ws, p, n, x, y) {
  document.querySelectorAll('.ws-menu').forEach((m) => m.remove());
  const m = el('ul', undefined, 'ws-menu');
  m.setAttribute('role', 'menu');
  m.style.left = x + 'px';
  m.style.top = y + 'px';
  const item = (/** @type {string} */ text, /** @type {() => Promise<void>} */ fn, /** @type {string[]} */ [chip] = []) => {
    const li = el('li');
    li.setAttribute('role', 'menuitem');
    if (chip) { const c = el('i', undefined, 'ws-chip'); c.style.background = chip; li.append(c); }
    li.append(text);
    li.addEventListener('click', async () => { m.remove(); await fn(); });
    m.append(li);
  };
  if (ws.other(p)) item(t('locateMatched'), () => locate(ws, p, n));
  const text = await distributedOf(ws.engine, p.scope, n.name);
  /** @type {{communications_type?: unknown, nodes_info?: Record<string, unknown>}|null} */
  let dist = null;
  try { dist = JSON.parse(/** @type {string} */ (text)); } catch { /* none */ }
  if (dist && typeof dist === 'object' && dist.nodes_info && typeof dist.nodes_info === 'object') {
    const key = { send: 'dataSend', receive: 'dataReceive', send_receive: 'dataSendReceive' }[String(dist.communications_type)] || 'dataCommunication';
    m.append(tel('li', key, 'ws-menu-title'));
    for (const rank of Object.keys(dist.nodes_info)) {
      const info = dist.nodes_info[rank];
      if (!Array.isArray(info)) continue;
      const colour = info[0] === null || info[0] === undefined ? WHITE : bucketFill(Number(info[0]), ws.colors);
      item(`rank${rank}`, () => ws.gotoPeer(p, rank, String(info[1])), [colour]);
    }
  }
  if (!m.children.length) return;
  document.body.append(m);
  const close = () => { m.remove(); document.removeEventListener('click', close); };
  setTimeout(() => document.addEventListener('click', close, { signal: ws.abort.signal }), 0);
}

/**
 * Selects the counterpart (or the nearest matched ancestor's) in the other pane, revealed and centred.
 * @param {import('./workspace.js').Workspace} ws @param {import('./pane.js').Pane} p @param {import('./layout.js').GNode} n
 */
async function locate(ws, p, n) {
  const o = ws.other(p);
  if (!o) return;
  /** @type {import('./layout.js').GNode|null} */
  let cur = n;
  while (cur && !cur.link.length) cur = cur.parent;
  if (!cur) { toast(t('noCounterpart'), 'warn'); return; }
  await ws.selectFromList(o, cur.link[cur.link.length - 1]);
}
