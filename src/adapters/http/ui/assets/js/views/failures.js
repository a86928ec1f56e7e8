// Failures and dead-letters: two lists of runs (failed, dead-lettered), or one with `status`.
import { h } from '../dom.js';
import { filterForm, pagedTable, pick, SINCE, UNTIL } from '../lists.js';
import { main } from '../router.js';
import { RUN_COLUMNS, runRow } from './runs.js';

export async function failuresView(ctx) {
  ctx.title('Failures');
  const show = ctx.params.get('status');
  const base = pick(ctx.params, ['workflow', 'error_kind', 'network', 'trigger', 'since', 'until', 'limit']);
  main.append(h('h1', null, 'Failures and dead-letters'),
    filterForm('failures', [{ name: 'workflow' }, { name: 'status', label: 'show', any: 'failed and dead-lettered', options: ['failed', 'dead_lettered'] }, { name: 'error_kind', label: 'error kind' }, { name: 'network' }, { name: 'trigger' }, SINCE, UNTIL], ctx.params, { limit: 1 }));
  const tables = [];
  for (const status of ['failed', 'dead_lettered']) {
    if (show && show !== status) continue;
    const q = new URLSearchParams(base);
    q.set('status', status);
    const t = pagedTable(ctx, { path: '/api/history/runs', query: q, columns: RUN_COLUMNS, empty: 'No ' + status.replace('_', '-') + ' runs.', row: (r) => runRow(r, null) });
    main.append(h('h2', null, status === 'failed' ? 'Failed runs' : 'Dead-lettered runs'), t.el);
    tables.push(t);
  }
  await Promise.all(tables.map((t) => t.load()));
}
