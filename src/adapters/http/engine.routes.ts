import express from 'express';
import type { CancelRun } from '../../application/engine/cancel-run.use-case';
import { MAX_REPLAY_BLOCKS, MAX_REPLAY_LOGS, type ReplayEvents } from '../../application/engine/replay-events.use-case';
import { MAX_REASON, type DecideApproval } from '../../application/engine/decide-approval.use-case';
import type { StartedRun, StartRunRequest } from '../../application/engine/start-run.use-case';
import type { ListConfiguredWorkflows, SetWorkflowPaused } from '../../application/engine/workflow-controls.use-case';
import { MAX_IDEMPOTENCY_KEY, parseIdempotencyKey } from '../../domain/engine/idempotency-key';
import { InvalidInputError } from '../../domain/errors';
import type { Json } from '../../domain/journal/journal-event';
import { parseExactJson } from '../json';
import { APPROVAL_DECIDED, CONFIGURED_WORKFLOW, envelope, ERROR, REPLAY_STARTED, RUN_CANCELLED, RUN_STARTED, WORKFLOW_PAUSED } from './api-schemas';
import type { JsonSchema, ResponseSpec, RouteTable } from './route-table';

/** The engine's use cases behind the API (CONTRACT 8.4). */
export interface EngineUseCases {
  /** Starts a run (the engine of this process takes it at once when it runs; see Engine.submit). */
  readonly startRun: (request: StartRunRequest) => Promise<StartedRun>;
  readonly decideApproval: DecideApproval;
  readonly cancelRun: CancelRun;
  readonly setPaused: SetWorkflowPaused;
  readonly listWorkflows: ListConfiguredWorkflows;
  readonly replay: ReplayEvents;
  /** Tells this process's engine (if it runs one) that a run was started or woken. */
  readonly poke: () => void;

}

/** Request bodies of the engine routes: small JSON objects. */
const MAX_BODY = '1mb';

/** A JSON object with only these members (none required unless listed). */
const bodyOf = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema =>
  ({ type: 'object', additionalProperties: false, properties, ...(required.length ? { required } : {}) });
const NO_BODY = bodyOf({});

const WORKFLOW = { wf: { kind: 'text', description: 'workflow name' } } as const;
const ERRORS: Record<number, ResponseSpec> = {
  400: { description: 'a parameter or body member is unknown or malformed (named in `error`)', schema: ERROR },
  404: { description: 'no such workflow, run or approval', schema: ERROR },
  403: { description: 'a browser marked the request as not same-origin (`Sec-Fetch-Site`, or `Origin` against `Host`)', schema: ERROR },
  415: { description: 'a body sent with another Content-Type than `application/json`', schema: ERROR },
};
const CONFLICT = { 409: { description: 'the state forbids it now (paused, decided already, ended)', schema: ERROR } };

/** Whether a request's declared type is JSON (`application/json`, any parameters). */
const isJsonType = (header: string | undefined): boolean =>
  (header ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';

/**
 * `express.json` with every number exact (CONTRACT 8.8): a run's `input` beyond 2^53 keeps its decimal text.
 * As `express.json({ strict: true })`: an empty body is `{}`, and the body must be an object or a list.
 * An empty body needs no Content-Type (`curl -X POST …/cancel`); a body declared as anything but JSON is 415.
 * Cross-site browsers are kept out by `crossOriginProtection` (CONTRACT 8.4), not by the type asked for here.
 */
const exactJsonBody: express.RequestHandler[] = [
  express.raw({ limit: MAX_BODY, type: () => true }),
  (req, res, next) => {
    if (req.method !== 'POST') return next();
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (raw.length === 0) {
      req.body = {};
      return next();
    }
    if (!isJsonType(req.headers['content-type'])) {
      res.status(415).json({ error: 'Content-Type: a body must be sent as application/json' });
      return;
    }
    const text = raw.toString('utf8');
    if (text.trim() === '') {
      req.body = {};
      return next();
    }
    if (!/^\s*[{[]/.test(text)) return next(new InvalidInputError('body', 'must be a JSON object'));
    try {
      req.body = parseExactJson(text);
    } catch {
      return next(new InvalidInputError('body', 'is not JSON'));
    }
    next();
  },
];

const principal = (res: { locals: Record<string, unknown> }): string => (typeof res.locals.principal === 'string' ? res.locals.principal : 'api');

/** Start, approve/reject, cancel, pause/resume (mounted at `/api`): parse, call one use case, answer JSON. */
export function engineRoutes(routes: RouteTable, uc: EngineUseCases): express.Router {
  const router = routes.router('/api');
  router.express.use(...exactJsonBody);

  router.get('/workflows', {
    summary: 'The configured workflows: trigger, paused, next cron tick, lease holders', tag: 'engine', security: 'api',
    responses: { 200: { description: 'every configured workflow (list envelope, one page)', schema: envelope(CONFIGURED_WORKFLOW) }, 400: ERRORS[400]! },
  }, async (_req, res) => {
    res.json(await uc.listWorkflows.execute());
  });
  router.post('/workflows/:wf/runs', {
    summary: 'A manual run of a workflow (any trigger kind)', tag: 'engine', security: 'api', pathParams: WORKFLOW,
    headers: {
      'Idempotency-Key': {
        description: `the same key for this workflow starts at most one run (remembered for 24 h): a repeat answers 200 with that run's id; 1 to ${MAX_IDEMPOTENCY_KEY} printable ASCII characters`,
      },
    },
    body: bodyOf({ input: { description: 'the run\'s trigger payload (any JSON)' } }),
    responses: {
      202: { description: 'the run started', schema: RUN_STARTED },
      200: { description: 'a repeated Idempotency-Key: the run it started (no new run)', schema: RUN_STARTED },
      ...ERRORS, 400: { description: 'a body member is unknown or malformed, or a bad Idempotency-Key (named in `error`)', schema: ERROR }, ...CONFLICT,
    },
  }, async (req, res) => {
    const body = req.body as { input?: Json };
    const idempotencyKey = parseIdempotencyKey(req.get('idempotency-key'), 'Idempotency-Key');
    const started = await uc.startRun({
      workflow: req.params.wf as string,
      trigger: { kind: 'manual', summary: `manual by ${principal(res)}`, ...(body.input !== undefined ? { payload: body.input } : {}) },
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    });
    res.status(started.created ? 202 : 200).json({ run_id: started.runId });
  });
  const block = { description: 'a block number (a non-negative integer, or its decimal text)' };
  router.post('/workflows/:wf/replays', {
    summary: `Replay an event workflow's logs of blocks [from_block, to_block] in a new replay session (sends simulated at each log's block, never broadcast; at most ${MAX_REPLAY_BLOCKS} blocks and ${MAX_REPLAY_LOGS} logs)`,
    tag: 'engine', security: 'api', pathParams: WORKFLOW,
    body: bodyOf({ from_block: block, to_block: block }, ['from_block', 'to_block']),
    responses: {
      202: { description: 'the session started: one run per matching log, in chain order', schema: REPLAY_STARTED },
      ...ERRORS, 400: { description: 'a body member is missing or malformed, the workflow is not an event workflow, to_block is below from_block or above the head, or the range is too large (named in `error`)', schema: ERROR },
    },
  }, async (req, res) => {
    const body = req.body as { from_block: unknown; to_block: unknown };
    const started = await uc.replay.execute({ workflow: req.params.wf as string, fromBlock: body.from_block, toBlock: body.to_block });
    uc.poke();
    res.status(202).json({ session_id: started.session_id });
  });
  for (const [path, paused] of [['pause', true], ['resume', false]] as const) {
    router.post(`/workflows/:wf/${path}`, {
      summary: paused ? 'Pause a workflow: it starts no run (its started runs go on)' : 'Resume a paused workflow', tag: 'engine', security: 'api',
      pathParams: WORKFLOW, body: NO_BODY,
      responses: { 200: { description: 'the workflow\'s pause state', schema: WORKFLOW_PAUSED }, ...ERRORS },
    }, async (req, res) => {
      res.json(await uc.setPaused.execute(req.params.wf as string, paused));
    });
  }
  router.post('/approvals/:id/decision', {
    summary: 'Decide a pending approval (the parked run goes on)', tag: 'engine', security: 'api',
    pathParams: { id: { kind: 'id', description: 'approval id' } },
    body: bodyOf({ decision: { enum: ['approve', 'reject', 'approved', 'rejected'] }, reason: { type: 'string', maxLength: MAX_REASON, description: `why, shown in the approvals list; at most ${MAX_REASON} characters` } }, ['decision']),
    responses: { 200: { description: 'the decision', schema: APPROVAL_DECIDED }, ...ERRORS, ...CONFLICT },
  }, async (req, res) => {
    const body = req.body as { decision: string; reason?: string };
    const decided = await uc.decideApproval.execute({
      approvalId: req.params.id as string,
      decision: body.decision.startsWith('approve') ? 'approved' : 'rejected',
      by: principal(res),
      ...(body.reason !== undefined ? { reason: body.reason } : {}),
    });
    uc.poke();
    res.json(decided);
  });
  router.post('/runs/:id/cancel', {
    summary: 'Cancel a running or parked run (a send already broadcast is still settled)', tag: 'engine', security: 'api',
    pathParams: { id: { kind: 'id', description: 'run id' } }, body: NO_BODY,
    responses: { 200: { description: 'the run, cancelled', schema: RUN_CANCELLED }, ...ERRORS, ...CONFLICT },
  }, async (req, res) => {
    res.json(await uc.cancelRun.execute(req.params.id as string, principal(res)));
  });
  return router.express;
}
