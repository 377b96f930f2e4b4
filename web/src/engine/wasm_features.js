// @ts-check
// The engine module is built with WebAssembly SIMD (-msimd128, CMakeLists.txt): a browser without it
// (Safari before 16.4, Chromium before 91, Firefox before 89) would fail to compile the module with a
// bare CompileError. The worker asks first and says what is missing; databases still open without it
// (sql.js does not need SIMD).

// A module of one function that uses SIMD (i32.const 0, i8x16.splat, i8x16.popcnt: the probe of the
// `wasm-feature-detect` package): it validates only where WebAssembly SIMD is.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15,
  253, 98, 11]);

import { MessageError, pageMessage } from '../engine_text.js';

/** What the page says where the engine cannot run (engine_text.js BrowserCannotRunVisprobe). */
export const NO_SIMD_TEXT = pageMessage('BrowserCannotRunVisprobe').text;

/** @param {{validate: (bytes: BufferSource) => boolean}} [wa] */
export function simdSupported(wa = WebAssembly) {
  try {
    return wa.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/** Throws NO_SIMD_TEXT when the engine module could not run here. @param {{validate: (bytes: BufferSource) => boolean}} [wa] */
export function checkEngineSupport(wa = WebAssembly) {
  if (!simdSupported(wa)) throw new MessageError(pageMessage('BrowserCannotRunVisprobe'), 'EngineUnsupported');
}
