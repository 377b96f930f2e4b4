// The page's Chinese for the engine's messages (web/src/engine_text.js, issue 19 point 4), checked
// against what the real native CLI prints: every case of the malformed corpus (run as
// tests/cli/test_malformed.py runs it), a build and a compare of a generated dump (steps, ranks,
// overflow check), and the common refusals (empty folder, missing folder, bad parallel
// parameters, a layer-mapping file that is not YAML). For each message, and for the bare message
// of an ERROR line (what the wasm engine hands the page), the Chinese must differ from the
// English, keep every variable part, and leave no run of four English words outside them.
//   node --test tests/web/test_engine_text.mjs   (env: VISPROBE_NATIVE, default build/native/visprobe)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineText, engineLogLine, catalogTemplates } from '../../web/src/engine_text.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const native = resolve(process.env.VISPROBE_NATIVE || join(root, 'build', 'native', 'visprobe'));
const cases = join(root, 'tests', 'malformed', 'cases');
const LOG_LINE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[(DEBUG|INFO|WARNING|ERROR)\] (.*)$/;
const USAGE = /^visprobe [\w_]+: error: (.*)$/;
let tmp;
/** message -> the run that printed it */
const messages = new Map();
/** whole log lines, for the prefix check */
const lines = [];

/** Runs the CLI and keeps every message it printed (log lines on stdout, usage errors on stderr). */
function run(label, args) {
  const r = spawnSync(native, args, { encoding: 'utf8', timeout: 60000 });
  assert.ok(r.status === 0 || r.status === 1 || r.status === 2, `${label}: status ${r.status} ${r.stderr}`);
  let n = 0;
  for (const line of r.stdout.split('\n')) {
    const m = LOG_LINE.exec(line);
    if (!m) continue;
    lines.push(line);
    messages.set(m[2], label);
    // The wasm engine returns the Status message itself: the page shows it without the prefix.
    const bare = /^An unexpected error occurred: (.*)$/.exec(m[2]);
    if (bare) messages.set(bare[1], label);
    ++n;
  }
  for (const line of r.stderr.split('\n')) {
    const m = USAGE.exec(line);
    if (m) { messages.set(m[1], label); ++n; }
  }
  assert.ok(n > 0, `${label} printed no message: ${r.stdout} ${r.stderr}`);
  return r;
}

before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'visprobe_engine_text_'));
  const out = (name) => join(tmp, 'out', name);
  for (const name of readdirSync(cases).sort()) {
    const r = run(name, ['graph_visualize', '-tp', join(cases, name), '-o', out(name)]);
    assert.equal(r.status, 1, `${name} must fail`);
  }
  const gen = join(root, 'scripts', 'gen_dump.py');
  const target = join(tmp, 'target'), golden = join(tmp, 'golden');
  execFileSync('python3', [gen, '--ranks', '2', '--tp', '2', '--steps', '2', '--hidden', '128', '--overflow-layer', '1',
                           '--golden', golden, '--manifest', join(tmp, 'manifest.json'), target], { stdio: 'pipe' });
  assert.equal(run('build', ['graph_visualize', '-tp', target, '-o', out('build')]).status, 0);
  assert.equal(run('compare', ['graph_visualize', '-tp', target, '-gp', golden, '-oc', '-o', out('compare')]).status, 0);
  const notYaml = join(tmp, 'mapping.yaml');
  writeFileSync(notYaml, '- a list\n- not a mapping\n');
  assert.equal(run('wrong yaml', ['graph_visualize', '-tp', target, '-gp', golden, '-lm', notYaml, '-o', out('lm')]).status, 0);
  mkdirSync(join(tmp, 'empty'));
  run('empty folder', ['graph_visualize', '-tp', join(tmp, 'empty'), '-o', out('empty')]);
  run('missing folder', ['graph_visualize', '-tp', join(tmp, 'absent'), '-o', out('absent')]);
  run('rank_size', ['graph_visualize', '-tp', target, '-o', out('p1'), '--rank_size', '3', '--tp', '2', '--pp', '1']);
  run('vpp', ['graph_visualize', '-tp', target, '-o', out('p2'), '--rank_size', '2', '--tp', '2', '--pp', '1', '--vpp', '2']);
  run('merge params', ['graph_visualize', '-tp', target, '-gp', golden, '-o', out('p3'), '--rank_size', '2', '--tp', '2', '--pp', '1']);
  run('not an int', ['graph_visualize', '-tp', target, '-o', out('p4'), '--rank_size', 'two']);
});

after(() => { if (tmp) rmSync(tmp, { recursive: true, force: true }); });

/**
 * The variable parts of an English message: paths and file names, quoted text, numbers, rank /
 * step folder names. Each must reach the translation unchanged.
 * @param {string} s
 */
function variables(s) {
  const out = new Set();
  const add = (v) => { v = v.replace(/[.,:;!?]+$/, ''); if (v) out.add(v); };
  for (const m of s.matchAll(/[^\s'"()[\]{},;]*\/[^\s'"()[\]{},;]*/g)) add(m[0]);              // paths, a/b
  for (const m of s.matchAll(/[\w.-]+\.(?:json|db|yaml|yml|csv|npy)\b/g)) add(m[0]);          // file names
  for (const m of s.matchAll(/(?<![A-Za-z])'([^']+)'(?![A-Za-z])|"([^"]+)"/g)) add(m[1] ?? m[2]);   // quoted
  for (const m of s.matchAll(/(?<![\w.])\d+(?:\.\d+)?(?!\w)/g)) add(m[0]);                   // numbers
  for (const m of s.matchAll(/\b(?:rank|step|proc)\d+\b/g)) add(m[0]);
  return [...out];
}

/**
 * Runs of four or more English words in `zh` once the variable parts are cut out. Words are
 * separated by ASCII blanks and punctuation only, so Chinese text between two words ends a run.
 * @param {string} zh @param {string[]} vars
 */
function englishRuns(zh, vars) {
  let rest = zh;
  for (const v of [...vars].sort((a, b) => b.length - a.length)) rest = rest.split(v).join(' § ');
  return [...rest.matchAll(/[A-Za-z][\w'-]*(?:[\s!-/:-@[-`{-~]+[A-Za-z][\w'-]*){3,}/g)].map((m) => m[0]);
}

/** A number must stand alone in the translation too (a path's digits do not count); other parts are substrings. */
function keeps(zh, v) {
  if (!/^\d+(?:\.\d+)?$/.test(v)) return zh.includes(v);
  return new RegExp(`(?<![\\w.])${v.replace('.', '\\.')}(?![\\w])`).test(zh);
}

test('the checks themselves catch a dropped number and an English phrase left over', () => {
  const en = 'load json file "dump.json" failed. r/dump.json @ byte 97: the file is empty';
  assert.ok(englishRuns(en, variables(en)).length > 0, 'the English itself fails the check');
  const half = '加载 JSON 文件 "dump.json" 失败。r/dump.json 第 97 字节处：the file is empty';
  assert.deepEqual(englishRuns(half, variables(en)), ['the file is empty']);
  const dropped = '加载 JSON 文件 "dump.json" 失败。r/dump.json 第 9 字节处：文件为空';
  assert.ok(variables(en).some((v) => !keeps(dropped, v)), 'the byte offset 97 is missed');
  assert.ok(!keeps('rank970 第 9 字节', '97'), 'digits inside a name are not the number');
  assert.ok(variables(en).includes('r/dump.json') && variables(en).includes('97'));
});

test('every catalog template keeps its variable parts and names no part it lacks', () => {
  const names = (s) => [...s.replace(/\{\{|\}\}/g, '').matchAll(/\{(\w+)(?::[td])?\}/g)].map((m) => m[1]).sort();
  const seen = new Set();
  for (const [en, zh] of catalogTemplates()) {
    assert.deepEqual(names(zh), names(en), `${en} -> ${zh}`);
    assert.ok(!seen.has(en), `twice: ${en}`);
    seen.add(en);
    assert.doesNotMatch(zh, /\{\w+:[td]\}/, `kinds belong to the English template: ${zh}`);
  }
  assert.ok(seen.size >= 200, `${seen.size} entries`);
});

test('every message the CLI printed has a Chinese translation that keeps its variable parts', () => {
  assert.ok(messages.size >= 60, `${messages.size} messages`);
  const problems = [];
  for (const [en, label] of messages) {
    assert.equal(engineText(en, 'en'), en);
    const zh = engineText(en, 'zh');
    const vars = variables(en);
    if (zh === en) { problems.push(`[${label}] untranslated: ${en}`); continue; }
    const lost = vars.filter((v) => !keeps(zh, v));
    if (lost.length) problems.push(`[${label}] lost ${JSON.stringify(lost)}: ${en} -> ${zh}`);
    const runs = englishRuns(zh, vars);
    if (runs.length) problems.push(`[${label}] English left ${JSON.stringify(runs)}: ${zh}`);
  }
  assert.deepEqual(problems, []);
});

test('the malformed corpus: each ERROR line names its file in Chinese', () => {
  const errors = lines.filter((l) => l.includes('[ERROR] '));
  assert.ok(errors.length >= readdirSync(cases).length);
  for (const line of errors) {
    const zh = engineLogLine(line, 'zh');
    const [prefix] = /^.*?\[ERROR\] /.exec(line) || [''];
    assert.ok(zh.startsWith(prefix), `the time, pid and level stay: ${zh}`);
    assert.match(zh, /\[ERROR\] 发生意外错误：/);
    const file = /(dump|construct|stack)\.json/.exec(line);
    if (file) assert.ok(zh.includes(file[0]), zh);
  }
  assert.equal(engineLogLine(errors[0], 'en'), errors[0]);
});

test('unknown text comes back unchanged; lines are translated one by one', () => {
  assert.equal(engineText('something the catalog never saw', 'zh'), 'something the catalog never saw');
  assert.equal(engineText('', 'zh'), '');
  // A generic rule claims nothing it cannot translate inside.
  assert.equal(engineText('x.json: an unknown complaint', 'zh'), 'x.json: an unknown complaint');
  assert.equal(engineText('[NPU] an unknown complaint', 'zh'), '[NPU] an unknown complaint');
  assert.equal(engineText('Trying dump import...\nnot known', 'zh'), '正在尝试 dump 导入…\nnot known');
  // Text from a dump stays text: markup in a path is copied, not interpreted or escaped.
  assert.equal(engineText('The file path <b>x</b>/dump.json does not exist.', 'zh'), '文件路径 <b>x</b>/dump.json 不存在。');
});
