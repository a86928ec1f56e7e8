// Approvals, pending and decided: who decided and why.
import { badge, dash, h, td, tdw, txt } from '../dom.js';
import { idv, link, runRef } from '../links.js';
import { APPROVAL_STATUSES, filterForm, pagedTable, pick, SINCE, UNTIL } from '../lists.js';
import { main } from '../router.js';
import { time } from '../values.js';

function approvalRow(a) {
  const tr = h('tr', { 'data-approval': a.approval_id },
    td(time(a.requested_at)), td(idv(a.approval_id, 'approval id')), td(runRef(a.run_id)), td(link(a.workflow, 'approvals', { workflow: a.workflow })), td(badge(a.status)),
    tdw(txt(a.message)), td(time(a.expires_at)), td(a.decided_by || a.decided_at ? [txt(a.decided_by), h('div', { class: 'muted' }, time(a.decided_at))] : dash()), tdw(txt(a.reason)));
  return tr;
}

export async function approvalsView(ctx) {
  ctx.title('Approvals');
  const fields = [{ name: 'workflow' }, { name: 'status', options: APPROVAL_STATUSES, any: 'pending and decided' }, SINCE, UNTIL];
  const t = pagedTable(ctx, {
    path: '/api/history/approvals', query: pick(ctx.params, ['workflow', 'status', 'since', 'until', 'limit']),
    columns: ['requested (UTC)', 'approval', 'run', 'workflow', 'status', 'message', 'expires', 'decided by', 'why'],
    empty: 'No approvals match these filters.', row: approvalRow,
  });
  main.append(h('h1', null, 'Approvals'), filterForm('approvals', fields, ctx.params, { limit: 1 }), t.el);
  await t.load();
}
