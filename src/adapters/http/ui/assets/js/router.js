// The view and its filters live in the hash, `#/<view>[/<id>][?<API parameters>]`: the hash renders the view,
// never the other way round, so a filtered view can be shared and survives a reload.
import { ApiError, AuthNeeded, store } from './api.js';
import { focusOn, notice } from './dom.js';

/** Where every view renders; `data-view` and `data-state` (loading, ready, error, login) say what it shows. */
export const main = document.getElementById('main');

const views = new Map();

/** `view(ctx)` renders into `main` and resolves when its first data is on screen. */
export function registerView(name, view) {
  views.set(name, view);
}

/** Shows why a request failed, in `where` (default the whole view, which is then in error). */
export function fail(ctx, err, where) {
  if (err instanceof AuthNeeded || ctx.signal.aborted || (err && err.name === 'AbortError')) return;
  (where || main).append(notice(errorMessage(err), 'error'));
  if (!where) main.dataset.state = 'error';
}

/** A failed request in words: the API's own message with its status. */
export function errorMessage(err) {
  if (err instanceof ApiError) return 'The server answered ' + err.status + ': ' + err.message;
  if (err instanceof AuthNeeded) return 'Not signed in: sign in, then try again.';
  return 'Request failed: ' + (err && err.message ? err.message : String(err));
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const qi = raw.indexOf('?');
  const path = qi < 0 ? raw : raw.slice(0, qi);
  const parts = path.split('/');
  let arg = '';
  try { arg = parts.slice(1).map(decodeURIComponent).join('/'); } catch { arg = ''; }
  return { name: parts[0] || 'workflows', arg, params: new URLSearchParams(qi < 0 ? '' : raw.slice(qi + 1)) };
}

let controller = null;
let pendingFocus = null;

/**
 * Renders the view again, then focuses what `selector` finds in it: the new content an action produced (a row
 * read again, a decided approval), where the control that acted is gone.
 */
export function rerender(selector) {
  pendingFocus = selector;
  render();
}

/**
 * Rendering a view again replaces every element of it, and focus would fall to <body>, sending a keyboard or
 * screen-reader user back to the top of the page after each filter or command. A control that should keep focus
 * carries `data-focus` (a key unique in its view); its twin in the new view gets focus back, else the heading does.
 */
function focusWanted() {
  const want = pendingFocus;
  pendingFocus = null;
  if (want) return want;
  const a = document.activeElement;
  return a && a !== main && main.contains(a) && a.dataset.focus ? '[data-focus="' + CSS.escape(a.dataset.focus) + '"]' : null;
}

function restoreFocus(selector) {
  const a = document.activeElement;
  // The user moved on while the view loaded: leave focus where they put it.
  if (a && a !== document.body && a !== main && a.isConnected) return;
  focusOn(main.querySelector(selector) || main.querySelector('h1') || main);
}

/** Renders the view the hash names; a view still loading is abandoned (its requests aborted). */
export function render() {
  const focus = focusWanted();
  if (controller) controller.abort();
  controller = new AbortController();
  const { name, arg, params } = parseHash();
  const view = views.get(name);
  const navName = name === 'run' ? 'runs' : name;
  for (const a of document.querySelectorAll('#nav a')) {
    const on = a.dataset.view === navName;
    a.classList.toggle('active', on);
    if (on) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  main.replaceChildren();
  main.dataset.view = view ? name : 'unknown';
  main.dataset.state = 'loading';
  document.getElementById('signout').hidden = !store.token;
  const ctx = { params, arg, signal: controller.signal, title: (t) => { document.title = t + ' \u00b7 chainflow'; } };
  if (!view) {
    main.append(notice('No such view. Pick one above.', 'error'));
    main.dataset.state = 'error';
    return;
  }
  view(ctx).then(() => {
    if (!ctx.signal.aborted && main.dataset.state === 'loading') main.dataset.state = 'ready';
  }, (err) => fail(ctx, err)).then(() => {
    if (focus && !ctx.signal.aborted) restoreFocus(focus);
  });
}
