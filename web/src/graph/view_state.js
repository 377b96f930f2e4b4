// @ts-check
// BEY-04 for the graph workspace: its view as plain strings for the URL fragment (scope, panel,
// filter mode and boxes, each pane's deepest expanded nodes and transform, the selection), and
// the same strings applied back, each value checked (a link may come from anyone). Split out of
// workspace.js, behaviour unchanged.
/** @typedef {import('./workspace.js').Workspace} Workspace */

/** BEY-04: the view state as plain strings (deep link and restore). @param {Workspace} ws @returns {Record<string, string>} */
export function viewStateOf(ws) {
  /** @type {Record<string, string>} */
  const s = { step: ws.stepSel.value, rank: ws.rankSel.value, micro: ws.microSel.value, panel: ws.panel };
  if (ws.filter) {
    s.mode = ws.filter.mode.value;
    const boxes = [...ws.filter.checks.querySelectorAll('input:checked')].map((c) => /** @type {HTMLInputElement} */ (c).value);
    if (boxes.length) s.boxes = boxes.join(',');
  }
  ws.panes.forEach((p, i) => {
    // The deepest expanded nodes: revealing and expanding them rebuilds the expansion.
    const deepest = p.laid.filter((n) => n.expanded && n !== p.root && !(n.children || []).some((c) => c.expanded)).map((n) => n.name);
    if (deepest.length) s[`exp${i}`] = JSON.stringify(deepest);
    s[`t${i}`] = `${p.t.x.toFixed(1)},${p.t.y.toFixed(1)},${p.t.k.toFixed(4)}`;
    if (p.selected) s.sel = `${i}:${p.selected.name}`;
  });
  return s;
}

/** BEY-04: restores a viewStateOf() (values from a URL: each is checked). @param {Workspace} ws @param {Record<string, string>} s */
export async function applyViewState(ws, s) {
  ws.restoring = true;
  try {
    const pick = (/** @type {HTMLSelectElement} */ sel, /** @type {string|undefined} */ v) => {
      if (v !== undefined && [...sel.options].some((o) => o.value === v)) sel.value = v;
    };
    pick(ws.stepSel, s.step);
    pick(ws.rankSel, s.rank);
    pick(ws.microSel, s.micro);
    // open() has just loaded the first scope: load again only for another one (a second load
    // would recompute the badges and restart the name lists).
    if (ws.loadedScope !== ws.scopeKey()) await ws.load();
    if (s.mode === 'overflow' && ws.overflowCheck) {
      ws.filter.mode.value = 'overflow';
      ws.setMode('overflow');
      ws.filter.fillChecks();
    }
    if (s.boxes) {
      for (const v of s.boxes.split(',')) {
        const cb = /** @type {HTMLInputElement|null} */ (ws.filter.checks.querySelector(`input[value="${CSS.escape(v)}"]`));
        if (cb && !cb.disabled) cb.checked = true;
      }
      await ws.filter.run();
    }
    for (let i = 0; i < ws.panes.length; ++i) {
      const p = ws.panes[i];
      let names = [];
      try { names = JSON.parse(s[`exp${i}`] || '[]'); } catch { names = []; }
      for (const name of Array.isArray(names) ? names.slice(0, 500) : []) {
        const n = await p.reveal(String(name));
        if (n) await p.expand(n);
      }
      p.render();
    }
    const m = /^(\d+):(.*)$/s.exec(s.sel || '');
    if (m && ws.panes[Number(m[1])]) {
      const p = ws.panes[Number(m[1])];
      const n = await p.reveal(m[2]);
      // Centred on both sides (a link without a view, t0 / t1, shows them; one with a view moves there below).
      if (n) { p.render(); p.centre(n); await ws.revealCounterpart(p, n); await ws.select(p, n); }
    }
    ws.panes.forEach((p, i) => {
      const t = String(s[`t${i}`] || '').split(',').map(Number);
      if (t.length === 3 && t.every(Number.isFinite) && t[2] > 0) { p.t = { x: t[0], y: t[1], k: t[2] }; p.draw(true); }
    });
    if (s.panel) ws.showPanel(s.panel);
  } finally {
    ws.restoring = false;
  }
}
