// Replay and test sessions with their run counts; the count links to the runs.
import { badge, dash, h, td, tdn } from '../dom.js';
import { idv, link } from '../links.js';
import { filterForm, pagedTable, pick, SINCE, UNTIL } from '../lists.js';
import { main } from '../router.js';
import { num, time } from '../values.js';

export async function replaysView(ctx) {
  ctx.title('Replay and test sessions');
  const fields = [{ name: 'workflow' }, { name: 'kind', options: ['replay', 'test'] }, SINCE, UNTIL];
  const t = pagedTable(ctx, {
    path: '/api/history/replays', query: pick(ctx.params, ['workflow', 'kind', 'since', 'until', 'limit']),
    columns: ['started (UTC)', 'session', 'kind', 'workflow', 'finished', '#runs', 'blocks'],
    empty: 'No replay or test sessions.',
    row: (s) => h('tr', null, td(time(s.created_at)), td(idv(s.session_id, 'session id')), td(badge(s.kind)), td(link(s.workflow, 'replays', { workflow: s.workflow })),
      td(s.finished_at ? time(s.finished_at) : badge('running')),
      // The session's own runs: the runs list filtered by its session_id.
      tdn(s.run_count ? link(String(s.run_count), 'runs', { session_id: s.session_id }) : num(s.run_count)),
      td(s.from_block === null && s.to_block === null ? dash() : [num(s.from_block), ' \u2192 ', num(s.to_block)])),
  });
  main.append(h('h1', null, 'Replay and test sessions'), filterForm('replays', fields, ctx.params, { limit: 1 }), t.el);
  await t.load();
}
