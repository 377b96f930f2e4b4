// @ts-check
// The page's language for the engine's messages (web-ui X-01, issues 19 and 47). The engine sends
// each message as {id, args, text} (core/base/message.h, JSON by MessageJson): the id names a
// template in core/base/messages.def, args fill its placeholders, text is the English the CLI
// prints (msProbe's words, kept for parity). In English the page shows text; in Chinese, the
// template of engine_text_zh.js for the id, with the same arguments; an argument that is itself a message is
// translated in turn. A message with no id (a text SQLite or the browser gave) or an id with no
// entry shows its English. Nothing here reads the English to guess what a message is.
// The result is plain text (dump names are never HTML): callers set textContent.
import { language } from './i18n.js';
import { ZH, PAGE } from './engine_text_zh.js';

/** @typedef {import('./engine/protocol.js').EngineMessage} EngineMessage */

const TOKEN = /\{\{|\}\}|\{(\w+)(?::[td])?\}/g;

/** @param {string} template @param {(name: string) => string} value */
function fill(template, value) {
  return template.replace(TOKEN, (t, name) => (t === '{{' ? '{' : t === '}}' ? '}' : value(name)));
}

/** @param {string|EngineMessage|undefined} arg */
const argText = (arg) => (arg === undefined ? '' : typeof arg === 'string' ? arg : arg.text);

/**
 * One of the page's own messages, as the engine's look: {id, args, text}.
 * @param {string} id  a key of PAGE
 * @param {Record<string, string|number|EngineMessage>} [args]
 * @returns {EngineMessage}
 */
export function pageMessage(id, args = {}) {
  /** @type {Record<string, string|EngineMessage>} */
  const a = {};
  for (const [k, v] of Object.entries(args)) a[k] = typeof v === 'number' ? String(v) : v;
  const en = PAGE[id] ? PAGE[id][0] : id;
  return { id, args: a, text: fill(en, (name) => argText(a[name])) };
}

/** An Error whose message is an EngineMessage (the worker's and client's failures). */
export class MessageError extends Error {
  /** @param {EngineMessage} message @param {string} [name] */
  constructor(message, name = 'Error') {
    super(message.text);
    this.name = name;
    /** @type {EngineMessage} */
    this.engineMessage = message;
  }
}

/**
 * What to show for a failure: its EngineMessage when it has one, else its text.
 * @param {unknown} e @returns {EngineMessage|string}
 */
export function messageOf(e) {
  if (e && typeof e === 'object') {
    const m = /** @type {{engineMessage?: EngineMessage, message?: unknown}} */ (e);
    if (m.engineMessage) return m.engineMessage;
    if (isMessage(e)) return /** @type {EngineMessage} */ (e);
    if (typeof m.message === 'string') return m.message;
  }
  return String(e ?? '');
}

/** @param {unknown} m @returns {m is EngineMessage} */
export function isMessage(m) {
  return !!m && typeof m === 'object' && typeof (/** @type {EngineMessage} */ (m).id) === 'string' &&
    typeof (/** @type {EngineMessage} */ (m).text) === 'string';
}

/** The Chinese template of an id, or undefined. @param {string} id */
export function chineseTemplate(id) {
  return ZH[id] ?? (PAGE[id] ? PAGE[id][1] : undefined);
}

/**
 * A message in the page's language. A string (a text with no id) comes back as it is.
 * @param {EngineMessage|string|null|undefined} message @param {string} [lang]
 * @returns {string}
 */
export function engineText(message, lang = language()) {
  if (!message) return '';
  if (typeof message === 'string') return message;
  const zh = lang === 'zh' && message.id ? chineseTemplate(message.id) : undefined;
  if (zh === undefined) return message.text;
  const args = message.args || {};
  return fill(zh, (name) => {
    const v = args[name];
    return v === undefined ? '' : typeof v === 'string' ? v : engineText(v, lang);
  });
}

// msProbe's log line: "YYYY-mm-dd HH:MM:SS (pid) [LEVEL] message" (core/app/log.h FormatLogLine).
const LOG_PREFIX = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[(?:DEBUG|INFO|WARNING|ERROR)\] /;

/**
 * A log line in the page's language: msProbe's prefix (time, pid, level) of `line` kept, its
 * message part from `message`.
 * @param {string} line @param {EngineMessage|string} message @param {string} [lang]
 */
export function engineLogLine(line, message, lang = language()) {
  if (lang !== 'zh' || typeof message === 'string') return line;
  const m = LOG_PREFIX.exec(line);
  return (m ? m[0] : '') + engineText(message, lang);
}

/** Every id's [English template or '', Chinese] (tests). */
export const catalog = () => ({
  engine: Object.entries(ZH),
  page: Object.entries(PAGE).map(([id, [en, zh]]) => [id, en, zh]),
});
