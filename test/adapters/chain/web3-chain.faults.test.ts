/**
 * Providers as they are (CONTRACT 8.7, 8.8): a real anvil behind the fault-injecting proxy. A rate limit or a 503 is
 * the provider's trouble, never a revert or a refusal of the transaction; it is retried on the next provider and
 * then again with backoff. A provider serving another chain is found by its first use and never used.
 */
import { randomBytes } from 'node:crypto';
import { ChainMismatchError, ChainRejectedError, ChainUnavailableError, type ChainTarget } from '../../../src/application/ports/chain';
import { ProviderChainIds } from '../../../src/adapters/chain/chain-ids';
import { Web3Chain } from '../../../src/adapters/chain/web3-chain';
import { RecordingLogger } from '../../fakes/recording-logger';
import { REVERT_CODE, refusingUrl, startAnvil, type Anvil } from '../../support/anvil';
import { sendOnce } from '../../support/chain-send';
import { startRpcProxy, type FaultPolicy, type RpcProxy } from '../../support/rpc-proxy';

const freshAddress = (): string => `0x${randomBytes(20).toString('hex')}`;
const RATE_LIMITED = { rpcError: { code: -32005, message: 'rate limited: too many requests' } } as const;
/** Faults the first `times` requests of `method`, forwards the rest. */
const firstOf = (method: string, times: number, fault: NonNullable<ReturnType<FaultPolicy>>): FaultPolicy => {
  let seen = 0;
  return (request) => (request.method === method && seen++ < times ? fault : undefined);
};

describe('Web3Chain against providers that fail now and then', () => {
  let anvil: Anvil;
  let proxy: RpcProxy;
  let target: ChainTarget;
  // Short pauses keep the test quick; the rounds and their bound are the production ones.
  const chain = new Web3Chain({ timeoutMs: 2000, pollIntervalMs: 50, backoffMs: 20 });
  const nonceOf = async (address: string): Promise<number> => Number(await anvil.rpc<string>('eth_getTransactionCount', [address, 'pending']));

  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url);
    target = { network: 'anvil', chainId: anvil.chainId, rpc: [proxy.url] };
  }, 30_000);
  beforeEach(() => {
    proxy.setPolicy(undefined);
    proxy.reset();
  });
  afterAll(async () => {
    await proxy?.stop();
    await anvil?.stop();
  });

  it('a rate-limited simulation is asked again and succeeds: not a revert', async () => {
    proxy.setPolicy(firstOf('eth_call', 2, RATE_LIMITED));
    const simulation = await chain.simulate(target, { from: anvil.accounts[0]!.address, to: freshAddress(), valueWei: 1n, data: '0x' });
    expect(simulation).toEqual({ ok: true, gasEstimate: 21_000n });
    expect(proxy.faults.get('eth_call')).toBe(2);
    expect(proxy.counts.get('eth_call')).toBe(3);
  });

  it('a revert still is one, even when its reason speaks of rate limits; a rate-limited view call is asked again', async () => {
    const reverter = freshAddress();
    await anvil.setCode(reverter, REVERT_CODE);
    const simulation = await chain.simulate(target, { from: anvil.accounts[0]!.address, to: reverter, data: '0x' });
    expect(simulation.ok).toBe(false);

    proxy.setPolicy(firstOf('eth_call', 1, { rpcError: { code: 3, message: 'execution reverted: rate limited' } }));
    expect(await chain.simulate(target, { to: freshAddress(), data: '0x' })).toMatchObject({ ok: false });

    proxy.setPolicy(firstOf('eth_call', 1, RATE_LIMITED));
    expect(await chain.call(target, { to: freshAddress(), data: '0x' })).toBe('0x');
  });

  it('a 503 on a fee read is retried, and the fees are quoted', async () => {
    const block = firstOf('eth_getBlockByNumber', 1, { status: 503 });
    const tip = firstOf('eth_maxPriorityFeePerGas', 1, { status: 503 });
    proxy.setPolicy((request, n) => block(request, n) ?? tip(request, n));
    const fees = await chain.fees(target);
    expect(fees.kind).toBe('eip1559');
    expect(proxy.faults.get('eth_getBlockByNumber')).toBe(1);
    expect(proxy.faults.get('eth_maxPriorityFeePerGas')).toBe(1);
  });

  it('a 429 answer and a cut connection are retried too', async () => {
    let n = 0;
    proxy.setPolicy((request) => (request.method === 'eth_blockNumber' && n++ < 2 ? (n === 1 ? { status: 429 } : { cut: true }) : undefined));
    expect(await chain.blockNumber(target)).toBeGreaterThanOrEqual(0n);
    expect(proxy.faults.get('eth_blockNumber')).toBe(2);
  });

  it('a rate-limited broadcast is not a refusal: retried, it lands; rate-limited throughout, the send is unavailable (kept), and the same bytes land later', async () => {
    const sender = anvil.accounts[1]!;
    proxy.setPolicy(firstOf('eth_sendRawTransaction', 1, RATE_LIMITED));
    const first = await sendOnce(chain, { target, signer: sender.privateKey, to: freshAddress(), valueWei: 5n });
    expect(await chain.waitForReceipt(target, first.hash, 10_000)).toMatchObject({ status: true });
    expect(proxy.faults.get('eth_sendRawTransaction')).toBe(1);

    const before = await nonceOf(sender.address);
    proxy.reset();
    proxy.setPolicy((request) => (request.method === 'eth_sendRawTransaction' ? RATE_LIMITED : undefined));
    const signed = await chain.sign({
      chainId: target.chainId, signer: sender.privateKey, nonce: before, to: freshAddress(), valueWei: 6n, data: '0x', gasLimit: 21_000n,
      fees: await chain.fees(target),
    });
    const error = await chain.broadcast(target, signed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect(error).not.toBeInstanceOf(ChainRejectedError);
    expect((error as Error).message).toMatch(/may still reach the network \(provider 1: rate limited -32005\)$/);
    expect(proxy.counts.get('eth_sendRawTransaction')).toBe(10); // one per round
    expect(await nonceOf(sender.address)).toBe(before);

    proxy.setPolicy(undefined);
    await chain.broadcast(target, signed);
    expect(await chain.waitForReceipt(target, signed.hash, 10_000)).toMatchObject({ status: true });
    expect(await nonceOf(sender.address)).toBe(before + 1);
  });

  it('a node refusing the transaction is still a refusal, asked once', async () => {
    const sender = anvil.accounts[2]!;
    proxy.setPolicy((request) => (request.method === 'eth_sendRawTransaction' ? { rpcError: { code: -32000, message: 'insufficient funds for gas * price + value' } } : undefined));
    const error = await sendOnce(chain, { target, signer: sender.privateKey, to: freshAddress(), valueWei: 1n }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainRejectedError);
    expect(error).toMatchObject({ code: 'insufficient_funds' });
    expect(proxy.counts.get('eth_sendRawTransaction')).toBe(1);
  });

  it('two providers, a dead one first: reads and a send go to the second', async () => {
    const sender = anvil.accounts[3]!;
    const both: ChainTarget = { ...target, rpc: [await refusingUrl(), proxy.url] };
    expect(await chain.balance(both, sender.address)).toBeGreaterThan(0n);
    const sent = await sendOnce(chain, { target: both, signer: sender.privateKey, to: freshAddress(), valueWei: 2n });
    expect(await chain.waitForReceipt(both, sent.hash, 10_000)).toMatchObject({ status: true });

    // A provider answering 503 to everything, then the healthy one: each call costs the broken one a single try.
    const broken = await startRpcProxy(anvil.url, () => ({ status: 503 }));
    try {
      const failing: ChainTarget = { ...target, rpc: [broken.url, proxy.url] };
      expect(await chain.blockNumber(failing)).toBeGreaterThan(0n);
      expect(broken.total()).toBe(1); // eth_chainId, refused; the healthy provider answered in the same round
    } finally {
      await broken.stop();
    }
  });

  it('each failover is one warn line naming the network, the provider\'s number and why, never its URL', async () => {
    const logger = new RecordingLogger();
    const logged = new Web3Chain({ timeoutMs: 2000, pollIntervalMs: 50, backoffMs: 20, logger });
    const dead = `${await refusingUrl()}/v3/secret-api-key`;
    expect(await logged.blockNumber({ ...target, rpc: [dead, proxy.url] })).toBeGreaterThanOrEqual(0n);
    expect(logger.lines).toEqual([{ level: 'warn', message: 'provider failed over', fields: {
      network: 'anvil', provider: 1, reason: expect.any(String), next: 'provider 2',
    } }]);
    expect(JSON.stringify(logger.lines)).not.toContain('secret-api-key');
    // A healthy provider logs nothing.
    await logged.blockNumber(target);
    expect(logger.lines).toHaveLength(1);
  });

  it('a provider that never answers well gives ChainUnavailableError after a bounded number of rounds', async () => {
    proxy.setPolicy(() => ({ status: 503 }));
    const quick = new Web3Chain({ timeoutMs: 500, backoffMs: 10, retryRounds: 3 });
    const error = await quick.blockNumber(target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect((error as Error).message).toBe('anvil: no provider answered (provider 1: HTTP 503)');
    expect(proxy.total()).toBe(3);
  });
});

describe('Web3Chain and a provider serving another chain', () => {
  let other: Anvil;
  let good: Anvil;
  let proxy: RpcProxy;

  beforeAll(async () => {
    [other, good] = await Promise.all([startAnvil({ args: ['--chain-id', '999'] }), startAnvil()]);
    proxy = await startRpcProxy(other.url);
  }, 30_000);
  afterAll(async () => {
    await proxy?.stop();
    await Promise.all([other?.stop(), good?.stop()]);
  });

  it('marks the provider unusable on first use, asks its chain id once, and fails every call naming both chain ids', async () => {
    const warnings: Array<Record<string, unknown>> = [];
    const chainIds = new ProviderChainIds({ error: () => undefined, warn: (_m, fields) => warnings.push({ ...fields }), info: () => undefined });
    const chain = new Web3Chain({ timeoutMs: 2000, backoffMs: 10, chainIds });
    const target: ChainTarget = { network: 'mainnet-ish', chainId: 31337, rpc: [proxy.url] };

    const error = await chain.simulate(target, { to: freshAddress(), data: '0x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChainMismatchError);
    expect((error as Error).message).toBe('mainnet-ish: chain_id 31337 is configured, but its providers serve chain 999');
    await expect(chain.nonce(target, other.accounts[0]!.address, 'pending')).rejects.toBeInstanceOf(ChainMismatchError);
    await expect(chain.fees(target)).rejects.toBeInstanceOf(ChainMismatchError);
    expect(await chain.checkChain(target)).toEqual([{ provider: 1, status: 'chain_mismatch', chainId: '999' }]);
    // Asked once for the process; nothing else was ever sent to it.
    expect([...proxy.counts]).toEqual([['eth_chainId', 1]]);
    expect(warnings).toEqual([{ network: 'mainnet-ish', provider: 1, chain_id: 31337, provider_chain_id: '999' }]);
    expect(JSON.stringify(warnings)).not.toContain(proxy.url);
  });

  it('with a second provider on the right chain, calls go there and the check tells them apart', async () => {
    const chain = new Web3Chain({ timeoutMs: 2000, backoffMs: 10 });
    const target: ChainTarget = { network: 'mixed', chainId: 31337, rpc: [other.url, good.url] };
    expect(await chain.balance(target, good.accounts[0]!.address)).toBeGreaterThan(0n);
    expect(await chain.checkChain(target)).toEqual([
      { provider: 1, status: 'chain_mismatch', chainId: '999' },
      { provider: 2, status: 'ok', chainId: '31337' },
    ]);
  });
});
