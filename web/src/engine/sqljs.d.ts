// sql.js's two builds as the worker imports them (worker.js: wasm; worker_single.js: asm.js), typed
// by @types/sql.js, which describes the package's main entry only.
declare module 'sql.js/dist/sql-wasm.js' {
  import initSqlJs from 'sql.js';
  export default initSqlJs;
}
declare module 'sql.js/dist/sql-asm.js' {
  import initSqlJs from 'sql.js';
  export default initSqlJs;
}
