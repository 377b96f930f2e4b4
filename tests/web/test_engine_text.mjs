// The page's language for the engine's messages (web/src/engine_text.js; issues 19 and 47). The
// engine sends each message as {id, args, text}; the page translates by id. Checked here:
// - every id of core/base/messages.def has Chinese with the same placeholders, and the catalog
//   names no id core lacks; the page's own messages likewise;
// - what the real native CLI says (VISPROBE_LOG_JSON=1: each message as JSON) on every case of the
//   malformed corpus, a build and a compare of a generated dump (steps, ranks, overflow check) and
//   the common refusals (empty folder, missing folder, bad parallel parameters, a layer-mapping
//   file that is not YAML): every message has an id, nested ones too, and its Chinese keeps every
//   argument and leaves no run of four English words outside them.
//   node --test tests/web/test_engine_text.mjs   (env: VISPROBE_NATIVE, default build/native/visprobe)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineText, engineLogLine, catalog, pageMessage } from '../../web/src/engine_text.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const native = resolve(process.env.VISPROBE_NATIVE || join(root, 'build', 'native', 'visprobe'));
const cases = join(root, 'tests', 'malformed', 'cases');
let tmp;
/** [message, the run that printed it, its level] */
const messages = [];

/** Runs the CLI with VISPROBE_LOG_JSON=1 and keeps every message it printed (stdout, and usage errors on stderr). */
function run(label, args) {
  const r = spawnSync(native, args, { encoding: 'utf8', timeout: 60000, env: { ...process.env, VISPROBE_LOG_JSON: '1' } });
  assert.ok(r.status === 0 || r.status === 1 || r.status === 2, `${label}: status ${r.status} ${r.stderr}`);
  let n = 0;
  for (const line of (r.stdout + '\n' + r.stderr).split('\n')) {
    if (!line.startsWith('{"level":')) continue;
    const { level, message } = JSON.parse(line);
    messages.push([message, label, level]);
    ++n;
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

/** The ids and English templates of core/base/messages.def. */
function coreCatalog() {
  const text = readFileSync(join(root, 'core', 'base', 'messages.def'), 'utf8');
  const out = new Map();
  for (const m of text.matchAll(/^VP_MESSAGE\((\w+), "((?:[^"\\]|\\.)*)"\)$/gm)) out.set(m[1], m[2].replace(/\\(.)/g, '$1'));
  return out;
}

const names = (s) => [...s.replace(/\{\{|\}\}/g, '').matchAll(/\{(\w+)(?::[td])?\}/g)].map((m) => m[1]).sort();

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

/** The messages inside a message, itself first. */
function* nested(m) {
  yield m;
  for (const v of Object.values(m.args)) if (typeof v !== 'string') yield* nested(v);
}

/** The argument values that are text, at any depth. */
const leafArgs = (m) => [...nested(m)].flatMap((x) => Object.values(x.args).filter((v) => typeof v === 'string'));

test('the checks themselves catch a dropped number and an English phrase left over', () => {
  const en = 'load json file "dump.json" failed. r/dump.json @ byte 97: the file is empty';
  assert.ok(englishRuns(en, variables(en)).length > 0, 'the English itself fails the check');
  const half = '加载 JSON 文件 "dump.json" 失败。r/dump.json 第 97 字节处：the file is empty';
  assert.deepEqual(englishRuns(half, variables(en)), ['the file is empty']);
  const dropped = '加载 JSON 文件 "dump.json" 失败。r/dump.json 第 9 字节处：文件为空';
  assert.ok(variables(en).some((v) => !keeps(dropped, v)), 'the byte offset 97 is missed');
  assert.ok(!keeps('rank970 第 9 字节', '97'), 'digits inside a name are not the number');
});

test('every id of core/base/messages.def has Chinese with the same placeholders, and no other id does', () => {
  const core = coreCatalog();
  assert.ok(core.size >= 200, `${core.size} ids`);
  const zh = new Map(catalog().engine);
  const problems = [];
  for (const [id, en] of core) {
    if (!zh.has(id)) { problems.push(`no Chinese for ${id}: ${en}`); continue; }
    if (names(zh.get(id)).join() !== names(en).join()) problems.push(`${id}: ${en} -> ${zh.get(id)}`);
    if (/\{\w+:[td]\}/.test(zh.get(id))) problems.push(`${id}: kinds belong to the English template`);
    // Placeholders and identifiers (NUMBER_OUT_OF_RANGE, pipeline_parallel_size) are not English prose.
    const runs = englishRuns(zh.get(id).replace(/\{\w+\}|\w+_\w+/g, ' § '), variables(en));
    if (runs.length) problems.push(`${id}: English left ${JSON.stringify(runs)}`);
  }
  for (const id of zh.keys()) if (!core.has(id)) problems.push(`Chinese for ${id}, which core/base/messages.def does not declare`);
  for (const [id, en, z] of catalog().page) {
    if (core.has(id)) problems.push(`${id} is both a core and a page message`);
    if (names(z).join() !== names(en).join()) problems.push(`${id}: ${en} -> ${z}`);
  }
  assert.deepEqual(problems, []);
});

test('every message the CLI printed has an id, nested ones too', () => {
  assert.ok(messages.length >= 60, `${messages.length} messages`);
  const problems = [];
  for (const [m, label] of messages)
    for (const x of nested(m)) if (!x.id) problems.push(`[${label}] no id: ${x.text}`);
  assert.deepEqual([...new Set(problems)], []);
});

test('each message in Chinese keeps every argument and leaves no English phrase; in English it is the CLI\'s text', () => {
  const problems = [];
  for (const [m, label] of messages) {
    assert.equal(engineText(m, 'en'), m.text);
    const zh = engineText(m, 'zh');
    const vars = [...new Set([...leafArgs(m), ...variables(m.text).filter((v) => leafArgs(m).some((a) => a.includes(v)))])];
    const lost = vars.filter((v) => !zh.includes(v));
    if (lost.length) problems.push(`[${label}] lost ${JSON.stringify(lost)}: ${m.text} -> ${zh}`);
    const runs = englishRuns(zh, vars);
    if (runs.length) problems.push(`[${label}] English left ${JSON.stringify(runs)}: ${zh}`);
  }
  assert.deepEqual([...new Set(problems)], []);
});

test('the malformed corpus: each ERROR names its file in Chinese, with msProbe\'s prefix kept on the log line', () => {
  const errors = messages.filter(([, label, level]) => level === 'ERROR' && readdirSync(cases).includes(label));
  assert.ok(errors.length >= readdirSync(cases).length);
  for (const [m] of errors) {
    assert.equal(m.id, 'UnexpectedError');
    const zh = engineText(m, 'zh');
    assert.match(zh, /^发生意外错误：/);
    const file = /(dump|construct|stack)\.json/.exec(m.text);
    if (file) assert.ok(zh.includes(file[0]), zh);
    const line = `2026-01-02 03:04:05 (42) [ERROR] ${m.text}`;
    assert.equal(engineLogLine(line, m, 'zh'), `2026-01-02 03:04:05 (42) [ERROR] ${zh}`);
    assert.equal(engineLogLine(line, m, 'en'), line);
  }
});

test('a text without an id, or an id the page does not know, shows its English; text stays text', () => {
  assert.equal(engineText('something the catalog never saw', 'zh'), 'something the catalog never saw');
  assert.equal(engineText({ id: '', args: {}, text: 'SQLite said so' }, 'zh'), 'SQLite said so');
  assert.equal(engineText({ id: 'NoSuchId', args: {}, text: 'new words' }, 'zh'), 'new words');
  assert.equal(engineText('', 'zh'), '');
  // A nested message is translated in turn; an unknown inner one stays English inside the Chinese.
  const inner = { id: 'FilePathNotExist', args: { path: '<b>x</b>/dump.json' }, text: 'The file path <b>x</b>/dump.json does not exist.' };
  assert.equal(engineText({ id: 'UnexpectedError', args: { m: inner }, text: '' }, 'zh'), '发生意外错误：文件路径 <b>x</b>/dump.json 不存在。');
  assert.equal(engineText({ id: 'UnexpectedError', args: { m: { id: '', args: {}, text: 'odd' } }, text: '' }, 'zh'), '发生意外错误：odd');
  // The page's own messages are made with the same shape.
  const stopped = pageMessage('EngineStopped', { m: pageMessage('WorkerError') });
  assert.deepEqual(stopped, { id: 'EngineStopped', args: { m: { id: 'WorkerError', args: {}, text: 'worker error' } }, text: 'The engine stopped: worker error' });
  assert.equal(engineText(stopped, 'zh'), '引擎已停止：工作线程出错');
});
