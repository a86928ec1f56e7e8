import type { Receipt, SendOutcome, SessionKind } from '../../src/domain/journal/journal-event';
import { applyEvents } from '../../src/domain/journal/projector';
import { emptyWorkingSet } from '../../src/domain/journal/working-set';
import type { SendAttempt } from '../../src/domain/send-attempt';
import {
  completeEntry, gasNumbers, landedSettle, MAX_UINT256, receiptNumber, type LedgerEntry, type PendingReceipt,
} from '../../src/domain/spend/ledger-entry';
import { aRun, aTxHash, iso, T0 } from '../mothers/journal-events';

const GWEI = 1_000_000_000n;

function aSend(overrides: Partial<SendAttempt> & { outcome?: SendOutcome | null; session?: SessionKind } = {}): SendAttempt {
  return {
    sendId: 'run-1.send', runId: 'run-1', stepRunId: 'run-1.pay', workflow: 'payouts', session: 'live',
    network: 'sepolia', chainId: 11155111, relayer: 'ops', status: 'settled', outcome: 'confirmed',
    txHash: aTxHash('tx-1'), idempotencyKey: 'k-1', to: '0x000000000000000000000000000000000000beef',
    valueWei: 5_000n, receipt: null, createdAt: T0, updatedAt: T0, ...overrides,
  };
}

/** The entry a landed settle leaves, failing the test when it leaves anything else. */
function entryOf(send: SendAttempt, receipt: Receipt | null, at = T0): LedgerEntry {
  const landed = landedSettle(send, receipt, at);
  if (landed?.kind !== 'entry') throw new Error(`expected an entry, got ${JSON.stringify(landed?.kind)}`);
  return landed.entry;
}

function pendingOf(send: SendAttempt, receipt: Receipt | null, at = T0): PendingReceipt {
  const landed = landedSettle(send, receipt, at);
  if (landed?.kind !== 'pending') throw new Error(`expected a pending read, got ${JSON.stringify(landed?.kind)}`);
  return landed.pending;
}

describe('receiptNumber', () => {
  it('reads decimal and 0x-hex strings exactly, beyond 64 bits', () => {
    expect(receiptNumber('21000')).toBe(21000n);
    expect(receiptNumber('0x5208')).toBe(21000n);
    expect(receiptNumber('0x5A08')).toBe(0x5a08n);
    expect(receiptNumber('0')).toBe(0n);
    expect(receiptNumber('0x0')).toBe(0n);
    expect(receiptNumber(MAX_UINT256.toString())).toBe(MAX_UINT256);
    expect(receiptNumber(`0x${'f'.repeat(64)}`)).toBe(MAX_UINT256);
    expect(receiptNumber('18446744073709551621')).toBe((1n << 64n) + 5n);
  });

  it('takes safe non-negative integers as numbers', () => {
    expect(receiptNumber(21000)).toBe(21000n);
    expect(receiptNumber(0)).toBe(0n);
  });

  it('gives undefined for absent or malformed numbers', () => {
    for (const bad of [undefined, '', ' 1', '1 ', '-5', '1e3', '1.5', '0x', '0xg1', 'abc', '21,000']) {
      expect([bad, receiptNumber(bad)]).toEqual([bad, undefined]);
    }
    for (const bad of [-1, 1.5, Number.MAX_SAFE_INTEGER + 2, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect([bad, receiptNumber(bad)]).toEqual([bad, undefined]);
    }
  });
});

describe('gasNumbers', () => {
  it('prefers effectiveGasPrice, falls back to the legacy gasPrice, and reads l1Fee when present', () => {
    expect(gasNumbers({ gasUsed: '21000', effectiveGasPrice: '7', gasPrice: '9' })).toEqual({ gasUsed: 21000n, price: 7n, l1Fee: 0n });
    expect(gasNumbers({ gasUsed: '21000', gasPrice: '9' })).toEqual({ gasUsed: 21000n, price: 9n, l1Fee: 0n });
    expect(gasNumbers({ gasUsed: '0x5208', effectiveGasPrice: '0x7', l1Fee: '0x10' })).toEqual({ gasUsed: 21000n, price: 7n, l1Fee: 16n });
  });

  it('has none without gasUsed or without any price', () => {
    expect(gasNumbers(null)).toBeUndefined();
    expect(gasNumbers(undefined)).toBeUndefined();
    expect(gasNumbers({})).toBeUndefined();
    expect(gasNumbers({ gasUsed: '21000' })).toBeUndefined();
    expect(gasNumbers({ effectiveGasPrice: '1' })).toBeUndefined();
    expect(gasNumbers({ gasUsed: 'lots', effectiveGasPrice: '1' })).toBeUndefined();
    expect(gasNumbers({ gasUsed: '21000', l1Fee: '5' })).toBeUndefined();
  });
});

describe('landedSettle: the ledger entry of a landed send', () => {
  it('records gas_spend_wei = gasUsed x effectiveGasPrice, the send value, and the settle time', () => {
    const entry = entryOf(aSend({ valueWei: 123n }), { gasUsed: '21000', effectiveGasPrice: '1500000000' }, T0 + 42);
    expect(entry).toEqual({
      recordedAt: T0 + 42, workflow: 'payouts', runId: 'run-1', stepRunId: 'run-1.pay', relayer: 'ops',
      network: 'sepolia', chainId: 11155111, txHash: aTxHash('tx-1'), gasUsed: 21000n, effectiveGasPrice: 1_500_000_000n,
      gasSpendWei: 21000n * 1_500_000_000n, valueWei: 123n, reverted: false,
    });
  });

  it('adds the receipt l1Fee when present', () => {
    const entry = entryOf(aSend(), { gasUsed: '50000', effectiveGasPrice: '2000000', l1Fee: '987654321' });
    expect(entry.gasSpendWei).toBe(50000n * 2_000_000n + 987_654_321n);
    expect(entry.effectiveGasPrice).toBe(2_000_000n);
  });

  it('uses the legacy gasPrice where effectiveGasPrice is absent', () => {
    const entry = entryOf(aSend(), { gasUsed: '21000', gasPrice: '3000000000' });
    expect(entry.effectiveGasPrice).toBe(3n * GWEI);
    expect(entry.gasSpendWei).toBe(21000n * 3n * GWEI);
  });

  it('reads hex and decimal receipt numbers alike', () => {
    const decimal = entryOf(aSend(), { gasUsed: '21000', effectiveGasPrice: '1000000000', l1Fee: '255' });
    const hex = entryOf(aSend(), { gasUsed: '0x5208', effectiveGasPrice: '0x3b9aca00', l1Fee: '0xff' });
    const mixed = entryOf(aSend(), { gasUsed: '0x5208', effectiveGasPrice: '1000000000', l1Fee: '0xff' });
    expect(hex).toEqual(decimal);
    expect(mixed).toEqual(decimal);
    expect(decimal.gasSpendWei).toBe(21000n * GWEI + 255n);
  });

  it('is exact far beyond 64 bits and floats', () => {
    const entry = entryOf(aSend({ valueWei: (1n << 200n) + 1n }), { gasUsed: (1n << 100n).toString(), effectiveGasPrice: ((1n << 150n) + 3n).toString(), l1Fee: '1' });
    expect(entry.gasSpendWei).toBe((1n << 250n) + 3n * (1n << 100n) + 1n);
    expect(entry.valueWei).toBe((1n << 200n) + 1n);
  });

  it('records a reverted send with value 0, its gas counted, flagged reverted', () => {
    const entry = entryOf(aSend({ outcome: 'reverted', valueWei: 10n ** 18n }), { gasUsed: '30000', effectiveGasPrice: '2', status: 0 });
    expect(entry).toMatchObject({ reverted: true, valueWei: 0n, gasSpendWei: 60000n, gasUsed: 30000n });
  });

  it.each(['dropped', 'replaced'] as const)('leaves nothing for a %s send, even with a receipt', (outcome) => {
    expect(landedSettle(aSend({ outcome }), { gasUsed: '21000', effectiveGasPrice: '1' }, T0)).toBeUndefined();
    expect(landedSettle(aSend({ outcome }), null, T0)).toBeUndefined();
  });

  it('records the landed cancel of an expired send (CONTRACT 8.5): its gas, value 0, not reverted; nothing without its receipt', () => {
    const entry = entryOf(aSend({ outcome: 'expired', valueWei: 10n ** 18n }), { gasUsed: '21000', effectiveGasPrice: '3' });
    expect(entry).toMatchObject({ reverted: false, valueWei: 0n, gasSpendWei: 63000n });
    expect(landedSettle(aSend({ outcome: 'expired' }), null, T0)).toBeUndefined();
    expect(landedSettle(aSend({ outcome: 'expired' }), { status: 1 }, T0)).toBeUndefined();
  });

  it('leaves nothing for a send not settled yet', () => {
    expect(landedSettle(aSend({ outcome: null, status: 'submitted' }), { gasUsed: '21000', effectiveGasPrice: '1' }, T0)).toBeUndefined();
  });

  it.each(['replay', 'test'] as const)('leaves nothing for a send of a %s session (it never reached a chain)', (session) => {
    expect(landedSettle(aSend({ session }), { gasUsed: '21000', effectiveGasPrice: '1' }, T0)).toBeUndefined();
    expect(landedSettle(aSend({ session, outcome: 'reverted' }), null, T0)).toBeUndefined();
  });

  it('leaves a pending receipt read when the receipt has no gas numbers', () => {
    const expected: PendingReceipt = {
      recordedAt: T0 + 7, workflow: 'payouts', runId: 'run-1', stepRunId: 'run-1.pay', relayer: 'ops', network: 'sepolia',
      chainId: 11155111, txHash: aTxHash('tx-1'), valueWei: 5_000n, reverted: false,
    };
    expect(pendingOf(aSend(), null, T0 + 7)).toEqual(expected);
    expect(pendingOf(aSend(), { status: 1, blockNumber: '9' }, T0 + 7)).toEqual(expected);
    expect(pendingOf(aSend(), { gasUsed: '21000' }, T0 + 7)).toEqual(expected);
    expect(pendingOf(aSend(), { effectiveGasPrice: '1' }, T0 + 7)).toEqual(expected);
    expect(pendingOf(aSend({ outcome: 'reverted' }), null, T0 + 7)).toEqual({ ...expected, reverted: true });
    expect(pendingOf(aSend({ txHash: null }), null, T0 + 7)).toEqual({ ...expected, txHash: null });
  });

  it('leaves a pending read rather than an entry above uint256', () => {
    const huge = { gasUsed: (1n << 200n).toString(), effectiveGasPrice: (1n << 60n).toString() };
    expect(landedSettle(aSend(), huge, T0)?.kind).toBe('pending');
  });
});

describe('completeEntry: a pending read completed by its receipt', () => {
  const pending = pendingOf(aSend({ valueWei: 77n }), null, T0 + 5);

  it('gives the same entry the journaled receipt would have given', () => {
    const receipt = { gasUsed: '0x5208', effectiveGasPrice: '1000000000', l1Fee: '3' };
    expect(completeEntry(pending, receipt)).toEqual(entryOf(aSend({ valueWei: 77n }), receipt, T0 + 5));
  });

  it('zeroes the value of a reverted send', () => {
    const reverted = pendingOf(aSend({ outcome: 'reverted', valueWei: 77n }), null, T0);
    expect(completeEntry(reverted, { gasUsed: '10', gasPrice: '10' })).toMatchObject({ valueWei: 0n, reverted: true, gasSpendWei: 100n });
  });

  it('gives nothing without gas numbers, without a tx hash, or above uint256', () => {
    expect(completeEntry(pending, null)).toBeUndefined();
    expect(completeEntry(pending, { gasUsed: '21000' })).toBeUndefined();
    expect(completeEntry({ ...pending, txHash: null }, { gasUsed: '1', effectiveGasPrice: '1' })).toBeUndefined();
    expect(completeEntry(pending, { gasUsed: MAX_UINT256.toString(), effectiveGasPrice: '1', l1Fee: '1' })).toBeUndefined();
    expect(completeEntry(pending, { gasUsed: MAX_UINT256.toString(), effectiveGasPrice: '1' })?.gasSpendWei).toBe(MAX_UINT256);
  });
});

describe('the projector at a terminal settle', () => {
  const ledgerOf = (events: ReturnType<typeof aRun>) => applyEvents(emptyWorkingSet(), events).ledger;
  const settleAt = (events: ReturnType<typeof aRun>): number => Date.parse(events.find((e) => e.type === 'send.settled')!.at);

  it('leaves one entry for a confirmed send, recorded at the settle event', () => {
    const events = aRun({ runId: 'r1', send: { txHash: aTxHash('r1'), valueWei: '900', receipt: { gasUsed: '21000', effectiveGasPrice: '0x2' } } });
    const ledger = ledgerOf(events);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toEqual({
      kind: 'entry',
      entry: expect.objectContaining({ recordedAt: settleAt(events), txHash: aTxHash('r1'), gasSpendWei: 42000n, valueWei: 900n, reverted: false, stepRunId: 'r1.submit_tx' }),
    });
  });

  it('leaves a reverted entry with value 0', () => {
    const ledger = ledgerOf(aRun({ runId: 'r2', send: { outcome: 'reverted', valueWei: '900' } }));
    expect(ledger).toEqual([{ kind: 'entry', entry: expect.objectContaining({ reverted: true, valueWei: 0n }) }]);
  });

  it.each(['dropped', 'replaced'] as const)('leaves nothing for %s', (outcome) => {
    expect(ledgerOf(aRun({ runId: 'r3', send: { outcome } }))).toEqual([]);
  });

  it('leaves the cancel\'s entry for expired, with value 0', () => {
    expect(ledgerOf(aRun({ runId: 'r3', send: { outcome: 'expired', valueWei: '900' } }))).toEqual([{ kind: 'entry', entry: expect.objectContaining({ valueWei: 0n, reverted: false }) }]);
  });

  it.each(['replay', 'test'] as const)('leaves nothing for a %s session', (session) => {
    expect(ledgerOf(aRun({ runId: 'r4', session, sessionId: 's-1', send: { outcome: 'confirmed' } }))).toEqual([]);
  });

  it('leaves nothing before the settle', () => {
    expect(ledgerOf(aRun({ runId: 'r5', send: { status: 'submitted' } }))).toEqual([]);
  });

  it('leaves a pending read for a settle without gas numbers', () => {
    const events = aRun({ runId: 'r6', send: { receipt: { gasUsed: '21000' } } });
    expect(ledgerOf(events)).toEqual([{ kind: 'pending', pending: expect.objectContaining({ recordedAt: settleAt(events), stepRunId: 'r6.submit_tx' }) }]);
  });

  it('leaves nothing again for a settle event already applied', () => {
    const ws = emptyWorkingSet();
    const events = aRun({ runId: 'r7', send: {} });
    expect(applyEvents(ws, events).ledger).toHaveLength(1);
    expect(applyEvents(ws, events).ledger).toEqual([]);
  });

  it('uses the receipt of an earlier settle when a later one has none', () => {
    const ws = emptyWorkingSet();
    const events = aRun({ runId: 'r8', send: { receipt: { gasUsed: '10', effectiveGasPrice: '3' } } });
    applyEvents(ws, events);
    const again = applyEvents(ws, [{ type: 'send.settled', at: iso(T0 + 3_600_000), send_id: 'r8.send', outcome: 'confirmed', tx_hash: aTxHash('r8') }]);
    expect(again.ledger).toEqual([{ kind: 'entry', entry: expect.objectContaining({ gasSpendWei: 30n, recordedAt: T0 + 3_600_000 }) }]);
  });
});
