import { Args, Flags } from '@oclif/core';
import { GetRunTimeline } from '../../../../application/history/get-run-timeline.use-case';
import type { StepEvent, TimelineEvent } from '../../../../application/history/timeline';
import { formatNative } from '../../../../domain/wei';
import { ChainflowCommand } from '../../base.command';
import { terminalSafe } from '../../table';

/** `chainflow runs timeline <run-id>`: one run, chronologically. */
export default class RunsTimeline extends ChainflowCommand {
  static override summary = 'Show one run chronologically';
  static override args = { 'run-id': Args.string({ required: true, description: 'run id' }) };
  static override flags = { json: Flags.boolean({ description: 'print { run, events } as the API does' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RunsTimeline);
    const root = await this.root(flags.config);
    const timeline = await root.container.get(GetRunTimeline).execute(args['run-id']);
    if (flags.json) {
      this.log(JSON.stringify(timeline, null, 2));
      return;
    }
    const r = timeline.run;
    const symbol = (r.network ? root.config.networks.get(r.network)?.nativeSymbol : undefined) ?? 'ETH';
    this.log(`run ${r.run_id}  ${r.workflow}  ${r.status}${r.error_kind ? ` (${r.error_kind})` : ''}  session ${r.session}${r.replay_of ? ` replay of ${r.replay_of}` : ''}`);
    for (const e of timeline.events) this.log(describe(e, symbol).split('\n').map(terminalSafe).join('\n'));
  }
}

const text = (v: unknown): string => terminalSafe(v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * Amounts in the native unit of the run's network, exactly, as the other tables show them; a token cap
 * (`max_token_value`) counts the token's own base units.
 */
function budgetLine(b: StepEvent['budget_checks'][number], symbol: string): string {
  const amount = (v: string): string => (b.cap === 'max_token_value' ? `${v} base units` : formatNative(BigInt(v), symbol, 18));
  const request = b.request_wei ? `, this send ${amount(b.request_wei)}` : '';
  return `            budget ${b.budget} (${b.cap}): spent ${amount(b.spent_wei)} of ${amount(b.cap_wei)}${request}, ${b.allowed ? 'allowed' : 'refused'}`;
}

function describe(e: TimelineEvent, symbol: string): string {
  switch (e.kind) {
    case 'trigger': {
      const conditions = e.conditions.map((c) => `${c.name}=${c.passed ? 'pass' : 'fail'}`).join(' ');
      const lines = [`${e.at}  trigger   ${e.trigger.kind}${e.trigger.summary ? `: ${e.trigger.summary}` : ''}${conditions ? `  [${conditions}]` : ''}`];
      if (e.log) {
        const l = e.log;
        lines.push(`            log ${l.log_index} of ${l.contract}${l.network ? ` on ${l.network}` : ''}, block ${l.block_number} ${l.block_hash}${l.block_time ? ` (${l.block_time})` : ''}`);
        if (l.tx_hash) lines.push(`            tx ${l.tx_hash}${l.tx_url ? `  ${l.tx_url}` : ''}`);
        if (l.block_url) lines.push(`            block ${l.block_url}`);
      }
      for (const r of e.reorgs) {
        lines.push(`            reorged: ${r.reorg_id} at ${r.created_at} removed block ${r.block}${r.removed_block_hash ? ` ${r.removed_block_hash}` : ''}${r.removed_block_url ? `  ${r.removed_block_url}` : ''}`);
      }
      return lines.join('\n');
    }
    case 'step': {
      const lines = [`${e.at}  step      ${e.step_id} (${e.step_type}) ${e.status}, ${e.attempts.length} attempt(s)${e.error ? `  error ${e.error.kind}: ${text(e.error.message)}` : ''}`];
      if (e.simulation) lines.push(`            simulation ${e.simulation.ok ? 'ok' : `failed: ${text(e.simulation.revert_reason)}`}`);
      for (const b of e.budget_checks) lines.push(budgetLine(b, symbol));
      for (const s of e.sends) lines.push(`            send ${s.send_id} ${s.status}${s.outcome ? `/${s.outcome}` : ''} ${s.relayer}@${s.network} ${s.tx_hash ?? ''}`);
      if (e.wait) lines.push(`            parked (${e.wait.wait_kind}) at ${e.wait.parked_at}${e.wait.due_at ? ` due ${e.wait.due_at}` : ''}${e.wait.expires_at ? ` expires ${e.wait.expires_at}` : ''}`);
      return lines.join('\n');
    }
    case 'approval':
      return `${e.at}  approval  ${e.approval.status}${e.approval.decided_by ? ` by ${e.approval.decided_by}` : ''}${e.approval.reason ? `: ${e.approval.reason}` : ''}`;
    case 'reorg_step':
      return `${e.at}  reorg     ${e.reorg_id} block ${e.block}: ${e.step_id} ${e.status}`;
  }
}
