// Spend: KPI tiles, one table per dimension (clicking a row filters to it), the newest settled sends with explorer
// links; the filters live in the hash. Amounts show four significant digits; the exact wei is in the tooltip, and
// on the tiles a copy button away.
import { api, ApiError } from '../api.js';
import { badge, dash, focusOn, h, name, notice, small, td, tdn } from '../dom.js';
import { isPositive } from '../format.js';
import { link, route, runRef, txRef } from '../links.js';
import { filterForm, pick, UNTIL } from '../lists.js';
import { fail, main } from '../router.js';
import { approx, num, time } from '../values.js';
import { budgetsSection } from './budgets.js';

/** The API's largest `limit` for /api/spend: beyond it, narrow the filters or use `chainflow spend export`. */
const MAX_LIMIT = 500;

const tile = (k, v, s, cls) => h('div', { class: 'tile' + (cls ? ' ' + cls : '') }, h('div', { class: 'k' }, k), h('div', { class: 'v' }, v), s ? h('div', { class: 's' }, s) : null);

function tiles(total) {
  return h('div', { class: 'tiles' },
    tile('Gas spend', approx(total.gas_spend_wei, { copy: true }), 'receipts: gas used \u00d7 price (+ L1 fee)'),
    tile('Value moved', approx(total.value_wei, { copy: true }), 'native value of landed sends'),
    // Red only for a loss there is: a zero painted red reads as a negative amount.
    tile('Reverted loss', approx(total.reverted_gas_wei, { copy: true }), num(total.reverted_count) + ' reverted send' + (total.reverted_count === 1 ? '' : 's') + ' (gas paid for nothing)', isPositive(total.reverted_gas_wei) ? 'loss' : ''),
    tile('Sends', num(total.tx_count), 'landed sends in the ledger'));
}

const DIMENSIONS = [['by_workflow', 'workflow', 'By workflow'], ['by_relayer', 'relayer', 'By relayer'], ['by_network', 'network', 'By network']];

function dimensions(summary, filters) {
  const grid = h('div', { class: 'grid3' });
  for (const [member, param, heading] of DIMENSIONS) {
    const rows = (summary[member] || []).map((g) => {
      const target = route('spend', Object.assign(Object.fromEntries(filters), { [param]: g.key }));
      const tr = h('tr', { class: 'click' + (filters.get(param) === g.key ? ' sel' : ''), title: 'Filter to ' + param + ' ' + g.key },
        td(h('a', { href: target, class: 'name', title: g.key }, g.key)), tdn(num(g.tx_count)), tdn(approx(g.gas_spend_wei, { bare: true })), tdn(approx(g.value_wei, { bare: true })),
        tdn(approx(g.reverted_gas_wei, { bare: true }), g.reverted_count ? h('span', { class: 'muted' }, ' (' + num(g.reverted_count) + ')') : null));
      tr.addEventListener('click', (e) => { if (!(e.target instanceof HTMLAnchorElement)) location.hash = target; });
      return tr;
    });
    grid.append(h('section', { 'data-dim': param }, h('h2', null, heading),
      small([param, '#sends', '#gas spend (ETH)', '#value (ETH)', '#reverted loss (ETH)'],
        rows.length ? rows : h('tr', null, h('td', { colSpan: 5, class: 'empty' }, 'No spend recorded.')))));
  }
  return grid;
}

export async function spendView(ctx) {
  ctx.title('Spend');
  const fields = [{ name: 'workflow' }, { name: 'relayer' }, { name: 'network' }, { name: 'since', ph: '24h, 30d or RFC 3339' }, UNTIL];
  const filters = pick(ctx.params, ['workflow', 'relayer', 'network', 'since', 'until']);
  main.append(h('h1', null, 'Spend'), filterForm('spend', fields, ctx.params));
  const body = h('div');
  main.append(body);
  let limit = 50;
  const fetchSpend = () => {
    const q = new URLSearchParams(filters);
    q.set('limit', String(limit));
    return api('/api/spend?' + q, ctx.signal);
  };
  let data;
  try {
    data = await fetchSpend();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      body.append(notice('Spend: not available on this server (GET /api/spend answered 404).'));
      return;
    }
    throw err;
  }
  const total = data.summary.total;
  // Headroom sits beside what was spent: read together, shown after the tiles.
  const budgets = await budgetsSection(ctx.signal);
  body.append(tiles(total), ...(budgets ? [budgets] : []), dimensions(data.summary, filters));
  const tbody = h('tbody');
  const more = h('button', { type: 'button', class: 'more', hidden: true }, 'Show more');
  const count = h('p', { class: 'muted count', role: 'status' });
  // Explorer links come with the report (`explorer_urls` by transaction hash), or on each entry.
  let links = data.explorer_urls || {};
  const fill = (entries) => {
    tbody.replaceChildren(...entries.map((e) => h('tr', null,
      td(time(e.recorded_at)), td(link(e.workflow, 'spend', Object.assign(Object.fromEntries(filters), { workflow: e.workflow }))), td(runRef(e.run_id)),
      td(link(e.relayer, 'spend', Object.assign(Object.fromEntries(filters), { relayer: e.relayer }))), td(name(e.network, 'chain id ' + e.chain_id)), td(txRef(e.tx_hash, e.explorer_url !== undefined ? e.explorer_url : links[e.tx_hash])),
      tdn(e.gas_used !== undefined ? num(e.gas_used) : dash()), tdn(e.effective_gas_price !== undefined ? approx(e.effective_gas_price, { decimals: 9, unit: 'gwei' }) : dash()),
      tdn(approx(e.gas_spend_wei, { bare: true })), tdn(approx(e.value_wei, { bare: true })), td(e.reorged ? badge('reorged') : e.reverted ? badge('reverted') : badge('confirmed')))));
    const totalCount = total.tx_count;
    more.hidden = !(entries.length < totalCount && limit < MAX_LIMIT && entries.length === limit);
    count.textContent = entries.length === 0 ? 'No settled sends.' : 'newest ' + entries.length + ' of ' + totalCount + (entries.length < totalCount && limit >= MAX_LIMIT ? ' (the API returns at most ' + MAX_LIMIT + '; narrow the filters or use `chainflow spend export`)' : '');
  };
  // While more entries load the button says so with aria-disabled: a disabled button would drop the focus it has.
  let busy = false;
  more.addEventListener('click', () => {
    if (busy) return;
    busy = true;
    limit = Math.min(MAX_LIMIT, limit + 50);
    more.setAttribute('aria-disabled', 'true');
    fetchSpend().then((d) => {
      busy = false;
      more.removeAttribute('aria-disabled');
      links = d.explorer_urls || {};
      const shown = tbody.children.length;
      const hadFocus = document.activeElement === more;
      fill(d.entries);
      // The last entries hide the button: focus moves on to the first of them rather than falling to <body>.
      if (more.hidden && hadFocus) focusOn(tbody.children[shown] || tbody.firstElementChild);
    }, (err) => { busy = false; more.removeAttribute('aria-disabled'); fail(ctx, err, body); });
  });
  body.append(h('h2', null, 'Newest settled sends'),
    h('div', { class: 'tablewrap' }, h('table', { class: 'entries' }, h('thead', null, h('tr', null, ['recorded (UTC)', 'workflow', 'run', 'relayer', 'network', 'tx hash'].map((c) => h('th', null, c)),
      ['gas used', 'gas price', 'gas spend (ETH)', 'value (ETH)'].map((c) => h('th', { class: 'num' }, c)), h('th', null, 'result'))), tbody)), more, count);
  fill(data.entries);
}
