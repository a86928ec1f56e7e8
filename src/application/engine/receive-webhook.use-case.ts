import { inject, injectable, optional } from 'inversify';
import { parseIdempotencyKey } from '../../domain/engine/idempotency-key';
import { parseSignature, signatureProblem } from '../../domain/engine/webhook-signature';
import { InvalidInputError, NotFoundError, UnauthorizedError } from '../../domain/errors';
import type { Json } from '../../domain/journal/journal-event';
import { Clock } from '../ports/clock';
import { ExactJson } from '../ports/exact-json';
import { OperatorLog } from '../operator-log';
import { Engine } from './engine';
import type { StartedRun } from './start-run.use-case';
import { WorkflowCatalog } from '../workflow-catalog';

export interface WebhookDelivery {
  readonly workflow: string;
  readonly signature: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly body: Buffer;
}

/**
 * A signed webhook delivery (CONTRACT 8.3): checks the trigger's HMAC over the raw body within the time
 * tolerance, then starts a run with the body as payload (its numbers exact). The same signed delivery, or the same Idempotency-Key,
 * starts at most one run.
 */
@injectable()
export class ReceiveWebhook {
  constructor(
    @inject(WorkflowCatalog) private readonly catalog: WorkflowCatalog,
    @inject(Engine) private readonly engine: Engine,
    @inject(Clock) private readonly clock: Clock,
    @inject(ExactJson) private readonly json: ExactJson,
    @inject(OperatorLog) @optional() private readonly log?: OperatorLog,
  ) {}

  async execute(delivery: WebhookDelivery): Promise<StartedRun> {
    const definition = this.catalog.get(delivery.workflow);
    if (!definition || definition.trigger.kind !== 'webhook') {
      this.log?.webhookRefused(delivery.workflow, 'unknown workflow');
      throw new NotFoundError('webhook trigger');
    }
    const problem = signatureProblem(delivery.signature, delivery.body, definition.trigger.secret, this.clock.now());
    if (problem) {
      // The sender learns only that it failed: which check failed would help someone forging deliveries.
      this.log?.webhookRefused(delivery.workflow, problem);
      throw new UnauthorizedError('bad signature');
    }
    let payload: Json;
    try {
      // Never JSON.parse: an amount beyond 2^53 would be rounded before it is paid (CONTRACT 8.8).
      payload = this.json.parse(delivery.body.toString('utf8'));
    } catch {
      throw new InvalidInputError('body', 'must be JSON');
    }
    const key = parseIdempotencyKey(delivery.idempotencyKey, 'Idempotency-Key');
    const sig = parseSignature(delivery.signature)!;
    return this.engine.submit({
      workflow: delivery.workflow,
      trigger: { kind: 'webhook', summary: `POST /hooks/${delivery.workflow}`, payload },
      // The signature always counts (a replayed delivery with a new Idempotency-Key starts nothing either).
      dedupeKeys: [`hook:${delivery.workflow}:sig:${sig.t}:${sig.v1}`, ...(key ? [`hook:${delivery.workflow}:key:${key}`] : [])],
    });
  }
}
