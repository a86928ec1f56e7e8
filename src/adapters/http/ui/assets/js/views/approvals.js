// Approvals, pending and decided: who decided and why; a pending one can be approved or rejected here.
import { api } from '../api.js';
import { approvalButtons, focusIfLost } from '../actions.js';
import { badge, dash, h, td, tdw, txt } from '../dom.js';
import { idv, link, runRef } from '../links.js';
import { APPROVAL_STATUSES, filterForm, pagedTable, pick, SINCE, UNTIL } from '../lists.js';
import { main } from '../router.js';
import { time } from '../values.js';

/** The approval as the journal has it now (from its run's timeline), or null. */
export async function freshApproval(a) {
  const tl = await api('/api/history/runs/' + encodeURIComponent(a.run_id) + '/timeline');
  const e = tl.events.find((x) => x.kind === 'approval' && x.approval && x.approval.approval_id === a.approval_id);
  return e ? e.approval : null;
}

function approvalRow(a) {
  const tr = h('tr', { 'data-approval': a.approval_id },
    td(time(a.requested_at)), td(idv(a.approval_id, 'approval id')), td(runRef(a.run_id)), td(link(a.workflow, 'approvals', { workflow: a.workflow })), td(badge(a.status)),
    tdw(txt(a.message)), td(time(a.expires_at)), td(a.decided_by || a.decided_at ? [txt(a.decided_by), h('div', { class: 'muted' }, time(a.decided_at))] : dash()), tdw(txt(a.reason)));
  // After a decision (or a refusal saying it was decided meanwhile), the row is read again from the journal.
  const refresh = () => freshApproval(a).then((now) => {
    if (!now || !tr.isConnected) return;
    const next = approvalRow(now);
    tr.replaceWith(next);
    focusIfLost(next);
  }, () => undefined);
  tr.append(td(approvalButtons(a, refresh)));
  return tr;
}

export async function approvalsView(ctx) {
  ctx.title('Approvals');
  const fields = [{ name: 'workflow' }, { name: 'status', options: APPROVAL_STATUSES, any: 'pending and decided' }, SINCE, UNTIL];
  const t = pagedTable(ctx, {
    path: '/api/history/approvals', query: pick(ctx.params, ['workflow', 'status', 'since', 'until', 'limit']),
    columns: ['requested (UTC)', 'approval', 'run', 'workflow', 'status', 'message', 'expires', 'decided by', 'why', '~decide'],
    empty: 'No approvals match these filters.', row: approvalRow,
  });
  main.append(h('h1', null, 'Approvals'), filterForm('approvals', fields, ctx.params, { limit: 1 }), t.el);
  await t.load();
}
