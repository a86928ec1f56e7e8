/**
 * The history list use cases (txs, approvals, waiting, reorgs, replays, workflows) over the in-memory
 * journal: the list envelope, cursor walks, input errors naming the parameter, redaction (CONTRACT 4, 5).
 */
import type { ChainflowConfig } from '../../src/application/config';
import type { ListEnvelope } from '../../src/application/history/items';
import { ListApprovals } from '../../src/application/history/list-approvals.use-case';
import { ListReorgs } from '../../src/application/history/list-reorgs.use-case';
import { ListReplays } from '../../src/application/history/list-replays.use-case';
import { ListSends } from '../../src/application/history/list-sends.use-case';
import { ListWaiting } from '../../src/application/history/list-waiting.use-case';
import { ListWorkflows } from '../../src/application/history/list-workflows.use-case';
import { CursorCodec } from '../../src/domain/cursor';
import { InvalidInputError } from '../../src/domain/errors';
import { ExplorerLinks } from '../../src/domain/explorer';
import { REDACTED, Redactor } from '../../src/domain/redactor';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import {
  aRun, aSession, aTimedRun, aTxHash, aWorkflowState, DAY, HOUR, iso, MINUTE, SECOND, T0,
} from '../mothers/journal-events';

const SECRET = 'hunter22-secret';
const KEY = 'k'.repeat(32);

/** A minimal loaded configuration: only workflows matter to these use cases. */
function configWith(workflows: Record<string, Record<string, unknown>>): ChainflowConfig {
  return {
    server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false },
    storage: { url: 'sqlite::memory:' },
    networks: new Map(),
    relayers: new Map(),
    budgets: new Map(),
    workflows: new Map(Object.entries(workflows).map(([name, definition]) => [name, { name, budgets: [], definition }])),
    secretValues: [SECRET],
  };
}

type Query = Record<string, unknown>;
interface UseCase<T> { execute(query: Query): Promise<ListEnvelope<T>> }

/** Every item of a list, one row a page, following cursors; checks the envelope of every page. */
async function walk<T>(useCase: UseCase<T>, query: Query = {}): Promise<T[]> {
  const items: T[] = [];
  let page = await useCase.execute({ ...query, limit: '1' });
  for (let i = 0; i < 100; i++) {
    expect(Object.keys(page).sort()).toEqual(['cursor', 'has_more', 'items']);
    items.push(...page.items);
    expect(page.has_more).toBe(page.cursor !== null);
    if (!page.cursor) return items;
    expect(page.items).toHaveLength(1);
    page = await useCase.execute({ ...query, limit: '1', cursor: page.cursor });
  }
  throw new Error('too many pages');
}

async function inputError(promise: Promise<unknown>): Promise<InvalidInputError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidInputError);
  return error as InvalidInputError;
}

describe('history list use cases', () => {
  const clock = new FixedClock(T0 + DAY);
  const cursors = new CursorCodec(KEY);
  const redactor = new Redactor([SECRET]);
  let journal: InMemoryJournal;
  let txs: ListSends;
  let approvals: ListApprovals;
  let waiting: ListWaiting;
  let reorgs: ListReorgs;
  let replays: ListReplays;

  beforeAll(async () => {
    journal = new InMemoryJournal();
    txs = new ListSends(journal, cursors, redactor, clock, new ExplorerLinks(new Map([['devnet', 'https://explorer.devnet.example/']])));
    approvals = new ListApprovals(journal, cursors, redactor, clock);
    waiting = new ListWaiting(journal, cursors, redactor, clock);
    reorgs = new ListReorgs(journal, cursors, redactor, clock, new ExplorerLinks());
    replays = new ListReplays(journal, cursors, redactor, clock);
    await journal.append([
      // sends
      ...aRun({ runId: 'r-sep', workflow: 'payouts', at: T0, send: { sendId: 'tx-sep', network: 'sepolia', txHash: aTxHash('sep'), valueWei: '123456789012345678901' } }),
      ...aRun({ runId: 'r-dev', workflow: 'payouts', at: T0 + MINUTE, send: { sendId: 'tx-dev', network: 'devnet', chainId: 31337, status: 'submitted', txHash: aTxHash('dev') } }),
      ...aRun({ runId: 'r-l2', workflow: 'keeper', at: T0 + 2 * MINUTE, send: { sendId: 'tx-l2', network: 'my-l2', chainId: 8453, txHash: aTxHash('l2'), outcome: 'reverted' } }),
      ...aRun({ runId: 'r-odd', workflow: 'keeper', at: T0 + 3 * MINUTE, send: { sendId: 'tx-odd', network: 'private-net', chainId: 999_999, txHash: aTxHash('odd') } }),
      ...aRun({ runId: 'r-q', workflow: 'keeper', at: T0 + 4 * MINUTE, send: { sendId: 'tx-q', network: 'sepolia', status: 'queued' }, sessionId: 'ses-replay', session: 'replay' }),
      // approvals
      ...aRun({ runId: 'r-ap-p', workflow: 'treasury', at: T0 + 5 * MINUTE, approval: { approvalId: 'ap-pending', message: `pay with key ${SECRET}?`, expiresAt: iso(T0 + 2 * DAY) }, park: { waitKind: 'approval', expiresAt: iso(T0 + 2 * DAY) } }),
      ...aRun({ runId: 'r-ap-d', workflow: 'treasury', at: T0 + 6 * MINUTE, approval: { approvalId: 'ap-decided', decision: 'rejected', by: 'carol', reason: 'not on allow-list' } }),
      // waiting
      ...aRun({ runId: 'w-delay', workflow: 'payouts', at: T0 + 7 * MINUTE, park: { waitKind: 'delay', dueAt: iso(T0 + HOUR) } }),
      ...aRun({ runId: 'w-event', workflow: 'keeper', at: T0 + 8 * MINUTE, park: { waitKind: 'event' } }),
      // reorgs
      ...aRun({ runId: 'r-rg1', workflow: 'keeper', network: 'base', at: T0 + 9 * MINUTE, reorg: { reorgId: 'rg-1', steps: [{ stepId: 'recheck', output: { note: `used ${SECRET}`, token: 'plain' } }] } }),
      ...aRun({ runId: 'r-rg2', workflow: 'payouts', network: 'sepolia', at: T0 + 10 * MINUTE, reorg: { reorgId: 'rg-2', removedBlockHash: aTxHash('gone') } }),
      // sessions
      ...aSession({ sessionId: 'ses-replay', kind: 'replay', workflow: 'keeper', at: T0 + 4 * MINUTE - SECOND, fromBlock: 1, toBlock: 9, finishedAt: T0 + HOUR }),
      ...aSession({ sessionId: 'ses-test', kind: 'test', workflow: 'payouts', at: T0 + 11 * MINUTE, note: `note ${SECRET}` }),
    ]);
  });

  describe('ListSends (txs)', () => {
    it('returns send attempt items newest first, with explorer links where the network resolves', async () => {
      const page = await txs.execute({});
      expect(page).toMatchObject({ cursor: null, has_more: false });
      expect(page.items.map((s) => s.send_id)).toEqual(['tx-q', 'tx-odd', 'tx-l2', 'tx-dev', 'tx-sep']);
      const by = new Map(page.items.map((s) => [s.send_id, s]));
      expect(by.get('tx-sep')).toEqual({
        send_id: 'tx-sep', run_id: 'r-sep', step_run_id: 'r-sep.submit_tx', workflow: 'payouts', session: 'live', network: 'sepolia',
        chain_id: 11155111, relayer: 'ops', status: 'settled', outcome: 'confirmed', tx_hash: aTxHash('sep'), idempotency_key: 'r-sep:submit_tx',
        explorer_url: `https://sepolia.etherscan.io/tx/${aTxHash('sep')}`, to: '0x000000000000000000000000000000000000beef',
        value_wei: '123456789012345678901', token_transfer: null, created_at: iso(T0 + 4 * SECOND), updated_at: iso(T0 + 6 * SECOND),
      });
      // a configured override (trailing slash trimmed), a chain id the built-in map knows, an unknown network
      expect(by.get('tx-dev')!.explorer_url).toBe(`https://explorer.devnet.example/tx/${aTxHash('dev')}`);
      expect(by.get('tx-l2')!.explorer_url).toBe(`https://basescan.org/tx/${aTxHash('l2')}`);
      expect(by.get('tx-odd')!.explorer_url).toBeNull();
      // no hash yet: no link, even on a known network
      expect(by.get('tx-q')).toMatchObject({ status: 'queued', tx_hash: null, explorer_url: null, outcome: null, session: 'replay' });
    });

    it('answers each page as JSON text, the text of the page execute answers, with the same links', async () => {
      const first = await txs.execute({ limit: '2' });
      for (const query of [{}, { limit: '2' }, { limit: '2', cursor: first.cursor }, { network: 'devnet' }, { workflow: 'none' }]) {
        expect(await txs.executeJson(query)).toBe(JSON.stringify(await txs.execute(query)));
      }
      await expect(txs.executeJson({ limit: '0' })).rejects.toMatchObject({ field: 'limit' });
    });

    it('walks every page with limit 1, in the same order as one page', async () => {
      const all = (await txs.execute({ limit: '500' })).items.map((s) => s.send_id);
      expect((await walk(txs)).map((s) => s.send_id)).toEqual(all);
      expect((await walk(txs, { network: 'sepolia' })).map((s) => s.send_id)).toEqual(['tx-q', 'tx-sep']);
    });

    it('maps query parameters to filters, since/until on created_at', async () => {
      const ids = async (q: Query): Promise<string[]> => (await txs.execute(q)).items.map((s) => s.send_id);
      expect(await ids({ workflow: 'keeper' })).toEqual(['tx-q', 'tx-odd', 'tx-l2']);
      expect(await ids({ status: 'submitted' })).toEqual(['tx-dev']);
      expect(await ids({ outcome: 'reverted' })).toEqual(['tx-l2']);
      expect(await ids({ session: 'replay' })).toEqual(['tx-q']);
      expect(await ids({ relayer: 'ops', run_id: 'r-odd' })).toEqual(['tx-odd']);
      expect(await ids({ tx_hash: aTxHash('dev') })).toEqual(['tx-dev']);
      expect(await ids({ since: iso(T0 + 2 * MINUTE) })).toEqual(['tx-q', 'tx-odd', 'tx-l2']);
      expect(await ids({ until: iso(T0 + MINUTE + 4 * SECOND) })).toEqual(['tx-dev', 'tx-sep']);
      // durations count back from the clock (T0 + 1 day)
      expect(await ids({ since: '1d' })).toEqual(['tx-q', 'tx-odd', 'tx-l2', 'tx-dev', 'tx-sep']);
      expect(await ids({ since: `${DAY / MINUTE - 2}m` })).toEqual(['tx-q', 'tx-odd', 'tx-l2']);
      expect(await ids({ until: '2d' })).toEqual([]);
    });
  });

  describe('ListApprovals', () => {
    it('lists pending and decided approvals, newest first, and redacts secrets in the message', async () => {
      const page = await approvals.execute({});
      expect(page.items.map((a) => a.approval_id)).toEqual(['ap-decided', 'ap-pending']);
      const [decided, pending] = page.items;
      expect(decided).toEqual({
        approval_id: 'ap-decided', run_id: 'r-ap-d', step_run_id: 'r-ap-d.fetch_quote', workflow: 'treasury', status: 'rejected',
        message: 'approve the payout', requested_at: iso(T0 + 6 * MINUTE + 3 * SECOND), expires_at: null,
        decided_at: iso(T0 + 6 * MINUTE + 4 * SECOND), decided_by: 'carol', reason: 'not on allow-list',
      });
      expect(pending).toMatchObject({ status: 'pending', decided_at: null, decided_by: null, reason: null, expires_at: iso(T0 + 2 * DAY) });
      expect(pending!.message).toBe(`pay with key ${REDACTED}?`);
      expect(JSON.stringify(page)).not.toContain(SECRET);
    });

    it('filters by status and workflow, walks pages', async () => {
      expect((await approvals.execute({ status: 'pending' })).items.map((a) => a.approval_id)).toEqual(['ap-pending']);
      expect((await approvals.execute({ status: 'rejected', workflow: 'treasury' })).items.map((a) => a.approval_id)).toEqual(['ap-decided']);
      expect((await approvals.execute({ workflow: 'payouts' })).items).toEqual([]);
      expect((await walk(approvals)).map((a) => a.approval_id)).toEqual(['ap-decided', 'ap-pending']);
      expect((await approvals.execute({ since: iso(T0 + 6 * MINUTE) })).items.map((a) => a.approval_id)).toEqual(['ap-decided']);
    });
  });

  describe('ListWaiting', () => {
    it('answers each page as JSON text, the text of the page execute answers', async () => {
      const first = await waiting.execute({ limit: '1' });
      for (const query of [{}, { limit: '1' }, { limit: '1', cursor: first.cursor }, { wait_kind: 'delay' }, { workflow: 'none' }]) {
        expect(await waiting.executeJson(query)).toBe(JSON.stringify(await waiting.execute(query)));
      }
    });

    it('lists runs parked now with their wait, newest parked first', async () => {
      const page = await waiting.execute({});
      expect(page.items.map((w) => w.run_id)).toEqual(['w-event', 'w-delay', 'r-ap-p']);
      expect(page.items[1]).toEqual({
        run_id: 'w-delay', workflow: 'payouts', wait_kind: 'delay', step_run_id: 'w-delay.fetch_quote',
        parked_at: iso(T0 + 7 * MINUTE + 3 * SECOND), due_at: iso(T0 + HOUR), expires_at: null,
      });
      expect(page.items[2]).toMatchObject({ wait_kind: 'approval', expires_at: iso(T0 + 2 * DAY), due_at: null });
    });

    it('filters by wait_kind and workflow, since on parked_at, walks pages', async () => {
      expect((await waiting.execute({ wait_kind: 'approval' })).items.map((w) => w.run_id)).toEqual(['r-ap-p']);
      expect((await waiting.execute({ workflow: 'payouts' })).items.map((w) => w.run_id)).toEqual(['w-delay']);
      expect((await waiting.execute({ since: iso(T0 + 7 * MINUTE + 3 * SECOND) })).items.map((w) => w.run_id)).toEqual(['w-event', 'w-delay']);
      expect((await walk(waiting)).map((w) => w.run_id)).toEqual(['w-event', 'w-delay', 'r-ap-p']);
    });
  });

  describe('ListReorgs', () => {
    it('lists reorg responses with their steps, secrets in step output redacted', async () => {
      const page = await reorgs.execute({});
      expect(page.items.map((r) => r.reorg_id)).toEqual(['rg-2', 'rg-1']);
      const rg1 = page.items[1]!;
      expect(rg1).toEqual({
        reorg_id: 'rg-1', run_id: 'r-rg1', workflow: 'keeper', network: 'base', block: 7_000_000, removed_block_hash: null, depth: null,
        created_at: iso(T0 + 9 * MINUTE + 4 * SECOND),
        steps: [{ step_id: 'recheck', status: 'succeeded', output: { note: `used ${REDACTED}`, token: REDACTED }, error: null, at: iso(T0 + 9 * MINUTE + 5 * SECOND) }],
        // The block now at that height is linked by its number; the removed block's hash is unknown here, so no link.
        block_url: 'https://basescan.org/block/7000000', removed_block_url: null,
      });
      expect(JSON.stringify(page)).not.toContain(SECRET);
    });

    it('links both blocks to the network\'s explorer: the one now at the height by number, the removed one by its hash', async () => {
      const rg2 = (await reorgs.execute({ workflow: 'payouts' })).items[0]!;
      expect([rg2.removed_block_hash, rg2.block_url, rg2.removed_block_url]).toEqual([
        aTxHash('gone'), `https://sepolia.etherscan.io/block/${rg2.block}`, `https://sepolia.etherscan.io/block/${aTxHash('gone')}`,
      ]);
    });

    it('filters by workflow and network, walks pages', async () => {
      expect((await reorgs.execute({ network: 'base' })).items.map((r) => r.reorg_id)).toEqual(['rg-1']);
      expect((await reorgs.execute({ workflow: 'payouts' })).items.map((r) => r.reorg_id)).toEqual(['rg-2']);
      expect((await walk(reorgs)).map((r) => r.reorg_id)).toEqual(['rg-2', 'rg-1']);
    });
  });

  describe('ListReplays', () => {
    it('lists sessions with their run counts, newest first', async () => {
      const page = await replays.execute({});
      expect(page.items.map((s) => [s.session_id, s.run_count])).toEqual([['ses-test', 0], ['ses-replay', 1]]);
      expect(page.items[1]).toMatchObject({
        session_id: 'ses-replay', kind: 'replay', workflow: 'keeper', created_at: iso(T0 + 4 * MINUTE - SECOND),
        finished_at: iso(T0 + HOUR), run_count: 1, from_block: 1, to_block: 9,
      });
      expect(JSON.stringify(page)).not.toContain(SECRET);
    });

    it('filters by kind and workflow, walks pages', async () => {
      expect((await replays.execute({ kind: 'test' })).items.map((s) => s.session_id)).toEqual(['ses-test']);
      expect((await replays.execute({ kind: 'replay', workflow: 'keeper' })).items.map((s) => s.session_id)).toEqual(['ses-replay']);
      expect((await walk(replays)).map((s) => s.session_id)).toEqual(['ses-test', 'ses-replay']);
    });

    it('answers each page as JSON text, the text of the page execute answers, secrets redacted', async () => {
      await journal.append(aSession({ sessionId: 'ses-leak', kind: 'test', workflow: `w ${SECRET}`, at: T0 + 2 * HOUR }));
      const first = await replays.execute({ limit: '1' });
      for (const query of [{}, { limit: '1' }, { limit: '1', cursor: first.cursor }, { kind: 'replay' }, { workflow: 'none' }]) {
        expect(await replays.executeJson(query)).toBe(JSON.stringify(await replays.execute(query)));
      }
      expect(await replays.executeJson({})).not.toContain(SECRET);
      expect(JSON.parse(await replays.executeJson({ kind: 'test' })).items[0]).toMatchObject({ session_id: 'ses-leak', workflow: `w ${REDACTED}` });
      await expect(replays.executeJson({ limit: '0' })).rejects.toMatchObject({ field: 'limit' });
    });
  });

  describe('input errors name the parameter', () => {
    const lists = (): [string, UseCase<unknown>][] => [
      ['txs', txs], ['approvals', approvals], ['waiting', waiting], ['reorgs', reorgs], ['replays', replays],
    ];

    it('refuses an unknown parameter, a bad limit, a bad time and a malformed cursor on every list', async () => {
      for (const [, useCase] of lists()) {
        expect((await inputError(useCase.execute({ nope: '1' }))).field).toBe('nope');
        expect((await inputError(useCase.execute({ limit: '0' }))).field).toBe('limit');
        expect((await inputError(useCase.execute({ limit: '501' }))).field).toBe('limit');
        expect((await inputError(useCase.execute({ since: '5x' }))).field).toBe('since');
        expect((await inputError(useCase.execute({ until: '2026-02-30T00:00:00Z' }))).field).toBe('until');
        expect((await inputError(useCase.execute({ cursor: 'garbage' }))).field).toBe('cursor');
      }
    });

    it.each([
      ['txs', { status: 'confirmed' }, 'status'],
      ['txs', { outcome: 'ok' }, 'outcome'],
      ['txs', { session: 'prod' }, 'session'],
      ['txs', { run_id: 'bad id' }, 'run_id'],
      ['txs', { wait_kind: 'tx' }, 'wait_kind'],
      ['approvals', { status: 'decided' }, 'status'],
      ['approvals', { network: 'sepolia' }, 'network'],
      ['waiting', { wait_kind: 'sleep' }, 'wait_kind'],
      ['waiting', { status: 'waiting' }, 'status'],
      ['reorgs', { status: 'succeeded' }, 'status'],
      ['replays', { kind: 'live' }, 'kind'],
      ['replays', { session: 'replay' }, 'session'],
    ])('%s refuses %j', async (list, query, field) => {
      const useCase = lists().find(([name]) => name === list)![1];
      const error = await inputError(useCase.execute(query));
      expect(error.field).toBe(field);
      expect(error.message).toContain(field);
    });

    it("refuses a cursor of another list, even one this installation signed", async () => {
      const position = { createdAt: T0, id: 'tx-sep' };
      for (const [name, useCase] of lists()) {
        for (const other of ['runs', 'txs', 'approvals', 'waiting', 'reorgs', 'replays', 'workflows'].filter((l) => l !== name)) {
          const error = await inputError(useCase.execute({ cursor: cursors.encode(other, position) }));
          expect({ list: name, cursor: other, field: error.field }).toEqual({ list: name, cursor: other, field: 'cursor' });
        }
        // its own list's cursor is accepted
        await expect(useCase.execute({ cursor: cursors.encode(name, position) })).resolves.toMatchObject({ has_more: false });
      }
    });

    it('refuses a cursor of the same list signed by another installation', async () => {
      const foreign = new CursorCodec('z'.repeat(32)).encode('txs', { createdAt: T0 + DAY, id: 'tx-q' });
      expect((await inputError(txs.execute({ cursor: foreign }))).field).toBe('cursor');
    });
  });
});

describe('ListWorkflows', () => {
  const clock = new FixedClock(T0 + DAY);
  const cursors = new CursorCodec(KEY);
  let journal: InMemoryJournal;
  let workflows: ListWorkflows;
  const config = configWith({
    payouts: { trigger: { kind: 'cron', schedule: '0 * * * *' } },
    keeper: { trigger: 'event' },
    idle: { trigger: { kind: 'webhook', path: '/hooks/idle' } },
    bare: {},
  });

  beforeEach(async () => {
    journal = new InMemoryJournal();
    workflows = new ListWorkflows(journal, config, cursors, new Redactor([SECRET]), clock);
    await journal.append([
      aWorkflowState({ workflow: 'keeper', at: T0 - DAY, trigger: 'event-v2', paused: true, cursorBlock: 90, headBlock: 120 }),
      aWorkflowState({ workflow: 'payouts', at: T0 - DAY, cursorBlock: 500, headBlock: 480 }),
      aWorkflowState({ workflow: 'orphan', at: T0 - DAY, trigger: 'cron', cursorBlock: 7 }),
      ...aTimedRun({ runId: 'p1', workflow: 'payouts', at: T0, durationMs: 10 * SECOND }),
      ...aTimedRun({ runId: 'p2', workflow: 'payouts', at: T0 + MINUTE, durationMs: 20 * SECOND }),
      ...aTimedRun({ runId: 'p3', workflow: 'payouts', at: T0 + 2 * MINUTE, durationMs: 30 * SECOND, status: 'failed', errorKind: `leak_${SECRET}` }),
      ...aTimedRun({ runId: 'p4', workflow: 'payouts', at: T0 + 3 * MINUTE, durationMs: 40 * SECOND, status: 'dead_lettered', errorKind: 'timeout' }),
      ...aRun({ runId: 'p5', workflow: 'payouts', at: T0 + 4 * MINUTE, send: { status: 'submitted' }, park: { waitKind: 'tx' } }),
      ...aRun({ runId: 'k1', workflow: 'keeper', at: T0 - HOUR, send: {} }),
    ]);
  });

  it('returns one row per configured or journaled workflow, by name, with the CONTRACT fields', async () => {
    const page = await workflows.execute({});
    expect(page).toMatchObject({ cursor: null, has_more: false });
    expect(page.items.map((w) => w.workflow)).toEqual(['bare', 'idle', 'keeper', 'orphan', 'payouts']);
    const by = new Map(page.items.map((w) => [w.workflow, w]));
    expect(by.get('payouts')).toEqual({
      workflow: 'payouts', paused: false, trigger: 'cron',
      last_run_at: iso(T0 + 4 * MINUTE), last_success_at: iso(T0 + MINUTE + 20 * SECOND), last_failure_at: iso(T0 + 3 * MINUTE + 40 * SECOND),
      success_count: 2, failure_count: 2, runs_waiting: 1,
      median_duration_ms: expect.any(Number), p95_duration_ms: expect.any(Number),
      tx_count: 1, recent_error_kind: 'timeout', cursor_block: 500, head_block: 480, lag_blocks: 0,
    });
    const payouts = by.get('payouts')!;
    expect(Math.abs(payouts.median_duration_ms! - 20_000)).toBeLessThanOrEqual(200);
    expect(Math.abs(payouts.p95_duration_ms! - 40_000)).toBeLessThanOrEqual(400);
  });

  it('lag_blocks is head minus cursor; the state trigger wins over the configured one, which is the fallback', async () => {
    const by = new Map((await workflows.execute({})).items.map((w) => [w.workflow, w]));
    expect(by.get('keeper')).toMatchObject({ paused: true, trigger: 'event-v2', cursor_block: 90, head_block: 120, lag_blocks: 30, success_count: 1, tx_count: 1 });
    expect(by.get('orphan')).toMatchObject({ trigger: 'cron', cursor_block: 7, head_block: null, lag_blocks: null, success_count: 0 });
    // configured, never run, no state: the definition's trigger kind (object form and string form), or null
    expect(by.get('idle')).toEqual({
      workflow: 'idle', paused: false, trigger: 'webhook', last_run_at: null, last_success_at: null, last_failure_at: null,
      success_count: 0, failure_count: 0, runs_waiting: 0, median_duration_ms: null, p95_duration_ms: null, tx_count: 0,
      recent_error_kind: null, cursor_block: null, head_block: null, lag_blocks: null,
    });
    expect(by.get('bare')!.trigger).toBeNull();
    // payouts has a state without a trigger: falls back to the configured { kind: cron }
    expect(by.get('payouts')!.trigger).toBe('cron');
  });

  it('the configured trigger is used when the state names none, in string form too', async () => {
    const fresh = new InMemoryJournal();
    await fresh.append([aWorkflowState({ workflow: 'keeper', at: T0, headBlock: 3 })]);
    const rows = (await new ListWorkflows(fresh, config, cursors, new Redactor([]), clock).execute({})).items;
    expect(rows.find((w) => w.workflow === 'keeper')!.trigger).toBe('event');
  });

  it('redacts secrets in a row (an error kind carrying one)', async () => {
    await journal.append(aTimedRun({ runId: 'p9', workflow: 'payouts', at: T0 + HOUR, durationMs: SECOND, status: 'failed', errorKind: `leak_${SECRET}` }));
    const page = await workflows.execute({});
    expect(page.items.find((w) => w.workflow === 'payouts')!.recent_error_kind).toBe(`leak_${REDACTED}`);
    expect(JSON.stringify(page)).not.toContain(SECRET);
  });

  it('pages by name with a cursor', async () => {
    const first = await workflows.execute({ limit: '2' });
    expect(first.items.map((w) => w.workflow)).toEqual(['bare', 'idle']);
    expect(first.has_more).toBe(true);
    const second = await workflows.execute({ limit: '2', cursor: first.cursor });
    expect(second.items.map((w) => w.workflow)).toEqual(['keeper', 'orphan']);
    const third = await workflows.execute({ limit: '2', cursor: second.cursor });
    expect(third).toMatchObject({ has_more: false, cursor: null });
    expect(third.items.map((w) => w.workflow)).toEqual(['payouts']);
    expect((await walk(workflows)).map((w) => w.workflow)).toEqual(['bare', 'idle', 'keeper', 'orphan', 'payouts']);
  });

  it('pages past a workflow with a long name (names may be up to 256 characters)', async () => {
    const long = `a${'x'.repeat(119)}`;
    await journal.append(aTimedRun({ runId: 'long-1', workflow: long, at: T0, durationMs: SECOND }));
    const first = await workflows.execute({ limit: '1' });
    expect(first.items.map((w) => w.workflow)).toEqual([long]);
    const second = await workflows.execute({ limit: '1', cursor: first.cursor });
    expect(second.items.map((w) => w.workflow)).toEqual(['bare']);
  });

  it('refuses unknown parameters, a bad limit and cursors of other lists', async () => {
    expect((await inputError(workflows.execute({ workflow: 'payouts' }))).field).toBe('workflow');
    expect((await inputError(workflows.execute({ limit: '0' }))).field).toBe('limit');
    expect((await inputError(workflows.execute({ cursor: 'garbage' }))).field).toBe('cursor');
    expect((await inputError(workflows.execute({ cursor: cursors.encode('runs', { createdAt: 0, id: 'wYmFyZQ' }) }))).field).toBe('cursor');
    expect((await inputError(workflows.execute({ cursor: cursors.encode('txs', { createdAt: T0, id: 'tx-sep' }) }))).field).toBe('cursor');
  });
});
