// @ts-check
// Nested-box layout in execution order (spec web-ui §4.2, GL-01..GL-06): pure functions over the
// expanded part of the tree, so only what is expanded is ever laid out.

export const H = 15;   // header height
export const LW = 50;  // leaf width
export const HG = 5;   // horizontal gap
export const VG = 10;  // vertical gap
export const R = 5;    // leaves per row
export const CHAR_W = 6;

/**
 * A node of a pane's tree (a tb_nodes row as queries.js NodeRow reads it, made a node by Pane.makeNode, then its layout box).
 * comm, merged, modified: the row's communication text, parallel-merge flag and manual-match flag;
 * loading: its children's query while it runs; _label, _fit, _fitW, _fitS: render_common.js's
 * cached label and its fitted form for a box width and font size.
 * @typedef {{name: string, type: number, subNames: string[], children: GNode[]|null, expanded: boolean,
 *            precision: number|null, overflow: string|null, link: string[], micro: number, depth: number,
 *            parent: GNode|null, x: number, y: number, w: number, h: number,
 *            comm: string, merged: boolean, modified: boolean, loading?: Promise<void>|null,
 *            _label?: string, _fit?: string, _fitW?: number, _fitS?: number}} GNode
 */

/** GL-06: full names for the root and its children, short labels deeper down. @param {GNode} n */
export function labelOf(n) {
  if (n.depth <= 1) return n.name;
  const seg = n.name.split('.');
  const isNum = (/** @type {string} */ s) => /^\d+$/.test(s);
  if (n.type === 0) {
    if (seg.length >= 4 && !isNum(seg[seg.length - 4])) return seg.slice(-4).join('.');
    if (seg.length > 4) return seg.slice(-5).join('.');
    return n.name;
  }
  if (seg.length >= 2 && !isNum(seg[seg.length - 2])) return seg.slice(-2).join('.');
  if (seg.length > 2) return seg.slice(-3).join('.');
  return n.name;
}

/** @param {GNode} n */
export const isLeaf = (n) => n.subNames.length === 0;

/** @param {GNode} n @param {(c: GNode) => boolean} keep */
function visibleChildren(n, keep) {
  return (n.children || []).filter(keep);
}

/**
 * GL-02: sizes, bottom-up over expanded nodes.
 * @param {GNode} n @param {(c: GNode) => boolean} keep  micro-step filter for the root's children
 */
export function measure(n, keep) {
  const labelW = labelOf(n).length * CHAR_W;
  if (isLeaf(n)) { n.w = LW; n.h = H; return; }
  if (!n.expanded || !n.children) { n.w = labelW + 2 * HG; n.h = H; return; }
  const kids = visibleChildren(n, n.depth === 0 ? keep : () => true);
  for (const c of kids) measure(c, keep);
  let content = 0;
  let height = H;
  for (const run of runs(kids)) {
    if (isLeaf(run[0])) {
      const rows = Math.ceil(run.length / R);
      content = Math.max(content, rows > 1 ? R * LW + (R - 1) * HG : run.length * LW + (run.length - 1) * HG);
      height += rows * (H + VG);
    } else {
      for (const c of run) { content = Math.max(content, c.w); height += c.h + VG; }
    }
  }
  n.w = Math.max(content + 2 * HG, labelW + 2 * HG);
  n.h = height + VG;
}

/** Consecutive children of the same kind (leaf vs non-leaf). @param {GNode[]} kids */
function runs(kids) {
  /** @type {GNode[][]} */
  const out = [];
  for (const c of kids) {
    const last = out[out.length - 1];
    if (last && isLeaf(last[0]) === isLeaf(c)) last.push(c);
    else out.push([c]);
  }
  return out;
}

/**
 * GL-03: positions, top-down; returns every laid-out node in drawing order (parents first).
 * @param {GNode} root @param {(c: GNode) => boolean} keep
 */
export function layout(root, keep) {
  measure(root, keep);
  root.x = 0;
  root.y = 0;
  /** @type {GNode[]} */
  const out = [];
  const stack = [root];
  while (stack.length) {
    const n = /** @type {GNode} */ (stack.pop());
    out.push(n);
    if (isLeaf(n) || !n.expanded || !n.children) continue;
    const kids = visibleChildren(n, n.depth === 0 ? keep : () => true);
    let cy = n.y + H + VG;
    const placed = [];
    for (const run of runs(kids)) {
      if (isLeaf(run[0])) {
        for (let i = 0; i < run.length; i += R) {
          const row = run.slice(i, i + R);
          const rowW = row.length * LW + (row.length - 1) * HG;
          let cx = n.x + Math.floor((n.w - rowW) / 2);
          for (const c of row) { c.x = cx; c.y = cy; cx += LW + HG; placed.push(c); }
          cy += H + VG;
        }
      } else {
        for (const c of run) {
          c.x = n.x + Math.floor((n.w - c.w) / 2);
          c.y = cy;
          cy += c.h + VG;
          placed.push(c);
        }
      }
    }
    for (let i = placed.length - 1; i >= 0; --i) stack.push(placed[i]);
  }
  return out;
}
