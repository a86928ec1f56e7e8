import type { ExplorerTxLinks, HistoryRepository, ListFilter } from '../../src/application/ports/history-repository';
import { isPathSafe } from '../../src/domain/explorer';
import type { JournalWriter } from '../../src/application/ports/journal-writer';
import type { ItemText, PageRequest } from '../../src/application/ports/run-repository';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { toApprovalItem, toReplaySessionItem, toSendAttemptItem, toWaitingItem } from '../../src/application/history/items';
import {
  aFinish, aPark, aResume, aRun, aSession, aTimedRun, aTxHash, aWorkflowState, iso, HOUR, MINUTE, SECOND, T0,
} from '../mothers/journal-events';

/** The history lists of the port, and the sends of runs the export reads. */
export type HistoryLists = Pick<HistoryRepository, 'listSends' | 'listSendItems' | 'listApprovals' | 'listApprovalItems' | 'listWaiting' | 'listWaitingItems' | 'listReorgs' | 'listSessions' | 'listSessionItems' | 'listWorkflows' | 'sendsOfRuns' | 'sendItemsOfRuns'>;
export type HistoryPorts = Pick<JournalWriter, 'append'> & HistoryLists;

const ALL = { equals: {} } as const;
const filter = (equals: Record<string, string | number> = {}, range: { since?: number; until?: number } = {}): ListFilter => ({ equals, ...range });

/**
 * aRun's event times: run.started at `at`, then one event a second. With the default single fetch step,
 * a send is queued at +4s, an approval (no send) requested at +3s, a park (no send) at +3s.
 */
const SEND_AT = 4 * SECOND;
const APPROVAL_AT = 3 * SECOND;
const PARK_AT = 3 * SECOND;

/**
 * What every HistoryRepository must do, the knex adapter and the in-memory fake alike: keyset pages newest
 * first on (time field, id) with exact-match filters and a time range, runs parked now, and the workflows
 * overview kept up to date as the journal is written. `open` gives a fresh, empty journal.
 */
export function historyContract(name: string, open: () => Promise<{ ports: HistoryPorts; close(): Promise<void> }>): void {
  describe(`history repository contract: ${name}`, () => {
    let ports: HistoryPorts;
    let close: () => Promise<void>;
    beforeEach(async () => {
      ({ ports, close } = await open());
    });
    afterEach(async () => close());

    const page = (limit = 100, after?: PageRequest['after']): PageRequest => ({ limit, ...(after ? { after } : {}) });

    /**
     * That `items` reads the page `rows` reads, for each of `filters` and for the page after the first row: each
     * row at its position, as the text JSON.stringify makes of `toItem`.
     */
    const expectItemsOfEveryPage = async <T>(
      rows: (f: ListFilter, p: PageRequest) => Promise<T[]>, items: (f: ListFilter, p: PageRequest) => Promise<ItemText[]>,
      position: (row: T) => { createdAt: number; id: string }, toItem: (row: T) => unknown, filters: readonly ListFilter[],
    ): Promise<void> => {
      const expectItemsOfList = async (f: ListFilter, p: PageRequest = page()): Promise<void> => {
        const list = await rows(f, p);
        const texts = await items(f, p);
        expect(texts.map((i) => i.position)).toEqual(list.map(position));
        expect(texts.map((i) => i.json)).toEqual(list.map((row) => JSON.stringify(toItem(row))));
      };
      for (const f of filters) await expectItemsOfList(f);
      const [first] = await rows(ALL, page(1));
      await expectItemsOfList(ALL, page(2, position(first!)));
    };

    describe('listSends', () => {
      const sends = async (f: ListFilter, p: PageRequest = page()): Promise<string[]> => (await ports.listSends(f, p)).map((s) => s.sendId);

      beforeEach(async () => {
        await ports.append([
          ...aRun({ runId: 'r1', workflow: 'payouts', at: T0, network: 'sepolia', send: { sendId: 's1', relayer: 'ops', txHash: aTxHash('t1'), outcome: 'confirmed' } }),
          ...aRun({ runId: 'r2', workflow: 'keeper', at: T0 + MINUTE, send: { sendId: 's2', network: 'base', chainId: 8453, relayer: 'keeper-base', status: 'submitted', txHash: aTxHash('t2') } }),
          ...aRun({ runId: 'r3', workflow: 'payouts', at: T0 + 2 * MINUTE, sessionId: 'sess-1', send: { sendId: 's3', relayer: 'treasury', status: 'queued' } }),
          ...aRun({ runId: 'r4', workflow: 'keeper', at: T0 + 3 * MINUTE, send: { sendId: 's4', status: 'parked' } }),
          ...aRun({ runId: 'r5', workflow: 'payouts', at: T0 + 4 * MINUTE, send: { sendId: 's5', outcome: 'reverted', txHash: aTxHash('t5') } }),
        ]);
      });

      it('lists every send newest first on created_at (the send.queued time), with its fields', async () => {
        expect(await sends(ALL)).toEqual(['s5', 's4', 's3', 's2', 's1']);
        const [s2] = await ports.listSends(filter({ run_id: 'r2' }), page());
        expect(s2).toMatchObject({
          sendId: 's2', runId: 'r2', stepRunId: 'r2.submit_tx', workflow: 'keeper', session: 'live', network: 'base', chainId: 8453,
          relayer: 'keeper-base', status: 'submitted', outcome: null, txHash: aTxHash('t2'), idempotencyKey: 'r2:submit_tx',
          to: '0x000000000000000000000000000000000000beef', valueWei: 1000n, createdAt: T0 + MINUTE + SEND_AT,
        });
        expect(s2!.updatedAt).toBeGreaterThan(s2!.createdAt);
      });

      it('breaks created_at ties by send_id, descending, also across a cursor', async () => {
        await ports.append([
          ...aRun({ runId: 'tie-a', at: T0 - HOUR, send: { sendId: 'tie-a' } }),
          ...aRun({ runId: 'tie-c', at: T0 - HOUR, send: { sendId: 'tie-c' } }),
          ...aRun({ runId: 'tie-b', at: T0 - HOUR, send: { sendId: 'tie-b' } }),
        ]);
        expect(await sends(filter({}, { until: T0 - 1 }))).toEqual(['tie-c', 'tie-b', 'tie-a']);
        expect(await sends(ALL, page(10, { createdAt: T0 - HOUR + SEND_AT, id: 'tie-c' }))).toEqual(['tie-b', 'tie-a']);
        expect(await sends(ALL, page(1, { createdAt: T0 - HOUR + SEND_AT, id: 'tie-b' }))).toEqual(['tie-a']);
      });

      it('answers each filter', async () => {
        expect(await sends(filter({ workflow: 'payouts' }))).toEqual(['s5', 's3', 's1']);
        expect(await sends(filter({ network: 'base' }))).toEqual(['s2']);
        expect(await sends(filter({ relayer: 'treasury' }))).toEqual(['s3']);
        expect(await sends(filter({ status: 'queued' }))).toEqual(['s3']);
        expect(await sends(filter({ status: 'parked' }))).toEqual(['s4']);
        expect(await sends(filter({ status: 'submitted' }))).toEqual(['s2']);
        expect(await sends(filter({ status: 'settled' }))).toEqual(['s5', 's1']);
        expect(await sends(filter({ outcome: 'reverted' }))).toEqual(['s5']);
        expect(await sends(filter({ outcome: 'confirmed' }))).toEqual(['s1']);
        expect(await sends(filter({ session: 'replay' }))).toEqual(['s3']);
        expect(await sends(filter({ session: 'live' }))).toEqual(['s5', 's4', 's2', 's1']);
        expect(await sends(filter({ session: 'test' }))).toEqual([]);
        expect(await sends(filter({ run_id: 'r4' }))).toEqual(['s4']);
        expect(await sends(filter({ tx_hash: aTxHash('t1') }))).toEqual(['s1']);
        expect(await sends(filter({ workflow: 'payouts', status: 'settled' }))).toEqual(['s5', 's1']);
        expect(await sends(filter({ workflow: 'keeper', relayer: 'treasury' }))).toEqual([]);
        expect(await sends(filter({ workflow: 'nope' }))).toEqual([]);
      });

      it('bounds created_at with since and until (both inclusive)', async () => {
        const s2At = T0 + MINUTE + SEND_AT;
        const s4At = T0 + 3 * MINUTE + SEND_AT;
        expect(await sends(filter({}, { since: s2At }))).toEqual(['s5', 's4', 's3', 's2']);
        expect(await sends(filter({}, { until: s2At }))).toEqual(['s2', 's1']);
        expect(await sends(filter({}, { since: s2At, until: s4At }))).toEqual(['s4', 's3', 's2']);
        expect(await sends(filter({ workflow: 'payouts' }, { since: s2At, until: s4At }))).toEqual(['s3']);
        expect(await sends(filter({}, { since: s4At + 1, until: s4At + 2 }))).toEqual([]);
      });

      it('pages strictly after the cursor, with and without filters and bounds', async () => {
        const at = (n: number): number => T0 + (n - 1) * MINUTE + SEND_AT;
        expect(await sends(ALL, page(2, { createdAt: at(4), id: 's4' }))).toEqual(['s3', 's2']);
        expect(await sends(filter({ workflow: 'payouts' }), page(100, { createdAt: at(5), id: 's5' }))).toEqual(['s3', 's1']);
        // a cursor below `until`: until no longer bounds anything
        expect(await sends(filter({}, { until: at(3) }), page(100, { createdAt: at(2), id: 's2' }))).toEqual(['s1']);
        // a cursor above `until`: until still bounds the page
        expect(await sends(filter({}, { until: at(2) }), page(100, { createdAt: at(5), id: 's5' }))).toEqual(['s2', 's1']);
        expect(await sends(filter({}, { since: at(2) }), page(100, { createdAt: at(4), id: 's4' }))).toEqual(['s3', 's2']);
        expect(await sends(ALL, page(100, { createdAt: at(1), id: 's1' }))).toEqual([]);
      });

      /**
       * An explorer that knows two kinds of network (its links hold text JSON escapes), and none elsewhere; its links
       * are made as ExplorerLinks makes them, a prefix per network and the hash as a path segment.
       */
      const links: ExplorerTxLinks = {
        txPrefix: (network, chainId) => (network === 'base' || network.startsWith('net ') ? `https://scan.example/${chainId}/"${network}"/tx/` : null),
        tx: (network, chainId, txHash) => {
          const prefix = links.txPrefix(network, chainId);
          return prefix === null ? null : `${prefix}${isPathSafe(txHash) ? txHash : encodeURIComponent(txHash)}`;
        },
      };
      const explorer = (network: string, chainId: number, txHash: string): string | null => links.tx(network, chainId, txHash);

      /** listSendItems answers the page listSends answers, each send as toSendAttemptItem and JSON.stringify render it. */
      const expectItemsOfList = async (f: ListFilter, p: PageRequest = page()): Promise<void> => {
        const list = await ports.listSends(f, p);
        const items = await ports.listSendItems(f, p, links);
        expect(items.map((i) => i.position)).toEqual(list.map((s) => ({ createdAt: s.createdAt, id: s.sendId })));
        expect(items.map((i) => i.json)).toEqual(list.map((s) => JSON.stringify(toSendAttemptItem(s, explorer))));
      };

      it('renders the page of every filter and cursor as its items, the sends of listSends in its order', async () => {
        const at = (n: number): number => T0 + (n - 1) * MINUTE + SEND_AT;
        for (const f of [ALL, filter({ workflow: 'payouts' }), filter({ network: 'base' }), filter({ status: 'queued' }), filter({ relayer: 'ops' }),
          filter({ outcome: 'reverted' }), filter({ tx_hash: aTxHash('t2') }), filter({}, { since: at(2), until: at(4) }), filter({ workflow: 'none' })]) {
          await expectItemsOfList(f);
        }
        await expectItemsOfList(ALL, page(2, { createdAt: at(4), id: 's4' }));
        expect((await ports.listSendItems(ALL, page(), links)).map((i) => i.position.id)).toEqual(['s5', 's4', 's3', 's2', 's1']);
      });

      it('renders awkward text, a large value and a link built from them as toSendAttemptItem does', async () => {
        const awkward = 'q"b\\s/\n\t\r\u0001\u001f\u007f é ✓ \u2028 😀';
        await ports.append([
          ...aRun({ runId: 'odd', workflow: awkward, at: '1969-12-31T23:59:58.999Z', send: {
            sendId: 'odd-send', network: `net ${awkward}`, chainId: 2 ** 31, relayer: awkward, txHash: aTxHash('odd'),
            valueWei: '115792089237316195423570985008687907853269984665640564039457584007913129639935', outcome: 'confirmed',
          } }),
          // Hashes a link does not take as they are (encoded), or holds nothing of.
          ...aRun({ runId: 'odd-hash', at: T0 + HOUR, send: { sendId: 'odd-hash', network: 'base', chainId: 8453, txHash: `a/b c?${awkward}` } }),
          ...aRun({ runId: 'other-chain', at: T0 + 2 * HOUR, send: { sendId: 'other-chain', network: 'base', chainId: 10, txHash: aTxHash('x') } }),
        ]);
        await expectItemsOfList(ALL);
        const byId = new Map((await ports.listSendItems(ALL, page(), links)).map((i) => [i.position.id, JSON.parse(i.json) as { explorer_url: string }]));
        expect(byId.get('odd-hash')!.explorer_url).toBe(`https://scan.example/8453/"base"/tx/${encodeURIComponent(`a/b c?${awkward}`)}`);
        expect(byId.get('other-chain')!.explorer_url).toBe(`https://scan.example/10/"base"/tx/${aTxHash('x')}`);
        const [odd] = (await ports.listSendItems(ALL, page(), links)).filter((i) => i.position.id === 'odd-send');
        expect(JSON.parse(odd!.json)).toMatchObject({ workflow: awkward, explorer_url: `https://scan.example/${2 ** 31}/"net ${awkward}"/tx/${aTxHash('odd')}` });
      });

      it('renders the token_transfer of a token transfer send (amount beyond 64 bits), and null for the others', async () => {
        const transfer = { contract: `0x${'a'.repeat(40)}`, to: `0x${'b'.repeat(40)}`, amount: (1n << 200n).toString() };
        await ports.append(aRun({ runId: 'tok', at: T0 + HOUR, send: { sendId: 'tok-send', txHash: aTxHash('tok') } })
          .map((e) => (e.type === 'send.queued' ? { ...e, token_transfer: transfer } : e)));
        await expectItemsOfList(ALL);
        const items = new Map((await ports.listSendItems(ALL, page(), links)).map((i) => [i.position.id, JSON.parse(i.json) as { token_transfer: unknown }]));
        expect(items.get('tok-send')!.token_transfer).toEqual(transfer);
        expect(items.get('s1')!.token_transfer).toBeNull();
        const [item] = await ports.sendItemsOfRuns(['tok'], links);
        expect(JSON.parse(item!)).toMatchObject({ token_transfer: transfer });
        expect((await ports.sendsOfRuns(['tok']))[0]!.tokenTransfer).toEqual({ ...transfer, amount: 1n << 200n });
      });

      it('reads the sends of runs oldest first, and renders them as toSendAttemptItem does, past one statement of ids', async () => {
        const awkward = 'q"b\\s/\n\t\r\u0001\u001f\u007f é ✓ \u2028 😀';
        await ports.append([
          ...aRun({ runId: 'r6', at: T0 + 5 * MINUTE, send: { sendId: 's6', relayer: awkward, network: `net ${awkward}`, txHash: aTxHash('t6') } }),
          // Sent at the same time: ordered by send id, which is not the order of their runs' ids.
          ...aRun({ runId: 'tie-1', at: T0 - HOUR, send: { sendId: 'z-tie' } }),
          ...aRun({ runId: 'tie-2', at: T0 - HOUR, send: { sendId: 'a-tie' } }),
        ]);
        // More ids than one statement takes (500), most of them of no run: the sends of those that have some.
        const ids = [...Array.from({ length: 700 }, (_, i) => `none-${i}`), 'r5', 'tie-1', 'r1', 'r6', 'tie-2', 'r3'];
        const sends = await ports.sendsOfRuns(ids);
        expect(sends.map((s) => s.sendId)).toEqual(['a-tie', 'z-tie', 's1', 's3', 's5', 's6']);
        expect(await ports.sendItemsOfRuns(ids, links)).toEqual(sends.map((s) => JSON.stringify(toSendAttemptItem(s, explorer))));
        expect(JSON.parse((await ports.sendItemsOfRuns(['r6'], links))[0]!)).toMatchObject({ relayer: awkward, explorer_url: expect.stringContaining(aTxHash('t6')) });
        expect(await ports.sendItemsOfRuns(['r2', 'r4'], { tx: () => null, txPrefix: () => null })).toEqual((await ports.sendsOfRuns(['r2', 'r4'])).map((s) => JSON.stringify(toSendAttemptItem(s, () => null))));
        expect(await ports.sendItemsOfRuns([], links)).toEqual([]);
      });

      it("follows the send's own events: parked then submitted then settled", async () => {
        await ports.append([
          ...aRun({ runId: 'life', at: T0 + HOUR, send: { sendId: 'life', status: 'queued' }, status: 'running' }),
          { type: 'send.parked', at: iso(T0 + HOUR + MINUTE), send_id: 'life', reason: 'nonce gap' },
        ]);
        expect(await sends(filter({ status: 'parked' }))).toEqual(['life', 's4']);
        await ports.append([{ type: 'send.submitted', at: iso(T0 + HOUR + 2 * MINUTE), send_id: 'life', tx_hash: aTxHash('life'), nonce: 1 }]);
        expect(await sends(filter({ status: 'submitted' }))).toEqual(['life', 's2']);
        expect(await sends(filter({ tx_hash: aTxHash('life') }))).toEqual(['life']);
        await ports.append([{ type: 'send.settled', at: iso(T0 + HOUR + 3 * MINUTE), send_id: 'life', outcome: 'dropped' }]);
        const [life] = await ports.listSends(filter({ outcome: 'dropped' }), page());
        expect(life).toMatchObject({ sendId: 'life', status: 'settled', outcome: 'dropped', txHash: aTxHash('life'), createdAt: T0 + HOUR + SEND_AT, updatedAt: T0 + HOUR + 3 * MINUTE });
      });
    });

    describe('listApprovals', () => {
      const approvals = async (f: ListFilter, p: PageRequest = page()): Promise<string[]> => (await ports.listApprovals(f, p)).map((a) => a.approvalId);

      beforeEach(async () => {
        await ports.append([
          ...aRun({ runId: 'a1', workflow: 'payouts', at: T0, approval: { approvalId: 'ap1', message: 'pay 1 ETH?' }, park: { waitKind: 'approval' } }),
          ...aRun({ runId: 'a2', workflow: 'keeper', at: T0 + MINUTE, approval: { approvalId: 'ap2', decision: 'approved', by: 'bob', reason: 'matches sheet' } }),
          ...aRun({ runId: 'a3', workflow: 'payouts', at: T0 + 2 * MINUTE, approval: { approvalId: 'ap3', decision: 'rejected', by: 'carol', reason: 'not on allow-list' } }),
          ...aRun({ runId: 'a4', workflow: 'payouts', at: T0 + 3 * MINUTE, approval: { approvalId: 'ap4', decision: 'expired', expiresAt: iso(T0 + 4 * MINUTE) } }),
        ]);
      });

      it('renders the page of every filter and cursor as its items, the approvals of listApprovals in its order', async () => {
        await ports.append(aRun({
          runId: 'a-odd', workflow: 'q"b\\s\n\u0001 é 😀', at: '1969-12-31T23:59:58.999Z',
          approval: { approvalId: 'ap-odd', message: 'pay "1" ETH\\?\n\t✓ \u2028 😀', decision: 'rejected', by: 'eve\u0001', reason: 'q"\\', expiresAt: '1970-01-01T00:00:00.001Z' },
        }));
        await expectItemsOfEveryPage((f, p) => ports.listApprovals(f, p), (f, p) => ports.listApprovalItems(f, p), (a) => ({ createdAt: a.requestedAt, id: a.approvalId }), toApprovalItem,
          [ALL, filter({ workflow: 'payouts' }), filter({ status: 'pending' }), filter({ status: 'rejected' }), filter({}, { since: T0 + MINUTE }), filter({ workflow: 'none' })]);
        expect((await ports.listApprovalItems(ALL, page())).map((i) => i.position.id)).toEqual(['ap4', 'ap3', 'ap2', 'ap1', 'ap-odd']);
        const odd = JSON.parse((await ports.listApprovalItems(filter({ status: 'rejected' }), page()))[1]!.json);
        expect(odd).toMatchObject({ approval_id: 'ap-odd', message: 'pay "1" ETH\\?\n\t✓ \u2028 😀', decided_by: 'eve\u0001', reason: 'q"\\', expires_at: '1970-01-01T00:00:00.001Z' });
      });

      it('lists pending and decided approvals newest request first, with who decided and why', async () => {
        expect(await approvals(ALL)).toEqual(['ap4', 'ap3', 'ap2', 'ap1']);
        const byId = new Map((await ports.listApprovals(ALL, page())).map((a) => [a.approvalId, a]));
        expect(byId.get('ap1')).toMatchObject({
          runId: 'a1', stepRunId: 'a1.fetch_quote', workflow: 'payouts', status: 'pending', message: 'pay 1 ETH?',
          requestedAt: T0 + APPROVAL_AT, expiresAt: null, decidedAt: null, decidedBy: null, reason: null,
        });
        expect(byId.get('ap2')).toMatchObject({ status: 'approved', decidedBy: 'bob', reason: 'matches sheet', decidedAt: T0 + MINUTE + APPROVAL_AT + SECOND });
        expect(byId.get('ap3')).toMatchObject({ status: 'rejected', decidedBy: 'carol', reason: 'not on allow-list' });
        expect(byId.get('ap4')).toMatchObject({ status: 'expired', expiresAt: T0 + 4 * MINUTE });
      });

      it('filters pending apart from each decided status, and by workflow', async () => {
        expect(await approvals(filter({ status: 'pending' }))).toEqual(['ap1']);
        expect(await approvals(filter({ status: 'approved' }))).toEqual(['ap2']);
        expect(await approvals(filter({ status: 'rejected' }))).toEqual(['ap3']);
        expect(await approvals(filter({ status: 'expired' }))).toEqual(['ap4']);
        expect(await approvals(filter({ workflow: 'payouts' }))).toEqual(['ap4', 'ap3', 'ap1']);
        expect(await approvals(filter({ workflow: 'keeper', status: 'pending' }))).toEqual([]);
        // a decision moves the approval out of the pending list
        await ports.append([{ type: 'approval.decided', at: iso(T0 + HOUR), approval_id: 'ap1', decision: 'approved', by: 'dave' }]);
        expect(await approvals(filter({ status: 'pending' }))).toEqual([]);
        expect(await approvals(filter({ status: 'approved' }))).toEqual(['ap2', 'ap1']);
      });

      it('orders and bounds on requested_at (not the run start), and pages after a cursor', async () => {
        // Starts before a1, but its approval is requested after a1's (after ten steps).
        const steps = Array.from({ length: 10 }, (_, i) => ({ stepId: `step_${i}` }));
        await ports.append(aRun({ runId: 'slow', at: T0 - 10 * SECOND, steps, approval: { approvalId: 'ap-slow' } }));
        const slowAt = T0 + 11 * SECOND;
        expect(await approvals(ALL)).toEqual(['ap4', 'ap3', 'ap2', 'ap-slow', 'ap1']);
        expect(await approvals(filter({}, { since: slowAt }))).toEqual(['ap4', 'ap3', 'ap2', 'ap-slow']);
        expect(await approvals(filter({}, { since: slowAt + 1 }))).toEqual(['ap4', 'ap3', 'ap2']);
        expect(await approvals(filter({}, { until: slowAt }))).toEqual(['ap-slow', 'ap1']);
        expect(await approvals(ALL, page(2, { createdAt: T0 + MINUTE + APPROVAL_AT, id: 'ap2' }))).toEqual(['ap-slow', 'ap1']);
        expect(await approvals(filter({ status: 'pending' }), page(1, { createdAt: slowAt, id: 'ap-slow' }))).toEqual(['ap1']);
      });
    });

    describe('listWaiting', () => {
      const waiting = async (f: ListFilter, p: PageRequest = page()): Promise<string[]> => (await ports.listWaiting(f, p)).map((r) => r.runId);

      beforeEach(async () => {
        await ports.append([
          ...aRun({ runId: 'w-delay', workflow: 'payouts', at: T0, park: { waitKind: 'delay', dueAt: iso(T0 + HOUR) } }),
          ...aRun({ runId: 'w-tx', workflow: 'keeper', at: T0 + MINUTE, send: { status: 'submitted' }, park: { waitKind: 'tx', expiresAt: iso(T0 + 2 * HOUR) } }),
          ...aRun({ runId: 'w-approval', workflow: 'payouts', at: T0 + 2 * MINUTE, approval: {}, park: { waitKind: 'approval' } }),
          ...aRun({ runId: 'w-event', workflow: 'keeper', at: T0 + 3 * MINUTE, park: { waitKind: 'event', expiresAt: iso(T0 + 3 * HOUR) } }),
          ...aRun({ runId: 'done', workflow: 'payouts', at: T0 + 4 * MINUTE }),
        ]);
      });

      it('renders the page of every filter and cursor as its items, the runs of listWaiting in its order', async () => {
        await ports.append(aRun({ runId: 'w-odd', workflow: 'q"b\\s\n\u0001 é 😀', at: '1969-12-31T23:59:58.999Z', park: { waitKind: 'delay', dueAt: '1970-01-01T00:00:00.001Z' } }));
        await expectItemsOfEveryPage((f, p) => ports.listWaiting(f, p), (f, p) => ports.listWaitingItems(f, p), (r) => ({ createdAt: r.parkedAt!, id: r.runId }), toWaitingItem,
          [ALL, filter({ workflow: 'keeper' }), filter({ wait_kind: 'tx' }), filter({}, { since: T0 + MINUTE }), filter({ workflow: 'none' })]);
        expect((await ports.listWaitingItems(ALL, page())).map((i) => i.position.id)).toEqual(['w-event', 'w-approval', 'w-tx', 'w-delay', 'w-odd']);
      });

      it('lists only runs parked now, newest parked first, with their wait', async () => {
        expect(await waiting(ALL)).toEqual(['w-event', 'w-approval', 'w-tx', 'w-delay']);
        const [delay] = await ports.listWaiting(filter({ wait_kind: 'delay' }), page());
        expect(delay).toMatchObject({
          runId: 'w-delay', workflow: 'payouts', status: 'waiting', waitKind: 'delay', waitStepRunId: 'w-delay.fetch_quote',
          parkedAt: T0 + PARK_AT, dueAt: T0 + HOUR, expiresAt: null,
        });
        const [tx] = await ports.listWaiting(filter({ wait_kind: 'tx' }), page());
        expect(tx).toMatchObject({ runId: 'w-tx', waitStepRunId: 'w-tx.submit_tx', expiresAt: T0 + 2 * HOUR, dueAt: null });
      });

      it('a resumed run or a finished run is no longer listed; a run parked again is, at its new time', async () => {
        await ports.append([aResume('w-approval', T0 + HOUR), aFinish('w-event', T0 + HOUR, 'cancelled')]);
        expect(await waiting(ALL)).toEqual(['w-tx', 'w-delay']);
        await ports.append([aPark('w-approval', T0 + 2 * HOUR, { waitKind: 'event' })]);
        expect(await waiting(ALL)).toEqual(['w-approval', 'w-tx', 'w-delay']);
        const [again] = await ports.listWaiting(filter({ wait_kind: 'event' }), page());
        expect(again).toMatchObject({ runId: 'w-approval', waitKind: 'event', parkedAt: T0 + 2 * HOUR });
        await ports.append([aResume('w-approval', T0 + 3 * HOUR), aFinish('w-approval', T0 + 3 * HOUR + MINUTE)]);
        expect(await waiting(ALL)).toEqual(['w-tx', 'w-delay']);
      });

      it('filters by wait_kind and workflow, bounds parked_at, pages after a cursor', async () => {
        expect(await waiting(filter({ wait_kind: 'approval' }))).toEqual(['w-approval']);
        expect(await waiting(filter({ wait_kind: 'event' }))).toEqual(['w-event']);
        expect(await waiting(filter({ workflow: 'keeper' }))).toEqual(['w-event', 'w-tx']);
        expect(await waiting(filter({ workflow: 'payouts', wait_kind: 'tx' }))).toEqual([]);
        expect(await waiting(filter({}, { since: T0 + 2 * MINUTE + 4 * SECOND }))).toEqual(['w-event', 'w-approval']);
        expect(await waiting(filter({}, { since: T0 + 2 * MINUTE + 4 * SECOND + 1 }))).toEqual(['w-event']);
        expect(await waiting(filter({}, { until: T0 + MINUTE }))).toEqual(['w-delay']);
        // w-tx parks after its send is submitted (+6 s), w-approval after its request (+4 s)
        expect(await waiting(filter({}, { until: T0 + MINUTE + 6 * SECOND }))).toEqual(['w-tx', 'w-delay']);
        expect(await waiting(filter({}, { until: T0 + MINUTE + 6 * SECOND - 1 }))).toEqual(['w-delay']);
        expect(await waiting(ALL, page(2, { createdAt: T0 + 2 * MINUTE + 4 * SECOND, id: 'w-approval' }))).toEqual(['w-tx', 'w-delay']);
        expect(await waiting(filter({ workflow: 'keeper' }), page(1, { createdAt: T0 + 3 * MINUTE + PARK_AT, id: 'w-event' }))).toEqual(['w-tx']);
      });

      it('orders on parked_at, not on the run start', async () => {
        // Started an hour before the others, parked after all of them.
        await ports.append([...aRun({ runId: 'early', at: T0 - HOUR, status: 'running' }), aPark('early', T0 + HOUR, { waitKind: 'delay' })]);
        expect(await waiting(ALL)).toEqual(['early', 'w-event', 'w-approval', 'w-tx', 'w-delay']);
        expect(await waiting(filter({}, { since: T0 + HOUR }))).toEqual(['early']);
        expect(await waiting(ALL, page(1, { createdAt: T0 + HOUR, id: 'early' }))).toEqual(['w-event']);
      });
    });

    describe('listReorgs', () => {
      beforeEach(async () => {
        await ports.append([
          ...aRun({ runId: 'g1', workflow: 'keeper', network: 'base', at: T0, block: 100, reorg: {
            reorgId: 'reorg-1', removedBlockHash: aTxHash('gone'), depth: 3,
            steps: [{ stepId: 'recheck', output: { price: '1800' } }, { stepId: 'notify', status: 'failed', error: { kind: 'http_error', message: 'HTTP 503' } }],
          } }),
          ...aRun({ runId: 'g2', workflow: 'payouts', network: 'sepolia', at: T0 + MINUTE, reorg: { reorgId: 'reorg-2', block: 200 } }),
          ...aRun({ runId: 'g3', workflow: 'keeper', network: 'sepolia', at: T0 + 2 * MINUTE, reorg: { reorgId: 'reorg-3' } }),
        ]);
      });

      it('lists reorg responses newest first with their steps in order', async () => {
        const all = await ports.listReorgs(ALL, page());
        expect(all.map((r) => r.reorgId)).toEqual(['reorg-3', 'reorg-2', 'reorg-1']);
        const first = all[2]!;
        expect(first).toMatchObject({ reorgId: 'reorg-1', runId: 'g1', workflow: 'keeper', network: 'base', block: 100, removedBlockHash: aTxHash('gone'), depth: 3 });
        expect(first.createdAt).toBe(T0 + 4 * SECOND);
        expect(first.steps).toEqual([
          { stepId: 'recheck', status: 'succeeded', output: { price: '1800' }, error: null, at: T0 + 5 * SECOND },
          { stepId: 'notify', status: 'failed', output: null, error: { kind: 'http_error', message: 'HTTP 503' }, at: T0 + 6 * SECOND },
        ]);
        expect(all[1]).toMatchObject({ block: 200, removedBlockHash: null, depth: null, steps: [expect.objectContaining({ stepId: 'recheck_balance', status: 'succeeded' })] });
      });

      it('filters by workflow and network, bounds created_at, pages after a cursor', async () => {
        const ids = async (f: ListFilter, p: PageRequest = page()): Promise<string[]> => (await ports.listReorgs(f, p)).map((r) => r.reorgId);
        expect(await ids(filter({ workflow: 'keeper' }))).toEqual(['reorg-3', 'reorg-1']);
        expect(await ids(filter({ network: 'sepolia' }))).toEqual(['reorg-3', 'reorg-2']);
        expect(await ids(filter({ workflow: 'keeper', network: 'base' }))).toEqual(['reorg-1']);
        expect(await ids(filter({}, { since: T0 + MINUTE }))).toEqual(['reorg-3', 'reorg-2']);
        expect(await ids(filter({}, { until: T0 + MINUTE + 4 * SECOND }))).toEqual(['reorg-2', 'reorg-1']);
        expect(await ids(ALL, page(1, { createdAt: T0 + 2 * MINUTE + 4 * SECOND, id: 'reorg-3' }))).toEqual(['reorg-2']);
      });
    });

    describe('listSessions', () => {
      beforeEach(async () => {
        await ports.append([
          ...aSession({ sessionId: 'replay-1', kind: 'replay', workflow: 'keeper', at: T0, finishedAt: T0 + 10 * MINUTE, fromBlock: 100, toBlock: 300, note: 'backtest' }),
          ...aRun({ runId: 'rp1', workflow: 'keeper', at: T0 + MINUTE, sessionId: 'replay-1', session: 'replay' }),
          ...aRun({ runId: 'rp2', workflow: 'keeper', at: T0 + 2 * MINUTE, sessionId: 'replay-1', session: 'replay' }),
          ...aRun({ runId: 'rp3', workflow: 'keeper', at: T0 + 3 * MINUTE, sessionId: 'replay-1', session: 'replay' }),
          ...aSession({ sessionId: 'test-1', kind: 'test', workflow: 'payouts', at: T0 + HOUR }),
          ...aRun({ runId: 'tp1', workflow: 'payouts', at: T0 + HOUR + MINUTE, sessionId: 'test-1', session: 'test' }),
          ...aSession({ sessionId: 'empty-1', kind: 'replay', workflow: 'payouts', at: T0 + 2 * HOUR }),
        ]);
      });

      it('lists sessions newest first with their run counts', async () => {
        const all = await ports.listSessions(ALL, page());
        expect(all.map((s) => [s.sessionId, s.runCount])).toEqual([['empty-1', 0], ['test-1', 1], ['replay-1', 3]]);
        expect(all[2]).toEqual({
          sessionId: 'replay-1', kind: 'replay', workflow: 'keeper', createdAt: T0, finishedAt: T0 + 10 * MINUTE,
          runCount: 3, fromBlock: 100, toBlock: 300, note: 'backtest',
        });
        expect(all[1]).toMatchObject({ kind: 'test', finishedAt: null, fromBlock: null, toBlock: null, note: null });
      });

      it('counts runs appended in later batches, and runs seen before their session.started', async () => {
        await ports.append(aRun({ runId: 'rp4', workflow: 'keeper', at: T0 + 4 * MINUTE, sessionId: 'replay-1', session: 'replay' }));
        await ports.append(aRun({ runId: 'early-run', workflow: 'payouts', at: T0 + 3 * HOUR, sessionId: 'late-1', session: 'test' }));
        await ports.append(aSession({ sessionId: 'late-1', kind: 'test', workflow: 'payouts', at: T0 + 3 * HOUR - MINUTE }));
        const all = await ports.listSessions(ALL, page());
        expect(all.map((s) => [s.sessionId, s.runCount])).toEqual([['late-1', 1], ['empty-1', 0], ['test-1', 1], ['replay-1', 4]]);
        expect(all[0]).toMatchObject({ sessionId: 'late-1', kind: 'test', createdAt: T0 + 3 * HOUR - MINUTE });
      });

      it('renders the page of every filter and cursor as its items, the sessions of listSessions in its order', async () => {
        await ports.append(aSession({ sessionId: 'odd-1', kind: 'test', workflow: 'q"b\\s\t\n\u0001 é 😀', at: '1969-12-31T23:59:58.999Z', fromBlock: 0, toBlock: 9_007_199_254_740_991 }));
        await expectItemsOfEveryPage((f, p) => ports.listSessions(f, p), (f, p) => ports.listSessionItems(f, p), (s) => ({ createdAt: s.createdAt, id: s.sessionId }), toReplaySessionItem,
          [ALL, filter({ kind: 'replay' }), filter({ workflow: 'keeper' }), filter({}, { since: T0 + HOUR }), filter({ workflow: 'none' })]);
        expect((await ports.listSessionItems(ALL, page())).map((i) => i.position.id)).toEqual(['empty-1', 'test-1', 'replay-1', 'odd-1']);
        const odd = JSON.parse((await ports.listSessionItems(filter({ kind: 'test' }), page()))[1]!.json);
        expect(odd).toMatchObject({ workflow: 'q"b\\s\t\n\u0001 é 😀', created_at: '1969-12-31T23:59:58.999Z', finished_at: null, run_count: 0, from_block: 0 });
      });

      it('filters by kind and workflow, bounds created_at, pages after a cursor', async () => {
        const ids = async (f: ListFilter, p: PageRequest = page()): Promise<string[]> => (await ports.listSessions(f, p)).map((s) => s.sessionId);
        expect(await ids(filter({ kind: 'replay' }))).toEqual(['empty-1', 'replay-1']);
        expect(await ids(filter({ kind: 'test' }))).toEqual(['test-1']);
        expect(await ids(filter({ workflow: 'keeper' }))).toEqual(['replay-1']);
        expect(await ids(filter({}, { since: T0 + HOUR }))).toEqual(['empty-1', 'test-1']);
        expect(await ids(filter({}, { until: T0 + HOUR }))).toEqual(['test-1', 'replay-1']);
        expect(await ids(ALL, page(1, { createdAt: T0 + 2 * HOUR, id: 'empty-1' }))).toEqual(['test-1']);
      });
    });

    describe('listWorkflows', () => {
      /** Durations 1 s .. 100 s, shuffled: median 50 s, p95 95 s. */
      const timed = (): JournalEvent[] => {
        const order = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) + 1);
        return order.flatMap((s, i) => aTimedRun({ runId: `timed-${String(i).padStart(3, '0')}`, workflow: 'timed', at: T0 - 10 * HOUR + i * MINUTE, durationMs: s * SECOND }));
      };

      const mixed = (): JournalEvent[] => [
        ...aRun({ runId: 'p-ok1', workflow: 'payouts', at: T0, send: { txHash: aTxHash('p1') } }),
        ...aRun({ runId: 'p-ok2', workflow: 'payouts', at: T0 + MINUTE, send: { status: 'submitted', txHash: aTxHash('p2') } }),
        ...aRun({ runId: 'p-queued', workflow: 'payouts', at: T0 + 2 * MINUTE, send: { status: 'queued' } }),
        ...aRun({ runId: 'p-parked-send', workflow: 'payouts', at: T0 + 3 * MINUTE, send: { status: 'parked' }, status: 'cancelled' }),
        ...aRun({ runId: 'p-fail', workflow: 'payouts', at: T0 + 4 * MINUTE, failure: { kind: 'http_error' } }),
        ...aRun({ runId: 'p-dead', workflow: 'payouts', at: T0 + 5 * MINUTE, failure: { kind: 'timeout' }, status: 'dead_lettered' }),
        ...aRun({ runId: 'p-skip', workflow: 'payouts', at: T0 + 6 * MINUTE, status: 'skipped' }),
        ...aRun({ runId: 'p-wait1', workflow: 'payouts', at: T0 + 7 * MINUTE, park: { waitKind: 'delay' } }),
        ...aRun({ runId: 'p-wait2', workflow: 'payouts', at: T0 + 8 * MINUTE, send: { status: 'submitted', txHash: aTxHash('p3') }, park: { waitKind: 'tx' } }),
        ...aRun({ runId: 'p-run', workflow: 'payouts', at: T0 + 9 * MINUTE, status: 'running' }),
        ...aRun({ runId: 'k-ok', workflow: 'keeper', at: T0 - HOUR, send: { txHash: aTxHash('k1') } }),
      ];

      it('pages through many workflows by name, the same rows on every call (the knex adapter reads them in one round up to 200)', async () => {
        const names = Array.from({ length: 230 }, (_, i) => `wf-${String(i).padStart(3, '0')}`);
        await ports.append(names.flatMap((workflow, i) => aRun({ runId: `many-${i}`, workflow, at: T0 + i * MINUTE, ...(i % 7 ? {} : { park: { waitKind: 'delay' } }) })));
        const pageAfter = async (after?: string): Promise<string[]> => (await ports.listWorkflows(['aa-configured'], 100, after)).map((r) => r.workflow);
        const first = await ports.listWorkflows(['aa-configured'], 100);
        expect(first.map((r) => r.workflow)).toEqual(['aa-configured', ...names.slice(0, 99)]);
        expect(first[1]).toMatchObject({ workflow: 'wf-000', runsWaiting: 1, stats: expect.objectContaining({ successCount: 0 }) });
        expect(first[2]).toMatchObject({ workflow: 'wf-001', runsWaiting: 0, stats: expect.objectContaining({ successCount: 1 }) });
        // Asked again (having now seen more than 200 workflows) and page by page: the same rows.
        expect(await ports.listWorkflows(['aa-configured'], 100)).toEqual(first);
        expect(await pageAfter('wf-098')).toEqual(names.slice(99, 199));
        expect(await pageAfter('wf-198')).toEqual(names.slice(199));
      });

      it('lists configured workflows with no runs, workflows seen in the journal, by name', async () => {
        await ports.append([...mixed(), aWorkflowState({ workflow: 'state-only', trigger: 'event', cursorBlock: 10, headBlock: 15 })]);
        const rows = await ports.listWorkflows(['zeta-idle', 'alpha-idle', 'payouts'], 100);
        expect(rows.map((r) => r.workflow)).toEqual(['alpha-idle', 'keeper', 'payouts', 'state-only', 'zeta-idle']);
        const alpha = rows[0]!;
        expect(alpha).toEqual({ workflow: 'alpha-idle', state: undefined, stats: undefined, runsWaiting: 0 });
        expect(rows[3]!.stats).toBeUndefined();
        expect(rows[3]!.state).toMatchObject({ workflow: 'state-only', trigger: 'event', cursorBlock: 10, headBlock: 15, paused: null });
      });

      it('counts successes, failures (failed and dead_lettered), runs waiting and sends with a tx hash', async () => {
        await ports.append(mixed());
        const [keeper, payouts] = await ports.listWorkflows([], 100);
        expect(payouts!.workflow).toBe('payouts');
        expect(payouts!.runsWaiting).toBe(2);
        // succeeded: p-ok1, p-ok2, p-queued (aRun ends a run succeeded unless told otherwise)
        expect(payouts!.stats).toMatchObject({ successCount: 3, failureCount: 2, txCount: 3, recentErrorKind: 'timeout' });
        expect(payouts!.stats!.lastRunAt).toBe(T0 + 9 * MINUTE);
        expect(payouts!.stats!.lastFailureAt).toBe(T0 + 5 * MINUTE + 3 * SECOND);
        expect(payouts!.stats!.lastSuccessAt).toBe(T0 + 2 * MINUTE + 5 * SECOND);
        expect(keeper).toMatchObject({ workflow: 'keeper', runsWaiting: 0, stats: expect.objectContaining({ successCount: 1, failureCount: 0, txCount: 1, recentErrorKind: null, lastFailureAt: null }) });
      });

      it('keeps the counts across appends: a resumed run, a send submitted later, a run finished later', async () => {
        await ports.append(mixed());
        await ports.append([{ type: 'send.submitted', at: iso(T0 + HOUR), send_id: 'p-queued.send', tx_hash: aTxHash('late'), nonce: 3 }]);
        await ports.append([aResume('p-wait1', T0 + HOUR), aFinish('p-wait1', T0 + HOUR + MINUTE, 'failed', 'rpc_error')]);
        await ports.append([aFinish('p-run', T0 + 2 * HOUR)]);
        const payouts = (await ports.listWorkflows(['payouts'], 100)).find((r) => r.workflow === 'payouts');
        expect(payouts!.runsWaiting).toBe(1);
        expect(payouts!.stats).toMatchObject({
          successCount: 4, failureCount: 3, txCount: 4, recentErrorKind: 'rpc_error',
          lastFailureAt: T0 + HOUR + MINUTE, lastSuccessAt: T0 + 2 * HOUR, lastRunAt: T0 + 9 * MINUTE,
        });
      });

      it('a second run.finished of a finished run is refused and counts nothing', async () => {
        await ports.append(mixed());
        await expect(ports.append([aFinish('p-ok1', T0 + 3 * HOUR, 'failed', 'late_error')])).rejects.toThrow('run_id: the run already succeeded: a finished run cannot finish again');
        const payouts = (await ports.listWorkflows(['payouts'], 100)).find((r) => r.workflow === 'payouts');
        expect(payouts!.stats).toMatchObject({ successCount: 3, failureCount: 2, recentErrorKind: 'timeout', lastFailureAt: T0 + 5 * MINUTE + 3 * SECOND });
      });

      it('finished, then parked, then finished again: the park and the second end are refused, the run counted once', async () => {
        await ports.append(mixed());
        const statsOf = async (): Promise<unknown> => (await ports.listWorkflows(['payouts'], 100)).find((r) => r.workflow === 'payouts');
        const before = await statsOf();
        await expect(ports.append([aPark('p-ok1', T0 + 3 * HOUR, { waitKind: 'delay' }), aFinish('p-ok1', T0 + 4 * HOUR, 'failed', 'late_error')]))
          .rejects.toMatchObject({ index: 0, reason: 'run_id: the run already succeeded: a finished run cannot be parked' });
        await expect(ports.append([aResume('p-ok1', T0 + 3 * HOUR)])).rejects.toMatchObject({ reason: 'run_id: the run already succeeded: a finished run cannot be resumed' });
        expect(await statsOf()).toEqual(before);
        expect((await ports.listWaiting(filter({ workflow: 'payouts' }), page())).map((r) => r.runId)).toEqual(['p-wait2', 'p-wait1']);
      });

      it('the most recent error kind is the latest by time, whatever the order of appends', async () => {
        await ports.append([...aTimedRun({ runId: 'e-new', workflow: 'errs', at: T0 + HOUR, durationMs: SECOND, status: 'failed', errorKind: 'newest' })]);
        await ports.append([...aTimedRun({ runId: 'e-old', workflow: 'errs', at: T0, durationMs: SECOND, status: 'failed', errorKind: 'older' })]);
        const [errs] = await ports.listWorkflows([], 10);
        expect(errs!.stats).toMatchObject({ failureCount: 2, recentErrorKind: 'newest', lastFailureAt: T0 + HOUR + SECOND, lastRunAt: T0 + HOUR });
      });

      it('merges the durations of runs appended apart: the same median and p95 as appended at once', async () => {
        const events = timed();
        const runs = new Map<string, JournalEvent[]>();
        for (const e of events) {
          const runId = (e as { run_id: string }).run_id;
          runs.set(runId, [...(runs.get(runId) ?? []), e]);
        }
        for (const run of runs.values()) await ports.append(run);
        const [row] = await ports.listWorkflows([], 10);
        expect(row!.stats!.successCount).toBe(100);
        expect(row!.stats!.durations.total).toBe(100);
        expect(Math.abs(row!.stats!.durations.quantile(0.5)! - 50_000)).toBeLessThanOrEqual(500);
        expect(Math.abs(row!.stats!.durations.quantile(0.95)! - 95_000)).toBeLessThanOrEqual(950);
      });

      it('answers the median and p95 duration within 1%', async () => {
        await ports.append(timed());
        const [row] = await ports.listWorkflows([], 10);
        expect(row!.stats!.successCount).toBe(100);
        const median = row!.stats!.durations.quantile(0.5)!;
        const p95 = row!.stats!.durations.quantile(0.95)!;
        expect(Math.abs(median - 50_000)).toBeLessThanOrEqual(500);
        expect(Math.abs(p95 - 95_000)).toBeLessThanOrEqual(950);
        expect(row!.stats!.durations.total).toBe(100);
      });

      it('carries the workflow state (pause, trigger, cursor and head blocks), the latest word of each field', async () => {
        await ports.append([
          aWorkflowState({ workflow: 'payouts', at: T0, paused: false, trigger: 'cron', network: 'sepolia', cursorBlock: 90, headBlock: 100 }),
          aWorkflowState({ workflow: 'payouts', at: T0 + MINUTE, paused: true, headBlock: 120 }),
        ]);
        const [row] = await ports.listWorkflows([], 10);
        expect(row!.state).toMatchObject({ workflow: 'payouts', paused: true, trigger: 'cron', network: 'sepolia', cursorBlock: 90, headBlock: 120 });
      });

      it('reads workflow names and error kinds of any text as written, and no error kind as null', async () => {
        const awkward = ['tab\there', 'new\nline', 'q"uote\\back', 'ünï😀 \u0001', ''];
        await ports.append(awkward.flatMap((workflow, i) => [
          ...aTimedRun({ runId: `odd-${i}`, workflow, at: T0 + i * MINUTE, durationMs: (i + 1) * SECOND, status: 'failed', errorKind: `kind\t${workflow}` }),
          ...aRun({ runId: `odd-wait-${i}`, workflow, at: T0 + i * MINUTE, park: { waitKind: 'delay' } }),
        ]));
        const rows = await ports.listWorkflows([], 100);
        expect(rows.map((r) => r.workflow)).toEqual([...awkward].sort());
        for (const row of rows) {
          expect(row).toMatchObject({ runsWaiting: 1, stats: expect.objectContaining({ workflow: row.workflow, failureCount: 1, recentErrorKind: `kind\t${row.workflow}` }) });
        }
        await ports.append(aTimedRun({ runId: 'no-kind', workflow: 'plain', at: T0, durationMs: SECOND }));
        expect((await ports.listWorkflows(['plain'], 100)).find((r) => r.workflow === 'plain')!.stats).toMatchObject({ recentErrorKind: null, recentErrorAt: null, lastFailureAt: null, successCount: 1 });
      });

      it('pages by name after afterName, at most `limit` rows', async () => {
        await ports.append(mixed());
        const known = ['delta', 'alpha', 'charlie'];
        const names = async (limit: number, after?: string): Promise<string[]> => (await ports.listWorkflows(known, limit, after)).map((r) => r.workflow);
        expect(await names(2)).toEqual(['alpha', 'charlie']);
        expect(await names(2, 'charlie')).toEqual(['delta', 'keeper']);
        expect(await names(2, 'keeper')).toEqual(['payouts']);
        expect(await names(2, 'payouts')).toEqual([]);
        expect(await names(100, 'b')).toEqual(['charlie', 'delta', 'keeper', 'payouts']);
      });

      it('appending the same events twice leaves the statistics unchanged', async () => {
        const events = [...mixed(), ...timed(), aWorkflowState({ workflow: 'payouts', cursorBlock: 5, headBlock: 9 })];
        await ports.append(events);
        const snapshot = async (): Promise<unknown> => (await ports.listWorkflows(['idle'], 100)).map((r) => ({
          ...r,
          stats: r.stats && { ...r.stats, durations: [r.stats.durations.total, r.stats.durations.quantile(0.5), r.stats.durations.quantile(0.95)] },
        }));
        const before = await snapshot();
        const again = await ports.append(events);
        expect(again.duplicates).toBe(events.length);
        expect(await snapshot()).toEqual(before);
        // and once more split in two batches
        await ports.append(events.slice(0, 40));
        await ports.append(events.slice(40));
        expect(await snapshot()).toEqual(before);
      });
    });
  });
}
