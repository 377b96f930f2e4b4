// The colour legend's defaults are the engine's declaration (core/db/colour_legend.json), which the
// page imports and the engine compiles in (tests/core/test_colour_legend.cc checks the engine side).
// This fails when web/src drifts from it: a value not taken from the declaration, or a literal copy.
//   node --test tests/web/colour_legend.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_COLORS, FILTER_BUCKETS, PASS, UNMATCHED, UNCOLOURED_TYPES, WHITE, precisionFill, overflowFill, isUncoloured,
} from '../../web/src/graph/colours.js';
import { COLOURED } from '../../web/src/graph/queries.js';
import { GRAPH_TEXTS } from '../../web/src/i18n_graph.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const legend = JSON.parse(readFileSync(join(root, 'core', 'db', 'colour_legend.json'), 'utf8'));

test('the declaration holds msProbe\'s three buckets, the unmatched grey and the white node types', () => {
  assert.deepEqual(legend.buckets.map((/** @type {any} */ b) => [b.level, b.colour, b.lo, b.hi]),
                   [['pass', '#FFFCF3', 0, 0.3], ['warning', '#FFDC7F', 0.3, 0.6], ['error', '#FF704D', 0.6, 1]]);
  assert.equal(legend.unmatched, '#C7C7C7');
  assert.deepEqual(legend.uncolouredNodeTypes, [8, 9]);
});

test('colours.js takes its defaults from the declaration', () => {
  assert.deepEqual(DEFAULT_COLORS, legend.buckets.map((/** @type {any} */ b) => ({ colour: b.colour, lo: b.lo, hi: b.hi, level: b.level })));
  assert.deepEqual(FILTER_BUCKETS, legend.buckets.map((/** @type {any} */ b) => ({ key: b.level, lo: b.lo, hi: b.hi })));
  assert.equal(PASS, legend.buckets[0].colour);
  assert.equal(UNMATCHED, legend.unmatched);
  assert.deepEqual(UNCOLOURED_TYPES, legend.uncolouredNodeTypes);
});

test('the node types of the declaration are drawn white, in the panes and in the filter\'s SQL', () => {
  const ctx = { compare: true, bench: false, colors: DEFAULT_COLORS };
  for (const type of legend.uncolouredNodeTypes) {
    assert.equal(isUncoloured(type), true);
    assert.equal(precisionFill({ type, link: ['x'], precision: 0.9 }, ctx), WHITE);
    assert.equal(overflowFill({ type, overflow: 'critical' }), WHITE);
  }
  assert.equal(precisionFill({ type: 1, link: ['x'], precision: 0.9 }, ctx), legend.buckets[2].colour);
  assert.equal(COLOURED, `CAST(node_type AS INTEGER) NOT IN (${legend.uncolouredNodeTypes.join(', ')})`);
});

/** Every .js file under a folder. @param {string} dir @returns {string[]} */
function jsFiles(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? jsFiles(p) : p.endsWith('.js') ? [p] : [];
  });
}

test('web/src keeps no copy of the declaration: no legend colour, no white-type list, no bucket bounds in text', () => {
  const colours = [...legend.buckets.map((/** @type {any} */ b) => b.colour), legend.unmatched].map((c) => c.toLowerCase());
  const found = [];
  for (const file of jsFiles(join(root, 'web', 'src'))) {
    const text = readFileSync(file, 'utf8');
    const lower = text.toLowerCase();
    for (const c of colours) if (lower.includes(c)) found.push(`${relative(root, file)}: ${c}`);
    if (/NOT IN \(8, 9\)|type === [89]\s*\|\|\s*\w+\.type === [89]/.test(text)) found.push(`${relative(root, file)}: node types 8, 9`);
  }
  // The texts state the bounds through placeholders filled from the legend.
  for (const [key, [en, zh]] of Object.entries(GRAPH_TEXTS)) {
    if (/0\.3\b.*0\.6\b/.test(String(en)) || /0\.3\b.*0\.6\b/.test(String(zh))) found.push(`i18n_graph.js: ${key}`);
  }
  assert.deepEqual(found, []);
});
