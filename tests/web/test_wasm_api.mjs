// The engine's API as declared once (issue 47): web/src/engine/visprobe_web.d.ts names every bound
// function of wasm/bindings.cc and no other, and the module the wasm build made answers each call
// in the declared shape, {status: {code, message: {id, args, text}}, value}: value null unless code
// is 'ok', every message with the id of core/base/messages.def that the page translates. Real calls
// on the real module under Node (a generated dump copied into its MEMFS).
//   node --no-experimental-fetch --test tests/web/test_wasm_api.mjs   (env: VISPROBE_WASM_DIR, default build/wasm)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { catalog } from '../../web/src/engine_text.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const wasmDir = resolve(process.env.VISPROBE_WASM_DIR || join(root, 'build', 'wasm'));
const known = new Set([...catalog().engine.map(([id]) => id), '']);
let engine, tmp;

/** Copies a folder of the real file system into the module's MEMFS. */
function copyIn(from, to) {
  engine.FS.mkdirTree(to);
  for (const name of readdirSync(from)) {
    const p = join(from, name);
    if (statSync(p).isDirectory()) copyIn(p, `${to}/${name}`);
    else engine.FS.writeFile(`${to}/${name}`, readFileSync(p));
  }
}

/** A message in the declared shape, with ids core declares, at any depth. */
function checkMessage(m, where) {
  assert.equal(typeof m, 'object', where);
  assert.deepEqual(Object.keys(m).sort(), ['args', 'id', 'text'], where);
  assert.equal(typeof m.text, 'string', where);
  assert.ok(known.has(m.id), `${where}: id ${m.id} is not in core/base/messages.def`);
  for (const [k, v] of Object.entries(m.args)) {
    if (typeof v === 'string') continue;
    checkMessage(v, `${where}.args.${k}`);
  }
}

/** An answer in the declared shape; returns it. */
function checkResponse(r, where) {
  assert.deepEqual(Object.keys(r).sort(), ['status', 'value'], where);
  assert.equal(typeof r.status.code, 'string', where);
  checkMessage(r.status.message, `${where}.status.message`);
  if (r.status.code === 'ok') assert.notEqual(r.value, null, `${where}: ok with no value`);
  else assert.equal(r.value, null, `${where}: a failure with a value`);
  return r;
}

before(async () => {
  // Emscripten 3.1.6's ES module reaches for CommonJS's require and __dirname under Node.
  globalThis.require = createRequire(import.meta.url);
  globalThis.__dirname = wasmDir;
  const { default: createVisprobe } = await import(pathToFileURL(join(wasmDir, 'visprobe_web.mjs')).href);
  engine = await createVisprobe({ wasmBinary: readFileSync(join(wasmDir, 'visprobe_web.wasm')), print: () => {}, printErr: () => {} });
  tmp = mkdtempSync(join(tmpdir(), 'visprobe_wasm_api_'));
  execFileSync('python3', [join(root, 'scripts', 'gen_dump.py'), '--ranks', '2', '--steps', '2', '--hidden', '64',
                           '--golden', join(tmp, 'golden'), '--manifest', join(tmp, 'm.json'), join(tmp, 'target')], { stdio: 'pipe' });
  copyIn(join(tmp, 'target'), '/in/target');
  copyIn(join(tmp, 'golden'), '/in/golden');
  engine.FS.mkdirTree('/out');
});

after(() => { if (tmp) rmSync(tmp, { recursive: true, force: true }); });

test('the declaration names exactly the functions wasm/bindings.cc binds, and the module has each', () => {
  const bound = [...readFileSync(join(root, 'wasm', 'bindings.cc'), 'utf8').matchAll(/emscripten::function\("(\w+)"/g)].map((m) => m[1]).sort();
  const dts = readFileSync(join(root, 'web', 'src', 'engine', 'visprobe_web.d.ts'), 'utf8');
  const body = /export interface VisprobeModule \{([\s\S]*?)\n {2}\}/.exec(dts)[1];
  const declared = [...body.matchAll(/^ {4}(\w+)\??\(/gm)].map((m) => m[1]).sort();
  assert.ok(bound.length >= 8, bound.join());
  assert.deepEqual(declared, bound);
  for (const name of bound) assert.equal(typeof engine[name], 'function', name);
});

/** The fields of a declared interface (visprobe_web.d.ts). */
function declaredFields(dts, name) {
  const body = new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n {2}\\}`).exec(dts)[1];
  return [...body.matchAll(/^ {4}(\w+)\??:/gm)].map((m) => m[1]).sort();
}

/** The request fields a bound function of bindings.cc reads: Str/Flag/Has/Tokens(o, "field"), o["field"], {"field", "--flag"}. */
function readFields(source, fn) {
  const start = source.indexOf(fn);
  const body = source.slice(start, source.indexOf('\n}\n', start));
  const keys = new Set();
  for (const m of body.matchAll(/(?:Str|Flag|Has|Tokens)\((?:r|request), "(\w+)"\)|request\["(\w+)"\]|\{"(\w+)", "--\w+"\}/g)) keys.add(m[1] || m[2] || m[3]);
  return [...keys].sort();
}

test('each declared request has exactly the fields bindings.cc reads', () => {
  const source = readFileSync(join(root, 'wasm', 'bindings.cc'), 'utf8');
  const dts = readFileSync(join(root, 'web', 'src', 'engine', 'visprobe_web.d.ts'), 'utf8');
  for (const [iface, fn] of [['GraphRequest', 'GraphRequest(const val& r)'], ['Data2DbRequest', 'val Data2Db('],
                             ['ManualMatchRequest', 'val ManualMatchJs(']]) {
    const read = readFields(source, fn);
    assert.ok(read.length >= 3, `${fn}: ${read}`);
    assert.deepEqual(declaredFields(dts, iface), read, iface);
  }
});

test('graphVisualize: a compare answers its database; every log event carries a message; a refusal is a status', () => {
  const events = [];
  const r = checkResponse(engine.graphVisualize({ targetPath: '/in/target', goldenPath: '/in/golden', outputPath: '/out' }, '',
                                                (e) => events.push(e)), 'graphVisualize');
  assert.equal(r.status.code, 'ok');
  assert.match(r.value.dbPath, /^\/out\/compare_.*\.vis\.db$/);
  assert.ok(r.value.rows > 0 && r.value.dumpBytes > 0);
  const logs = events.filter((e) => e.type === 'log');
  assert.ok(logs.length >= 5);
  for (const e of logs) {
    checkMessage(e.message, 'log');
    assert.notEqual(e.message.id, '', e.message.text);
    assert.ok(e.line.endsWith(e.message.text), e.line);
  }
  const bad = checkResponse(engine.graphVisualize({ targetPath: '/in/absent', outputPath: '/out' }, '', () => {}), 'refusal');
  assert.equal(bad.status.code, 'invalid_input');
  assert.notEqual(bad.status.message.id, '');
  const usage = checkResponse(engine.graphVisualize({ targetPath: '/in/target', outputPath: '/out', rankSize: ['two'] }, '', () => {}), 'usage');
  assert.equal(usage.status.message.id, 'ArgumentInvalidIntValue');
  assert.deepEqual(usage.status.message.args, { opt: '--rank_size', v: 'two' });
});

test('data2db answers its databases as a list', () => {
  engine.FS.mkdirTree('/trend');
  const r = checkResponse(engine.data2db({ data: '/in/target', db: '/trend', format: 'dump', microStep: true }, '2026-01-01T00:00:00Z', () => {}), 'data2db');
  assert.equal(r.status.code, 'ok');
  assert.ok(Array.isArray(r.value.dbPaths) && r.value.dbPaths.length === 1, JSON.stringify(r.value));
  assert.match(r.value.dbPaths[0], /\.trend\.db$/);
  const bad = checkResponse(engine.data2db({ data: '/in/target', db: '/trend', format: 'nope', microStep: true }, '', () => {}), 'data2db refusal');
  assert.notEqual(bad.status.code, 'ok');
  assert.notEqual(bad.status.message.id, '');
});

test('the small functions answer in the same shape', () => {
  const layout = checkResponse(engine.parallelLayout(JSON.stringify({ world_size: 8, tensor_parallel_size: 2, pipeline_parallel_size: 2, num_layers: 4 })), 'parallelLayout');
  assert.equal(typeof layout.value, 'object');
  const badLayout = checkResponse(engine.parallelLayout('{"world_size": 0}'), 'parallelLayout refusal');
  assert.notEqual(badLayout.status.message.id, '');
  assert.equal(checkResponse(engine.checkLayerMapping('TransformerLayer:\n  a: b\n', 'm.yaml'), 'checkLayerMapping').value, true);
  assert.notEqual(checkResponse(engine.checkLayerMapping('- x\n', 'm.yaml'), 'mapping refusal').status.code, 'ok');
  const t = checkResponse(engine.badgeThresholds(''), 'badgeThresholds').value;
  assert.deepEqual(t, { warning: 0.3, error: 0.6 });
  const b = checkResponse(engine.computeBadges(new Int32Array([-1, 0]), new Float64Array([-1, 0.9]), new Uint8Array([0, 1]),
                                               new Uint8Array([0, 0]), true, ''), 'computeBadges').value;
  assert.deepEqual([...b.index], [0]);
  assert.match(checkResponse(engine.help(), 'help').value, /graph_visualize/);
});
