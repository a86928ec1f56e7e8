// Run detail: the summary, the replay/test marker, and the timeline (trigger with payload and condition results;
// each step with attempts and retries, redacted input and output, error, simulation, gas-cap checks, the
// transaction lifecycle of its sends, wait parking; approvals; reorg response steps). A running or parked run can
// be cancelled here, a pending approval decided.
import { api, ApiError } from '../api.js';
import { approvalButtons, cancelButton } from '../actions.js';
import { badge, dash, errorText, h, json, kv, notice, small, td, tdn, tdw, txt } from '../dom.js';
import { extLink, extRef, idv, link, runRef, txRef } from '../links.js';
import { main, rerender } from '../router.js';
import { dur, num, rel, time, wei } from '../values.js';
import { SEND_COLUMNS, sendRow } from './txs.js';

/** The log an event run started from: its block, transaction and place, linked to the network's explorer. */
function logInfo(l) {
  return [h('h3', null, 'Log'), kv([
    ['network', txt(l.network)], ['contract', extRef(l.contract, 'contract address', l.contract_url)],
    ['block', [num(l.block_number), ' ', extRef(l.block_hash, 'block hash', l.block_url)]], ['block time', time(l.block_time)],
    ['transaction', txRef(l.tx_hash, l.tx_url)], ['log index', num(l.log_index)],
  ])];
}

/** The reorg responses naming this run: the removed block, the block now at its height, and a link to the responses. */
function reorgLinks(e, run) {
  return [h('h3', null, 'Reorged'), small(['response', 'at (UTC)', '#block', 'removed block', 'block now'], e.reorgs.map((r) => h('tr', { 'data-reorg': r.reorg_id },
    td(idv(r.reorg_id, 'reorg id'), ' ', link('responses', 'reorgs', { workflow: run.workflow, network: r.network })), td(time(r.created_at)), tdn(num(r.block)),
    td(extRef(r.removed_block_hash, 'removed block hash', r.removed_block_url)),
    td(r.block_url ? extLink('block ' + num(r.block) + ' now', r.block_url) : dash()))))];
}

function triggerEvent(e, run) {
  const t = e.trigger || {};
  return [
    kv([['kind', txt(t.kind)], ['summary', txt(t.summary)], ['network', txt(e.network)], ['contract', idv(e.contract, 'contract address')], ['block', num(e.block)]]),
    e.log ? logInfo(e.log) : null,
    e.reorgs && e.reorgs.length ? reorgLinks(e, run) : null,
    h('h3', null, 'Payload'), json(t.payload),
    h('h3', null, 'Conditions'),
    e.conditions && e.conditions.length
      ? small(['condition', 'result', 'detail'], e.conditions.map((c) => h('tr', null, td(txt(c.name)), td(badge(c.passed ? 'passed' : 'failed')), tdw(c.detail === null ? dash() : json(c.detail)))))
      : h('p', { class: 'muted' }, 'No conditions journaled.'),
  ];
}

function stepEvent(e) {
  const out = [kv([['step run', idv(e.step_run_id, 'step run id')], ['type', txt(e.step_type)]])];
  if (e.attempts && e.attempts.length) {
    out.push(h('h3', null, e.attempts.length > 1 ? 'Attempts (' + e.attempts.length + ', retried)' : 'Attempts'),
      small(['attempt', 'started', 'finished', 'status', 'error'], e.attempts.map((a) => h('tr', null, tdn(num(a.attempt)), td(time(a.started_at)), td(time(a.finished_at)), td(badge(a.status)), tdw(errorText(a.error))))));
  }
  out.push(h('h3', null, 'Input'), json(e.input), h('h3', null, 'Output'), json(e.output));
  if (e.error) out.push(h('h3', null, 'Error'), h('p', null, errorText(e.error)));
  if (e.simulation) {
    const s = e.simulation;
    out.push(h('h3', null, 'Simulation'), kv([['result', badge(s.ok ? 'ok' : 'failed')], ['gas estimate', num(s.gas_estimate)], ['revert reason', txt(s.revert_reason)], ['at', time(s.at)]]));
  }
  if (e.budget_checks && e.budget_checks.length) {
    out.push(h('h3', null, 'Gas-cap checks'), small(['budget', '#recorded spend', '#cap', 'decision', 'at'], e.budget_checks.map((b) => h('tr', null,
      td(txt(b.budget)), tdn(wei(b.spent_wei)), tdn(wei(b.cap_wei)), td(badge(b.allowed ? 'allowed' : 'refused')), td(time(b.at))))));
  }
  if (e.sends && e.sends.length) {
    out.push(h('h3', null, 'Transaction lifecycle'), small(SEND_COLUMNS.filter((c) => c !== 'run' && c !== 'workflow'), e.sends.map((s) => sendRow(s, false))));
  }
  if (e.wait) {
    const w = e.wait;
    out.push(h('h3', null, 'Parked'), kv([['wait kind', badge(w.wait_kind)], ['parked', time(w.parked_at)], ['due', rel(w.due_at)], ['expires', rel(w.expires_at)], ['resumed', w.resumed_at ? time(w.resumed_at) : badge('waiting')]]));
  }
  return out;
}

function approvalEvent(e) {
  const a = e.approval || {};
  return [kv([['approval', idv(a.approval_id, 'approval id')], ['step run', idv(a.step_run_id, 'step run id')], ['message', txt(a.message)], ['requested', time(a.requested_at)],
    ['expires', time(a.expires_at)], ['decided', time(a.decided_at)], ['decided by', txt(a.decided_by)], ['why', txt(a.reason)]]),
  approvalButtons(a, () => rerender('li[data-approval="' + CSS.escape(String(a.approval_id)) + '"]'))];
}

function reorgEvent(e, run) {
  const out = [kv([['reorg', [idv(e.reorg_id, 'reorg id'), ' ', link('all responses', 'reorgs', { workflow: run.workflow, network: e.network })]], ['network', txt(e.network)], ['block', num(e.block)], ['removed block', idv(e.removed_block_hash, 'block hash')]])];
  out.push(h('h3', null, 'Output'), json(e.output));
  if (e.error) out.push(h('h3', null, 'Error'), h('p', null, errorText(e.error)));
  return out;
}

const EVENT_TITLE = { trigger: 'Trigger', step: 'Step', approval: 'Approval', reorg_step: 'Reorg response step' };

function timeline(tl) {
  const r = tl.run;
  const ol = h('ol', { class: 'timeline' });
  for (const e of tl.events) {
    const title = e.kind === 'step' || e.kind === 'reorg_step' ? e.step_id : e.kind === 'approval' ? (e.approval && e.approval.workflow) : e.trigger && e.trigger.kind;
    const status = e.kind === 'step' || e.kind === 'reorg_step' ? e.status : e.kind === 'approval' ? e.approval && e.approval.status : null;
    const body = e.kind === 'trigger' ? triggerEvent(e, r) : e.kind === 'step' ? stepEvent(e) : e.kind === 'approval' ? approvalEvent(e) : e.kind === 'reorg_step' ? reorgEvent(e, r) : json(e);
    ol.append(h('li', { class: 'ev ev-' + e.kind, 'data-kind': e.kind, 'data-approval': e.kind === 'approval' && e.approval ? e.approval.approval_id : null },
      h('div', { class: 'evh' }, h('span', { class: 'badge' }, EVENT_TITLE[e.kind] || e.kind), h('span', { class: 't' }, txt(title)), status ? badge(status) : null, h('span', { class: 'muted' }, time(e.at))),
      body));
  }
  return tl.events.length ? ol : h('p', { class: 'muted' }, 'No events.');
}

function summary(tl) {
  const r = tl.run;
  const explorer = new Map();
  for (const e of tl.events) if (e.kind === 'step') for (const s of e.sends || []) if (s.tx_hash) explorer.set(s.tx_hash, s.explorer_url);
  return kv('summary', [
    ['workflow', link(r.workflow, 'runs', { workflow: r.workflow })], ['status', badge(r.status)], ['trigger', txt(r.trigger)], ['session', txt(r.session)],
    ['session id', idv(r.session_id, 'session id')], ['replay of', r.replay_of ? runRef(r.replay_of) : dash()], ['network', txt(r.network)],
    ['contract', idv(r.contract, 'contract address')], ['block', num(r.block)],
    ['relayers', r.relayers.length ? r.relayers.map((x, i) => [i ? ', ' : '', link(x, 'runs', { relayer: x })]) : dash()],
    ['tx hashes', r.tx_hashes.length ? r.tx_hashes.map((x) => h('div', null, txRef(x, explorer.get(x)))) : dash()],
    ['step ids', r.step_ids.length ? r.step_ids.join(', ') : dash()], ['error kind', txt(r.error_kind)], ['approval', badge(r.approval_status)],
    ['waiting on', txt(r.wait_kind)], ['created', time(r.created_at)], ['finished', time(r.finished_at)], ['duration', dur(r.duration_ms)],
  ]);
}

export async function runView(ctx) {
  const id = ctx.arg;
  ctx.title('Run ' + id);
  if (!id) { main.append(notice('No run id in the address.', 'error')); return; }
  let tl;
  try {
    tl = await api('/api/history/runs/' + encodeURIComponent(id) + '/timeline', ctx.signal);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      main.append(h('h1', null, 'Run ', h('code', null, id)), notice('Run not found.', 'error'));
      return;
    }
    throw err;
  }
  if (ctx.signal.aborted) return;
  const r = tl.run;
  main.append(h('h1', null, 'Run ', idv(r.run_id, 'run id'), badge(r.status), r.session !== 'live' ? h('span', { class: 'badge b-info marker' }, r.session.toUpperCase()) : null,
    cancelButton(r, () => rerender('h1'))));
  if (r.session !== 'live') {
    main.append(h('div', { class: 'notice marker' }, 'This is a ', h('strong', null, r.session), ' run',
      r.session_id ? [' of session ', idv(r.session_id, 'session id')] : null,
      r.replay_of ? [', replaying ', runRef(r.replay_of), ' \u00b7 ', link('compare with the original', 'compare', { a: r.replay_of, b: r.run_id })] : null,
      ': isolated from live sends and spend.'));
  }
  main.append(summary(tl), h('p', null, link('Compare with another run\u2026', 'compare', { a: r.run_id })));
  main.append(h('h2', null, 'Timeline'), timeline(tl));
}
