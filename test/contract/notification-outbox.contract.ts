import type { NotificationOutbox } from '../../src/application/ports/notification-outbox';
import { newNotification, type Notification } from '../../src/domain/notifications/notification';
import { T0 } from '../mothers/journal-events';

export interface NotificationOutboxFixture {
  readonly outbox: NotificationOutbox;
  /** The same storage opened again (a new process); the fake gives itself back. */
  reopen(): Promise<NotificationOutbox>;
  close(): Promise<void>;
}

/** A pending delivery with readable defaults, created at T0 + `createdAt`. */
export function aNotification(overrides: Partial<Notification> = {}): Notification {
  return {
    ...newNotification({
      id: 'msg_1', channel: 'ops', type: 'run_failed', runId: 'r-1', workflow: 'payouts', at: T0,
      data: { run_id: 'r-1', workflow: 'payouts', error_kind: 'http_status', message: 'HTTP 500', amount_wei: (2n ** 255n).toString() },
    }, T0),
    ...overrides,
  };
}

const all = { limit: 500 };
const none = { equals: {} };

/** What every NotificationOutbox must do: the knex adapter on SQLite and the in-memory fake alike. */
export function notificationOutboxContract(name: string, open: () => Promise<NotificationOutboxFixture>): void {
  describe(`notification outbox contract: ${name}`, () => {
    let fx: NotificationOutboxFixture;
    beforeEach(async () => {
      fx = await open();
    });
    afterEach(async () => fx.close());

    it('keeps an enqueued row exactly as given, across a reopen; the same id enqueued again changes nothing', async () => {
      const row = aNotification();
      await fx.outbox.enqueue([row]);
      await fx.outbox.enqueue([aNotification({ channel: 'other', data: { changed: true } })]);
      expect(await fx.outbox.list(none, all)).toEqual([row]);
      expect(await (await fx.reopen()).list(none, all)).toEqual([row]);
    });

    it('claims due rows once: a second claimer gets none until the claim runs out; rows not yet due are left', async () => {
      await fx.outbox.enqueue([aNotification({ id: 'a' }), aNotification({ id: 'b', nextAt: T0 + 60_000 })]);
      expect((await fx.outbox.claimDue('p1', T0, T0 + 30_000, 10)).map((n) => n.id)).toEqual(['a']);
      expect(await fx.outbox.claimDue('p2', T0 + 1, T0 + 30_000, 10)).toEqual([]);
      // p1 died holding it: after its claim ran out, p2 takes it, and p1 can no longer settle it.
      expect((await fx.outbox.claimDue('p2', T0 + 30_001, T0 + 60_000, 10)).map((n) => n.id)).toEqual(['a']);
      expect(await fx.outbox.settle('a', 'p1', { kind: 'delivered' })).toBe(false);
      expect(await fx.outbox.settle('a', 'p2', { kind: 'delivered' })).toBe(true);
    });

    it('settles: a retry counts the attempt, keeps it pending and due later; delivered and failed rows are never claimed again', async () => {
      await fx.outbox.enqueue([aNotification({ id: 'a' }), aNotification({ id: 'b' }), aNotification({ id: 'c' })]);
      await fx.outbox.claimDue('p', T0, T0 + 30_000, 10);
      expect(await fx.outbox.settle('a', 'p', { kind: 'retry', error: 'HTTP 500', nextAt: T0 + 5_000 })).toBe(true);
      expect(await fx.outbox.settle('b', 'p', { kind: 'delivered' })).toBe(true);
      expect(await fx.outbox.settle('c', 'p', { kind: 'failed', error: 'gave up after 24 h: HTTP 500' })).toBe(true);
      expect(await fx.outbox.settle('c', 'p', { kind: 'delivered' })).toBe(false);
      const rows = new Map((await fx.outbox.list(none, all)).map((n) => [n.id, n]));
      expect(rows.get('a')).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 500', nextAt: T0 + 5_000 });
      expect(rows.get('b')).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
      expect(rows.get('c')).toMatchObject({ status: 'failed', attempts: 1, lastError: 'gave up after 24 h: HTTP 500' });
      expect(await fx.outbox.claimDue('p', T0 + 4_999, T0 + 60_000, 10)).toEqual([]);
      expect((await fx.outbox.claimDue('p', T0 + 5_000, T0 + 60_000, 10)).map((n) => [n.id, n.attempts])).toEqual([['a', 1]]);
    });

    it('pages newest first on (created_at, id) without skipping or repeating, with each filter and the time range', async () => {
      const rows: Notification[] = [];
      for (let i = 0; i < 9; i++) {
        const createdAt = T0 + Math.floor(i / 2) * 1000;
        rows.push(aNotification({ id: `m-${i}`, createdAt, nextAt: createdAt, channel: i % 2 ? 'slack' : 'ops', type: i % 3 ? 'run_failed' : 'approval_requested', runId: `r-${i % 4}` }));
      }
      await fx.outbox.enqueue(rows);
      const expected = [...rows].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((r) => r.id);
      const seen: string[] = [];
      let after: { createdAt: number; id: string } | undefined;
      for (;;) {
        const page = await fx.outbox.list(none, { limit: 4, after });
        seen.push(...page.map((r) => r.id));
        if (page.length < 4) break;
        after = { createdAt: page[3]!.createdAt, id: page[3]!.id };
      }
      expect(seen).toEqual(expected);
      const ids = async (equals: Record<string, string>, extra: { since?: number; until?: number } = {}): Promise<string[]> =>
        (await fx.outbox.list({ equals, ...extra }, all)).map((r) => r.id);
      const pick = (f: (r: Notification) => boolean): string[] => expected.filter((id) => f(rows.find((r) => r.id === id)!));
      expect(await ids({ channel: 'slack' })).toEqual(pick((r) => r.channel === 'slack'));
      expect(await ids({ type: 'approval_requested', run_id: 'r-0' })).toEqual(pick((r) => r.type === 'approval_requested' && r.runId === 'r-0'));
      expect(await ids({ status: 'pending' })).toEqual(expected);
      expect(await ids({}, { since: T0 + 1000, until: T0 + 2000 })).toEqual(['m-5', 'm-4', 'm-3', 'm-2']);
    });
  });
}
