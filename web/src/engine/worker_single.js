// @ts-check
// The engine worker of the one-file build (opened from disk, file://): the engine (wasm inlined
// with -sSINGLE_FILE) and sql.js's asm.js build are bundled in; nothing is fetched.
import createVisprobe from '../../../build/wasm/visprobe_web_single.js';
import initSqlJs from 'sql.js/dist/sql-asm.js';
import { installWorker } from './worker_core.js';

installWorker({
  engine: () => createVisprobe({ print: () => {}, printErr: () => {} }),
  sql: () => initSqlJs(),
});
