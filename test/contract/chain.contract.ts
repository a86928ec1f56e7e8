import { randomBytes } from 'node:crypto';
import {
  CallRevertedError, ChainMismatchError, ChainRejectedError, ChainUnavailableError, type ChainReader, type ChainSender, type ChainTarget,
} from '../../src/application/ports/chain';
import { bumpFees } from '../../src/domain/chain/fees';
import { gasPaid, type TxReceipt } from '../../src/domain/chain/tx-receipt';
import { sendOnce } from '../support/chain-send';

export type ChainPorts = ChainReader & ChainSender;

export interface FundedAccount {
  readonly address: string;
  readonly privateKey: string;
}

/** One implementation of the chain ports, with a chain behind it, for the contract suite. */
export interface ChainFixture {
  /** The ports, built with these options (as the adapter's constructor takes them); all share one chain. */
  ports(options?: { timeoutMs?: number; retryRounds?: number }): ChainPorts;
  /** The chain with one working provider. */
  readonly target: ChainTarget;
  /** At least six accounts funded with plenty of ether, each used by one test only. */
  readonly accounts: readonly FundedAccount[];
  /** A provider URL that refuses connections; it holds a made-up API key in its path. */
  refusingUrl(): Promise<string>;
  /** A provider URL that accepts connections and never answers; it holds a made-up API key in its path. */
  hangingUrl(): Promise<string>;
  /** Any call to this address reverts from now on. */
  makeReverting(address: string): Promise<void>;
  /** A view call to this address returns the uint256 42. */
  makeAnswering(address: string): Promise<void>;
  /** Transactions stay pending until `mine`. */
  holdMining(): Promise<void>;
  /** Mines what is pending and mines at once again. */
  mine(): Promise<void>;
  close(): Promise<void>;
}

const TX_HASH = /^0x[0-9a-f]{64}$/i;
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;
/** Bound for "answers promptly" measurements: generous for a loaded CI machine, far below any default timeout. */
const SLACK_MS = 2000;

/**
 * What every implementation of ChainReader + ChainSender must do, the web3 adapter on a real node and the in-memory
 * fake alike. Amounts are checked to the wei with bigint.
 */
export function chainContract(name: string, open: () => Promise<ChainFixture>): void {
  describe(`chain ports contract: ${name}`, () => {
    let fx: ChainFixture;
    let chain: ChainPorts;
    let target: ChainTarget;
    beforeAll(async () => {
      fx = await open();
      chain = fx.ports();
      target = fx.target;
    });
    afterAll(async () => fx?.close());

    const withRpc = (rpc: readonly string[]): ChainTarget => ({ ...target, rpc });
    const freshAddress = (): string => `0x${randomBytes(20).toString('hex')}`;
    const expectSafe = (error: unknown, secrets: readonly string[]): void => {
      const text = `${(error as Error).message} ${String(error)}`;
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/https?:\/\//);
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toMatch(/SECRET-KEY/);
    };
    const mined = async (hash: string): Promise<TxReceipt> => {
      const receipt = await chain.waitForReceipt(target, hash, 10_000);
      expect(receipt).not.toBeNull();
      return receipt!;
    };

    it('a confirmed value transfer: status true, and the sender pays gasUsed × effectiveGasPrice + value to the wei', async () => {
      const [sender] = fx.accounts;
      const recipient = freshAddress();
      const value = 1_234_567_890_123_456_789n;
      const senderBefore = await chain.balance(target, sender!.address);
      expect(await chain.balance(target, recipient)).toBe(0n);
      expect(chain.address(sender!.privateKey).toLowerCase()).toBe(sender!.address.toLowerCase());

      const sent = await sendOnce(chain, { target, signer: sender!.privateKey, to: recipient, valueWei: value });
      expect(sent.hash).toMatch(TX_HASH);
      expect(sent.from.toLowerCase()).toBe(sender!.address.toLowerCase());
      const receipt = await mined(sent.hash);
      expect(receipt).toMatchObject({ status: true, gasUsed: 21_000n });
      expect(receipt.effectiveGasPrice!).toBeGreaterThan(0n);
      expect(receipt.blockNumber).toBeGreaterThan(0n);
      expect(await chain.receipt(target, sent.hash)).toEqual(receipt);
      expect(await chain.transactionKnown(target, sent.hash)).toBe(true);
      expect(await chain.blockNumber(target)).toBeGreaterThanOrEqual(receipt.blockNumber);

      expect(senderBefore - (await chain.balance(target, sender!.address))).toBe(gasPaid(receipt) + value);
      expect(await chain.balance(target, recipient)).toBe(value);
    });

    it('a reverted transaction: status false, the sender pays only its gas, the value stays', async () => {
      const [, sender] = fx.accounts;
      const reverter = freshAddress();
      await fx.makeReverting(reverter);
      const before = await chain.balance(target, sender!.address);
      const sent = await sendOnce(chain, { target, signer: sender!.privateKey, to: reverter, valueWei: 10n ** 15n, gasLimit: 100_000n });
      const receipt = await mined(sent.hash);
      expect(receipt.status).toBe(false);
      expect(receipt.gasUsed).toBeGreaterThan(21_000n);
      expect(receipt.gasUsed).toBeLessThan(100_000n);
      expect(before - (await chain.balance(target, sender!.address))).toBe(gasPaid(receipt));
      expect(await chain.balance(target, reverter)).toBe(0n);
    });

    it('simulation: a transfer runs with its gas estimate, a reverting call says it reverts, and nothing is sent', async () => {
      const [, sender] = fx.accounts;
      const reverter = freshAddress();
      await fx.makeReverting(reverter);
      const nonce = await chain.nonce(target, sender!.address, 'pending');
      expect(await chain.simulate(target, { from: sender!.address, to: freshAddress(), valueWei: 1n, data: '0x' })).toEqual({ ok: true, gasEstimate: 21_000n });
      const reverted = await chain.simulate(target, { from: sender!.address, to: reverter, valueWei: 0n, data: '0x' });
      expect(reverted).toMatchObject({ ok: false });
      expect(reverted.ok ? '' : reverted.revertReason).toMatch(/revert/);
      expect(await chain.nonce(target, sender!.address, 'pending')).toBe(nonce);
    });

    it('a view call returns the contract\'s data; a reverting one rejects with CallRevertedError', async () => {
      const answering = freshAddress();
      await fx.makeAnswering(answering);
      expect(BigInt(await chain.call(target, { to: answering, data: '0x' }))).toBe(42n);
      const reverter = freshAddress();
      await fx.makeReverting(reverter);
      await expect(chain.call(target, { to: reverter, data: '0x' })).rejects.toBeInstanceOf(CallRevertedError);
    });

    it('nonces: pending counts what the pool holds, latest what is mined; the same bytes broadcast twice are one transaction', async () => {
      const [, , sender] = fx.accounts;
      const latest = await chain.nonce(target, sender!.address, 'latest');
      expect(await chain.nonce(target, sender!.address, 'pending')).toBe(latest);
      const sent = await sendOnce(chain, { target, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n });
      expect(sent.nonce).toBe(latest);
      await mined(sent.hash);
      await chain.broadcast(target, sent);
      expect(await chain.nonce(target, sender!.address, 'latest')).toBe(latest + 1);

      const stale = await chain.sign({ chainId: target.chainId, signer: sender!.privateKey, nonce: latest, to: freshAddress(), valueWei: 2n, data: '0x', gasLimit: 21_000n, fees: await chain.fees(target) });
      const error = await chain.broadcast(target, stale).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainRejectedError);
      expect((error as ChainRejectedError).code).toBe('nonce_too_low');
      expectSafe(error, [sender!.privateKey, sender!.privateKey.slice(2)]);
    });

    it('a stuck transaction replaced at its nonce with fees raised 12.5%: the replacement lands, the first never', async () => {
      const [, , , , sender] = fx.accounts;
      const to = freshAddress();
      await fx.holdMining();
      try {
        const fees = await chain.fees(target);
        const first = await sendOnce(chain, { target, signer: sender!.privateKey, to, valueWei: 5n, fees });
        expect(await chain.receipt(target, first.hash)).toBeNull();
        expect(await chain.transactionKnown(target, first.hash)).toBe(true);
        const raised = bumpFees(fees, fees, undefined)!;
        const second = await sendOnce(chain, { target, signer: sender!.privateKey, to, valueWei: 5n, nonce: first.nonce, fees: raised });
        expect(second.hash).not.toBe(first.hash);
        await fx.mine();
        expect(await mined(second.hash)).toMatchObject({ status: true });
        expect(await chain.receipt(target, first.hash)).toBeNull();
        expect(await chain.balance(target, to)).toBe(5n);
      } finally {
        await fx.mine();
      }
    });

    it('balance: a funded account holds what it was given, an untouched address holds 0', async () => {
      expect(await chain.balance(target, fx.accounts[3]!.address)).toBeGreaterThan(10n ** 21n);
      expect(await chain.balance(target, freshAddress())).toBe(0n);
      const fees = await chain.fees(target);
      expect(fees.kind === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice).toBeGreaterThan(0n);
    });

    it('an unknown transaction reads as null, and waiting for it ends with null when the timeout is up', async () => {
      expect(await chain.receipt(target, UNKNOWN_HASH)).toBeNull();
      expect(await chain.transactionKnown(target, UNKNOWN_HASH)).toBe(false);
      const started = Date.now();
      expect(await chain.waitForReceipt(target, UNKNOWN_HASH, 400)).toBeNull();
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(390);
      expect(elapsed).toBeLessThan(400 + SLACK_MS);
    });

    it('malformed input is refused before any provider is asked', async () => {
      const dead = withRpc([await fx.refusingUrl()]);
      await expect(chain.receipt(dead, '0x1234')).rejects.toThrow(/transaction hash/);
      await expect(chain.receipt(dead, '0x1234')).rejects.not.toBeInstanceOf(ChainUnavailableError);
      await expect(chain.waitForReceipt(dead, 'not-a-hash', 100)).rejects.toThrow(/transaction hash/);
      await expect(chain.balance(dead, '0x12')).rejects.toThrow(/address/);
      await expect(chain.nonce(dead, '0x12', 'latest')).rejects.toThrow(/address/);
      await expect(chain.simulate(dead, { to: '0x12', data: '0x' })).rejects.toThrow(/address/);
      const signer = fx.accounts[0]!.privateKey;
      const fees = { kind: 'legacy' as const, gasPrice: 1n };
      await expect(chain.sign({ chainId: target.chainId, signer, nonce: 0, to: '0x12', valueWei: 1n, data: '0x', gasLimit: 21_000n, fees })).rejects.toThrow(/destination/);
      await expect(chain.sign({ chainId: target.chainId, signer, nonce: 0, to: freshAddress(), valueWei: -1n, data: '0x', gasLimit: 21_000n, fees })).rejects.toThrow(/valueWei/);
      const badKey = (() => {
        try {
          return chain.address(`${signer.slice(0, 40)}zz`);
        } catch (e) {
          return e;
        }
      })();
      expect((badKey as Error).message).toMatch(/signer key/);
      expectSafe(badKey, [signer.slice(2, 40)]);
    });

    it('falls back past a provider that refuses connections: reads and broadcasts all answer', async () => {
      const [, , , sender] = fx.accounts;
      const fallback = withRpc([await fx.refusingUrl(), ...target.rpc]);
      const sent = await sendOnce(chain, { target: fallback, signer: sender!.privateKey, to: freshAddress(), valueWei: 5n });
      const receipt = await chain.waitForReceipt(fallback, sent.hash, 10_000);
      expect(receipt).toMatchObject({ status: true });
      expect(await chain.receipt(fallback, sent.hash)).toEqual(await chain.receipt(target, sent.hash));
      expect(await chain.balance(fallback, sender!.address)).toBe(await chain.balance(target, sender!.address));
    });

    it('falls back past a provider that never answers once the per-call timeout is up', async () => {
      const quick = fx.ports({ timeoutMs: 300 });
      const fallback = withRpc([await fx.hangingUrl(), ...target.rpc]);
      const started = Date.now();
      expect(await quick.receipt(fallback, UNKNOWN_HASH)).toBeNull();
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(300 + SLACK_MS);
    });

    it('a provider that answers "no receipt" is believed: null, the next provider is not asked', async () => {
      const patient = fx.ports({ timeoutMs: 5000 });
      const started = Date.now();
      expect(await patient.receipt(withRpc([...target.rpc, await fx.hangingUrl()]), UNKNOWN_HASH)).toBeNull();
      expect(Date.now() - started).toBeLessThan(2500);
    });

    it('every provider down: ChainUnavailableError naming the network and each provider, never a URL, in bounded time', async () => {
      // One pass over the providers: the passes' own bound is the next test's.
      const quick = fx.ports({ timeoutMs: 300, retryRounds: 1 });
      const refusing = await fx.refusingUrl();
      const hanging = await fx.hangingUrl();
      const dead = withRpc([refusing, hanging]);
      const signer = fx.accounts[0]!.privateKey;
      const secrets = [refusing, hanging, signer, signer.slice(2)];

      let started = Date.now();
      const readError = await quick.receipt(dead, UNKNOWN_HASH).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);
      expect(readError).toBeInstanceOf(ChainUnavailableError);
      expect(readError).toMatchObject({ network: target.network });
      expect((readError as Error).message).toMatch(/provider 1: connection refused/);
      expect((readError as Error).message).toMatch(/provider 2: timed out after 300 ms/);
      expectSafe(readError, secrets);

      for (const failing of [quick.balance(dead, fx.accounts[0]!.address), quick.nonce(dead, fx.accounts[0]!.address, 'pending'), quick.fees(dead), quick.blockNumber(dead)]) {
        const error = await failing.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ChainUnavailableError);
        expectSafe(error, secrets);
      }
      const signed = await quick.sign({ chainId: target.chainId, signer, nonce: 0, to: freshAddress(), valueWei: 1n, data: '0x', gasLimit: 21_000n, fees: { kind: 'legacy', gasPrice: 10n ** 9n } });
      const sendError = await quick.broadcast(dead, signed).catch((e: unknown) => e);
      expect(sendError).toBeInstanceOf(ChainUnavailableError);
      expectSafe(sendError, secrets);

      started = Date.now();
      const waitError = await quick.waitForReceipt(withRpc([refusing]), UNKNOWN_HASH, 500).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(waitError).toBeInstanceOf(ChainUnavailableError);
      expect(elapsed).toBeGreaterThanOrEqual(490);
      expect(elapsed).toBeLessThan(500 + SLACK_MS);
      await expect(quick.receipt(withRpc([]), UNKNOWN_HASH)).rejects.toBeInstanceOf(ChainUnavailableError);
    });

    it('a provider down throughout is asked once per pass, for a bounded number of passes', async () => {
      const three = fx.ports({ timeoutMs: 300, retryRounds: 3 });
      const started = Date.now();
      const error = await three.blockNumber(withRpc([await fx.hangingUrl()])).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(ChainUnavailableError);
      expect(elapsed).toBeGreaterThanOrEqual(3 * 290);
      expect(elapsed).toBeLessThan(3 * 300 + SLACK_MS);
    });

    it('a network whose providers serve another chain: every call is ChainMismatchError naming both chain ids, nothing is sent', async () => {
      const [, , , , , sender] = fx.accounts;
      const elsewhere: ChainTarget = { ...target, chainId: 5 };
      expect(await chain.checkChain(elsewhere)).toEqual([{ provider: 1, status: 'chain_mismatch', chainId: String(target.chainId) }]);
      const mismatch = `${target.network}: chain_id 5 is configured, but its providers serve chain ${target.chainId}`;
      for (const failing of [
        chain.balance(elsewhere, sender!.address), chain.nonce(elsewhere, sender!.address, 'pending'), chain.fees(elsewhere),
        chain.simulate(elsewhere, { from: sender!.address, to: freshAddress(), valueWei: 1n, data: '0x' }),
      ]) {
        const error = await failing.catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ChainMismatchError);
        expect((error as Error).message).toBe(mismatch);
      }
      const before = await chain.nonce(target, sender!.address, 'pending');
      const signed = await chain.sign({ chainId: 5, signer: sender!.privateKey, nonce: before, to: freshAddress(), valueWei: 1n, data: '0x', gasLimit: 21_000n, fees: { kind: 'legacy', gasPrice: 10n ** 10n } });
      await expect(chain.broadcast(elsewhere, signed)).rejects.toBeInstanceOf(ChainMismatchError);
      expect(await chain.nonce(target, sender!.address, 'pending')).toBe(before);
      // A provider down is told apart from one on another chain, and one on the right chain.
      expect(await chain.checkChain(withRpc([await fx.refusingUrl(), ...target.rpc]))).toEqual([
        { provider: 1, status: 'unavailable' }, { provider: 2, status: 'ok', chainId: String(target.chainId) },
      ]);
    });

    it('address: the address a signer sends from, derived locally; a bad key is refused without showing it', async () => {
      for (const account of fx.accounts) {
        const started = Date.now();
        const address = chain.address(account.privateKey);
        expect(Date.now() - started).toBeLessThan(SLACK_MS);
        expect(address.toLowerCase()).toBe(account.address.toLowerCase());
        expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
        // The same key without its 0x prefix, or in upper case, is the same signer.
        expect(chain.address(account.privateKey.slice(2).toUpperCase()).toLowerCase()).toBe(account.address.toLowerCase());
      }
      const [, , , sender] = fx.accounts;
      const sent = await sendOnce(chain, { target, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n });
      expect(sent.from.toLowerCase()).toBe(chain.address(sender!.privateKey).toLowerCase());
      await chain.waitForReceipt(target, sent.hash, 10_000);

      const order = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
      for (const bad of ['0x1234', `0x${'zz'.repeat(32)}`, `0x${'00'.repeat(32)}`, `0x${order}`, `0x${sender!.privateKey.slice(2, 60)}`]) {
        let error: unknown;
        try {
          chain.address(bad);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toMatch(/signer key/);
        expectSafe(error, bad.length > 10 ? [bad, bad.slice(2)] : []);
      }
    });

    it('a transaction the node refuses (not enough funds) rejects with the reason and without the key', async () => {
      const pauper = `0x${randomBytes(32).toString('hex')}`;
      const signed = await chain.sign({ chainId: target.chainId, signer: pauper, nonce: 0, to: freshAddress(), valueWei: 10n ** 18n, data: '0x', gasLimit: 21_000n, fees: await chain.fees(target) });
      const error = await chain.broadcast(target, signed).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainRejectedError);
      expect((error as ChainRejectedError).code).toBe('insufficient_funds');
      expect((error as Error).message).toMatch(/insufficient funds/i);
      expectSafe(error, [pauper, pauper.slice(2)]);
    });
  });
}
