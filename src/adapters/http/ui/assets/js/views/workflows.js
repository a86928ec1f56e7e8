// Workflows: the overview of the journal (SPEC), and the workflows configured in this server's engine with
// Pause / Resume (CONTRACT 8.4).
import { api, ApiError } from '../api.js';
import { pauseButton } from '../actions.js';
import { badge, dash, h, name, small, td, tdn, tdw, txt } from '../dom.js';
import { link } from '../links.js';
import { pagedTable, pick } from '../lists.js';
import { main, render } from '../router.js';
import { dur, num, rel, time } from '../values.js';

/** How far an event trigger's cursor is behind the chain head: the lag in blocks, both blocks in the tooltip. */
function lag(w) {
  if (w.cursor_block === null && w.head_block === null) return dash();
  const title = 'cursor block ' + num(w.cursor_block) + ' / head block ' + num(w.head_block);
  if (w.lag_blocks === null || w.lag_blocks === undefined) return h('span', { title }, num(w.cursor_block));
  return h('span', { class: w.lag_blocks > 0 ? 'err' : 'muted', title }, num(w.lag_blocks));
}

function overview(ctx) {
  return pagedTable(ctx, {
    path: '/api/history/workflows', query: pick(ctx.params, ['limit']),
    columns: ['workflow', 'state', 'trigger', 'last run (UTC)', 'last success', 'last failure', '#successes', '#failures', '#waiting', '#median', '#p95', '#txs', 'recent error', '#lag (blocks)'],
    empty: 'No workflows yet.',
    row: (w) => h('tr', { 'data-workflow': w.workflow },
      td(link(w.workflow, 'runs', { workflow: w.workflow })),
      td(w.paused === null || w.paused === undefined ? dash() : badge(w.paused ? 'paused' : 'active')),
      td(txt(w.trigger)), td(time(w.last_run_at)), td(time(w.last_success_at)), td(time(w.last_failure_at)),
      tdn(num(w.success_count)),
      tdn(w.failure_count ? link(String(w.failure_count), 'failures', { workflow: w.workflow }) : num(w.failure_count)),
      tdn(w.runs_waiting ? link(String(w.runs_waiting), 'waiting', { workflow: w.workflow }) : num(w.runs_waiting)),
      tdn(dur(w.median_duration_ms)), tdn(dur(w.p95_duration_ms)),
      tdn(w.tx_count ? link(String(w.tx_count), 'txs', { workflow: w.workflow }) : num(w.tx_count)),
      td(name(w.recent_error_kind)), tdn(lag(w))),
  });
}

/** The engine's workflows (`GET /api/workflows`): trigger, pause state, next cron tick, runs held now. */
function configured(list) {
  if (!list.items.length) return h('p', { class: 'muted' }, 'No workflows are configured in this server\'s chainflow.yaml.');
  return small(['workflow', 'trigger', 'state', 'next tick (UTC)', '#runs held now', 'steps', '~pause or resume'], list.items.map((w) => h('tr', { 'data-workflow': w.workflow },
    td(link(w.workflow, 'runs', { workflow: w.workflow })),
    td(txt(w.trigger), w.schedule ? h('span', { class: 'muted' }, ' ', w.schedule) : null),
    td(badge(w.paused ? 'paused' : 'active')),
    td(w.next_tick_at ? rel(w.next_tick_at) : dash()),
    tdn(num(w.lease_holders)),
    tdw(w.steps.length ? w.steps.join(', ') : dash()),
    td(pauseButton(w, render)))));
}

export async function workflowsView(ctx) {
  ctx.title('Workflows');
  const t = overview(ctx);
  const engine = api('/api/workflows', ctx.signal).catch((err) => err);
  const controls = h('section', { class: 'configured' });
  main.append(h('h1', null, 'Workflows'), t.el, h('h2', null, 'Configured in this server'), controls);
  await t.load();
  const list = await engine;
  if (ctx.signal.aborted) return;
  if (list instanceof ApiError && list.status === 404) controls.append(h('p', { class: 'muted' }, 'Not available on this server (GET /api/workflows answered 404).'));
  else if (list instanceof Error) throw list;
  else controls.append(configured(list));
}
