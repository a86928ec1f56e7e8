// Budget headroom on the Spend view: each budget's caps with what is spent, reserved by sends in flight, and left,
// so that whoever approves a payout sees whether it fits. One row per cap; exact amounts in the tooltips.
import { api, ApiError } from '../api.js';
import { dash, h, small, td, tdn } from '../dom.js';
import { approx } from '../values.js';

const CAPS = { max_gas_spend: 'gas spend', max_native_value: 'native value', max_token_value: 'token amount' };

/** A token cap counts in the token's base units, never ETH. */
const amount = (v, token) => (v === null || v === undefined ? dash() : token ? h('span', { class: 'amt', title: v + ' base units of ' + token }, v) : approx(v, { bare: true }));

/** The Budgets section, or null when the server has no budgets route (an older server) or no budget. */
export async function budgetsSection(signal) {
  let page;
  try {
    page = await api('/api/budgets', signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
  if (!page.items.length) return null;
  const rows = page.items.flatMap((b) => b.caps.map((c) => h('tr', null,
    td(b.budget), td(b.window), td(CAPS[c.kind] || c.kind, c.token ? h('span', { class: 'muted', title: c.token }, ' ' + c.token.slice(0, 10) + '\u2026') : null),
    tdn(amount(c.spent, c.token)), tdn(amount(c.reserved, c.token)), tdn(amount(c.cap, c.token)), tdn(amount(c.headroom, c.token)))));
  return h('section', { 'data-section': 'budgets' }, h('h2', null, 'Budgets'),
    small(['budget', 'window', 'cap', '#spent (ETH)', '#reserved in flight (ETH)', '#limit (ETH)', '#headroom (ETH)'], rows));
}
