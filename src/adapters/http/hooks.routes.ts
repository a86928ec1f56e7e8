import express from 'express';
import type { ReceiveWebhook } from '../../application/engine/receive-webhook.use-case';
import { ERROR, RUN_STARTED } from './api-schemas';
import type { RouteTable } from './route-table';

/** Webhook bodies are bounded (CONTRACT 8.3): 413 beyond. */
const MAX_BODY = '1mb';

/**
 * `POST /hooks/<workflow>`: never under the bearer; each trigger checks its own HMAC over the raw body.
 * A new run answers 202, a repeated delivery 200 with the same run id.
 */
export function hooksRoutes(routes: RouteTable, receive: ReceiveWebhook): express.Router {
  const router = routes.router('/hooks');
  router.post('/:workflow', {
    summary: 'A signed webhook delivery: starts a run of the workflow with the body as its payload', tag: 'webhooks', security: 'hmac',
    pathParams: { workflow: { kind: 'text', description: 'workflow name (its trigger is a webhook)' } },
    headers: {
      'X-Chainflow-Signature': { required: true, description: 't=<unix seconds>,v1=<hex HMAC-SHA256 over "<t>.<raw body>" keyed with the trigger\'s secret>' },
      'Idempotency-Key': { description: 'the same key starts at most one run' },
    },
    body: { description: 'any JSON value, at most 1 MiB: the run\'s trigger payload' },
    rawBody: true,
    responses: {
      202: { description: 'a new run', schema: RUN_STARTED },
      200: { description: 'a repeated delivery: the run it started', schema: RUN_STARTED },
      400: { description: 'the body is not JSON, or a bad Idempotency-Key', schema: ERROR },
      401: { description: 'bad signature', schema: ERROR },
      404: { description: 'no such webhook trigger', schema: ERROR },
      409: { description: 'workflow paused', schema: ERROR },
      413: { description: 'body over 1 MiB', schema: ERROR },
    },
  }, express.raw({ type: () => true, limit: MAX_BODY }), async (req, res) => {
    const started = await receive.execute({
      workflow: req.params.workflow as string,
      signature: req.get('x-chainflow-signature'),
      idempotencyKey: req.get('idempotency-key'),
      body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    res.status(started.created ? 202 : 200).json({ run_id: started.runId });
  });
  return router.express;
}
