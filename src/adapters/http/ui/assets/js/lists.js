// The building blocks of list views: a filter form whose state is the hash, and a table over one list endpoint
// paged with the API's cursor (the first page on load, "Load more" for the next; nothing loads a whole table).
import { api } from './api.js';
import { focusOn, h, th } from './dom.js';
import { route } from './links.js';
import { fail, render } from './router.js';

export const RUN_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'dead_lettered', 'cancelled', 'skipped'];
export const SESSIONS = ['live', 'replay', 'test'];
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'];
export const WAIT_KINDS = ['tx', 'delay', 'event', 'approval'];
export const SEND_STATUSES = ['queued', 'parked', 'submitted', 'settled'];
export const OUTCOMES = ['confirmed', 'reverted', 'dropped', 'expired', 'replaced'];

export const SINCE = { name: 'since', ph: '24h, 7d or RFC 3339' };
export const UNTIL = { name: 'until', ph: '1h or RFC 3339' };

/** Only the parameters a list accepts are taken from the hash (the API refuses unknown ones). */
export function pick(params, names) {
  const q = new URLSearchParams();
  for (const n of names) {
    const v = params.get(n);
    if (v !== null && v !== '') q.set(n, v);
  }
  return q;
}

const BROWSE_KEYS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

/**
 * Calls `act` when a select's option is picked. A pick with the pointer (or in the opened list) applies at once;
 * but on a closed select each arrow key (or typed letter) changes the value, one option at a time, and applying
 * each would re-render the view under a keyboard user on the first arrow key: those apply with Enter (or Apply).
 */
function actOnPick(select, act) {
  let browsing = false;
  select.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      browsing = false;
      act();
      return;
    }
    browsing = !e.altKey && (BROWSE_KEYS.has(e.key) || (e.key.length === 1 && e.key !== ' '));
  });
  select.addEventListener('pointerdown', () => { browsing = false; });
  select.addEventListener('change', () => { if (!browsing) act(); });
}

/**
 * A filter form whose state lives in the hash: submitting it (or picking in a select) navigates to
 * `#/<view>?<filters>`, which renders the view again; a reload restores it from the hash. `extra` names
 * parameters kept from the hash though the form has no field for them (`limit`).
 */
export function filterForm(view, fields, params, extra) {
  const inputs = [];
  const submit = () => {
    const q = {};
    for (const el of inputs) q[el.name] = el.value.trim();
    for (const k of Object.keys(extra || {})) if (params.get(k)) q[k] = params.get(k);
    const next = route(view, q);
    if (location.hash === next) render();
    else location.hash = next;
  };
  const field = (f) => {
    let el;
    if (f.options) {
      el = h('select', { name: f.name, 'data-focus': 'filter-' + f.name }, h('option', { value: '' }, f.any || 'any'), f.options.map((o) => h('option', { value: o }, o)));
      actOnPick(el, submit);
    } else {
      el = h('input', { name: f.name, type: 'text', placeholder: f.ph || '', spellcheck: false, autocomplete: 'off', 'data-focus': 'filter-' + f.name });
    }
    el.value = params.get(f.name) || '';
    inputs.push(el);
    return h('label', null, f.label || f.name.replace(/_/g, ' '), el);
  };
  const primary = fields.filter((f) => !f.more);
  const secondary = fields.filter((f) => f.more);
  const activeMore = secondary.filter((f) => params.get(f.name)).length;
  const form = h('form', { class: 'filters', 'aria-label': 'filters' },
    primary.map(field),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', 'data-focus': 'filter-apply' }, 'Apply'),
      h('button', { type: 'button', 'data-focus': 'filter-clear', on: { click: () => { location.hash = route(view, {}); } } }, 'Clear')),
    secondary.length ? h('details', { open: activeMore > 0 }, h('summary', null, 'More filters' + (activeMore ? ' (' + activeMore + ' set)' : '')), h('div', null, secondary.map(field))) : null);
  form.addEventListener('submit', (e) => { e.preventDefault(); submit(); });
  return form;
}

/**
 * A table over one list endpoint, one page at a time with the API's cursor. The first page is requested at
 * once, while the view builds the rest of its DOM; `load()` shows it (and each later page, appended).
 * `columns`: header texts, `#name` for a right-aligned number; `row(item)`: its `<tr>`.
 */
export function pagedTable(ctx, { path, query, columns, row, empty }) {
  const tbody = h('tbody');
  const more = h('button', { type: 'button', class: 'more', hidden: true }, 'Load more');
  const status = h('p', { class: 'muted count', role: 'status' });
  const box = h('section', { class: 'list' },
    h('div', { class: 'tablewrap' }, h('table', null, h('thead', null, h('tr', null, columns.map(th))), tbody)),
    more, status);
  let cursor = null;
  let count = 0;
  const fetchPage = () => {
    const q = new URLSearchParams(query);
    if (cursor) q.set('cursor', cursor);
    const qs = q.toString();
    return api(path + (qs ? '?' + qs : ''), ctx.signal);
  };
  let first = fetchPage();
  first.catch(() => undefined);
  // While a page loads the button says so with aria-disabled: a disabled button would drop the focus it has.
  let loading = false;
  async function load() {
    loading = true;
    more.setAttribute('aria-disabled', 'true');
    const pending = first || fetchPage();
    first = null;
    let page;
    try { page = await pending; } finally { loading = false; more.removeAttribute('aria-disabled'); }
    if (ctx.signal.aborted) return page;
    const frag = document.createDocumentFragment();
    for (const item of page.items) frag.append(row(item));
    const firstNew = frag.firstElementChild;
    tbody.append(frag);
    count += page.items.length;
    cursor = page.cursor;
    const hadFocus = document.activeElement === more;
    more.hidden = !page.has_more;
    // The last page hides the button: focus moves on to the rows it brought rather than falling to <body>.
    if (more.hidden && hadFocus && firstNew) focusOn(firstNew);
    status.textContent = count === 0 ? (empty || 'Nothing matches.') : count + (count === 1 ? ' row' : ' rows') + (page.has_more ? ' shown' : ', end of list');
    return page;
  }
  more.addEventListener('click', () => {
    if (loading) return;
    load().catch((err) => fail(ctx, err, box));
  });
  return { el: box, load, tbody };
}
