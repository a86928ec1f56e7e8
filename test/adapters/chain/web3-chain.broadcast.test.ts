import { randomBytes } from 'node:crypto';
import { ChainMismatchError, ChainUnavailableError, type ChainTarget } from '../../../src/application/ports/chain';
import { Web3Chain } from '../../../src/adapters/chain/web3-chain';
import { scrub } from '../../../src/adapters/chain/json-rpc';
import { startAnvil, startRpcStub, type Anvil, type RpcStub, type StubReply } from '../../support/anvil';
import { sendOnce } from '../../support/chain-send';

const freshAddress = (): string => `0x${randomBytes(20).toString('hex')}`;
const nonceOf = async (anvil: Anvil, address: string): Promise<number> => Number(await anvil.rpc<string>('eth_getTransactionCount', [address, 'latest']));
interface NodeTx { type: string; input: string; chainId?: string; maxFeePerGas?: string; maxPriorityFeePerGas?: string; gasPrice: string; gas: string }

describe('Web3Chain.sign and broadcast on anvil', () => {
  let anvil: Anvil;
  let target: ChainTarget;
  const chain = new Web3Chain({ timeoutMs: 3000, pollIntervalMs: 50 });
  const stubs: RpcStub[] = [];
  /** A provider in front of anvil that forwards every call but treats eth_sendRawTransaction its own way. */
  const faultyProxy = async (onSend: StubReply): Promise<RpcStub> => {
    const proxy = await startRpcStub(({ method }) => (method === 'eth_sendRawTransaction' ? onSend : { forward: true }), anvil.url);
    stubs.push(proxy);
    return proxy;
  };
  beforeAll(async () => {
    anvil = await startAnvil();
    target = { network: 'anvil', chainId: anvil.chainId, rpc: [anvil.url] };
  });
  afterAll(async () => {
    await Promise.all(stubs.map((s) => s.close()));
    await anvil?.stop();
  });

  it('sends an EIP-1559 transaction signed for the target chain, with the call data and an estimated gas limit', async () => {
    const [sender] = anvil.accounts;
    const to = freshAddress();
    const sent = await sendOnce(chain, { target, signer: sender!.privateKey, to, valueWei: 7n, data: '0x00ff' });
    expect(sent.from).toBe(sender!.address); // checksummed, as derived from the key

    const tx = await anvil.rpc<NodeTx>('eth_getTransactionByHash', [sent.hash]);
    expect(tx).toMatchObject({ type: '0x2', input: '0x00ff', chainId: '0x7a69' });
    // Estimated by the node: 21 000 plus the calldata (under Prague's EIP-7623 floor, 21 050 here).
    expect(BigInt(tx.gas)).toBeGreaterThan(21_000n);

    const receipt = await chain.waitForReceipt(target, sent.hash, 10_000);
    expect(receipt).toMatchObject({ status: true, gasUsed: BigInt(tx.gas) });
    const block = await anvil.rpc<{ baseFeePerGas: string }>('eth_getBlockByNumber', [`0x${receipt!.blockNumber.toString(16)}`, false]);
    // Paid base fee + tip, within the cap the fees quote set (2 × base fee + tip).
    expect(receipt!.effectiveGasPrice!).toBe(BigInt(block.baseFeePerGas) + BigInt(tx.maxPriorityFeePerGas!));
    expect(BigInt(tx.maxFeePerGas!)).toBeGreaterThan(receipt!.effectiveGasPrice!);
  });

  it('a provider serving another chain is passed over and nothing is sent to it; all of them: ChainMismatchError naming both chain ids', async () => {
    const [, sender] = anvil.accounts;
    const before = await nonceOf(anvil, sender!.address);
    const error = await sendOnce(chain, { target: { ...target, chainId: 1 }, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n, nonce: before, gasLimit: 21_000n, fees: { kind: 'legacy', gasPrice: 10n ** 10n } })
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(ChainMismatchError);
    expect((error as Error).message).toBe('anvil: chain_id 1 is configured, but its providers serve chain 31337');
    expect(await nonceOf(anvil, sender!.address)).toBe(before);
  });

  it('when a provider fails to take the signed transaction, the same bytes go to the next one: one nonce, one transaction', async () => {
    const [, , sender] = anvil.accounts;
    const broken = await faultyProxy({ http: 503, body: '{"error":"overloaded"}' });
    const before = await nonceOf(anvil, sender!.address);
    const sent = await sendOnce(chain, { target: { ...target, rpc: [broken.url, anvil.url] }, signer: sender!.privateKey, to: freshAddress(), valueWei: 3n });
    expect(sent.nonce).toBe(before);
    expect(broken.calls.map((c) => c.method)).toContain('eth_sendRawTransaction');
    expect(await chain.waitForReceipt(target, sent.hash, 10_000)).toMatchObject({ status: true });
    expect(await nonceOf(anvil, sender!.address)).toBe(before + 1);
  });

  it('when the first provider delivered the transaction but its answer was lost, the next one confirms it rather than refusing it', async () => {
    const [, , , sender] = anvil.accounts;
    const lossy = await faultyProxy({ forwardThenFail: true });
    const before = await nonceOf(anvil, sender!.address);
    const sent = await sendOnce(chain, { target: { ...target, rpc: [lossy.url, anvil.url] }, signer: sender!.privateKey, to: freshAddress(), valueWei: 4n });
    expect(sent.nonce).toBe(before);
    expect(await chain.waitForReceipt(target, sent.hash, 10_000)).toMatchObject({ status: true });
    expect(await nonceOf(anvil, sender!.address)).toBe(before + 1);
  });

  it('when no provider takes the signed transaction, the error names its hash and nonce, not the URLs', async () => {
    const [, , , , sender] = anvil.accounts;
    const broken = await faultyProxy({ http: 502, body: '{"error":"bad gateway $URL"}' });
    const before = await nonceOf(anvil, sender!.address);
    const error = await sendOnce(chain, { target: { ...target, rpc: [broken.url] }, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n, nonce: before, gasLimit: 21_000n, fees: { kind: 'legacy', gasPrice: 10n ** 10n } })
      .catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect((error as Error).message).toMatch(new RegExp(`^anvil: transaction 0x[0-9a-f]{64} \\(nonce ${before}\\) was signed but no provider accepted it; it may still reach the network \\(provider 1: HTTP 502\\)$`));
    expect((error as Error).message).not.toContain(broken.url);
    expect((error as Error).message).not.toContain(sender!.privateKey.slice(2));
    expect(await nonceOf(anvil, sender!.address)).toBe(before);
  });

  it('a node refusing a nonce tells it apart: too low, or too high when it refuses gaps', async () => {
    const [, , , , , sender] = anvil.accounts;
    const before = await nonceOf(anvil, sender!.address);
    await sendOnce(chain, { target, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n });
    const low = await sendOnce(chain, { target, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n, nonce: before }).catch((e: unknown) => e);
    expect(low).toMatchObject({ code: 'nonce_too_low' });
    const strict = await faultyProxy({ error: { code: -32000, message: 'nonce too high' } });
    const high = await sendOnce(chain, { target: { ...target, rpc: [strict.url] }, signer: sender!.privateKey, to: freshAddress(), valueWei: 1n, nonce: before + 5 }).catch((e: unknown) => e);
    expect(high).toMatchObject({ code: 'nonce_too_high' });
  });

  it('scrubs node messages of URLs and of the key, with or without 0x, in any case', () => {
    const key = `0x${'ab'.repeat(32)}`;
    const url = 'https://eth.example/v3/SECRET';
    const text = scrub(`failed at ${url} and http://other.example/x?k=1 signing with ${key.slice(2).toUpperCase()} or ${key}\n`, [url, key]);
    expect(text).toBe('failed at <redacted> and <url> signing with <redacted> or <redacted>');
  });
});

describe('Web3Chain on a chain without EIP-1559 (anvil --hardfork berlin)', () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil({ args: ['--hardfork', 'berlin'] });
  });
  afterAll(async () => anvil?.stop());

  it('sends a legacy transaction at the node gas price; the receipt and balances agree to the wei', async () => {
    const chain = new Web3Chain();
    const target: ChainTarget = { network: 'berlin', chainId: anvil.chainId, rpc: [anvil.url] };
    const [sender] = anvil.accounts;
    const to = freshAddress();
    const before = await chain.balance(target, sender!.address);
    expect((await chain.fees(target)).kind).toBe('legacy');
    const sent = await sendOnce(chain, { target, signer: sender!.privateKey, to, valueWei: 10n ** 18n });
    const tx = await anvil.rpc<NodeTx>('eth_getTransactionByHash', [sent.hash]);
    expect(tx.type).toBe('0x0');
    expect(tx.maxFeePerGas).toBeUndefined();

    const receipt = await chain.waitForReceipt(target, sent.hash, 10_000);
    expect(receipt).toMatchObject({ status: true, gasUsed: 21000n, effectiveGasPrice: BigInt(tx.gasPrice) });
    expect(before - (await chain.balance(target, sender!.address))).toBe(21_000n * BigInt(tx.gasPrice) + 10n ** 18n);
    expect(await chain.balance(target, to)).toBe(10n ** 18n);
  });
});
