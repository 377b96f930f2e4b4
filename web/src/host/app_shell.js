// @ts-check
// Issue 19: the page as a full-window analysis app. Before the first database the page is the
// intake (drop zones, options, Build); once a graph or trend database is shown the body takes the
// class "app": the window is split between a one-line toolbar and the workspace, the page itself
// never scrolls (each panel scrolls inside), and the intake, the options, the database summary and
// the log collapse into a drawer the toolbar reopens (button or I). Choosing files reopens it too.
// The page's own keys: I (drawer), Ctrl+S (download), T (theme), L (language), Esc (close).

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {boolean} open */
export function setDrawer(open) {
  document.body.classList.toggle('drawer-open', open);
  const b = $('toolbar-intake');
  if (b) b.setAttribute('aria-expanded', String(open));
}

export const drawerOpen = () => document.body.classList.contains('drawer-open');
export const inApp = () => document.body.classList.contains('app');

/** A database is shown: the full-window layout, the drawer closed. */
export function enterApp() {
  document.body.classList.add('app');
  // Issue 46: the status line joins the header (one row less over the graph).
  const status = document.querySelector('main > .status');
  const bar = $('app-bar');
  if (status && bar) bar.after(status);
  setDrawer(false);
}

/**
 * @param {{download: () => void, toggleTheme: () => void, toggleLanguage: () => void, help: () => void}} actions
 */
export function wireAppShell(actions) {
  $('toolbar-intake').addEventListener('click', () => setDrawer(!drawerOpen()));
  $('toolbar-help').addEventListener('click', () => actions.help());
  document.addEventListener('keydown', (e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName) || target.isContentEditable;
    if (e.key === 'Escape' && drawerOpen() && inApp()) { setDrawer(false); return; }
    if (typing || !inApp()) return;
    if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
      e.preventDefault();
      if (!$('download').hidden) actions.download();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key.toLowerCase();
    if (k === 'i') { e.preventDefault(); setDrawer(!drawerOpen()); }
    else if (k === 't') { e.preventDefault(); actions.toggleTheme(); }
    else if (k === 'l') { e.preventDefault(); actions.toggleLanguage(); }
  });
  // A click outside the open drawer (and outside the toolbar) closes it.
  document.addEventListener('pointerdown', (e) => {
    if (!drawerOpen() || !inApp()) return;
    const t = /** @type {Node} */ (e.target);
    if ($('drawer').contains(t) || $('app-bar').contains(t) || $('status')?.parentElement?.contains(t)) return;
    setDrawer(false);
  });
  // Files dragged over the app: the drawer opens with its drop zones.
  document.addEventListener('dragenter', () => { if (inApp() && !drawerOpen()) setDrawer(true); });
}
