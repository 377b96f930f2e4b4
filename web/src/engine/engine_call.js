// @ts-check
// The engine's answers as the worker takes them: every bound function answers {status, value}
// (wasm/bindings.cc Respond; EngineResponse in visprobe_web.d.ts). A failure becomes a
// MessageError carrying the engine's message (id and arguments), which reaches the page intact.
import { MessageError } from '../engine_text.js';

/** @typedef {import('visprobe-wasm/visprobe_web.mjs').EngineMessage} EngineMessage */

/**
 * The value of an engine answer, or its failure thrown.
 * @template T @param {import('visprobe-wasm/visprobe_web.mjs').EngineResponse<T>} response @returns {T}
 */
export function valueOf(response) {
  if (response.status.code !== 'ok' || response.value === null) throw new MessageError(response.status.message, 'EngineError');
  return response.value;
}

/**
 * A message with the worker's mount points turned into the user's folder names (`named`), in its
 * text and in every argument, nested ones included.
 * @param {(text: string) => string} named @param {EngineMessage} m @returns {EngineMessage}
 */
export function namedMessage(named, m) {
  /** @type {Record<string, string|EngineMessage>} */
  const args = {};
  for (const [k, v] of Object.entries(m.args || {})) args[k] = typeof v === 'string' ? named(v) : namedMessage(named, v);
  return { id: m.id, args, text: named(m.text) };
}
