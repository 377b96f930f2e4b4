// @ts-check
// What the engine worker keeps for diagnosis (web/src/engine/worker_core.js): the engine module's
// last output lines, added to the error when it aborts, and every statement run on a database, for
// the query plans a test asks SQLite for.
import { pageMessage } from '../engine_text.js';
/** @typedef {import('./protocol.js').EngineMessage} EngineMessage */

/** @typedef {import('sql.js').Database} Database */
/** @typedef {{print: (text: string) => void, printErr: (text: string) => void}} EngineOutput */

// The engine's last lines on stdout / stderr (an abort's message, an assertion, a sanitizer's
// report): shown with the error when the module aborts, instead of being thrown away.
const TAIL_LINES = 20;
/** @type {string[]} */ const engineTail = [];
/** @type {EngineOutput} */
export const engineOutput = {
  print: (text) => keepTail(text),
  printErr: (text) => keepTail(text),
};
/** @param {string} text */
function keepTail(text) {
  engineTail.push(String(text));
  if (engineTail.length > TAIL_LINES) engineTail.splice(0, engineTail.length - TAIL_LINES);
}

/**
 * The error a request failed with, with the engine's last output lines when the module aborted
 * (emscripten throws a RuntimeError whose message starts "Aborted"; a wasm trap is a RuntimeError).
 * engineMessage: the failure's message (id and arguments) when it has one.
 * @param {unknown} e @returns {import('./protocol.js').FailureReply}
 */
export function describeFailure(e) {
  const err = /** @type {{name?: string, message?: string, engineMessage?: EngineMessage}|null|undefined} */ (e);
  const name = err && err.name || 'EngineError';
  const message = String(err && err.message || err);
  const aborted = name === 'RuntimeError' || /^Aborted\b/.test(message);
  if (aborted && engineTail.length) {
    const m = pageMessage('EngineAborted', { m: message, tail: engineTail.join('\n') });
    return { name, message: m.text, engineMessage: m };
  }
  return err && err.engineMessage ? { name, message, engineMessage: err.engineMessage } : { name, message };
}

// Every distinct statement the views and this worker have run on a database (with the first
// parameters it ran with), for QUERY_PLANS: a test asks SQLite how each would run on a large file.
/** @type {Map<string, import('./protocol.js').SqlValue[]>} */
const statements = new Map();

/** @param {Record<string, Function>} proto  sql.js Database.prototype: exec and prepare see every statement */
export function logStatements(proto) {
  for (const m of ['exec', 'prepare']) {
    const orig = proto[m];
    /** @this {unknown} @param {string} sql @param {unknown} params */
    proto[m] = function (sql, params) {
      if (typeof sql === 'string' && statements.size < 2000 && !statements.has(sql) && !/^\s*(EXPLAIN|PRAGMA)\b/i.test(sql))
        statements.set(sql, Array.isArray(params) ? params.map((v) => (v instanceof Uint8Array ? null : v)) : []);
      return orig.apply(this, arguments);
    };
  }
}

/** EXPLAIN QUERY PLAN of every logged statement that reads or writes a table, on database `db`. @param {Database} db */
export function queryPlans(db) {
  const out = [];
  for (const [sql, params] of statements) {
    if (!/\b(FROM|UPDATE|INTO)\b/i.test(sql) || /sqlite_master/i.test(sql)) continue;
    let plan;
    try {
      const r = db.exec('EXPLAIN QUERY PLAN ' + sql, params)[0];
      plan = r ? r.values.map((v) => String(v[3])) : [];
    } catch (e) {
      plan = ['ERROR ' + /** @type {Error} */ (e).message];
    }
    out.push({ sql: sql.replace(/\s+/g, ' ').trim(), plan });
  }
  return out;
}

