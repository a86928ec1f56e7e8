import type { ChainflowConfig } from '../../src/application/config';
import { ChainUnavailableError, type ChainReader, type ChainTarget } from '../../src/application/ports/chain';
import type { TxReceipt } from '../../src/domain/chain/tx-receipt';
import type { Logger } from '../../src/application/ports/logger';
import { SettlePendingReceipts } from '../../src/application/spend/settle-pending-receipts.use-case';
import type { Receipt } from '../../src/domain/journal/journal-event';
import { Redactor } from '../../src/domain/redactor';
import { landedSend, type LandedSendSpec } from '../contract/spend.contract';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryChain } from '../fakes/in-memory-chain';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemorySpendLedger } from '../fakes/in-memory-spend';
import { aTxHash, HOUR, SECOND, T0 } from '../mothers/journal-events';

const RPC_URL = 'https://sepolia.rpc.example/v3/secret-project-key-123';
const RPC_URL_2 = 'https://backup.rpc.example/key/other-secret-456';

const config: ChainflowConfig = {
  server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false },
  storage: { url: 'sqlite::memory:' },
  networks: new Map([
    ['sepolia', { name: 'sepolia', chainId: 11155111, nativeSymbol: 'ETH', rpc: [RPC_URL, RPC_URL_2], replaceAfterMs: 60_000, confirmations: 1 }],
    ['dark', { name: 'dark', chainId: 5, nativeSymbol: 'ETH', rpc: [], replaceAfterMs: 60_000, confirmations: 1 }],
  ]),
  relayers: new Map(),
  budgets: new Map(),
  workflows: new Map(),
  secretValues: [RPC_URL, RPC_URL_2],
};

class CapturingLogger implements Logger {
  readonly warnings: { message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  readonly infos: { message: string; fields?: Readonly<Record<string, unknown>> }[] = [];
  error(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.warnings.push({ message, fields });
  }
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.warnings.push({ message, fields });
  }
  info(message: string, fields?: Readonly<Record<string, unknown>>): void {
    this.infos.push({ message, fields });
  }
}

/** A receipt reader answering from a map of tx hash to receipt (or to an error), counting reads; it reads nothing else. */
class StubReader {
  readonly reads: { target: ChainTarget; txHash: string }[] = [];
  constructor(private readonly answers: Map<string, Receipt | null | Error>) {}
  async receipt(target: ChainTarget, txHash: string): Promise<TxReceipt | null> {
    this.reads.push({ target, txHash });
    const answer = this.answers.get(txHash) ?? null;
    if (answer instanceof Error) throw answer;
    if (answer === null) return null;
    // The node's numbers as the adapter types them (a receipt without a price keeps none).
    const big = (v: string | number | undefined): bigint | undefined => (v === undefined ? undefined : BigInt(v));
    return {
      status: answer.status === undefined ? true : Number(answer.status) === 1, blockNumber: big(answer.blockNumber) ?? 1n, gasUsed: big(answer.gasUsed) ?? 0n,
      ...(answer.effectiveGasPrice !== undefined ? { effectiveGasPrice: big(answer.effectiveGasPrice) } : {}),
      ...(answer.gasPrice !== undefined ? { gasPrice: big(answer.gasPrice) } : {}),
      ...(answer.l1Fee !== undefined ? { l1Fee: big(answer.l1Fee) } : {}),
    };
  }
}

describe('SettlePendingReceipts', () => {
  let spend: InMemorySpendLedger;
  let journal: InMemoryJournal;
  let logger: CapturingLogger;

  beforeEach(() => {
    spend = new InMemorySpendLedger();
    journal = new InMemoryJournal({ spend });
    logger = new CapturingLogger();
  });

  const settle = (reader: StubReader | InMemoryChain): SettlePendingReceipts => new SettlePendingReceipts(spend, reader as unknown as ChainReader, config, logger, new Redactor(config.secretValues), new FixedClock(T0));
  const owe = async (...specs: LandedSendSpec[]): Promise<void> => {
    await journal.append(specs.flatMap((spec) => landedSend({ receipt: null, ...spec })));
  };
  const logged = (): string => JSON.stringify(logger.warnings);

  it('reads each pending receipt once and records its entry', async () => {
    await owe({ runId: 'a', at: T0, valueWei: '10' }, { runId: 'b', at: T0 + HOUR, valueWei: '20', outcome: 'reverted' });
    const reader = new StubReader(new Map([
      [aTxHash('a'), { status: 1, gasUsed: '21000', effectiveGasPrice: '3', l1Fee: '0x10' }],
      [aTxHash('b'), { status: 0, gasUsed: '0x7530', gasPrice: '2' }],
    ]));
    expect(await settle(reader).drain()).toEqual({ recorded: 2, gaps: 0 });
    expect(reader.reads.map((r) => r.txHash)).toEqual([aTxHash('a'), aTxHash('b')]);
    expect(reader.reads[0]!.target).toEqual({ network: 'sepolia', chainId: 11155111, rpc: [RPC_URL, RPC_URL_2] });
    expect(spend.all()).toEqual([
      expect.objectContaining({ runId: 'a', recordedAt: T0 + 4 * SECOND, gasUsed: 21000n, effectiveGasPrice: 3n, gasSpendWei: 63016n, valueWei: 10n, reverted: false }),
      expect.objectContaining({ runId: 'b', recordedAt: T0 + HOUR + 4 * SECOND, gasSpendWei: 60000n, valueWei: 0n, reverted: true }),
    ]);
    expect(await spend.counts()).toEqual({ pending: 0, gaps: 0 });
    expect(logger.warnings).toEqual([]);
  });

  it('does not read or count again on the next drain, nor when the settle is journaled again', async () => {
    await owe({ runId: 'a' });
    const reader = new StubReader(new Map([[aTxHash('a'), { gasUsed: '1', effectiveGasPrice: '1' }]]));
    const useCase = settle(reader);
    await useCase.drain();
    expect(await useCase.drain()).toEqual({ recorded: 0, gaps: 0 });
    await owe({ runId: 'a' });
    expect(await useCase.drain()).toEqual({ recorded: 0, gaps: 0 });
    expect(reader.reads).toHaveLength(1);
    expect(spend.all()).toHaveLength(1);
  });

  it('logs a warning naming no RPC URL and leaves a gap when the read fails', async () => {
    await owe({ runId: 'a' }, { runId: 'b' });
    const reader = new StubReader(new Map<string, Receipt | null | Error>([
      [aTxHash('a'), new Error(`request to ${RPC_URL} failed, then ${RPC_URL_2} timed out`)],
      [aTxHash('b'), { gasUsed: '5', effectiveGasPrice: '5' }],
    ]));
    expect(await settle(reader).drain()).toEqual({ recorded: 1, gaps: 1 });
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]!.fields).toMatchObject({ step_run_id: 'a.pay', tx_hash: aTxHash('a'), network: 'sepolia' });
    expect(logged()).not.toContain(RPC_URL);
    expect(logged()).not.toContain(RPC_URL_2);
    expect(logged()).not.toContain('secret-project-key');
    expect(spend.all().map((e) => e.runId)).toEqual(['b']);
    expect(await spend.counts()).toEqual({ pending: 0, gaps: 1 });
    expect(spend.gapReasons()[0]).not.toContain(RPC_URL);
  });

  it('keeps the read owed, not a gap, when recording the entry fails; the next drain records it', async () => {
    await owe({ runId: 'a' });
    const reader = new StubReader(new Map([[aTxHash('a'), { gasUsed: '7', effectiveGasPrice: '3' }]]));
    const useCase = settle(reader);
    const complete = spend.complete.bind(spend);
    spend.complete = async () => {
      throw new Error('database is locked');
    };
    await expect(useCase.drain()).rejects.toThrow('database is locked');
    expect(await spend.counts()).toEqual({ pending: 1, gaps: 0 });
    spend.complete = complete;
    expect(await useCase.drain()).toEqual({ recorded: 1, gaps: 0 });
    expect(spend.all().map((e) => e.gasSpendWei)).toEqual([21n]);
  });

  it('does not retry a gap on the next drain (no double count, no second read)', async () => {
    await owe({ runId: 'a' });
    const reader = new StubReader(new Map([[aTxHash('a'), new ChainUnavailableError('sepolia', 'no provider answered')]]));
    const useCase = settle(reader);
    expect(await useCase.drain()).toEqual({ recorded: 0, gaps: 1 });
    expect(await useCase.drain()).toEqual({ recorded: 0, gaps: 0 });
    expect(reader.reads).toHaveLength(1);
    expect(logger.warnings).toHaveLength(1);
    expect(spend.all()).toEqual([]);
  });

  it('names no provider URL when every provider of the fake chain refuses', async () => {
    await owe({ runId: 'a' });
    const chain = new InMemoryChain({ chainId: 11155111 }).setProvider(RPC_URL, 'refuse').setProvider(RPC_URL_2, 'http-error');
    expect(await settle(chain).drain()).toEqual({ recorded: 0, gaps: 1 });
    expect(logger.warnings).toHaveLength(1);
    expect(logged()).not.toContain('rpc.example');
    expect(spend.all()).toEqual([]);
  });

  it('leaves a gap for a receipt not found, one without gas numbers, a settle without tx hash, or a network without providers', async () => {
    await owe({ runId: 'missing' }, { runId: 'bare' }, { runId: 'dark', network: 'dark' });
    await journal.append([
      ...landedSend({ runId: 'nohash', receipt: null }).slice(0, 3),
      { type: 'send.settled', at: new Date(T0 + 5 * SECOND).toISOString(), send_id: 'nohash.send', outcome: 'confirmed' },
    ]);
    const reader = new StubReader(new Map([[aTxHash('missing'), null], [aTxHash('bare'), { status: 1 }]]));
    expect(await settle(reader).drain()).toEqual({ recorded: 0, gaps: 4 });
    expect(reader.reads.map((r) => r.txHash).sort()).toEqual([aTxHash('bare'), aTxHash('missing')].sort());
    expect(logger.warnings).toHaveLength(4);
    expect(spend.all()).toEqual([]);
    expect(await spend.counts()).toEqual({ pending: 0, gaps: 4 });
  });

  it('runs one drain at a time', async () => {
    await owe({ runId: 'a' }, { runId: 'b' });
    const reader = new StubReader(new Map([[aTxHash('a'), { gasUsed: '1', gasPrice: '1' }], [aTxHash('b'), { gasUsed: '1', gasPrice: '1' }]]));
    const useCase = settle(reader);
    const [one, two] = await Promise.all([useCase.drain(), useCase.drain()]);
    expect(one).toEqual({ recorded: 2, gaps: 0 });
    expect(two).toEqual(one);
    expect(reader.reads).toHaveLength(2);
    expect(spend.all()).toHaveLength(2);
  });
});
