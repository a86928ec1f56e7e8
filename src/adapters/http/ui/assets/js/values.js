// Values as elements: what a person reads at a glance, with the exact value in the tooltip (and, where it is
// money on a tile, a copy button).
import { dash, h } from './dom.js';
import { formatAgo, formatCount, formatDuration, formatUnits, roundUnits } from './format.js';
import { copyBtn } from './links.js';

/** Wei (a decimal string) in ETH, exactly; `bare`: without the unit (the column header names it). */
export function wei(s, bare) {
  if (s === null || s === undefined) return dash();
  return h('span', { class: 'amt', title: s + ' wei' }, formatUnits(s, 18, bare ? '' : 'ETH'));
}

/**
 * An amount rounded to four significant digits ("≈ 0.01235 ETH"), for tiles and summary tables: what a person
 * reads at a glance. The exact amount and the integer it comes from are in the tooltip. Options: `decimals` and
 * `unit` (default wei shown in ETH), `bare` (no unit: the column header names it), `copy` (a copy button for the
 * exact integer beside it).
 */
export function approx(s, { decimals = 18, unit = 'ETH', base = 'wei', bare = false, copy = false } = {}) {
  if (s === null || s === undefined) return dash();
  const { text, exact } = roundUnits(s, decimals);
  const title = formatUnits(s, decimals, unit) + '\n' + String(s) + ' ' + base;
  const el = h('span', { class: 'amt', title }, exact ? '' : '\u2248\u2009', text, bare ? '' : ' ' + unit);
  return copy ? h('span', { class: 'idv' }, el, copyBtn(s, 'exact amount in ' + base)) : el;
}

/** A UTC time as `YYYY-MM-DD HH:MM:SS`, with the full RFC 3339 value and its age in the tooltip. */
export function time(iso) {
  if (!iso) return dash();
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return h('time', { dateTime: iso, title: iso + ' (' + formatAgo(iso) + ')' }, iso.slice(0, 19).replace('T', ' '));
}

/** A time with how far away it is beside it (due and expiry times). */
export function rel(iso) {
  if (!iso) return dash();
  return h('span', null, time(iso), ' ', h('span', { class: 'muted' }, '(' + formatAgo(iso) + ')'));
}

/** A duration, the exact milliseconds in the tooltip. */
export function dur(ms) {
  if (ms === null || ms === undefined) return dash();
  return h('span', { class: 'dur', title: formatCount(Math.round(ms)) + ' ms' }, formatDuration(ms));
}

export function num(n) {
  if (n === null || n === undefined) return dash();
  return formatCount(n);
}
