/**
 * The spend ledger and the gas budget cap end to end: a real anvil chain, a real SQLite file and PostgreSQL (CONTRACT
 * 10: the ledger, its receipts owed and the budget's reservations are the database's), the real
 * composition root (openRoot) and the real HTTP server (SPEC: States and transitions, Spend API, Budget,
 * Errors, Limits; issue 4, items 1, 4 and 5). Amounts are checked against the chain itself: the sender's
 * balance change (read with web3) and the node's receipts, to the wei.
 *
 * One anvil for the whole file; every account used by one part of the file is used by no other part.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Web3 } from 'web3';
import { GetRunTimeline } from '../../src/application/history/get-run-timeline.use-case';
import { ListSends } from '../../src/application/history/list-sends.use-case';
import { JournalWriter } from '../../src/application/ports/journal-writer';
import type { Logger } from '../../src/application/ports/logger';
import { PendingReceipts } from '../../src/application/ports/spend-ledger';
import { GetSpend } from '../../src/application/spend/get-spend.use-case';
import { SendTransaction, type SendRequest, type SendResult } from '../../src/application/sends/send-transaction.use-case';
import { SettlePendingReceipts } from '../../src/application/spend/settle-pending-receipts.use-case';
import type { StepEvent } from '../../src/application/history/timeline';
import { openRoot, type Root } from '../../src/bin/root';
import { startServer } from '../../src/bin/server';
import type { JournalEvent, Receipt } from '../../src/domain/journal/journal-event';
import { ANVIL_ACCOUNTS, ANVIL_CHAIN_ID, refusingUrl, REVERT_CODE, startAnvil, startRpcStub, type Anvil, type RpcStub } from '../support/anvil';
import { get, makeTempDir, removeTempDir, writeConfig } from '../support/server';
import type { EntryJson, SpendJson } from '../support/spend-ledger';
import type { FreshPostgres } from '../support/postgres';
import { E2E_STORAGES } from '../support/stores';

const ETHER = 10n ** 18n;
/** Code installed here reverts every call (PUSH1 0 PUSH1 0 REVERT). */
const REVERTER = '0x000000000000000000000000000000000000dEaD';
const RECIPIENT = ANVIL_ACCOUNTS[9]!.address;

/** Accounts, one role each (account 0 is left alone). */
const OPS = ANVIL_ACCOUNTS[1]!;
const CAPPED = ANVIL_ACCOUNTS[2]!;
const OUTSIDE = ANVIL_ACCOUNTS[3]!;
const EXTERNAL = ANVIL_ACCOUNTS[4]!;

interface ChainReceipt {
  status: string;
  gasUsed: string;
  effectiveGasPrice: string;
  blockNumber: string;
}

class CapturingLogger implements Logger {
  readonly warnings: { message: string; fields: Readonly<Record<string, unknown>> }[] = [];
  error(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.warnings.push({ message, fields });
  }
  warn(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.warnings.push({ message, fields });
  }
  info(): void {}
}

let anvil: Anvil;
/** A live provider in front of anvil that records what it is asked. */
let proxy: RpcStub;
let web3: Web3;
let env: Record<string, string>;
const deadUrls: string[] = [];

/** The config of this file: one network per provider situation, three relayers, a gas budget scoped to `capped`. */
function config(maxGasSpend: string, database: FreshPostgres | undefined): Record<string, unknown> {
  return {
    ...(database ? { storage: { url: database.url } } : {}),
    networks: {
      anvil: { chain_id: ANVIL_CHAIN_ID, rpc: [{ env: 'RPC' }] },
      anvil_fallback: { chain_id: ANVIL_CHAIN_ID, rpc: [{ env: 'DEAD_RPC' }, { env: 'PROXY_RPC' }] },
      anvil_down: { chain_id: ANVIL_CHAIN_ID, rpc: [{ env: 'DEAD_RPC' }, { env: 'DEAD_RPC_2' }] },
    },
    relayers: {
      ops: { network: 'anvil', signer: { env: 'OPS_KEY' } },
      capped: { network: 'anvil', signer: { env: 'CAPPED_KEY' } },
      outside: { network: 'anvil', signer: { env: 'OUTSIDE_KEY' } },
    },
    budgets: { gas_cap: { window: '24h', max_gas_spend: maxGasSpend, scope: { relayers: ['capped'] } } },
    workflows: { payouts: { budgets: [] }, guarded: { budgets: ['gas_cap'] } },
  };
}

async function open(dir: string, maxGasSpend: string, database: FreshPostgres | undefined, logger: Logger = new CapturingLogger()): Promise<Root> {
  const configPath = writeConfig(dir, config(maxGasSpend, database));
  return openRoot({ cwd: dir, configPath, env, logger });
}

const balance = async (address: string): Promise<bigint> => BigInt(await web3.eth.getBalance(address));
const nonces = async (address: string): Promise<[string, string]> => [
  await anvil.rpc<string>('eth_getTransactionCount', [address, 'latest']),
  await anvil.rpc<string>('eth_getTransactionCount', [address, 'pending']),
];

async function chainReceipt(txHash: string): Promise<ChainReceipt> {
  for (let i = 0; i < 50; i++) {
    const receipt = await anvil.rpc<ChainReceipt | null>('eth_getTransactionReceipt', [txHash]);
    if (receipt) return receipt;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no receipt for ${txHash}`);
}

/** What the engine journals before a send step runs: the run and the step's start. */
async function startRun(root: Root, runId: string, workflow: string): Promise<string> {
  const at = new Date().toISOString();
  const stepRunId = `${runId}.send`;
  await root.container.get<JournalWriter>(JournalWriter).append([
    { type: 'run.started', at, run_id: runId, workflow, session: 'live', trigger: { kind: 'manual' } },
    { type: 'step.started', at, run_id: runId, step_run_id: stepRunId, step_id: 'send', step_type: 'send', attempt: 1 },
  ]);
  return stepRunId;
}

async function send(root: Root, runId: string, workflow: string, request: Pick<SendRequest, 'relayer' | 'to' | 'valueWei' | 'gasLimit'>): Promise<SendResult> {
  const stepRunId = await startRun(root, runId, workflow);
  return root.container.get(SendTransaction).execute({
    runId, stepRunId, sendId: `${runId}.tx`, idempotencyKey: `${runId}:send`, waitMs: 15_000, ...request,
  });
}

async function stepOf(root: Root, runId: string): Promise<StepEvent> {
  const timeline = await root.container.get(GetRunTimeline).execute(runId);
  const steps = timeline.events.filter((e): e is StepEvent => e.kind === 'step');
  expect(steps).toHaveLength(1);
  return steps[0]!;
}

/** The ledger entries of one transaction, through GetSpend (the use case behind GET /api/spend and the CLI). */
async function entriesOf(root: Root, txHash: string): Promise<EntryJson[]> {
  const report = await root.container.get(GetSpend).execute({ limit: '500' });
  return (report.entries as EntryJson[]).filter((e) => e.tx_hash === txHash);
}

beforeAll(async () => {
  anvil = await startAnvil();
  await anvil.setCode(REVERTER, REVERT_CODE);
  web3 = new Web3(anvil.url);
  deadUrls.push(await refusingUrl('/v3/DEAD-KEY-1'), await refusingUrl('/v3/DEAD-KEY-2'));
  proxy = await startRpcStub(() => ({ forward: true }), anvil.url);
  env = {
    RPC: anvil.url, DEAD_RPC: deadUrls[0]!, DEAD_RPC_2: deadUrls[1]!, PROXY_RPC: proxy.url,
    OPS_KEY: OPS.privateKey, CAPPED_KEY: CAPPED.privateKey, OUTSIDE_KEY: OUTSIDE.privateKey,
  };
}, 30_000);

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

describe.each(E2E_STORAGES)('on %s', (_name, freshStorage) => {
  let database: FreshPostgres | undefined;
  beforeAll(async () => {
    database = await freshStorage();
  });
  afterAll(() => database?.drop());

  describe('landed sends through SendTransaction, read back through GET /api/spend', () => {
    let dir: string;
    let root: Root;
    let server: Server;
    let baseUrl: string;
    const logger = new CapturingLogger();
    const spend = async (query: string): Promise<SpendJson> => {
      const res = await get(`${baseUrl}/api/spend${query}`);
      expect(res.status).toBe(200);
      return res.body as SpendJson;
    };

    beforeAll(async () => {
      dir = makeTempDir('chainflow-e2e-spend-');
      root = await open(dir, '1000 ether', database, logger);
      server = await startServer(root, { port: 0, host: '127.0.0.1' });
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await root.container.get(SettlePendingReceipts).drain();
    });
    afterAll(async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await root.close();
      removeTempDir(dir);
    });

    let transfer: EntryJson;
    let reverted: EntryJson;

    it('a confirmed value transfer: one entry, its gas + value equal to the sender\'s balance decrease, its numbers the receipt\'s', async () => {
      const value = 3n * ETHER / 2n;
      const [before, recipientBefore] = [await balance(OPS.address), await balance(RECIPIENT)];
      const result = await send(root, 'e2e-transfer', 'payouts', { relayer: 'ops', to: RECIPIENT, valueWei: value });
      expect(result.status).toBe('confirmed');
      const txHash = (result as { txHash: string }).txHash;
      const [after, recipientAfter] = [await balance(OPS.address), await balance(RECIPIENT)];
      const receipt = await chainReceipt(txHash);
      expect(receipt.status).toBe('0x1');

      const { entries } = await spend('?relayer=ops&limit=500');
      expect(entries.filter((e) => e.tx_hash === txHash)).toHaveLength(1);
      transfer = entries.find((e) => e.tx_hash === txHash)!;
      expect(transfer).toMatchObject({
        workflow: 'payouts', run_id: 'e2e-transfer', step_run_id: 'e2e-transfer.send', relayer: 'ops', network: 'anvil', chain_id: ANVIL_CHAIN_ID,
        gas_used: BigInt(receipt.gasUsed).toString(), effective_gas_price: BigInt(receipt.effectiveGasPrice).toString(),
        gas_spend_wei: (BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)).toString(), value_wei: value.toString(), reverted: false,
      });
      expect(BigInt(transfer.gas_spend_wei)).toBeGreaterThan(0n);
      expect(BigInt(transfer.gas_spend_wei) + BigInt(transfer.value_wei)).toBe(before - after);
      expect(recipientAfter - recipientBefore).toBe(value);
      expect((await stepOf(root, 'e2e-transfer')).status).toBe('succeeded');
    });

    it('a reverted call (explicit gas limit): one entry, reverted, value 0, its gas equal to the balance decrease', async () => {
      const before = await balance(OPS.address);
      const result = await send(root, 'e2e-revert', 'payouts', { relayer: 'ops', to: REVERTER, valueWei: ETHER, gasLimit: 100_000n });
      expect(result.status).toBe('reverted');
      const txHash = (result as { txHash: string }).txHash;
      const after = await balance(OPS.address);
      const receipt = await chainReceipt(txHash);
      expect(receipt.status).toBe('0x0');
      expect(await balance(REVERTER)).toBe(0n);

      const { entries } = await spend('?relayer=ops&limit=500');
      expect(entries.filter((e) => e.tx_hash === txHash)).toHaveLength(1);
      reverted = entries.find((e) => e.tx_hash === txHash)!;
      expect(reverted).toMatchObject({
        run_id: 'e2e-revert', relayer: 'ops', network: 'anvil', gas_used: BigInt(receipt.gasUsed).toString(),
        effective_gas_price: BigInt(receipt.effectiveGasPrice).toString(), value_wei: '0', reverted: true,
      });
      expect(BigInt(reverted.gas_spend_wei)).toBe(BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
      expect(BigInt(reverted.gas_spend_wei) + BigInt(reverted.value_wei)).toBe(before - after);
      expect(await stepOf(root, 'e2e-revert')).toMatchObject({ status: 'failed' });
    });

    it('the summary of the two is exact', async () => {
      const { summary, entries } = await spend('?relayer=ops');
      expect(entries.map((e) => e.run_id)).toEqual(['e2e-revert', 'e2e-transfer']);
      expect(summary.total).toEqual({
        tx_count: 2,
        gas_spend_wei: (BigInt(transfer.gas_spend_wei) + BigInt(reverted.gas_spend_wei)).toString(),
        value_wei: transfer.value_wei,
        reverted_count: 1,
        reverted_gas_wei: reverted.gas_spend_wei,
      });
      expect(summary.by_network).toEqual([{ key: 'anvil', ...summary.total }]);
    });

    describe('a landed settle journaled without gas numbers: one receipt read over the network\'s providers', () => {
      /** A real transaction on anvil, sent from an unlocked dev account (not through chainflow). */
      async function externalTx(to: string, valueWei: bigint, gas?: bigint): Promise<{ txHash: string; receipt: ChainReceipt }> {
        const txHash = await anvil.rpc<string>('eth_sendTransaction', [{
          from: EXTERNAL.address, to, value: `0x${valueWei.toString(16)}`, ...(gas ? { gas: `0x${gas.toString(16)}` } : {}),
        }]);
        return { txHash, receipt: await chainReceipt(txHash) };
      }

      /** The engine's journal of a send that landed, whose settle carries `receipt` (or none). Returns the settle's `at`. */
      async function journalLanded(runId: string, network: string, txHash: string, valueWei: bigint, outcome: 'confirmed' | 'reverted', receipt?: Receipt): Promise<string> {
        const at = new Date().toISOString();
        const stepRunId = `${runId}.send`;
        const sendId = `${runId}.tx`;
        await root.container.get<JournalWriter>(JournalWriter).append([
          { type: 'run.started', at, run_id: runId, workflow: 'payouts', session: 'live', trigger: { kind: 'manual' } },
          { type: 'step.started', at, run_id: runId, step_run_id: stepRunId, step_id: 'send', step_type: 'send', attempt: 1 },
          {
            type: 'send.queued', at, run_id: runId, step_run_id: stepRunId, send_id: sendId, network, chain_id: ANVIL_CHAIN_ID,
            relayer: 'external', to: RECIPIENT, value_wei: valueWei.toString(), idempotency_key: `${runId}:send`,
          },
          { type: 'send.submitted', at, send_id: sendId, tx_hash: txHash },
          { type: 'send.settled', at, send_id: sendId, outcome, tx_hash: txHash, ...(receipt ? { receipt } : {}) } as JournalEvent,
          { type: 'step.finished', at, run_id: runId, step_run_id: stepRunId, status: outcome === 'confirmed' ? 'succeeded' : 'failed' },
        ]);
        return at;
      }

      const expected = (runId: string, network: string, txHash: string, receipt: ChainReceipt, valueWei: bigint, recordedAt: string): EntryJson => {
        const gasUsed = BigInt(receipt.gasUsed);
        const price = BigInt(receipt.effectiveGasPrice);
        const reverted = receipt.status === '0x0';
        return {
          recorded_at: recordedAt, workflow: 'payouts', run_id: runId, step_run_id: `${runId}.send`, relayer: 'external', network,
          chain_id: ANVIL_CHAIN_ID, tx_hash: txHash, gas_used: gasUsed.toString(), effective_gas_price: price.toString(),
          gas_spend_wei: (gasUsed * price).toString(), value_wei: reverted ? '0' : valueWei.toString(), reverted, reorged: false,
        };
      };
      const counts = (): Promise<{ pending: number; gaps: number }> => root.container.get<PendingReceipts>(PendingReceipts).counts();
      const drain = (): Promise<{ recorded: number; gaps: number }> => root.container.get(SettlePendingReceipts).drain();

      it('records the entries with the chain\'s receipt numbers (a confirmed send without a receipt, a reverted one whose receipt has no price)', async () => {
        const confirmed = await externalTx(RECIPIENT, ETHER / 10n);
        const failed = await externalTx(REVERTER, 0n, 100_000n);
        expect(failed.receipt.status).toBe('0x0');
        const confirmedAt = await journalLanded('rr-confirmed', 'anvil', confirmed.txHash, ETHER / 10n, 'confirmed');
        const failedAt = await journalLanded('rr-reverted', 'anvil', failed.txHash, 5n, 'reverted', { gasUsed: '1', status: 0 });
        expect(await counts()).toEqual({ pending: 2, gaps: 0 });
        expect(await entriesOf(root, confirmed.txHash)).toEqual([]);

        expect(await drain()).toEqual({ recorded: 2, gaps: 0 });
        expect(await counts()).toEqual({ pending: 0, gaps: 0 });
        expect(await entriesOf(root, confirmed.txHash)).toEqual([expected('rr-confirmed', 'anvil', confirmed.txHash, confirmed.receipt, ETHER / 10n, confirmedAt)]);
        expect(await entriesOf(root, failed.txHash)).toEqual([expected('rr-reverted', 'anvil', failed.txHash, failed.receipt, 5n, failedAt)]);
        // read once: a second drain finds nothing owed and writes nothing twice
        expect(await drain()).toEqual({ recorded: 0, gaps: 0 });
        expect(await entriesOf(root, confirmed.txHash)).toHaveLength(1);
      });

      it('tries the providers in order: the first is dead, the second answers', async () => {
        const tx = await externalTx(RECIPIENT, 7n);
        const at = await journalLanded('rr-fallback', 'anvil_fallback', tx.txHash, 7n, 'confirmed');
        expect(await drain()).toEqual({ recorded: 1, gaps: 0 });
        expect(await entriesOf(root, tx.txHash)).toEqual([expected('rr-fallback', 'anvil_fallback', tx.txHash, tx.receipt, 7n, at)]);
        // the answer came from the second provider, asked once for that receipt
        expect(proxy.calls.filter((c) => c.method === 'eth_getTransactionReceipt' && c.params[0] === tx.txHash)).toHaveLength(1);
      });

      it('every provider dead: no entry, a warning, the gap counted, the send and its journal untouched', async () => {
        const tx = await externalTx(RECIPIENT, 11n);
        await journalLanded('rr-down', 'anvil_down', tx.txHash, 11n, 'confirmed');
        const warningsBefore = logger.warnings.length;
        expect(await drain()).toEqual({ recorded: 0, gaps: 1 });

        expect(await entriesOf(root, tx.txHash)).toEqual([]);
        expect(await counts()).toEqual({ pending: 0, gaps: 1 });
        const logged = logger.warnings.slice(warningsBefore);
        // Each provider's failure is a failover line of its own (CONTRACT 11), by the provider's number.
        const failovers = logged.filter((w) => w.message === 'provider failed over');
        expect(failovers.length).toBeGreaterThan(0);
        expect(failovers.every((w) => w.fields.network === 'anvil_down' && typeof w.fields.provider === 'number')).toBe(true);
        const warnings = logged.filter((w) => w.message !== 'provider failed over');
        expect(warnings).toEqual([{
          message: expect.stringMatching(/receipt read failed/),
          fields: expect.objectContaining({ tx_hash: tx.txHash, network: 'anvil_down', reason: expect.stringMatching(/no provider answered/) }),
        }]);
        // provider URLs are secret-typed: never in a log line
        for (const url of deadUrls) expect(JSON.stringify(logged)).not.toContain(url);
        expect(JSON.stringify(logged)).not.toMatch(/DEAD-KEY|127\.0\.0\.1/);

        const metrics = await get(`${baseUrl}/metrics`);
        expect(metrics.text).toMatch(/^chainflow_spend_ledger_gaps 1$/m);
        const sends = await root.container.get(ListSends).execute({ run_id: 'rr-down' });
        expect(sends.items.map((s) => [s.status, s.outcome, s.tx_hash])).toEqual([['settled', 'confirmed', tx.txHash]]);
        expect(await stepOf(root, 'rr-down')).toMatchObject({ status: 'succeeded', error: null });
        // a gap is not retried on its own
        expect(await drain()).toEqual({ recorded: 0, gaps: 0 });
        expect(await counts()).toEqual({ pending: 0, gaps: 1 });
      });
    });
  });

  describe('the gas budget cap refuses a send before any broadcast', () => {
    let dir: string;
    let root: Root | undefined;
    let firstGas: bigint;

    beforeAll(() => {
      dir = makeTempDir('chainflow-e2e-budget-');
    });
    afterAll(async () => {
      await root?.close();
      removeTempDir(dir);
    });

    it('under the cap: the send goes through, and its check is journaled as allowed', async () => {
      root = await open(dir, '1000 ether', database);
      const result = await send(root, 'b-first', 'guarded', { relayer: 'capped', to: RECIPIENT, valueWei: 1n });
      expect(result.status).toBe('confirmed');
      const [entry] = await entriesOf(root, (result as { txHash: string }).txHash);
      firstGas = BigInt(entry!.gas_spend_wei);
      expect(firstGas).toBeGreaterThan(0n);
      expect((await stepOf(root, 'b-first')).budget_checks).toEqual([expect.objectContaining({
        budget: 'gas_cap', cap: 'max_gas_spend', spent_wei: '0', cap_wei: (1000n * ETHER).toString(), allowed: true,
      })]);
      await root.close();
      root = undefined;
    });

    it('once recorded gas spend has reached max_gas_spend: budget_exceeded, no nonce used, no balance spent, nothing mined', async () => {
      // The cap is now exactly what the first send paid: reached, so the next charged send is refused.
      root = await open(dir, firstGas.toString(), database);
      const [nonceBefore, balanceBefore, blockBefore] = [await nonces(CAPPED.address), await balance(CAPPED.address), await anvil.rpc<string>('eth_blockNumber')];

      const result = await send(root, 'b-refused', 'guarded', { relayer: 'capped', to: RECIPIENT, valueWei: 1n });
      expect(result).toEqual({ status: 'refused', error: { kind: 'budget_exceeded', message: expect.stringMatching(/gas_cap/) } });

      expect(await nonces(CAPPED.address)).toEqual(nonceBefore);
      expect(await balance(CAPPED.address)).toBe(balanceBefore);
      expect(await anvil.rpc<string>('eth_blockNumber')).toBe(blockBefore);

      const step = await stepOf(root, 'b-refused');
      expect(step).toMatchObject({ status: 'failed', error: { kind: 'budget_exceeded' }, sends: [] });
      expect(step.budget_checks).toEqual([expect.objectContaining({
        budget: 'gas_cap', cap: 'max_gas_spend', spent_wei: firstGas.toString(), cap_wei: firstGas.toString(), allowed: false,
      })]);
      expect((await root.container.get(ListSends).execute({ run_id: 'b-refused' })).items).toEqual([]);
      const report = await root.container.get(GetSpend).execute({ relayer: 'capped' });
      expect(report.entries.map((e) => e.run_id)).toEqual(['b-first']);
    });

    it('a relayer outside the budget\'s scope, and a workflow that does not opt in, are not refused', async () => {
      const outsideNonce = await nonces(OUTSIDE.address);
      const outside = await send(root!, 'b-outside', 'guarded', { relayer: 'outside', to: RECIPIENT, valueWei: 1n });
      expect(outside.status).toBe('confirmed');
      expect(Number((await nonces(OUTSIDE.address))[0])).toBe(Number(outsideNonce[0]) + 1);
      expect((await stepOf(root!, 'b-outside')).budget_checks).toEqual([]);

      const optOut = await send(root!, 'b-optout', 'payouts', { relayer: 'capped', to: RECIPIENT, valueWei: 1n });
      expect(optOut.status).toBe('confirmed');
      expect((await stepOf(root!, 'b-optout')).budget_checks).toEqual([]);

      // the charged combination is still refused: the opted-out send is not charged to the budget
      const again = await send(root!, 'b-refused-2', 'guarded', { relayer: 'capped', to: RECIPIENT, valueWei: 1n });
      expect(again.status).toBe('refused');
    });
  });
});
