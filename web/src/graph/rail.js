// @ts-check
// The workspace's icon rail (web-ui APP-03), top to bottom: the data-selection button, one tab per
// side panel, build / open data, theme and language; each with a tooltip. The side column beside it
// holds the panels' elements; a tab asks the workspace to show its panel. Split out of
// workspace.js's buildChrome, behaviour unchanged.
import { el, setTitle } from './dom.js';
import { t } from '../i18n.js';

/** A rail button: its test id, icon, tooltip and accessible name. @param {string} id @param {string} icon @param {string} key */
function railButton(id, icon, key) {
  const b = el('button', icon, 'ws-rail-button');
  b.dataset.testid = 'rail-' + id;
  setTitle(b, key);
  b.dataset.i18nAria = key;
  b.setAttribute('aria-label', t(key));
  return b;
}

/**
 * The rail and the side column of the given panels.
 * @template {{el: HTMLElement}} P
 * @param {[string, string, string, P][]} panels  [id, icon, i18n key, panel] in rail order
 * @param {{onPanel: (id: string) => void, onIntake?: () => void}} on  a tab chosen; the build / open data button (none: no button)
 * @returns {{rail: HTMLElement, dataButton: HTMLElement, side: HTMLElement, panels: Record<string, {panel: P, button: HTMLElement}>}}
 */
export function buildRail(panels, on) {
  const rail = el('nav', undefined, 'ws-rail');
  rail.dataset.i18nAria = 'rail';
  rail.setAttribute('aria-label', t('rail'));
  const dataButton = railButton('data', '☰', 'dataSelection');
  dataButton.setAttribute('aria-haspopup', 'dialog');
  dataButton.setAttribute('aria-expanded', 'false');
  const tabs = el('div', undefined, 'ws-rail-tabs');
  tabs.setAttribute('role', 'tablist');
  tabs.setAttribute('aria-orientation', 'vertical');
  rail.append(dataButton, tabs);
  const side = el('div', undefined, 'ws-side');
  /** @type {Record<string, {panel: P, button: HTMLElement}>} */
  const byId = {};
  for (const [id, icon, key, panel] of panels) {
    const b = railButton(id, icon, key);
    b.setAttribute('role', 'tab');
    b.addEventListener('click', () => on.onPanel(id));
    tabs.append(b);
    side.append(panel.el);
    byId[id] = { panel, button: b };
  }
  const tools = el('div', undefined, 'ws-rail-tools');
  if (on.onIntake) {
    const onIntake = on.onIntake;
    const intake = railButton('intake', '⇪', 'buildOpenData');
    intake.addEventListener('click', () => onIntake());
    tools.append(intake);
  }
  const themeButton = railButton('theme', '', 'themeDark');
  themeButton.dataset.pref = 'theme';   // host/prefs.js toggles and paints it
  const langButton = railButton('language', '', 'language');
  langButton.dataset.pref = 'language';
  langButton.dataset.compact = '1';
  tools.append(themeButton, langButton);
  rail.append(tools);
  return { rail, dataButton, side, panels: byId };
}
