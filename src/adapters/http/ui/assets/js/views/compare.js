// Compare two runs: run fields, trigger, steps side by side with their differences, sends (GET /api/history/diff).
import { api } from '../api.js';
import { badge, h, notice, small, td, tdw, txt, val } from '../dom.js';
import { runRef } from '../links.js';
import { filterForm } from '../lists.js';
import { main } from '../router.js';
import { dur, time } from '../values.js';

function changesTable(changes) {
  if (!changes.length) return h('p', { class: 'muted' }, 'No differences.');
  return small(['field', 'run a', 'run b'], changes.map((c) => h('tr', null, td(h('code', null, c.path)), h('td', { class: 'diffv' }, val(c.a)), h('td', { class: 'diffv' }, val(c.b)))));
}

const side = (r) => h('div', { class: 'tile' }, h('div', { class: 'k' }, runRef(r.run_id)), h('div', null, txt(r.workflow), ' ', badge(r.status), ' ', r.session !== 'live' ? badge(r.session) : null),
  h('div', { class: 's' }, time(r.created_at), ' \u00b7 ', dur(r.duration_ms)));

const stepSide = (s) => (s ? [badge(s.status), ' ', s.attempts + (s.attempts === 1 ? ' attempt' : ' attempts'), ' \u00b7 ', dur(s.duration_ms)] : h('span', { class: 'muted' }, 'not run'));

export async function compareView(ctx) {
  ctx.title('Compare runs');
  const a = ctx.params.get('a') || '';
  const b = ctx.params.get('b') || '';
  main.append(h('h1', null, 'Compare two runs'), filterForm('compare', [{ name: 'a', label: 'run a' }, { name: 'b', label: 'run b' }], ctx.params));
  if (!a || !b) {
    main.append(notice('Give two run ids, or tick two runs in the Runs view.'));
    return;
  }
  const d = await api('/api/history/diff?' + new URLSearchParams({ a, b }), ctx.signal);
  if (ctx.signal.aborted) return;
  main.append(h('div', { class: 'cmp' }, side(d.a), side(d.b)));
  main.append(h('h2', null, 'Run'), changesTable(d.run), h('h2', null, 'Trigger'), changesTable(d.trigger));
  main.append(h('h2', null, 'Steps'), d.steps.length ? small(['step', 'run a', 'run b', 'differences'], d.steps.map((s) => h('tr', null,
    td(h('strong', null, txt(s.step_id))), td(stepSide(s.a)), td(stepSide(s.b)),
    tdw(s.changes.length ? h('ul', null, s.changes.map((c) => h('li', null, h('code', null, c.path), ': ', val(c.a), ' \u2192 ', val(c.b)))) : h('span', { class: 'muted' }, 'same'))))) : h('p', { class: 'muted' }, 'Neither run ran a step.'));
  main.append(h('h2', null, 'Sends'), changesTable(d.sends));
}
