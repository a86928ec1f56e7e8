// Waiting: the runs parked now, due or expiring when; a parked run can be cancelled here.
import { api } from '../api.js';
import { cancelButton, focusIfLost } from '../actions.js';
import { badge, h, td } from '../dom.js';
import { idv, link, runRef } from '../links.js';
import { filterForm, pagedTable, pick, SINCE, UNTIL, WAIT_KINDS } from '../lists.js';
import { main } from '../router.js';
import { rel, time } from '../values.js';

function waitingRow(w) {
  const acts = td();
  const tr = h('tr', { 'data-run': w.run_id },
    td(time(w.parked_at)), td(runRef(w.run_id)), td(link(w.workflow, 'waiting', { workflow: w.workflow })), td(badge(w.wait_kind)),
    td(idv(w.step_run_id, 'step run id')), td(rel(w.due_at)), td(rel(w.expires_at)), acts);
  // A parked run is `waiting`; after a cancel (or a refusal: it ended meanwhile) the cell shows its status now.
  const after = () => api('/api/history/runs?' + new URLSearchParams({ run_id: w.run_id })).then((page) => {
    const run = page.items[0];
    if (!run || run.status === 'waiting') return;
    const now = badge(run.status);
    acts.replaceChildren(now);
    focusIfLost(now);
  }, () => undefined);
  acts.append(cancelButton({ run_id: w.run_id, workflow: w.workflow, status: 'waiting' }, after));
  return tr;
}

export async function waitingView(ctx) {
  ctx.title('Waiting');
  const fields = [{ name: 'workflow' }, { name: 'wait_kind', label: 'wait kind', options: WAIT_KINDS }, SINCE, UNTIL];
  const t = pagedTable(ctx, {
    path: '/api/history/waiting', query: pick(ctx.params, ['workflow', 'wait_kind', 'since', 'until', 'limit']),
    columns: ['parked (UTC)', 'run', 'workflow', 'wait kind', 'step run', 'due', 'expires', '~cancel'],
    empty: 'No run is parked now.', row: waitingRow,
  });
  main.append(h('h1', null, 'Waiting runs'), filterForm('waiting', fields, ctx.params, { limit: 1 }), t.el);
  await t.load();
}
