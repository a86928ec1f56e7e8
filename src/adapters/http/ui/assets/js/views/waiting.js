// Waiting: the runs parked now, due or expiring when.
import { badge, h, td } from '../dom.js';
import { idv, link, runRef } from '../links.js';
import { filterForm, pagedTable, pick, SINCE, UNTIL, WAIT_KINDS } from '../lists.js';
import { main } from '../router.js';
import { rel, time } from '../values.js';

function waitingRow(w) {
  return h('tr', { 'data-run': w.run_id },
    td(time(w.parked_at)), td(runRef(w.run_id)), td(link(w.workflow, 'waiting', { workflow: w.workflow })), td(badge(w.wait_kind)),
    td(idv(w.step_run_id, 'step run id')), td(rel(w.due_at)), td(rel(w.expires_at)));
}

export async function waitingView(ctx) {
  ctx.title('Waiting');
  const fields = [{ name: 'workflow' }, { name: 'wait_kind', label: 'wait kind', options: WAIT_KINDS }, SINCE, UNTIL];
  const t = pagedTable(ctx, {
    path: '/api/history/waiting', query: pick(ctx.params, ['workflow', 'wait_kind', 'since', 'until', 'limit']),
    columns: ['parked (UTC)', 'run', 'workflow', 'wait kind', 'step run', 'due', 'expires'],
    empty: 'No run is parked now.', row: waitingRow,
  });
  main.append(h('h1', null, 'Waiting runs'), filterForm('waiting', fields, ctx.params, { limit: 1 }), t.el);
  await t.load();
}
