// Transactions: every send attempt, its status and outcome, hash, idempotency key, explorer link.
import { badge, h, name, td, tdn, txt } from '../dom.js';
import { idv, link, runRef, txRef } from '../links.js';
import { filterForm, OUTCOMES, pagedTable, pick, SEND_STATUSES, SESSIONS, SINCE, UNTIL } from '../lists.js';
import { main } from '../router.js';
import { approx, time } from '../values.js';

export const SEND_COLUMNS = ['queued (UTC)', 'send', 'run', 'workflow', 'network', 'relayer', 'status', 'tx hash', 'idempotency key', 'to', '#value (ETH)', 'session'];

/**
 * Where a send is in its lifecycle, as one badge: queued, parked, submitted, then its outcome once settled
 * (confirmed, reverted, dropped, expired, replaced); the time of the last change in the tooltip.
 */
function lifecycle(s) {
  const settled = s.status === 'settled' && s.outcome;
  return h('span', { class: 'lifecycle', title: (settled ? 'settled: ' + s.outcome : s.status) + '\nlast change ' + s.updated_at }, badge(settled ? s.outcome : s.status));
}

/**
 * One send attempt as a row of SEND_COLUMNS (without `run` and `workflow` unless `withRun`). The chain id is in
 * the network's tooltip, so that the row fits a laptop screen.
 */
export function sendRow(s, withRun) {
  return h('tr', null,
    td(time(s.created_at)), td(idv(s.send_id, 'send id')), withRun ? td(runRef(s.run_id)) : null, withRun ? td(link(s.workflow, 'txs', { workflow: s.workflow })) : null,
    td(name(s.network, 'chain id ' + s.chain_id)), td(link(s.relayer, 'runs', { relayer: s.relayer })),
    td(lifecycle(s)), td(txRef(s.tx_hash, s.explorer_url)), td(idv(s.idempotency_key, 'idempotency key')),
    td(idv(s.to, 'address'), tokenTransfer(s.token_transfer)), tdn(approx(s.value_wei, { bare: true })),
    td(s.session === 'live' ? txt(s.session) : badge(s.session)));
}

/**
 * A token transfer call under its `to` (the token contract): the amount in base units (exact: tokens have their own
 * decimals) and the recipient, on a line of its own so that the table keeps its width.
 */
function tokenTransfer(t) {
  if (!t) return null;
  return h('div', { class: 'token-transfer', title: 'token transfer of ' + t.amount + ' base units of ' + t.contract }, txt('→ ' + t.amount + ' to '), idv(t.to, 'recipient'));
}

export async function txsView(ctx) {
  ctx.title('Transactions');
  const fields = [{ name: 'workflow' }, { name: 'network' }, { name: 'relayer' }, { name: 'status', options: SEND_STATUSES }, { name: 'outcome', options: OUTCOMES }, { name: 'session', options: SESSIONS }, SINCE, UNTIL,
    { name: 'run_id', label: 'run id', more: true }, { name: 'tx_hash', label: 'tx hash', more: true }];
  const t = pagedTable(ctx, {
    path: '/api/history/txs', query: pick(ctx.params, fields.map((f) => f.name).concat('limit')), columns: SEND_COLUMNS,
    empty: 'No sends match these filters.', row: (s) => sendRow(s, true),
  });
  main.append(h('h1', null, 'Transactions'), filterForm('txs', fields, ctx.params, { limit: 1 }), t.el);
  await t.load();
}
