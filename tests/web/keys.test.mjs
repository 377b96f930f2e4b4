// The graph workspace's keyboard map (web/src/graph/keys.js, issue 19; web-ui BEY-05): which key
// press is which workspace action, and that the shortcuts overlay lists what the handler does.
//   node --test tests/web/keys.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYMAP, actionOf, runAction } from '../../web/src/graph/keys.js';
import { hasKey } from '../../web/src/i18n.js';

/** A key press as the handler reads it (the fields of a KeyboardEvent). */
const key = (k, o = {}) => ({ key: k, code: '', ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...o });

test('letters: workspace actions, either case', () => {
  const table = { f: 'first', n: 'next', p: 'prev', e: 'expandAll', c: 'collapseAll', v: 'fit', y: 'syncView', b: 'bench',
                  m: 'minimaps', x: 'syncExpansion' };
  for (const [k, action] of Object.entries(table)) {
    assert.equal(actionOf(key(k)), action, k);
    assert.equal(actionOf(key(k.toUpperCase())), action, `${k.toUpperCase()} (caps lock)`);
  }
});

test('Shift+N / Shift+P step through warnings; N / P through every flagged node', () => {
  assert.equal(actionOf(key('N', { shiftKey: true })), 'nextWarning');
  assert.equal(actionOf(key('P', { shiftKey: true })), 'prevWarning');
  assert.equal(actionOf(key('n')), 'next');
  assert.equal(actionOf(key('p')), 'prev');
});

test('digits 1-9 expand to a depth; ?, /, Esc', () => {
  for (let d = 1; d <= 9; ++d) assert.equal(actionOf(key(String(d))), `depth${d}`);
  assert.equal(actionOf(key('?', { shiftKey: true })), 'help');
  assert.equal(actionOf(key('/')), 'search');
  assert.equal(actionOf(key('Escape')), 'escape');
});

test('pane keys (W A S D 0) and the page\'s keys (I T L) are not workspace actions', () => {
  for (const k of ['w', 'a', 's', 'd', '0', 'i', 't', 'l', 'ArrowUp', 'Enter', ' ', 'F5']) assert.equal(actionOf(key(k)), '', k);
});

test('Ctrl / Cmd combinations are left to the page and the browser', () => {
  for (const k of ['s', 'f', 'n', '1', '/']) {
    assert.equal(actionOf(key(k, { ctrlKey: true })), '', `Ctrl+${k}`);
    assert.equal(actionOf(key(k, { metaKey: true })), '', `Cmd+${k}`);
  }
});

test('Alt exports by the physical key (e.key differs with the keyboard layout, e.g. ß for Alt+S on a Mac)', () => {
  assert.equal(actionOf(key('ß', { altKey: true, code: 'KeyS' })), 'exportSvg');
  assert.equal(actionOf(key('©', { altKey: true, code: 'KeyG' })), 'exportPng');
  assert.equal(actionOf(key('ç', { altKey: true, code: 'KeyC' })), 'exportCsv');
  assert.equal(actionOf(key('k', { altKey: true, code: 'KeyK' })), 'copyLink');
  assert.equal(actionOf(key('x', { altKey: true, code: 'KeyX' })), '');
  assert.equal(actionOf(key('s', { altKey: true })), '');   // no code: nothing
});

test('the overlay lists every workspace letter the handler acts on, and no letter it ignores', () => {
  const pane = new Set(['W', 'A', 'S', 'D', '0']);      // pane.js
  const page = new Set(['I', 'T', 'L']);                // host/app_shell.js
  const single = KEYMAP.map((k) => k.keys).filter((k) => /^[A-Z0-9]$/.test(k));
  for (const k of single) {
    const acts = actionOf(key(k.toLowerCase())) !== '';
    assert.equal(acts, !pane.has(k) && !page.has(k), `overlay key ${k}`);
  }
  for (const c of 'bcefmvxy') assert.ok(single.includes(c.toUpperCase()), `handler key ${c} missing from the overlay`);
  for (const k of ['Alt+S', 'Alt+G', 'Alt+C', 'Alt+K', '?', '/', 'Esc', 'N / P', 'Shift+N / Shift+P', '1 … 9'])
    assert.ok(KEYMAP.some((e) => e.keys === k), k);
});

test('every overlay text is in the dictionary (no raw key shown)', () => {
  for (const e of KEYMAP) {
    assert.ok(hasKey(e.what), e.what);
    if (!e.literal) assert.ok(hasKey(e.keys), e.keys);
  }
});

test('runAction drives the workspace it is given', async () => {
  const calls = [];
  const ws = {
    panes: [{ fit: () => calls.push('fit0') }, { fit: () => calls.push('fit1') }],
    expandDepth: async (d) => { calls.push(`depth ${d}`); },
    shortcuts: { open: false },
    opts: {},
    host: { querySelector: () => null, querySelectorAll: () => [] },
  };
  const exports = { svg: { click: () => calls.push('svg') }, png: { click: () => calls.push('png') }, csv: { click: () => calls.push('csv') } };
  assert.equal(runAction(ws, 'fit', exports), true);
  assert.equal(runAction(ws, 'expandAll', exports), true);
  assert.equal(runAction(ws, 'collapseAll', exports), true);
  assert.equal(runAction(ws, 'depth3', exports), true);
  assert.equal(runAction(ws, 'exportPng', exports), true);
  await Promise.resolve();
  assert.deepEqual(calls, ['fit0', 'fit1', 'depth Infinity', 'depth 1', 'depth 3', 'png']);
  // Esc closes the overlay only when it is open; ? toggles it
  assert.equal(runAction(ws, 'escape', exports), false);
  assert.equal(runAction(ws, 'help', exports), true);
  assert.equal(ws.shortcuts.open, true);
  assert.equal(runAction(ws, 'escape', exports), true);
  assert.equal(ws.shortcuts.open, false);
  // what this workspace lacks: no link to copy, no Bench pane, no minimaps, no sync box
  assert.equal(runAction(ws, 'copyLink', exports), false);
  assert.equal(runAction(ws, 'bench', exports), false);
  assert.equal(runAction(ws, 'minimaps', exports), false);
  assert.equal(runAction(ws, 'syncExpansion', exports), false);
  assert.equal(runAction(ws, 'nonsense', exports), false);
  let copied = 0;
  ws.opts.onCopyLink = () => { copied++; };
  assert.equal(runAction(ws, 'copyLink', exports), true);
  assert.equal(copied, 1);
});

test('runAction flips a toolbar checkbox as a click would (change event), both minimaps together', () => {
  /** A checkbox stand-in recording the change events it receives. */
  const box = (checked) => ({ checked, events: [], dispatchEvent(e) { this.events.push(e.type); } });
  const sync = box(true);
  const mm = [box(true), box(false)];
  const ws = { syncBox: sync, host: { querySelectorAll: (sel) => (sel.includes('ws-minimap') ? mm : []) } };
  assert.equal(runAction(ws, 'syncExpansion', {}), true);
  assert.deepEqual([sync.checked, sync.events], [false, ['change']]);
  // the first decides: on -> all off (only the box that changes gets an event)
  assert.equal(runAction(ws, 'minimaps', {}), true);
  assert.deepEqual(mm.map((b) => [b.checked, b.events.length]), [[false, 1], [false, 0]]);
  assert.equal(runAction(ws, 'minimaps', {}), true);
  assert.deepEqual(mm.map((b) => [b.checked, b.events.length]), [[true, 2], [true, 1]]);
});
