import express, { Router } from 'express';
import type { ReceiveWebhook } from '../../application/engine/receive-webhook.use-case';

/** Webhook bodies are bounded (CONTRACT 8.3): 413 beyond. */
const MAX_BODY = '1mb';

/**
 * `POST /hooks/<workflow>`: never under the bearer; each trigger checks its own HMAC over the raw body.
 * A new run answers 202, a repeated delivery 200 with the same run id.
 */
export function hooksRoutes(receive: ReceiveWebhook): Router {
  const router = Router();
  router.post('/:workflow', express.raw({ type: () => true, limit: MAX_BODY }), async (req, res) => {
    const started = await receive.execute({
      workflow: req.params.workflow!,
      signature: req.get('x-chainflow-signature'),
      idempotencyKey: req.get('idempotency-key'),
      body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    });
    res.status(started.created ? 202 : 200).json({ run_id: started.runId });
  });
  return router;
}
