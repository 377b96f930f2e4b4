// @ts-check
// The engine worker of the http build: the engine module and the wasm files sit next to it.
import initSqlJs from 'sql.js/dist/sql-wasm.js';
import { installWorker } from './worker_core.js';

installWorker({
  engine: async (out) => {
    const url = new URL('./visprobe_web.mjs', import.meta.url).href;
    const mod = await import(/* @vite-ignore */ url);
    return mod.default({ print: out.print, printErr: out.printErr });
  },
  sql: () => initSqlJs({ locateFile: (/** @type {string} */ f) => new URL('./' + f, import.meta.url).href }),
});
