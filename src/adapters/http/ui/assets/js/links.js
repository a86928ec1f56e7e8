// Links inside the page (hash routes), links out (explorers: absolute http(s) only), and ids with copy buttons.
import { dash, h } from './dom.js';

/** Only absolute http(s) URLs become links; anything else (javascript:, data:, relative) is refused. */
export function safeUrl(u) {
  if (typeof u !== 'string') return null;
  try {
    const url = new URL(u);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The hash of a view with its parameters (empty ones left out): `#/<name>?<params>`. */
export function route(name, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return '#/' + name + (s ? '?' + s : '');
}

/** A link to a view; a name as its text is cut in tables (class `name`), whole in the tooltip. */
export const link = (text, name, params) => h('a', { href: route(name, params), class: 'name', title: typeof text === 'string' ? text : null }, text);

async function copyText(value) {
  try {
    await navigator.clipboard.writeText(value);
    return true;
  } catch {
    const ta = h('textarea', { class: 'offscreen', readOnly: true, value });
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}

// One listener for every copy button (long lists hold thousands); each button's value and label in a WeakMap.
const copyValues = new WeakMap();
document.addEventListener('click', (e) => {
  const b = e.target instanceof Element ? e.target.closest('button.copy') : null;
  if (!b || !copyValues.has(b)) return;
  e.preventDefault();
  const [value, title] = copyValues.get(b);
  copyText(value).then((ok) => {
    b.classList.add(ok ? 'copied' : 'failed');
    b.title = ok ? 'Copied' : 'Copy refused by the browser';
    setTimeout(() => { b.classList.remove('copied', 'failed'); b.title = title; }, 1500);
  });
});

/** A button that copies `value` (the exact text, whatever the page shows). */
export function copyBtn(value, what) {
  const b = h('button', { type: 'button', class: 'copy', title: 'Copy ' + what, 'aria-label': 'copy ' + what });
  copyValues.set(b, [String(value), 'Copy ' + what]);
  return b;
}

/**
 * An id, hash or address: monospace text (cut with an ellipsis in tables, whole in the tooltip), optionally a
 * link, and a copy button for the whole value.
 */
export function idv(value, what, href, external) {
  if (value === null || value === undefined || value === '') return dash();
  const s = String(value);
  const isHash = /^0x[0-9a-fA-F]{16,}$/.test(s);
  const cls = 'mono' + (isHash ? ' hash' : '') + (external ? ' ext' : '');
  const el = href
    ? h('a', { class: cls, href, title: s, target: external ? '_blank' : null, rel: external ? 'noopener noreferrer' : null }, s)
    : h('code', { class: cls, title: s }, s);
  return h('span', { class: 'idv' }, el, copyBtn(s, what));
}

export const runRef = (id) => idv(id, 'run id', id ? '#/run/' + encodeURIComponent(id) : null);

/** A hash or address with an explorer link (new tab) where the API resolved one, else the value alone; copy either way. */
export function extRef(value, what, url) {
  const safe = safeUrl(url);
  return idv(value, what, safe, !!safe);
}

/** `text` linked (new tab) to an explorer page where the API resolved one, else `text` alone. */
export function extLink(text, url, title) {
  const safe = safeUrl(url);
  return safe ? h('a', { href: safe, target: '_blank', rel: 'noopener noreferrer', class: 'ext', title: title || null }, text) : text;
}

/** A transaction hash: an explorer link (new tab) where the API resolved one, else the hash alone; copy either way. */
export const txRef = (hash, url) => extRef(hash, 'transaction hash', url);
