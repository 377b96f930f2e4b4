// @ts-check
// Where the engine's messages reach the page: the error box and the log panel (issue 19, X-01).
// Both keep what the engine said in English and show it in the page's language (engine_text.js),
// again after each language toggle. A log line is a <span> whose title holds the original line.
// Text only, never markup: messages name the user's own files.
import { engineText, engineLogLine, messageOf } from './engine_text.js';
import { onLanguage } from './i18n.js';
import { setDrawer } from './host/app_shell.js';

const $ = (/** @type {string} */ id) => document.getElementById(id);

/** @type {string | (() => string)} */
let errorSource = '';

function renderError() {
  const el = $('error');
  if (!el) return;
  const text = typeof errorSource === 'function' ? errorSource() : errorSource;
  el.hidden = !text;
  el.textContent = text || '';
}

/**
 * The page's error box. A function is called again after a language toggle, so text built from
 * dictionary keys and engine messages follows the language. @param {string | (() => string) | null | undefined} text
 */
export function setError(text) {
  errorSource = text || '';
  renderError();
  // A new error while the app's drawer is open (a failed build or open started from it): the
  // drawer closes onto the message, which sits under it (issue 46).
  if (text && document.body.classList.contains('app')) setDrawer(false);
}

/**
 * A failure (an Error, a MessageError with the engine's message) or an engine message as the
 * error, in the page's language. @param {unknown} failure
 */
export function setEngineError(failure) {
  const m = failure ? messageOf(failure) : '';
  setError(m ? () => engineText(m) : '');
}

/** The message of each log line (its title holds the engine's line). @type {WeakMap<HTMLElement, import('./engine/protocol.js').EngineMessage>} */
const lineMessages = new WeakMap();

/** @param {HTMLElement} span  a log line: the engine's line is in its title */
function renderLogLine(span) {
  span.textContent = engineLogLine(span.title, lineMessages.get(span) || span.title) + '\n';
}

/**
 * Appends one line the engine logged ("YYYY-mm-dd HH:MM:SS (pid) [LEVEL] message") with its message.
 * @param {string} line @param {import('./engine/protocol.js').EngineMessage} [message]
 */
export function appendLog(line, message) {
  const el = $('log');
  if (!el) return;
  const span = document.createElement('span');
  span.title = line;
  if (message) lineMessages.set(span, message);
  renderLogLine(span);
  el.append(span);
  el.scrollTop = el.scrollHeight;
}

onLanguage(() => {
  renderError();
  const el = $('log');
  if (el) for (const s of el.children) renderLogLine(/** @type {HTMLElement} */ (s));
});
