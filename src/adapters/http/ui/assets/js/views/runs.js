// Runs history: every run filter, kept in the hash; tick two runs to compare them.
import { badge, dash, h, name, td, tdn, txt } from '../dom.js';
import { idv, link, route, runRef } from '../links.js';
import { APPROVAL_STATUSES, filterForm, pagedTable, pick, RUN_STATUSES, SESSIONS, SINCE, UNTIL } from '../lists.js';
import { main } from '../router.js';
import { dur, time } from '../values.js';

const RUN_FILTERS = [
  { name: 'workflow' }, { name: 'status', options: RUN_STATUSES }, { name: 'session', options: SESSIONS }, { name: 'trigger', ph: 'cron, webhook, event\u2026' },
  SINCE, UNTIL,
  { name: 'network', more: true }, { name: 'relayer', more: true }, { name: 'contract', more: true, ph: '0x\u2026' }, { name: 'tx_hash', label: 'tx hash', more: true, ph: '0x\u2026' },
  { name: 'block', more: true }, { name: 'run_id', label: 'run id', more: true }, { name: 'step_id', label: 'step id', more: true }, { name: 'error_kind', label: 'error kind', more: true },
  { name: 'approval_status', label: 'approval status', options: APPROVAL_STATUSES, more: true },
  { name: 'session_id', label: 'session id', more: true },
];
const RUN_PARAMS = RUN_FILTERS.map((f) => f.name).concat('limit');

export const RUN_COLUMNS = ['run', 'workflow', 'status', 'trigger', 'session', 'network', 'relayers', 'tx hashes', 'error kind', 'approval', 'wait', 'created (UTC)', '#duration'];

/** One run as a row of RUN_COLUMNS; with `selection`, a first cell ticks it for the compare view. */
export function runRow(r, selection) {
  const box = selection ? h('input', { type: 'checkbox', 'aria-label': 'select for compare', checked: selection.has(r.run_id) }) : null;
  const tr = h('tr', { 'data-run': r.run_id },
    selection ? td(box) : null,
    td(runRef(r.run_id)), td(link(r.workflow, 'runs', { workflow: r.workflow })), td(badge(r.status)), td(txt(r.trigger)),
    td(r.session === 'live' ? txt(r.session) : badge(r.session)), td(name(r.network)),
    td(r.relayers && r.relayers.length ? r.relayers.map((x, i) => [i ? ', ' : '', link(x, 'runs', { relayer: x })]) : dash()),
    td(r.tx_hashes && r.tx_hashes.length ? r.tx_hashes.map((x) => idv(x, 'transaction hash')) : dash()),
    td(name(r.error_kind)), td(r.approval_status ? badge(r.approval_status) : dash()), td(txt(r.wait_kind)),
    td(time(r.created_at)), tdn(dur(r.duration_ms)));
  if (box) box.addEventListener('change', () => selection.toggle(r.run_id, box.checked));
  return tr;
}

/** Up to two runs ticked in a list, for the compare view. */
function compareSelection(container) {
  const chosen = [];
  const btn = h('button', { type: 'button', disabled: true }, 'Compare 2 selected runs');
  const note = h('span', { class: 'muted' }, ' tick two runs to compare them');
  btn.addEventListener('click', () => { location.hash = route('compare', { a: chosen[0], b: chosen[1] }); });
  return {
    el: h('p', null, btn, note),
    has: (id) => chosen.includes(id),
    toggle(id, on) {
      const i = chosen.indexOf(id);
      if (on && i < 0) chosen.push(id);
      if (!on && i >= 0) chosen.splice(i, 1);
      while (chosen.length > 2) {
        const dropped = chosen.shift();
        const row = [...container.querySelectorAll('tr[data-run]')].find((tr) => tr.dataset.run === dropped);
        const cb = row && row.querySelector('input[type=checkbox]');
        if (cb) cb.checked = false;
      }
      btn.disabled = chosen.length !== 2;
    },
  };
}

let firstPageMarked = false;

export async function runsView(ctx) {
  ctx.title('Runs');
  const holder = h('div');
  const sel = compareSelection(holder);
  const t = pagedTable(ctx, {
    path: '/api/history/runs', query: pick(ctx.params, RUN_PARAMS),
    columns: ['~compare'].concat(RUN_COLUMNS), empty: 'No runs match these filters.', row: (r) => runRow(r, sel),
  });
  holder.append(t.el);
  main.append(h('h1', null, 'Runs'), filterForm('runs', RUN_FILTERS, ctx.params, { limit: 1 }), sel.el, holder);
  await t.load();
  if (!ctx.signal.aborted && !firstPageMarked) {
    // For the UI benchmark: the first page of runs is in the DOM, then (after the next frame) on screen.
    firstPageMarked = true;
    performance.mark('chainflow:runs-first-page');
    requestAnimationFrame(() => setTimeout(() => performance.mark('chainflow:runs-first-paint'), 0));
  }
}
