import { userInfo } from 'node:os';
import { Args, Flags } from '@oclif/core';
import { Engine } from '../../../application/engine/engine';
import { requireSecrets, workflowSecretPaths } from '../../../application/secrets-needed';
import { GetRunTimeline } from '../../../application/history/get-run-timeline.use-case';
import type { Timeline } from '../../../application/history/timeline';
import { parseIdempotencyKey } from '../../../domain/engine/idempotency-key';
import { InvalidInputError } from '../../../domain/errors';
import { parseExactJson } from '../../json';
import type { Json } from '../../../domain/journal/journal-event';
import { ChainflowCommand, EXIT_FAILURE } from '../base.command';

/** Who runs a command: the OS user, for trigger summaries and decisions. */
export function osUser(): string {
  try {
    return userInfo().username || 'cli';
  } catch {
    return 'cli';
  }
}

/** `--input JSON`: the run's payload, its numbers exact (CONTRACT 8.8: beyond 2^53, their decimal text). */
export function parseInput(text: string | undefined): Json | undefined {
  if (text === undefined) return undefined;
  try {
    return parseExactJson(text);
  } catch {
    throw new InvalidInputError('--input', 'must be JSON');
  }
}

/** What `run` and `test` share: start a run and drive it here until it ends or parks, then print it. */
export abstract class StartsRun extends ChainflowCommand {
  protected async runWorkflow(
    workflow: string, flags: { config?: string; input?: string; detach?: boolean; json?: boolean; 'idempotency-key'?: string }, session: 'live' | 'test',
  ): Promise<void> {
    const payload = parseInput(flags.input);
    const idempotencyKey = parseIdempotencyKey(flags['idempotency-key'], '--idempotency-key');
    const root = await this.root(flags.config);
    requireSecrets(root.config, workflowSecretPaths(root.config, workflow), `chainflow ${session === 'test' ? 'test' : 'run'} ${workflow}`);
    const engine = root.container.get(Engine);
    const request = {
      workflow, session,
      trigger: { kind: 'manual', summary: `manual by ${osUser()}`, ...(payload !== undefined ? { payload } : {}) },
      // A repeated key starts nothing: the run it started is printed as it stands now.
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    };
    let runId: string;
    if (flags.detach) {
      const { StartRun } = await import('../../../application/engine/start-run.use-case');
      runId = (await root.container.get(StartRun).execute(request)).runId;
    } else {
      runId = await engine.runHere(request);
    }
    const timeline = await root.container.get(GetRunTimeline).execute(runId);
    const { run } = timeline;
    if (flags.json) this.log(JSON.stringify(run, null, 2));
    else this.log(`${run.run_id} ${run.status}${errorOf(timeline)}${run.wait_kind ? ` (waiting: ${run.wait_kind})` : ''}`);
    if (run.status === 'failed' || run.status === 'dead_lettered') this.exit(EXIT_FAILURE);
  }
}

/**
 * ` (kind: message)` of a run that ended in error: the message is what tells an operator what to fix, the kind only
 * which family it is. The message is the last step's whose error is the run's (already redacted, as all timeline data).
 */
function errorOf(timeline: Timeline): string {
  const kind = timeline.run.error_kind;
  if (!kind) return '';
  for (const e of [...timeline.events].reverse()) {
    if ((e.kind === 'step' || e.kind === 'reorg_step') && e.error?.kind === kind && e.error.message) return ` (${kind}: ${e.error.message})`;
  }
  return ` (${kind})`;
}

/** `--idempotency-key K`: the same key for the same workflow starts at most one run (CONTRACT 8.7). */
export const IDEMPOTENCY_KEY_HELP = 'the same key for this workflow starts at most one run (remembered 24 h); a repeat prints the run it started';

/** `chainflow run WF [--input JSON] [--detach] [--idempotency-key K]`: a manual run, driven here until it ends or parks. */
export default class Run extends StartsRun {
  static override summary = 'Start a manual run of a workflow and drive it until it ends or parks';
  static override args = { workflow: Args.string({ required: true, description: 'workflow name' }) };
  static override flags = {
    input: Flags.string({ description: 'the run\'s payload, as JSON' }),
    detach: Flags.boolean({ description: 'only start the run; a running engine (start / worker) drives it' }),
    'idempotency-key': Flags.string({ description: IDEMPOTENCY_KEY_HELP }),
    json: Flags.boolean({ description: 'print the run item as the API does' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Run);
    await this.runWorkflow(args.workflow, flags, 'live');
  }
}
