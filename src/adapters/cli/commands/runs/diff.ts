import { Args, Flags } from '@oclif/core';
import { DiffRuns } from '../../../../application/history/diff-runs.use-case';
import type { FieldChange, RunDiff } from '../../../../application/history/run-diff';
import { ChainflowCommand } from '../../base.command';
import { humanDuration, terminalSafe } from '../../table';

/** `chainflow runs diff <run-a> <run-b>`: what differs between two runs. */
export default class RunsDiff extends ChainflowCommand {
  static override summary = 'Compare two runs: trigger, steps (aligned by step id) and sends';
  static override args = {
    'run-a': Args.string({ required: true, description: 'first run id' }),
    'run-b': Args.string({ required: true, description: 'second run id' }),
  };
  static override flags = { json: Flags.boolean({ description: 'print the comparison exactly, as the API does' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(RunsDiff);
    const root = await this.root(flags.config);
    const diff = await root.container.get(DiffRuns).execute(args['run-a'], args['run-b'], ['run-a', 'run-b']);
    if (flags.json) {
      this.log(JSON.stringify(diff, null, 2));
      return;
    }
    for (const line of render(diff)) this.log(terminalSafe(line));
  }
}

const show = (v: unknown): string => (v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v));
const changes = (list: readonly FieldChange[], indent: string): string[] =>
  list.map((c) => `${indent}${c.path}: ${show(c.a)} -> ${show(c.b)}`);

function render(d: RunDiff): string[] {
  const lines = [
    `a: ${d.a.run_id}  ${d.a.workflow}  ${d.a.status}  ${d.a.created_at}`,
    `b: ${d.b.run_id}  ${d.b.workflow}  ${d.b.status}  ${d.b.created_at}`,
  ];
  if (d.run.length) lines.push('run:', ...changes(d.run, '  '));
  lines.push(d.trigger.length ? 'trigger:' : 'trigger: same', ...changes(d.trigger, '  '));
  lines.push('steps:');
  for (const s of d.steps) {
    const side = (x: RunDiff['steps'][number]['a']): string => (x ? `${x.status}, ${x.attempts} attempt(s), ${humanDuration(x.duration_ms)}` : 'not run');
    const mark = !s.a || !s.b ? '±' : s.changes.length ? '~' : '=';
    lines.push(`  ${mark} ${s.step_id}: a ${side(s.a)} | b ${side(s.b)}`, ...changes(s.changes, '      '));
  }
  lines.push(d.sends.length ? 'sends:' : 'sends: same', ...changes(d.sends, '  '));
  return lines;
}
