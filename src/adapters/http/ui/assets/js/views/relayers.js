// Relayers (address book): per relayer wallet its network, address, live balance with the low-balance flag,
// funding estimate and shortfall, recent gas spend (GET /api/relayers); a row links to the runs of its relayer.
import { ApiError } from '../api.js';
import { badge, dash, h, notice, td, tdn, txt } from '../dom.js';
import { isPositive } from '../format.js';
import { idv, link, safeUrl } from '../links.js';
import { pagedTable, pick } from '../lists.js';
import { main } from '../router.js';
import { wei } from '../values.js';

export async function relayersView(ctx) {
  ctx.title('Relayers');
  const t = pagedTable(ctx, {
    path: '/api/relayers', query: pick(ctx.params, ['limit']),
    columns: ['relayer', 'network', 'address', '#balance', 'low balance', '#threshold', '#recent gas spend', '#funding estimate', '#shortfall'],
    empty: 'No relayers configured.',
    row: (r) => h('tr', null,
      td(link(r.relayer, 'runs', { relayer: r.relayer })), td(txt(r.network), r.chain_id !== null && r.chain_id !== undefined ? h('span', { class: 'muted' }, ' #' + r.chain_id) : null),
      td(idv(r.address, 'address', safeUrl(r.explorer_url), !!safeUrl(r.explorer_url))),
      tdn(r.balance_error ? h('span', { class: 'err', title: String(r.balance_error) }, 'unavailable') : wei(r.balance_wei)),
      td(r.low_balance ? badge('low') : r.low_balance === false ? badge('ok') : dash()),
      tdn(wei(r.low_balance_threshold_wei)), tdn(wei(r.recent_gas_spend_wei)), tdn(wei(r.funding_estimate_wei)),
      tdn(isPositive(r.shortfall_wei) ? h('span', { class: 'err' }, wei(r.shortfall_wei)) : wei(r.shortfall_wei))),
  });
  main.append(h('h1', null, 'Relayers'), t.el);
  try {
    await t.load();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      t.el.replaceWith(notice('Relayers: not available on this server (GET /api/relayers answered 404).'));
      return;
    }
    throw err;
  }
}
