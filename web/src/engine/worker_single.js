// @ts-check
// The engine worker of the one-file build (opened from disk, file://): the engine module the page
// uses (build/wasm/visprobe_web.mjs) with its wasm bundled in as bytes, and sql.js's asm.js build;
// nothing is fetched. (One engine link serves both pages: a second -sSINGLE_FILE link cost 23-37 s
// of every build.)
// 'visprobe-wasm' is build/wasm (an alias in web/build.mjs; typed by visprobe_web.d.ts).
import createVisprobe from 'visprobe-wasm/visprobe_web.mjs';
import engineWasm from 'visprobe-wasm/visprobe_web.wasm';
import initSqlJs from 'sql.js/dist/sql-asm.js';
import { installWorker } from './worker_core.js';

installWorker({
  // locateFile: the module must not resolve its wasm against import.meta.url (empty in this bundle).
  engine: (out) => createVisprobe({ wasmBinary: engineWasm, locateFile: (p) => p, print: out.print, printErr: out.printErr }),
  sql: () => initSqlJs(),
});
