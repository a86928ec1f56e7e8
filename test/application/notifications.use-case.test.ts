/**
 * Notifications in the application (CONTRACT 11): which journaled events become deliveries under which rule, and
 * what the drain records for each answer of a channel (the backoff, the give-up after 24 h), over the in-memory outbox.
 */
import type { ChainflowConfig, NotifyRule } from '../../src/application/config';
import { DeliverNotifications } from '../../src/application/notifications/deliver-notifications.use-case';
import { NotifyRunEvents } from '../../src/application/notifications/notify.use-case';
import { NotifyLowBalances } from '../../src/application/notifications/notify-low-balances.use-case';
import type { RelayerBook, RelayerStatus } from '../../src/application/relayers/relayer-book';
import type { Logger } from '../../src/application/ports/logger';
import type { ChannelAnswer, NotificationChannels } from '../../src/application/ports/notification-outbox';
import { defaultConfig } from '../../src/adapters/config/config.loader';
import type { JournalEvent, RunStarted } from '../../src/domain/journal/journal-event';
import { afterFailure, type Notification } from '../../src/domain/notifications/notification';
import { Redactor } from '../../src/domain/redactor';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryNotificationOutbox } from '../fakes/in-memory-notification-outbox';
import { DAY, iso, MINUTE, SECOND, T0 } from '../mothers/journal-events';

const SECRET = 'partner-secret-value-9f3';
const all = { limit: 500 };
const none = { equals: {} };

class ScriptedChannels implements NotificationChannels {
  readonly seen: Notification[] = [];
  constructor(public answers: ChannelAnswer[]) {}
  async deliver(n: Notification): Promise<ChannelAnswer> {
    this.seen.push(n);
    return (this.answers.length > 1 ? this.answers.shift() : this.answers[0])!;
  }
}

const quiet: Logger = { warn: () => {}, info: () => {}, error: () => {} };

function setup(rules: { top?: NotifyRule; payouts?: NotifyRule }, answers: ChannelAnswer[] = [{ ok: true }]) {
  const base = defaultConfig(process.cwd());
  const config: ChainflowConfig = {
    ...base,
    workflows: new Map([['payouts', { name: 'payouts', budgets: [], definition: {}, ...(rules.payouts ? { notify: rules.payouts } : {}) }], ['sweep', { name: 'sweep', budgets: [], definition: {} }]]),
    ...(rules.top ? { notify: rules.top } : {}),
  };
  const clock = new FixedClock(T0);
  const outbox = new InMemoryNotificationOutbox();
  const channels = new ScriptedChannels(answers);
  const redactor = new Redactor([SECRET]);
  const deliver = new DeliverNotifications(outbox, channels, clock, quiet, redactor);
  const notify = new NotifyRunEvents(config, outbox, deliver, redactor, clock, quiet);
  return { clock, outbox, channels, deliver, notify };
}

function started(workflow = 'payouts', session: RunStarted['session'] = 'live'): RunStarted {
  return { type: 'run.started', at: iso(T0), run_id: 'r-1', workflow, session, trigger: { kind: 'manual' } } as RunStarted;
}

const failedRun: JournalEvent[] = [
  { type: 'step.finished', at: iso(T0), run_id: 'r-1', step_run_id: 'r-1.quote', status: 'failed', error: { kind: 'http_status', message: `HTTP 500: bad key ${SECRET}` } },
  { type: 'run.finished', at: iso(T0), run_id: 'r-1', status: 'failed', error: { kind: 'http_status', message: `HTTP 500: bad key ${SECRET}` } },
] as JournalEvent[];

describe('NotifyRunEvents', () => {
  it('a failed run goes to each channel of the workflow rule, redacted, with the step that failed; the same events again add nothing', async () => {
    const { notify, outbox } = setup({ payouts: { on: ['run_failed'], to: ['ops', 'team'] }, top: { on: ['run_failed'], to: ['other'] } });
    await notify.execute(started(), failedRun);
    await notify.execute(started(), failedRun);
    const rows = await outbox.list(none, all);
    expect(rows.map((r) => r.channel).sort()).toEqual(['ops', 'team']);
    expect(new Set(rows.map((r) => r.id)).size).toBe(2);
    expect(rows[0]).toMatchObject({
      type: 'run_failed', runId: 'r-1', workflow: 'payouts', status: 'pending', at: T0,
      data: { run_id: 'r-1', workflow: 'payouts', status: 'failed', step_run_id: 'r-1.quote', error_kind: 'http_status', message: 'HTTP 500: bad key <redacted>' },
    });
  });

  it('a workflow without its own rule takes the top-level one; a test or replay session notifies nobody', async () => {
    const { notify, outbox } = setup({ top: { on: ['run_failed'], to: ['ops'] } });
    await notify.execute(started('sweep', 'test'), failedRun);
    await notify.execute(started('sweep', 'replay'), failedRun);
    expect(await outbox.list(none, all)).toEqual([]);
    await notify.execute(started('sweep'), failedRun);
    expect((await outbox.list(none, all)).map((r) => [r.workflow, r.channel])).toEqual([['sweep', 'ops']]);
  });

  it('budget refusals, approval requests and dead letters, each only when the rule lists it', async () => {
    const events = [
      { type: 'step.finished', at: iso(T0), run_id: 'r-1', step_run_id: 'r-1.pay', status: 'failed', error: { kind: 'budget_exceeded', message: 'daily_gas: cap reached' } },
      { type: 'approval.requested', at: iso(T0), approval_id: 'r-1.approve', run_id: 'r-1', step_run_id: 'r-1.approve', message: 'Pay 5 wei?', expires_at: iso(T0 + DAY) },
      { type: 'run.finished', at: iso(T0), run_id: 'r-1', status: 'dead_lettered', error: { kind: 'definition_changed', message: 'step pay left the config' } },
    ] as JournalEvent[];
    const some = setup({ payouts: { on: ['budget_exceeded', 'approval_requested', 'run_dead_lettered'], to: ['ops'] } });
    await some.notify.execute(started(), events);
    const rows = await some.outbox.list(none, all);
    expect(Object.fromEntries(rows.map((r) => [r.type, r.data]))).toEqual({
      budget_exceeded: { run_id: 'r-1', workflow: 'payouts', step_run_id: 'r-1.pay', error_kind: 'budget_exceeded', message: 'daily_gas: cap reached' },
      approval_requested: { run_id: 'r-1', workflow: 'payouts', approval_id: 'r-1.approve', step_run_id: 'r-1.approve', message: 'Pay 5 wei?', expires_at: iso(T0 + DAY) },
      run_dead_lettered: { run_id: 'r-1', workflow: 'payouts', status: 'dead_lettered', step_run_id: 'r-1.pay', error_kind: 'definition_changed', message: 'step pay left the config' },
    });
    const failedOnly = setup({ payouts: { on: ['run_failed'], to: ['ops'] } });
    await failedOnly.notify.execute(started(), events);
    expect(await failedOnly.outbox.list(none, all)).toEqual([]);
  });

  it('a reorg that removed the run\'s log, once per response, only when the rule lists it', async () => {
    const response = {
      type: 'reorg.response', at: iso(T0), reorg_id: 'reorg-1', run_id: 'r-1', workflow: 'payouts', network: 'devnet', block: 12,
      removed_block_hash: `0x${'ab'.repeat(32)}`, depth: 2,
    } as JournalEvent;
    const told = setup({ payouts: { on: ['reorg'], to: ['ops'] } });
    await told.notify.execute(started(), [response]);
    await told.notify.execute(started(), [response]);
    expect((await told.outbox.list(none, all)).map((r) => [r.type, r.data])).toEqual([['reorg', {
      run_id: 'r-1', workflow: 'payouts', reorg_id: 'reorg-1', network: 'devnet', block: 12, removed_block_hash: `0x${'ab'.repeat(32)}`, depth: 2,
    }]]);
    const untold = setup({ payouts: { on: ['run_failed'], to: ['ops'] } });
    await untold.notify.execute(started(), [response]);
    expect(await untold.outbox.list(none, all)).toEqual([]);
  });
});

describe('NotifyLowBalances', () => {
  it('a relayer under its low_balance is told once a UTC day to every rule listing it; one above it or unread is not', async () => {
    const base = defaultConfig(process.cwd());
    const relayers = new Map([
      ['ops', { name: 'ops', network: 'sepolia', lowBalanceWei: 10n ** 17n }],
      ['keeper', { name: 'keeper', network: 'sepolia', lowBalanceWei: 10n ** 17n }],
      ['sweeper', { name: 'sweeper', network: 'sepolia', lowBalanceWei: 10n ** 17n }],
      ['unwatched', { name: 'unwatched', network: 'sepolia' }],
    ]);
    const config: ChainflowConfig = {
      ...base, relayers, notify: { on: ['run_failed'], to: ['ops-hook'] },
      workflows: new Map([['payouts', { name: 'payouts', budgets: [], definition: {}, notify: { on: ['relayer_low_balance'], to: ['team'] } }]]),
    };
    const balances: Record<string, bigint | null> = { ops: 10n ** 17n - 1n, keeper: 10n ** 17n, sweeper: null };
    const asked: string[][] = [];
    const book = {
      statuses: async (names: readonly string[]) => {
        asked.push([...names]);
        return names.map((n) => ({ relayer: n, network: 'sepolia', address: `0x${'ab'.repeat(20)}`, balanceWei: balances[n] ?? null, balanceError: balances[n] === null ? 'no provider answered' : null, thresholdWei: 10n ** 17n }) as unknown as RelayerStatus);
      },
    } as unknown as RelayerBook;
    const clock = new FixedClock(T0);
    const outbox = new InMemoryNotificationOutbox();
    const redactor = new Redactor([]);
    const deliver = new DeliverNotifications(outbox, new ScriptedChannels([{ ok: true }]), clock, quiet, redactor);
    const check = new NotifyLowBalances(config, book, outbox, deliver, redactor, clock);
    await check.execute();
    clock.advance(MINUTE);
    await check.execute();
    expect(asked[0]).toEqual(['ops', 'keeper', 'sweeper']);
    let rows = await outbox.list(none, all);
    expect(rows.map((r) => [r.type, r.channel, r.runId, r.data])).toEqual([['relayer_low_balance', 'team', null, {
      relayer: 'ops', network: 'sepolia', address: `0x${'ab'.repeat(20)}`, balance_wei: '99999999999999999', low_balance_threshold_wei: '100000000000000000',
    }]]);
    clock.advance(DAY);
    await check.execute();
    rows = await outbox.list(none, all);
    expect(rows).toHaveLength(2);
  });
});

describe('DeliverNotifications', () => {
  it('retries a refused delivery after 5 s, then 10 s, 20 s … never more than 5 min apart, and gives up past 24 h', async () => {
    const { notify, deliver, outbox, clock, channels } = setup({ payouts: { on: ['run_failed'], to: ['ops'] } }, [{ ok: false, error: `HTTP 503 from ${SECRET}` }]);
    await notify.execute(started(), failedRun);
    const waits: number[] = [];
    let last = T0;
    for (let i = 0; i < 400; i++) {
      expect(await deliver.drain('p')).toBe(1);
      const [row] = await outbox.list(none, all);
      if (row!.status !== 'pending') break;
      waits.push(row!.nextAt - last);
      last = row!.nextAt;
      // Not due a moment before its time.
      clock.advance(row!.nextAt - clock.now() - 1);
      expect(await deliver.drain('p')).toBe(0);
      clock.advance(1);
    }
    expect(waits.slice(0, 8)).toEqual([5, 10, 20, 40, 80, 160, 300, 300].map((s) => s * SECOND));
    const [row] = await outbox.list(none, all);
    expect(row).toMatchObject({ status: 'failed', lastError: 'HTTP 503 from <redacted>', attempts: channels.seen.length });
    expect(clock.now() - T0).toBeLessThanOrEqual(DAY);
    expect(clock.now() - T0).toBeGreaterThan(DAY - 5 * MINUTE);
    // Every attempt carried the same id: the receiver's key for dropping repeats.
    expect(new Set(channels.seen.map((n) => n.id)).size).toBe(1);
  });

  it('records a delivery taken at once; a channel no longer configured fails it without retries', async () => {
    const ok = setup({ payouts: { on: ['run_failed'], to: ['ops'] } });
    await ok.notify.execute(started(), failedRun);
    await ok.deliver.drain('p');
    expect((await ok.outbox.list(none, all))[0]).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
    const gone = setup({ payouts: { on: ['run_failed'], to: ['ops'] } }, [{ ok: false, error: "channel 'ops' is no longer configured", permanent: true }]);
    await gone.notify.execute(started(), failedRun);
    await gone.deliver.drain('p');
    expect((await gone.outbox.list(none, all))[0]).toMatchObject({ status: 'failed', attempts: 1 });
  });

  it('afterFailure: the first retry within 10 s, capped at 5 min', () => {
    expect(afterFailure({ createdAt: T0 }, 1, 'e', T0)).toEqual({ kind: 'retry', error: 'e', nextAt: T0 + 5 * SECOND });
    expect(afterFailure({ createdAt: T0 }, 40, 'e', T0 + hours(1))).toEqual({ kind: 'retry', error: 'e', nextAt: T0 + hours(1) + 5 * MINUTE });
    expect(afterFailure({ createdAt: T0 }, 40, 'e', T0 + DAY - MINUTE)).toEqual({ kind: 'failed', error: 'e' });
  });
});

function hours(n: number): number {
  return n * 60 * MINUTE;
}
