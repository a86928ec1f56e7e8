// Building the DOM with untrusted data as text only: every element comes from createElement, data goes in
// through text nodes (append of a string, textContent) and property values. Nothing on this page parses HTML.

export const MARK = '<redacted>';

/** An element: `props` are properties (`class`, `data-*`/`aria-*` attributes, `on` listeners), kids text or nodes. */
export function h(tag, props, ...kids) {
  const el = document.createElement(tag);
  if (props) {
    for (const k of Object.keys(props)) {
      const v = props[k];
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'on') for (const ev of Object.keys(v)) el.addEventListener(ev, v[ev]);
      else if (k.startsWith('data-') || k.startsWith('aria-')) el.setAttribute(k, String(v));
      else el[k] = v;
    }
  }
  return add(el, kids);
}

/** Appends kids (nested arrays allowed) to `el`: nodes as they are, anything else as text. */
export function add(el, kids) {
  for (const k of kids.flat(Infinity)) {
    if (k === undefined || k === null || k === false) continue;
    el.append(typeof k === 'object' ? k : String(k));
  }
  return el;
}

export const dash = () => h('span', { class: 'muted' }, '\u2014');

/** A string with every `<redacted>` marker as a styled element (still text). */
export function rtext(s) {
  s = String(s);
  if (!s.includes(MARK)) return document.createTextNode(s);
  const f = document.createDocumentFragment();
  s.split(MARK).forEach((part, i) => {
    if (i > 0) f.append(h('span', { class: 'redacted', title: 'redacted by the server' }, MARK));
    if (part) f.append(part);
  });
  return f;
}

/** Text, or a dash when there is none. */
export const txt = (s) => (s === null || s === undefined || s === '' ? dash() : rtext(s));

/** A JSON value as an indented block of text. */
export function json(v) {
  if (v === null || v === undefined) return dash();
  return h('pre', { class: 'json' }, rtext(typeof v === 'string' ? v : JSON.stringify(v, null, 2)));
}

/** Any JSON value in one line (the compare view). */
export function val(v) {
  if (v === undefined) return h('span', { class: 'muted' }, '(absent)');
  if (v === null) return h('span', { class: 'muted' }, 'null');
  return rtext(typeof v === 'string' ? v : JSON.stringify(v));
}

export function notice(text, kind) {
  return h('div', { class: 'notice' + (kind ? ' ' + kind : ''), role: kind === 'error' ? 'alert' : null }, text);
}

const GOOD = new Set(['succeeded', 'confirmed', 'approved', 'settled', 'ok', 'active', 'allowed', 'passed']);
const BAD = new Set(['failed', 'dead_lettered', 'reverted', 'rejected', 'dropped', 'expired', 'replaced', 'cancelled', 'refused', 'paused', 'low']);
const WARN = new Set(['waiting', 'pending', 'parked', 'queued', 'running', 'submitted']);
const INFO = new Set(['replay', 'test']);

/** A status as a coloured badge. */
export function badge(s) {
  if (s === null || s === undefined || s === '') return dash();
  const c = GOOD.has(s) ? 'b-ok' : BAD.has(s) ? 'b-bad' : WARN.has(s) ? 'b-warn' : INFO.has(s) ? 'b-info' : '';
  return h('span', { class: 'badge ' + c }, s);
}

/** A name (workflow, relayer, network, error kind): cut to a glanceable width in tables, whole in its tooltip. */
export const name = (s, title) => (s === null || s === undefined || s === '' ? dash() : h('span', { class: 'name', title: title || String(s) }, rtext(s)));

export const td = (...v) => h('td', null, ...v);
/** A right-aligned number cell. */
export const tdn = (...v) => h('td', { class: 'num' }, ...v);
/** A cell of free text that wraps (messages, reasons, errors) instead of widening its table. */
export const tdw = (...v) => h('td', { class: 'wrap' }, ...v);

/** A list of `[term, value]` pairs; `variant` is an extra class (`summary`: three pairs a line). */
export function kv(variant, pairs) {
  if (!pairs) { pairs = variant; variant = ''; }
  const dl = h('dl', { class: 'kv ' + variant });
  for (const [k, v] of pairs) if (v !== undefined) dl.append(h('dt', null, k), h('dd', null, v));
  return dl;
}

/**
 * Focuses `el` (an element that is not a control is made focusable from script only, not by Tab), so that a
 * keyboard or screen-reader user lands on what an action produced.
 */
export function focusOn(el) {
  if (!el) return;
  if (el.tabIndex < 0 && !el.hasAttribute('tabindex')) el.setAttribute('tabindex', '-1');
  el.focus();
}

/** Whether focus fell to <body> (its element left the page), so the page should put it somewhere. */
export const focusLost = () => !document.activeElement || document.activeElement === document.body;

/** A small table (no paging) with header `columns`; a column named `#x` is a right-aligned number `x`. */
export function small(columns, rows) {
  return h('div', { class: 'tablewrap' }, h('table', null, h('thead', null, h('tr', null, columns.map(th))), h('tbody', null, rows)));
}

/**
 * A header cell; `#name` is a right-aligned number column, `~name` a column of controls (checkboxes, buttons)
 * whose header is read by screen readers but not shown.
 */
export function th(c) {
  if (c.startsWith('#')) return h('th', { class: 'num' }, c.slice(1));
  if (c.startsWith('~')) return h('th', null, h('span', { class: 'vh' }, c.slice(1)));
  return h('th', null, c);
}

/** A journaled error: its kind, and its message as text. */
export function errorText(e) {
  if (!e) return dash();
  return h('span', { class: 'err' }, txt(e.kind), e.message ? [': ', rtext(e.message)] : null);
}
