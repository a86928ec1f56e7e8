import { randomBytes } from 'node:crypto';
import type { Receipt } from '../../src/domain/journal/journal-event';
import { ChainUnavailableError, type ChainReceiptReader, type ChainSender, type ChainTarget, type SignerAddresses } from '../../src/application/ports/chain';
import { ChainRejectedError } from '../../src/adapters/chain/errors';

export type ChainPorts = ChainReceiptReader & ChainSender & SignerAddresses;

export interface FundedAccount {
  readonly address: string;
  readonly privateKey: string;
}

/** One implementation of the chain ports, with a chain behind it, for the contract suite. */
export interface ChainFixture {
  /** The ports, built with these options (as the adapter's constructor takes them); all share one chain. */
  ports(options?: { timeoutMs?: number }): ChainPorts;
  /** The chain with one working provider. */
  readonly target: ChainTarget;
  /** At least four accounts funded with plenty of ether, each used by one test only. */
  readonly accounts: readonly FundedAccount[];
  /** A provider URL that refuses connections; it holds a made-up API key in its path. */
  refusingUrl(): Promise<string>;
  /** A provider URL that accepts connections and never answers; it holds a made-up API key in its path. */
  hangingUrl(): Promise<string>;
  /** Any call to this address reverts from now on. */
  makeReverting(address: string): Promise<void>;
  close(): Promise<void>;
}

const TX_HASH = /^0x[0-9a-f]{64}$/i;
const DECIMAL = /^(0|[1-9][0-9]*)$/;
const UNKNOWN_HASH = `0x${'ab'.repeat(32)}`;
/** Bound for "answers promptly" measurements: generous for a loaded CI machine, far below any default timeout. */
const SLACK_MS = 2000;

/**
 * What every implementation of ChainReceiptReader + ChainSender + SignerAddresses must do, the web3 adapter on a real node and
 * the in-memory fake alike. Amounts are checked to the wei with bigint.
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
    const fee = (r: Receipt): bigint => BigInt(r.gasUsed!) * BigInt(r.effectiveGasPrice!) + BigInt(r.l1Fee ?? '0');
    const freshAddress = (): string => `0x${randomBytes(20).toString('hex')}`;
    const expectSafe = (error: unknown, secrets: readonly string[]): void => {
      const text = `${(error as Error).message} ${String(error)}`;
      for (const secret of secrets) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/https?:\/\//);
      expect(text).not.toContain('127.0.0.1');
      expect(text).not.toMatch(/SECRET-KEY/);
    };
    /** Sends `valueWei` from `account` to a fresh address and returns the hash once mined. */
    const transfer = async (account: FundedAccount, valueWei = 1n): Promise<string> => {
      const sent = await chain.broadcast({ target, signer: account.privateKey, to: freshAddress(), valueWei });
      expect(await chain.waitForReceipt(target, sent.txHash, 10_000)).not.toBeNull();
      return sent.txHash;
    };

    it('a confirmed value transfer: status 1, and the sender pays gasUsed × effectiveGasPrice + value to the wei', async () => {
      const [sender] = fx.accounts;
      const recipient = freshAddress();
      const value = 1_234_567_890_123_456_789n;
      const senderBefore = await chain.balance(target, sender!.address);
      expect(await chain.balance(target, recipient)).toBe(0n);

      const sent = await chain.broadcast({ target, signer: sender!.privateKey, to: recipient, valueWei: value });
      expect(sent.txHash).toMatch(TX_HASH);
      expect(sent.from.toLowerCase()).toBe(sender!.address.toLowerCase());
      expect(Number.isInteger(sent.nonce) && sent.nonce >= 0).toBe(true);

      const waited = await chain.waitForReceipt(target, sent.txHash, 10_000);
      expect(waited).toMatchObject({ status: 1, gasUsed: '21000' });
      expect(waited!.effectiveGasPrice).toMatch(DECIMAL);
      expect(BigInt(waited!.effectiveGasPrice!)).toBeGreaterThan(0n);
      expect(waited!.blockNumber).toMatch(DECIMAL);
      expect(await chain.read(target, sent.txHash)).toEqual(waited);

      expect(senderBefore - (await chain.balance(target, sender!.address))).toBe(fee(waited!) + value);
      expect(await chain.balance(target, recipient)).toBe(value);
    });

    it('a reverted transaction: status 0, the sender pays only gasUsed × effectiveGasPrice, the value stays', async () => {
      const [, sender] = fx.accounts;
      const reverter = freshAddress();
      await fx.makeReverting(reverter);
      const value = 10n ** 15n;
      const before = await chain.balance(target, sender!.address);

      const sent = await chain.broadcast({ target, signer: sender!.privateKey, to: reverter, valueWei: value, gasLimit: 100_000n });
      const receipt = await chain.waitForReceipt(target, sent.txHash, 10_000);
      expect(receipt).toMatchObject({ status: 0 });
      expect(receipt!.blockNumber).toMatch(DECIMAL);
      expect(BigInt(receipt!.gasUsed!)).toBeGreaterThan(21_000n);
      expect(BigInt(receipt!.gasUsed!)).toBeLessThan(100_000n);
      expect(BigInt(receipt!.effectiveGasPrice!)).toBeGreaterThan(0n);
      expect(await chain.read(target, sent.txHash)).toEqual(receipt);

      expect(before - (await chain.balance(target, sender!.address))).toBe(fee(receipt!));
      expect(await chain.balance(target, reverter)).toBe(0n);
    });

    it('a call that would revert, sent without a gas limit, is refused by gas estimation and nothing is sent', async () => {
      const [, sender] = fx.accounts;
      const reverter = freshAddress();
      await fx.makeReverting(reverter);
      const before = await chain.balance(target, sender!.address);
      const error = await chain.broadcast({ target, signer: sender!.privateKey, to: reverter, valueWei: 0n }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainRejectedError);
      expect((error as Error).message).toMatch(/gas estimation/);
      expectSafe(error, [sender!.privateKey, sender!.privateKey.slice(2)]);
      expect(await chain.balance(target, sender!.address)).toBe(before);
    });

    it('consecutive broadcasts of one signer take consecutive nonces; concurrent ones never collide', async () => {
      const [, , sender] = fx.accounts;
      const first = await chain.broadcast({ target, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n });
      const second = await chain.broadcast({ target, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n });
      expect(second.nonce).toBe(first.nonce + 1);

      const concurrent = await Promise.all([1n, 2n, 3n].map((valueWei) =>
        chain.broadcast({ target, signer: sender!.privateKey, to: freshAddress(), valueWei })));
      expect(concurrent.map((b) => b.nonce).sort((a, b) => a - b)).toEqual([second.nonce + 1, second.nonce + 2, second.nonce + 3]);
      expect(new Set(concurrent.map((b) => b.txHash)).size).toBe(3);
      for (const b of concurrent) expect(await chain.waitForReceipt(target, b.txHash, 10_000)).toMatchObject({ status: 1 });
    });

    it('balance: a funded account holds what it was given, an untouched address holds 0', async () => {
      expect(await chain.balance(target, fx.accounts[3]!.address)).toBeGreaterThan(10n ** 21n);
      expect(await chain.balance(target, freshAddress())).toBe(0n);
    });

    it('an unknown transaction reads as null, and waiting for it ends with null when the timeout is up', async () => {
      expect(await chain.read(target, UNKNOWN_HASH)).toBeNull();
      const started = Date.now();
      expect(await chain.waitForReceipt(target, UNKNOWN_HASH, 400)).toBeNull();
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(390);
      expect(elapsed).toBeLessThan(400 + SLACK_MS);
    });

    it('malformed input is refused before any provider is asked', async () => {
      const dead = withRpc([await fx.refusingUrl()]);
      await expect(chain.read(dead, '0x1234')).rejects.toThrow(/transaction hash/);
      await expect(chain.read(dead, '0x1234')).rejects.not.toBeInstanceOf(ChainUnavailableError);
      await expect(chain.waitForReceipt(dead, 'not-a-hash', 100)).rejects.toThrow(/transaction hash/);
      await expect(chain.balance(dead, '0x12')).rejects.toThrow(/address/);
      const signer = fx.accounts[0]!.privateKey;
      await expect(chain.broadcast({ target: dead, signer, to: '0x12', valueWei: 1n })).rejects.toThrow(/destination/);
      await expect(chain.broadcast({ target: dead, signer, to: freshAddress(), valueWei: -1n })).rejects.toThrow(/valueWei/);
      const badKey = await chain.broadcast({ target: dead, signer: `${signer.slice(0, 40)}zz`, to: freshAddress(), valueWei: 1n }).catch((e: unknown) => e);
      expect((badKey as Error).message).toMatch(/signer key/);
      expectSafe(badKey, [signer.slice(2, 40)]);
    });

    it('falls back past a provider that refuses connections: read, balance and broadcast all answer', async () => {
      const [, , , sender] = fx.accounts;
      const hash = await transfer(sender!);
      const fallback = withRpc([await fx.refusingUrl(), ...target.rpc]);
      expect(await chain.read(fallback, hash)).toEqual(await chain.read(target, hash));
      expect(await chain.balance(fallback, sender!.address)).toBe(await chain.balance(target, sender!.address));
      const sent = await chain.broadcast({ target: fallback, signer: sender!.privateKey, to: freshAddress(), valueWei: 5n });
      expect(await chain.waitForReceipt(fallback, sent.txHash, 10_000)).toMatchObject({ status: 1 });
    });

    it('falls back past a provider that never answers once the per-call timeout is up', async () => {
      const quick = fx.ports({ timeoutMs: 300 });
      const hash = await transfer(fx.accounts[3]!);
      const fallback = withRpc([await fx.hangingUrl(), ...target.rpc]);
      const started = Date.now();
      expect(await quick.read(fallback, hash)).toMatchObject({ status: 1 });
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(300 + SLACK_MS);
    });

    it('a provider that answers "no receipt" is believed: null, the next provider is not asked', async () => {
      // The second provider never answers: had it been asked, the read would take the whole timeout.
      const patient = fx.ports({ timeoutMs: 5000 });
      const started = Date.now();
      expect(await patient.read(withRpc([...target.rpc, await fx.hangingUrl()]), UNKNOWN_HASH)).toBeNull();
      expect(Date.now() - started).toBeLessThan(2500);
    });

    it('every provider down: ChainUnavailableError naming the network and each provider, never a URL, in bounded time', async () => {
      const quick = fx.ports({ timeoutMs: 300 });
      const refusing = await fx.refusingUrl();
      const hanging = await fx.hangingUrl();
      const dead = withRpc([refusing, hanging]);
      const signer = fx.accounts[0]!.privateKey;
      const secrets = [refusing, hanging, signer, signer.slice(2)];

      let started = Date.now();
      const readError = await quick.read(dead, UNKNOWN_HASH).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(300 + SLACK_MS);
      expect(readError).toBeInstanceOf(ChainUnavailableError);
      expect(readError).toMatchObject({ network: target.network });
      expect((readError as Error).message).toContain(target.network);
      expect((readError as Error).message).toMatch(/provider 1: connection refused/);
      expect((readError as Error).message).toMatch(/provider 2: timed out after 300 ms/);
      expectSafe(readError, secrets);

      const balanceError = await quick.balance(dead, fx.accounts[0]!.address).catch((e: unknown) => e);
      expect(balanceError).toBeInstanceOf(ChainUnavailableError);
      expectSafe(balanceError, secrets);

      const sendError = await quick.broadcast({ target: dead, signer, to: freshAddress(), valueWei: 1n }).catch((e: unknown) => e);
      expect(sendError).toBeInstanceOf(ChainUnavailableError);
      expectSafe(sendError, secrets);

      started = Date.now();
      const waitError = await quick.waitForReceipt(withRpc([refusing]), UNKNOWN_HASH, 500).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(waitError).toBeInstanceOf(ChainUnavailableError);
      expect(elapsed).toBeGreaterThanOrEqual(490);
      expect(elapsed).toBeLessThan(500 + SLACK_MS);
      expectSafe(waitError, secrets);

      await expect(quick.read(withRpc([]), UNKNOWN_HASH)).rejects.toBeInstanceOf(ChainUnavailableError);
    });

    it('waiting over a provider that never answers stays within the wait timeout, not the per-call one', async () => {
      const slow = fx.ports({ timeoutMs: 5000 });
      const started = Date.now();
      const error = await slow.waitForReceipt(withRpc([await fx.hangingUrl()]), UNKNOWN_HASH, 400).catch((e: unknown) => e);
      const elapsed = Date.now() - started;
      expect(error).toBeInstanceOf(ChainUnavailableError);
      expect(elapsed).toBeGreaterThanOrEqual(390);
      expect(elapsed).toBeLessThan(400 + SLACK_MS);
    });

    it('addressOf: the address a signer sends from, derived locally; a bad key is refused without showing it', async () => {
      for (const account of fx.accounts) {
        const started = Date.now();
        const address = await chain.addressOf(account.privateKey);
        expect(Date.now() - started).toBeLessThan(SLACK_MS);
        expect(address.toLowerCase()).toBe(account.address.toLowerCase());
        expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
        // The same key without its 0x prefix, or in upper case, is the same signer.
        expect((await chain.addressOf(account.privateKey.slice(2).toUpperCase())).toLowerCase()).toBe(account.address.toLowerCase());
      }
      const [, , , sender] = fx.accounts;
      const sent = await chain.broadcast({ target, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n });
      expect(sent.from.toLowerCase()).toBe((await chain.addressOf(sender!.privateKey)).toLowerCase());
      await chain.waitForReceipt(target, sent.txHash, 10_000);

      const order = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
      for (const bad of ['0x1234', `0x${'zz'.repeat(32)}`, `0x${'00'.repeat(32)}`, `0x${order}`, `0x${sender!.privateKey.slice(2, 60)}`]) {
        const error = await chain.addressOf(bad).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect((error as Error).message).toMatch(/signer key/);
        expectSafe(error, bad.length > 10 ? [bad, bad.slice(2)] : []);
      }
    });

    it('a transaction the node refuses (not enough funds) rejects with the reason and without the key', async () => {
      const pauper = `0x${randomBytes(32).toString('hex')}`;
      const error = await chain.broadcast({ target, signer: pauper, to: freshAddress(), valueWei: 10n ** 18n, gasLimit: 21_000n }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChainRejectedError);
      expect((error as Error).message).toMatch(/insufficient funds/i);
      expectSafe(error, [pauper, pauper.slice(2)]);
    });
  });
}
