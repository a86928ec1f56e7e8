// Reorg responses: each durable on_reorg response with its steps, both blocks linked to the network's explorer (the
// block now at the height by its number, the removed one by its hash) where the API resolved one.
import { badge, dash, errorText, h, json, name, td, tdn, tdw, txt } from '../dom.js';
import { extLink, extRef, idv, link, runRef } from '../links.js';
import { filterForm, pagedTable, pick, SINCE, UNTIL } from '../lists.js';
import { main } from '../router.js';
import { num, time } from '../values.js';

export async function reorgsView(ctx) {
  ctx.title('Reorg responses');
  const fields = [{ name: 'workflow' }, { name: 'network' }, SINCE, UNTIL];
  const t = pagedTable(ctx, {
    path: '/api/history/reorgs', query: pick(ctx.params, ['workflow', 'network', 'since', 'until', 'limit']),
    columns: ['created (UTC)', 'reorg', 'affected run', 'workflow', 'network', '#block', 'removed block hash', 'steps'],
    empty: 'No reorg responses.',
    row: (r) => h('tr', null, td(time(r.created_at)), td(idv(r.reorg_id, 'reorg id')), td(runRef(r.run_id)), td(link(r.workflow, 'reorgs', { workflow: r.workflow })), td(name(r.network)), tdn(extLink(num(r.block), r.block_url, 'the block now at this height')),
      td(extRef(r.removed_block_hash, 'removed block hash', r.removed_block_url)),
      tdw(r.steps.length ? h('ol', { class: 'steps' }, r.steps.map((s) => h('li', null, h('strong', null, txt(s.step_id)), ' ', badge(s.status), ' ', time(s.at),
        s.error ? [' ', errorText(s.error)] : null, s.output !== null && s.output !== undefined ? json(s.output) : null))) : dash())),
  });
  main.append(h('h1', null, 'Reorg responses'), filterForm('reorgs', fields, ctx.params, { limit: 1 }), t.el);
  await t.load();
}
