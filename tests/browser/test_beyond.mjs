// Beyond the reference (web-ui BEY-08, BEY-09, BEY-10, BEY-03/04) in real Chromium, on generated
// compares whose answers follow from how they were generated (scripts/gen_dump.py): the golden
// side drifts from one layer on (--diverge-layer), the target overflows in one layer on one rank
// and one step only (--overflow-layer/-rank/-step). The manifest names the first drifting node and
// the overflowing nodes; the badges are checked against an independent recursive SQL aggregate.
//   node --test tests/browser/test_beyond.mjs
// env: VISPROBE_WEB_DIR (default build/web), VISPROBE_NATIVE (default build/native/visprobe).
// The 200,000-node measurement is a benchmark: scripts/bench_beyond.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { browserSuite, generatedCompare, sqlJson as sql, screenshot, openGraphDb, badgesDrawn, pane, viewRestored, fragmentFlushed,
         assertNoErrors } from './harness.mjs';

const DIVERGE = 2;   // --diverge-layer
const OVERFLOW = { layer: 1, rank: 1, step: 1 };
let db, dbNoBadges, manifest;

const suite = browserSuite({
  prefix: 'visprobe_beyond_',
  // Generated dumps (2 steps x 2 ranks, 4 layers) compared natively with -oc.
  setup: (s) => {
    ({ db, manifest } = generatedCompare(join(s.tmp, 'gen'), ['--layers', '4', '--hidden', '128', '--ranks', '2', '--steps', '2',
                                                               '--diverge-layer', String(DIVERGE), '--overflow-layer', String(OVERFLOW.layer),
                                                               '--overflow-rank', String(OVERFLOW.rank), '--overflow-step', String(OVERFLOW.step),
                                                               '--seed', '5'], ['-oc']));
    // The same database as msProbe would write it: no extension table.
    dbNoBadges = join(s.tmp, 'msprobe_like.vis.db');
    copyFileSync(db, dbNoBadges);
    execFileSync('sqlite3', [dbNoBadges, 'DROP TABLE vp_badges; VACUUM;']);
  },
});

/** A page at 1500 x 1100 with `file` open, its badges drawn. @param {string} file */
async function openDb(file) {
  const app = await suite.open({ viewport: { width: 1500, height: 1100 } });
  await openGraphDb(app.page, file, { badges: true });
  return app;
}

/**
 * Issue 19: after a jump, the Debug pane's selection and its matched node in the Bench pane (the
 * highlight), each on screen in its pane (laid out, i.e. revealed, and inside the pane's box).
 */
async function matchedShown(page) {
  await page.waitForFunction(() => {
    const [d, b] = window.visprobeGraph.panes;
    return d.selected && b.highlight && b.screenBox(b.highlight);
  }).catch(() => {});   // the answer below says what is missing
  return page.evaluate(() => {
    const [d, b] = window.visprobeGraph.panes;
    const inside = (p, name) => { const s = p.screenBox(name); return !!s && s.x + s.w > 0 && s.x < p.width && s.y + s.h > 0 && s.y < p.height; };
    return { highlight: b.highlight, debug: !!d.selected && inside(d, d.selected.name), bench: !!b.highlight && inside(b, b.highlight) };
  });
}
const loads = (page) => page.evaluate(() => Number(document.querySelector('[data-testid=workspace]').dataset.loaded));
async function scope(page, step, rank) {
  // SEL-01: step and rank are in the data-selection popover of the rail.
  if (await page.isHidden('[data-testid=data-selection]')) await page.click('[data-testid=rail-data]');
  const before = await loads(page);
  await page.selectOption('#ws-step', String(step));
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid=workspace]').dataset.loaded) > b, before);
  const b2 = await loads(page);
  await page.selectOption('#ws-rank', String(rank));
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid=workspace]').dataset.loaded) > b, b2);
  await page.click('[data-testid=rail-data]');   // closes the popover
  await badgesDrawn(page);
}

/** Badge rows recomputed independently: every leaf counted for every ancestor (recursive SQL). */
function expectedBadges(file, step, rank, side, t = { warning: 0.3, error: 0.6 }) {
  return sql(file, expectedBadgesSql(step, rank, side, t));
}

function expectedBadgesSql(step, rank, side, { warning, error } = { warning: 0.3, error: 0.6 }) {
  return `WITH RECURSIVE up(name, p, unmatched, ov, a) AS (
      SELECT node_name, min(max(precision_index, 0.0), 1.0), (matched_node_link IS NULL OR matched_node_link IN ('', '[]')),
             CASE overflow_level WHEN 'medium' THEN 1 WHEN 'high' THEN 2 WHEN 'critical' THEN 3 ELSE 0 END, up_node
      FROM tb_nodes WHERE step = ${step} AND rank = ${rank} AND data_source = '${side}' AND sub_nodes IN ('', '[]')
      UNION ALL SELECT node_name, min(precision_index, 1.0), 0, 0, node_name
      FROM tb_nodes WHERE step = ${step} AND rank = ${rank} AND data_source = '${side}' AND sub_nodes NOT IN ('', '[]')
        AND precision_index >= ${warning}
      UNION ALL SELECT up.name, up.p, up.unmatched, up.ov, t.up_node FROM up JOIN tb_nodes t
        ON t.step = ${step} AND t.rank = ${rank} AND t.data_source = '${side}' AND t.node_name = up.a WHERE up.a != '')
    SELECT a AS name, max(p) AS worst, coalesce(sum(p >= ${error}), 0) AS e, coalesce(sum(p >= ${warning} AND p < ${error}), 0) AS w,
           sum(unmatched) AS u, sum(ov > 0) AS o, max(ov) AS wo
    FROM up WHERE a != '' GROUP BY a HAVING coalesce(sum(p >= ${warning}), 0) + sum(unmatched) + sum(ov > 0) > 0 ORDER BY a`;
}

const asRows = (list) => list.map((r) => [r.name, r.worst, r.e, r.w, r.u, r.o, r.wo]);
const sortRows = (rows) => rows.map((r) => [String(r[0]), r[1] === null ? null : Number(r[1]), ...r.slice(2).map(Number)])
  .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

test('badges: stored by the engine and computed by the worker for msProbe files, both equal to the SQL aggregate (BEY-08)', async () => {
  const stored = await openDb(db);
  const plain = await openDb(dbNoBadges);
  for (const [step, rank] of [[0, 0], [1, 1]]) {
    for (const side of ['NPU', 'Bench']) {
      const want = sortRows(asRows(expectedBadges(db, step, rank, side)));
      const a = await stored.page.evaluate((args) => window.visprobeEngine.badges(args), { step, rank, side });
      const b = await plain.page.evaluate((args) => window.visprobeEngine.badges(args), { step, rank, side });
      assert.equal(a.source, 'stored');
      assert.equal(b.source, 'computed');
      assert.deepEqual(sortRows(a.rows), want, `stored ${step}/${rank}/${side}`);
      assert.deepEqual(sortRows(b.rows), want, `computed ${step}/${rank}/${side}`);
    }
  }
  // The overflow was injected on step 1, rank 1 only: the root counts it there and nowhere else.
  const rootOv = sql(db, "SELECT step, rank, n_overflow FROM vp_badges WHERE data_source = 'NPU' AND node_name = 'DefaultModel' ORDER BY step, rank");
  assert.deepEqual(rootOv.map((r) => r.n_overflow > 0), [false, false, false, true]);
  for (const { errors, context } of [stored, plain]) {
    assertNoErrors(errors);
    await context.close();
  }
});

test("badges of an msProbe file follow its own legend: a five-bucket legend moves the bounds to 0.2 / 0.8 (engine rule)", async () => {
  const five = join(suite.tmp, 'msprobe_five.vis.db');
  copyFileSync(dbNoBadges, five);
  const legend = JSON.stringify({
    '#FFFCF3': { value: [0, 0.2], accuracy_level: 'pass' }, '#FFEDBE': { value: [0.2, 0.4], accuracy_level: 'warning' },
    '#FFDC7F': { value: [0.4, 0.6] }, '#FFC62E': { value: [0.6, 0.8] }, '#FF704D': { value: [0.8, 1], accuracy_level: 'error' },
    '#C7C7C7': { value: [], accuracy_level: 'unmatched node' } });
  // One leaf at 0.7: an error by the default bounds, a warning by this legend's.
  execFileSync('sqlite3', [five, `UPDATE tb_config SET node_colors = '${legend}';
    UPDATE tb_nodes SET precision_index = 0.7 WHERE rowid = (SELECT rowid FROM tb_nodes WHERE step = 0 AND rank = 0
      AND data_source = 'NPU' AND sub_nodes IN ('', '[]') AND precision_index < 0.2 ORDER BY node_order LIMIT 1);`]);
  const { page, context, errors } = await openDb(five);
  assert.deepEqual(await page.evaluate(() => window.visprobeEngine.thresholds()), { warning: 0.2, error: 0.8 });
  const t = { warning: 0.2, error: 0.8 };
  const want = sortRows(asRows(expectedBadges(five, 0, 0, 'NPU', t)));
  const got = await page.evaluate(() => window.visprobeEngine.badges({ step: 0, rank: 0, side: 'NPU' }));
  assert.equal(got.source, 'computed');
  assert.deepEqual(sortRows(got.rows), want);
  // The bounds matter on this file: the default bounds give other rows.
  assert.notDeepEqual(sortRows(asRows(expectedBadges(five, 0, 0, 'NPU'))), want);
  assertNoErrors(errors);
  await context.close();
});

test('badges follow a manual unmatch: the stored rows of that step and rank are recomputed (BEY-08, MAT-04)', async () => {
  const { page, context, errors } = await openDb(db);
  const mod = sql(db, `SELECT node_name FROM tb_nodes WHERE step = 0 AND rank = 0 AND data_source = 'NPU' AND node_type = '0'
                       AND sub_nodes != '' AND up_node != '' AND matched_node_link != '[]' ORDER BY node_order DESC LIMIT 1`)[0].node_name;
  await page.evaluate((n) => window.visprobeEngine.unmatch({ step: 0, rank: 0, npu: n, bench: n, descendants: true }), mod);
  // The same recursive aggregate, now over the edited database inside the page.
  const q = expectedBadgesSql(0, 0, 'NPU');
  const want = sortRows((await page.evaluate((qq) => window.visprobeEngine.query(qq), q)).values);
  const got = await page.evaluate(() => window.visprobeEngine.badges({ step: 0, rank: 0, side: 'NPU' }));
  assert.equal(got.source, 'stored');
  assert.deepEqual(sortRows(got.rows), want);
  assert.ok(want.find((r) => r[0] === mod)[4] > 0, 'the unmatched module now counts unmatched leaves');
  assertNoErrors(errors);
  await context.close();
});

test('badges on collapsed modules, moving when a module is expanded; overflow counts in overflow mode (BEY-08)', async () => {
  const { page, context, errors } = await openDb(db);
  await scope(page, OVERFLOW.step, OVERFLOW.rank);
  const want = new Map(expectedBadges(db, OVERFLOW.step, OVERFLOW.rank, 'NPU').map((r) => [r.name, r]));
  const pills = () => page.$$eval('[data-testid=pane-debug] g.node', (gs) => gs.map((g) => [g.dataset.name, g.querySelector('g.badge')?.dataset.text || '']));
  const text = (r) => [r.e ? `E ${r.e}` : '', r.w ? `W ${r.w}` : '', r.u ? `∅ ${r.u}` : ''].filter(Boolean).join(' · ');
  let shown = await pills();
  const withPill = shown.filter(([, t]) => t);
  assert.ok(withPill.length > 0, 'some collapsed root child shows a badge');
  for (const [name, t] of shown) {
    const r = want.get(name);
    const expanded = await pane(page, 0, (p, n) => p.nodes.get(n).expanded, name);
    assert.equal(t, expanded || !r ? '' : text(r), name);
  }
  // Expand the module with the most errors below: its pill goes, its children carry theirs.
  const [top] = withPill.sort((a, b) => want.get(b[0]).e - want.get(a[0]).e);
  await page.dblclick(`[data-testid=pane-debug] g.node[data-name="${top[0]}"] rect.header`);
  await page.waitForFunction((n) => !document.querySelector(`[data-testid=pane-debug] g.node[data-name="${n}"] g.badge`), top[0]);
  shown = await pills();
  const kids = await pane(page, 0, (p, n) => p.nodes.get(n).children.map((c) => c.name), top[0]);
  const below = shown.filter(([n, t]) => kids.includes(n) && t);
  assert.ok(below.length > 0, 'a child of the expanded module shows a badge');
  for (const [n, t] of below) assert.equal(t, text(want.get(n)), n);
  // Overflow mode: overflow counts in the colour of the worst level.
  await page.click('[data-testid=mode-overflow]');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=pane-debug] g.badge')].some((b) => b.dataset.text.startsWith('⚠')));
  for (const [name, t] of await pills()) {
    if (!t) continue;
    assert.equal(t, `⚠ ${want.get(name).o}`, name);
  }
  await page.locator('[data-testid=workspace]').screenshot({ path: screenshot('beyond_badges.png') });
  // Step 0, rank 0 had no overflow: no overflow pill at all.
  await scope(page, 0, 0);
  await page.click('[data-testid=mode-overflow]');
  // The panes in overflow mode (setMode redraws them as it sets the mode), their badges loaded.
  await page.waitForFunction(() => window.visprobeGraph.panes.every((p) => p.mode === 'overflow'));
  await badgesDrawn(page);
  assert.equal(await page.getAttribute('[data-testid=pane-debug]', 'data-badges'), '0');
  assert.equal(await page.$$eval('[data-testid=pane-debug] g.badge', (b) => b.length), 0);
  assertNoErrors(errors);
  await context.close();
});

test('first divergence in one action = the first error in execution order, at any level; N / P walk every flagged node (BEY-09, issue 19)', async () => {
  const { page, context, errors } = await openDb(db);
  // The generated drift starts in layer DIVERGE as warnings (its first node is in the manifest);
  // the first error in execution order (node_order: a module's row follows its children's) may be
  // a module whose own outputs are an error. Issue 19: First divergence goes there, not to a warning.
  const drift = manifest.anomalies.find((a) => a.type === 'diverge' && a.step === 0 && a.rank === 0).first_node;
  const where = "step = 0 AND rank = 0 AND data_source = 'NPU'";
  // Issue 46: API lists and fused operators (node_type 8, 9) draw white: their precision index flags nothing.
  const flagged = sql(db, `SELECT node_name, precision_index AS p FROM tb_nodes WHERE ${where} AND ((precision_index >= 0.3
                           AND CAST(node_type AS INTEGER) NOT IN (8, 9))
                           OR (sub_nodes = '' AND (matched_node_link = '[]' OR overflow_level IS NOT NULL))) ORDER BY node_order`);
  const firstError = flagged.findIndex((r) => r.p !== null && r.p >= 0.6);
  assert.ok(firstError >= 0, 'the fixture has an error');
  const first = flagged[firstError].node_name;
  assert.equal(flagged[0].node_name, drift, 'the walk starts where the drift starts');
  // Issue 19 point 3 (the diverging module): in this fixture the first error is a module
  // whose own precision is an error while no leaf below it is one, and more errors follow it.
  const below = (top) => sql(db, `WITH RECURSIVE sub(name) AS (SELECT '${top}' UNION ALL
      SELECT t.node_name FROM sub JOIN tb_nodes t ON t.step = 0 AND t.rank = 0 AND t.data_source = 'NPU' AND t.up_node = sub.name)
    SELECT coalesce(sum(t.precision_index >= 0.6), 0) AS e, coalesce(sum(t.sub_nodes IN ('', '[]') AND t.precision_index >= 0.6), 0) AS leaves
    FROM sub JOIN tb_nodes t ON t.step = 0 AND t.rank = 0 AND t.data_source = 'NPU' AND t.node_name = sub.name`)[0];
  assert.deepEqual(below(first), { e: 1, leaves: 0 }, `${first}: an error module over passing leaves`);
  assert.ok(flagged.slice(firstError + 1).some((r) => r.p !== null && r.p >= 0.6), 'a later error (a leaf) follows it');
  // Its collapsed ancestor among the root's children counts the module's own error in its pill.
  const chain = sql(db, `WITH RECURSIVE up(name, a) AS (SELECT node_name, up_node FROM tb_nodes WHERE ${where} AND node_name = '${first}'
      UNION ALL SELECT t.node_name, t.up_node FROM up JOIN tb_nodes t ON t.step = 0 AND t.rank = 0 AND t.data_source = 'NPU' AND t.node_name = up.a)
    SELECT name FROM up`).map((r) => r.name);
  const top = chain[chain.length - 2];   // the last is the root
  const pillOf = (n) => page.$eval(`[data-testid=pane-debug] g.node[data-name="${n}"]`, (g) => g.querySelector('g.badge')?.dataset.text || '');
  const topErrors = below(top);
  assert.equal(topErrors.leaves, 0, 'no error leaf below the ancestor either');
  assert.ok(topErrors.e >= 1);
  assert.match(await pillOf(top), new RegExp(`^E ${topErrors.e}( |$)`), `${top} is badged with its modules' own errors`);
  await page.click('[data-testid=bar-first]');
  await page.waitForFunction(() => window.visprobeGraph.panes[0].selected);
  const sel = await pane(page, 0, (p) => {
    const n = p.selected;
    return { name: n.name, box: p.screenBox(n.name), w: p.width, h: p.height };
  });
  assert.equal(sel.name, first);
  assert.ok(sel.box && sel.box.x >= 0 && sel.box.x < sel.w && sel.box.y >= 0 && sel.box.y < sel.h, 'revealed and centred');
  // The module itself, collapsed, carries a pill with its own error (E 1: none of its leaves is one).
  await page.waitForFunction((n) => document.querySelector(`[data-testid=pane-debug] g.node[data-name="${n}"] g.badge`), first);
  assert.match(await pillOf(first), /^E 1( |$)/, `${first}'s own error in its pill`);
  // No error before it in execution order, at any level.
  const firstOrder = sql(db, `SELECT node_order FROM tb_nodes WHERE ${where} AND node_name = '${first}'`)[0].node_order;
  assert.equal(sql(db, `SELECT count(*) AS n FROM tb_nodes WHERE ${where} AND node_order < ${firstOrder} AND precision_index >= 0.6`)[0].n, 0);
  assert.equal(await page.textContent('[data-testid=nav-pos]'), `${firstError + 1} / ${flagged.length}`);
  // P walks back to the warnings before it, N forward again.
  if (firstError > 0) {
    await page.locator('[data-testid=pane-debug]').hover();
    await page.keyboard.press('p');
    await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, flagged[firstError - 1].node_name);
    await page.keyboard.press('n');
    await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, first);
  }
  // Warnings have a navigator of their own (issue 19): Shift+P from the first divergence goes to the
  // warning before it in execution order, Shift+N to the next warning (errors between are skipped).
  const warnings = flagged.map((r, i) => ({ ...r, i })).filter((r) => r.p !== null && r.p >= 0.3 && r.p < 0.6);
  const warnAfter = warnings.find((r) => r.i > firstError);
  const warnBefore = [...warnings].reverse().find((r) => r.i < firstError);
  assert.ok(warnBefore, 'the fixture has a warning before the first divergence');
  assert.ok(warnings.length >= 2, `two warnings at least: ${JSON.stringify(warnings.map((w) => w.i))} (first error ${firstError})`);
  await page.locator('[data-testid=pane-debug]').hover();
  await page.keyboard.press('Shift+P');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, warnBefore.node_name);
  // Shift+P again: the warning before that one; Shift+N back (flagged nodes of other kinds between
  // them are skipped).
  const k = warnings.indexOf(warnBefore);
  const earlier = k > 0 ? warnings[k - 1] : warnings[k + 1];
  await page.keyboard.press(k > 0 ? 'Shift+P' : 'Shift+N');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, earlier.node_name);
  assert.equal((await page.textContent('[data-testid=nav-pos]')).trim(), `${earlier.i + 1} / ${flagged.length}`);
  await page.keyboard.press(k > 0 ? 'Shift+N' : 'Shift+P');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, warnBefore.node_name);
  // The toolbar's buttons do the same; past the last warning the position says there is none.
  await page.click('[data-testid=bar-first]');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, first);
  await page.click('[data-testid=bar-prev-warning]');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, warnBefore.node_name);
  if (warnAfter) {
    await page.click('[data-testid=bar-next-warning]');
    await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, warnAfter.node_name);
  } else {
    await page.click('[data-testid=bar-first]');
    await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, first);
    await page.click('[data-testid=bar-next-warning]');
    await page.waitForFunction(() => /No warning/.test(document.querySelector('[data-testid=nav-pos]')?.textContent || ''));
  }
  // The panel lists every flagged node in the same order, the drift's first warning first.
  await page.click('[data-testid=rail-navigator]');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=nav-list] li').length >= Math.min(n, 10), flagged.length);
  assert.deepEqual(await page.$$eval('[data-testid=nav-list] li', (lis) => lis.slice(0, 3).map((l) => l.textContent)),
                   flagged.slice(0, 3).map((r) => r.node_name));
  assertNoErrors(errors);
  await context.close();
});

test('worst nodes: sortable by precision and relative error; the largest drift is in the last layer; a row jumps (BEY-09)', async () => {
  const { page, context, errors } = await openDb(db);
  await page.click('[data-testid=rail-navigator]');
  await page.click('[data-testid=worst] summary');
  await page.waitForSelector('[data-testid=worst] table');
  // Default: precision index, worst first.
  const firstRowPrecision = Number(await page.textContent('[data-testid=worst] tbody tr >> nth=0 >> td >> nth=2'));
  const maxPrecision = sql(db, "SELECT max(precision_index) AS m FROM tb_nodes WHERE step = 0 AND rank = 0 AND data_source = 'NPU' AND sub_nodes = ''")[0].m;
  assert.equal(firstRowPrecision, maxPrecision);
  // By NormRelativeErr: golden = target x f with f = 1 + 0.5 (layer - K + 1), so the relative error is (f - 1) / f,
  // largest after the last layer (the final norm and output layer run in layer context 4: f = 2.5, 60 %).
  await page.click('[data-testid=worst-sort-NormRelativeErr]');
  await page.waitForFunction(() => document.querySelector('[data-testid=worst] th button')?.textContent.includes('precision') &&
                                   document.querySelector('[data-testid=worst-sort-NormRelativeErr]').textContent.includes('▼'));
  const top = await page.$$eval('[data-testid=worst] tbody tr', (trs) => trs.slice(0, 5).map((tr) => [tr.dataset.name, parseFloat(tr.children[5].textContent), tr.children[5].textContent]));
  // Relative errors of the statistics compare show with their unit (issue 19).
  for (const [, , text] of top) assert.match(text, /%$/);
  const f = 1 + 0.5 * (4 - DIVERGE + 1);
  assert.ok(Math.abs(top[0][1] - 100 * (f - 1) / f) < 0.5, `top NormRelativeErr ${top[0][1]}`);
  for (const [name] of top) {
    const order = sql(db, `SELECT node_order FROM tb_nodes WHERE step = 0 AND rank = 0 AND data_source = 'NPU' AND node_name = '${name}'`)[0].node_order;
    const firstOrder = sql(db, `SELECT node_order FROM tb_nodes WHERE step = 0 AND rank = 0 AND data_source = 'NPU' AND node_name = '${
      manifest.anomalies.find((a) => a.type === 'diverge' && a.step === 0 && a.rank === 0).first_node}'`)[0].node_order;
    assert.ok(order > firstOrder, `${name} comes after the first divergence`);
  }
  // Clicking the row selects and reveals the node.
  await page.click('[data-testid=worst] tbody tr >> nth=0 >> button');
  await page.waitForFunction((n) => window.visprobeGraph.panes[0].selected?.name === n, top[0][0]);
  // Sorting the other way, and paging.
  await page.click('[data-testid=worst-sort-NormRelativeErr]');
  await page.waitForFunction(() => document.querySelector('[data-testid=worst-sort-NormRelativeErr]').textContent.includes('▲'));
  const rows = Number(await page.getAttribute('[data-testid=worst] > div', 'data-rows'));
  if (rows > 50) {
    await page.click('[data-testid=worst-next]');
    await page.waitForFunction(() => document.querySelector('[data-testid=worst] tbody tr td').textContent === '51');
  }
  assertNoErrors(errors);
  await context.close();
});

test('worst nodes: NaN and infinite relative errors sort first and show as nan% / inf% (issue 19)', async () => {
  const { page, context, errors } = await openDb(db);
  await scope(page, OVERFLOW.step, OVERFLOW.rank);
  await page.click('[data-testid=rail-navigator]');
  await page.click('[data-testid=worst] summary');
  await page.waitForSelector('[data-testid=worst] table');
  await page.click('[data-testid=worst-sort-MaxRelativeErr]');
  await page.waitForFunction(() => document.querySelector('[data-testid=worst-sort-MaxRelativeErr]').textContent.includes('▼'));
  const cells = await page.$$eval('[data-testid=worst] tbody tr', (trs) => trs.map((tr) => tr.children[3].textContent));
  const leaves = sql(db, `SELECT n.node_name, lower(json_extract(j.value, '$.MaxRelativeErr')) AS v FROM tb_nodes n, json_each(n.output_data) j
    WHERE n.step = ${OVERFLOW.step} AND n.rank = ${OVERFLOW.rank} AND n.data_source = 'NPU' AND n.sub_nodes IN ('', '[]') AND n.precision_index IS NOT NULL`);
  const nan = new Set(leaves.filter((r) => r.v && r.v.includes('nan')).map((r) => r.node_name)).size;
  const inf = new Set(leaves.filter((r) => r.v === 'inf%').map((r) => r.node_name));
  assert.ok(nan + inf.size > 0, 'the overflow fixture has NaN / inf relative errors');
  // NaN first, then +inf (a node with both shows nan), then finite values with their unit.
  let k = 0;
  while (k < cells.length && cells[k] === 'nan%') ++k;
  assert.equal(k, nan, cells.slice(0, 8).join(' '));
  let j = k;
  while (j < cells.length && cells[j] === 'inf%') ++j;
  assert.ok(j > k, 'infinite relative errors follow the NaN ones');
  assert.match(cells[j], /^[0-9.e+-]+%$/);
  assertNoErrors(errors);
  await context.close();
});

test('one node across ranks and steps: the overflow shows on the injected rank and step only; a cell switches there (BEY-10)', async () => {
  const { page, context, errors } = await openDb(db);
  const rec = manifest.anomalies.find((a) => a.type === 'overflow');
  assert.deepEqual([rec.step, rec.rank], [OVERFLOW.step, OVERFLOW.rank]);
  const leaves = new Set(sql(db, `SELECT node_name FROM tb_nodes WHERE step = ${OVERFLOW.step} AND rank = ${OVERFLOW.rank}
                                  AND data_source = 'NPU' AND sub_nodes = '' AND overflow_level IS NOT NULL`).map((r) => r.node_name));
  const name = rec.nodes.find((n) => leaves.has(n));
  assert.ok(name, 'an overflowing leaf');
  await page.evaluate((n) => window.visprobeGraph.selectFromList(window.visprobeGraph.panes[0], n), name);
  await page.waitForSelector('[data-testid=strip] .ws-strip-cell');
  await page.click('[data-testid=mode-overflow]');
  await page.evaluate((n) => window.visprobeGraph.select(window.visprobeGraph.panes[0], window.visprobeGraph.panes[0].nodes.get(n), true), name);
  await page.waitForFunction(() => document.querySelector('[data-testid=strip] .ws-strip-cell[data-fill]'));
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=strip] .ws-strip-cell')].some((c) => c.dataset.fill !== '#FFFFFF'));
  const cells = await page.$$eval('[data-testid=strip] .ws-strip-cell', (cs) => cs.map((c) => [Number(c.dataset.step), Number(c.dataset.rank), c.dataset.fill || '', c.classList.contains('current')]));
  assert.equal(cells.length, 4);
  for (const [s, r, fill, current] of cells) {
    const hit = s === OVERFLOW.step && r === OVERFLOW.rank;
    assert.equal(fill !== '#FFFFFF', hit, `step ${s} rank ${r}: ${fill}`);
    assert.equal(current, s === 0 && r === 0);
  }
  await page.locator('[data-testid=detail]').screenshot({ path: screenshot('beyond_strip.png') });
  // A click switches the graph to that step and rank with the node selected.
  await page.click(`[data-testid=strip] .ws-strip-cell[data-step="${OVERFLOW.step}"][data-rank="${OVERFLOW.rank}"]`);
  await page.waitForFunction(([n, s, r]) => {
    const p = window.visprobeGraph.panes[0];
    return p.opts.step === s && p.opts.rank === r && p.selected?.name === n;
  }, [name, OVERFLOW.step, OVERFLOW.rank]);
  assert.equal(await page.inputValue('#ws-step'), String(OVERFLOW.step));
  assert.equal(await page.inputValue('#ws-rank'), String(OVERFLOW.rank));
  // Issue 19: the jump reveals and centres the matched node in the (freshly loaded) Bench pane too.
  const link = JSON.parse(sql(db, `SELECT matched_node_link AS l FROM tb_nodes WHERE step = ${OVERFLOW.step} AND rank = ${OVERFLOW.rank}
                                    AND data_source = 'NPU' AND node_name = '${name}'`)[0].l);
  assert.ok(link.length, `${name} is matched`);
  assert.deepEqual(await matchedShown(page), { highlight: link[link.length - 1], debug: true, bench: true });
  assertNoErrors(errors);
  await context.close();
});

test('a reload into the scope the database opens with loads that scope once (BEY-04)', async () => {
  const { page, context, errors } = await openDb(db);
  await page.waitForFunction(() => /^(opfs|opfs-run|indexeddb):/.test(document.querySelector('[data-testid=workspace]').dataset.session || ''), null, { timeout: 60000 });
  assert.equal(await loads(page), 1);
  await page.click('[data-testid=bar-first]');   // reveals and selects the first flagged leaf of this scope
  await page.waitForFunction(() => window.visprobeGraph.panes[0].selected);
  const want = await page.evaluate(() => window.visprobeGraph.viewState());
  assert.ok(want.sel && want.exp0 && want.step === '0' && want.rank === '0', JSON.stringify(want));
  await fragmentFlushed(page);   // the fragment holds this view (rewritten 250 ms after the last change)
  await page.reload();
  await viewRestored(page);
  assert.deepEqual(await page.evaluate(() => window.visprobeGraph.viewState()), want);
  // open() loaded the scope; restoring the same scope does not load it (and its badges) again.
  assert.equal(await loads(page), 1);
  assertNoErrors(errors);
  await context.close();
});

test('deep link and session: a reload restores the view from browser storage; a copied link too; Forget removes it (BEY-03/04)', async () => {
  const { page, context, errors } = await openDb(db);
  await page.waitForFunction(() => /^(opfs|opfs-run|indexeddb):/.test(document.querySelector('[data-testid=workspace]').dataset.session || ''), null, { timeout: 60000 });
  await scope(page, OVERFLOW.step, OVERFLOW.rank);
  await page.click('[data-testid=bar-first]');   // reveals (expands) down to the first flagged leaf and selects it
  await page.waitForFunction(() => window.visprobeGraph.panes[0].selected);
  await page.click('[data-testid=mode-overflow]');
  await page.locator('[data-testid=pane-debug]').hover();
  for (const k of ['d', 'd', 'w']) await page.keyboard.press(k);
  const state = () => page.evaluate(() => window.visprobeGraph.viewState());
  const want = await state();
  assert.ok(want.sel && want.exp0 && want.mode === 'overflow' && want.step === String(OVERFLOW.step), JSON.stringify(want));
  await fragmentFlushed(page);   // the fragment holds this view, the keys' pan and zoom included
  assert.deepEqual(await state(), want);
  const url = page.url();
  // Reload: no file is picked again; the kept database and the fragment give the same view.
  await page.reload();
  await viewRestored(page);
  assert.deepEqual(await state(), await (async () => want)());
  // The link in another tab of the same browser profile.
  const other = await context.newPage();   // guarded like the first, at its window size
  await other.goto(url);
  await viewRestored(other);
  assert.deepEqual(await other.evaluate(() => window.visprobeGraph.viewState()), want);
  await other.close();
  // Issue 19: a hand-written link that names only the scope and the node (no expansion, no view)
  // reveals and centres the node and its matched node in the Bench pane.
  const key = new URLSearchParams(new URL(url).hash.slice(1)).get('db');
  const name = want.sel.replace(/^0:/, '');
  const link = JSON.parse(sql(db, `SELECT matched_node_link AS l FROM tb_nodes WHERE step = ${OVERFLOW.step} AND rank = ${OVERFLOW.rank}
                                    AND data_source = 'NPU' AND node_name = '${name}'`)[0].l);
  assert.ok(link.length, `${name} is matched`);
  const bare = new URLSearchParams({ db: key, 'graph.step': want.step, 'graph.rank': want.rank, 'graph.sel': want.sel });
  const linked = await context.newPage();
  await linked.goto(`${suite.origin}/#${bare}`);
  await viewRestored(linked);
  assert.equal(await linked.evaluate(() => window.visprobeGraph.panes[0].selected?.name), name);
  assert.deepEqual(await matchedShown(linked), { highlight: link[link.length - 1], debug: true, bench: true });
  await linked.close();
  // Forget (confirmed in its dialog): nothing is restored any more.
  await page.click('[data-testid=forget-stored]');
  await page.click('[data-testid=forget-confirm]');
  await page.waitForFunction(() => !location.hash.includes('db='));
  const again = await context.newPage();
  await again.goto(url);
  // The page decides at start-up (host/views.js restoreFromUrl, before the load event): with no kept
  // session it starts no restore, so none is under way ('Restoring…' notice) and none was made.
  assert.equal(await again.evaluate(() => localStorage.getItem('visprobe.recent')), null);
  assert.deepEqual(await again.evaluate(() => ({ restored: document.querySelector('[data-testid=workspace]').dataset.restored || '',
                                                   notice: document.getElementById('notice').textContent })), { restored: '', notice: '' });
  assertNoErrors(errors);
  await context.close();
});
