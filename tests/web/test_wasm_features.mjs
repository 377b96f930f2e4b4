// The worker's check before it loads the engine module (web/src/engine/wasm_features.js): the
// module is built with WebAssembly SIMD, and a browser without SIMD must get a clear message (in
// both languages of the page), not a CompileError.
//   node --test tests/web/test_wasm_features.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simdSupported, checkEngineSupport, NO_SIMD_TEXT } from '../../web/src/engine/wasm_features.js';
import { engineText, pageMessage } from '../../web/src/engine_text.js';

test('the SIMD probe validates where SIMD is (Node 20) and the check passes', () => {
  assert.equal(simdSupported(), true);
  assert.doesNotThrow(() => checkEngineSupport());
});

test('without SIMD the check throws the message, and a throwing validator counts as no SIMD', () => {
  const seen = [];
  const none = { validate: (b) => { seen.push(b); return false; } };
  assert.throws(() => checkEngineSupport(none), (e) => e instanceof Error && e.message === NO_SIMD_TEXT &&
                e.engineMessage.id === 'BrowserCannotRunVisprobe');
  assert.equal(seen.length, 1);
  // What was asked about is the probe: a wasm module ("\0asm", version 1).
  assert.deepEqual([...seen[0].slice(0, 8)], [0, 97, 115, 109, 1, 0, 0, 0]);
  assert.equal(simdSupported({ validate: () => { throw new TypeError('no WebAssembly'); } }), false);
});

test('the page shows the message in Chinese too, with the browser versions kept', () => {
  const m = pageMessage('BrowserCannotRunVisprobe');
  assert.equal(engineText(m, 'en'), NO_SIMD_TEXT);
  const zh = engineText(m, 'zh');
  assert.notEqual(zh, NO_SIMD_TEXT);
  for (const v of ['WebAssembly SIMD', 'Chromium 91', 'Firefox 89', 'Safari 16.4']) assert.ok(zh.includes(v), v);
  const stopped = pageMessage('EngineStopped', { m });
  assert.equal(stopped.text, `The engine stopped: ${NO_SIMD_TEXT}`);
  assert.equal(engineText(stopped, 'zh'), `引擎已停止：${zh}`);
});
