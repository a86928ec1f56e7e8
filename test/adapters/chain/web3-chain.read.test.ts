import { Container } from 'inversify';
import { ChainUnavailableError, type ChainTarget } from '../../../src/application/ports/chain';
import { Web3Chain, Web3ChainOptions } from '../../../src/adapters/chain/web3-chain';
import { refusingUrl, startRpcStub, startSilentServer, type RpcCall, type RpcStub, type StubReply } from '../../support/anvil';

const HASH = `0x${'cd'.repeat(32)}`;
const target = (rpc: string[]): ChainTarget => ({ network: 'op-test', chainId: 10, rpc });
const failure = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(() => { throw new Error('expected a rejection'); }, (e: Error) => e);
const expectNoSecrets = (error: Error, urls: readonly string[]): void => {
  for (const url of urls) expect(error.message).not.toContain(url);
  expect(error.message).not.toMatch(/https?:\/\/|wss?:\/\/|127\.0\.0\.1|SECRET/);
};

describe('Web3Chain.receipt against scripted JSON-RPC nodes', () => {
  const stubs: RpcStub[] = [];
  // Each node serves chain 10, as the target says (its chain id is checked once, on first use); `calls` lists the
  // other requests.
  const stub = async (reply: (call: RpcCall) => StubReply): Promise<RpcStub> => {
    const s = await startRpcStub((call) => (call.method === 'eth_chainId' ? { result: '0xa' } : reply(call)));
    stubs.push(s);
    return { ...s, get calls() { return s.calls.filter((c) => c.method !== 'eth_chainId'); } };
  };
  const receiptNode = (receipt: unknown): Promise<RpcStub> => stub(() => ({ result: receipt }));
  afterAll(async () => Promise.all(stubs.map((s) => s.close())));
  // Two quick passes: these cases are about what one provider's answer means; the passes have their own tests.
  const chain = new Web3Chain({ timeoutMs: 2000, retryRounds: 2, backoffMs: 10 });

  it('turns 0x quantities into exact decimal strings and keeps the L1 fee an OP-stack node reports', async () => {
    const node = await receiptNode({
      status: '0x1', blockNumber: '0x7b', gasUsed: '0x5208', transactionHash: HASH,
      effectiveGasPrice: '0x1bc16d674ec80001', // 2e18 + 1: beyond 2^53, must not round
      l1Fee: '0x3635c9adc5dea00001', // 1000e18 + 1
      l1GasUsed: '0x640',
    });
    expect(await chain.receipt(target([node.url]), HASH)).toEqual({
      status: true, blockNumber: 123n, gasUsed: 21000n, effectiveGasPrice: 2000000000000000001n, l1Fee: 1000000000000000000001n,
    });
    expect(node.calls).toEqual([{ method: 'eth_getTransactionReceipt', params: [HASH] }]);
  });

  it('reads status 0x0 as false (reverted); a receipt without a status is refused (it cannot tell a revert)', async () => {
    const node = await receiptNode({ status: '0x0', blockNumber: '0x1', gasUsed: '0x5300', effectiveGasPrice: '0x3b9aca00' });
    expect(await chain.receipt(target([node.url]), HASH)).toEqual({ status: false, blockNumber: 1n, gasUsed: 21248n, effectiveGasPrice: 1000000000n });
    const old = await receiptNode({ blockNumber: '0x1', gasUsed: '0x5300', effectiveGasPrice: '0x3b9aca00' });
    await expect(chain.receipt(target([old.url]), HASH)).rejects.toThrow(/provider 1: malformed receipt/);
  });

  it('takes gasPrice from the transaction when a pre-London receipt carries no price', async () => {
    const node = await stub(({ method }) => method === 'eth_getTransactionReceipt'
      ? { result: { status: '0x1', blockNumber: '0x2', gasUsed: '0x5208' } }
      : { result: { hash: HASH, gasPrice: '0x4a817c800' } });
    expect(await chain.receipt(target([node.url]), HASH)).toEqual({ status: true, blockNumber: 2n, gasUsed: 21000n, gasPrice: 20000000000n });
    expect(node.calls.map((c) => c.method)).toEqual(['eth_getTransactionReceipt', 'eth_getTransactionByHash']);
  });

  it('a receipt without a block (pending) and a null answer both read as null', async () => {
    const pending = await receiptNode({ status: '0x1', blockNumber: null, gasUsed: '0x5208' });
    expect(await chain.receipt(target([pending.url]), HASH)).toBeNull();
    const none = await receiptNode(null);
    expect(await chain.receipt(target([none.url]), HASH)).toBeNull();
  });

  it.each<[string, StubReply, RegExp]>([
    ['an HTTP 500 whose body echoes the URL', { http: 500, body: '{"error":"upstream $URL failed"}' }, /provider 1: HTTP 500/],
    ['a JSON-RPC error (rate limited) naming the URL', { error: { code: -32005, message: 'limit exceeded for $URL' } }, /provider 1: rate limited -32005/],
    ['a JSON-RPC internal error', { error: { code: -32603, message: 'internal error at $URL' } }, /provider 1: JSON-RPC error -32603/],
    ['a body that is not JSON', { http: 200, body: '<html>gateway $URL</html>' }, /provider 1: invalid response \(not JSON\)/],
    ['a malformed receipt', { result: { status: '0x5', blockNumber: '0x1', gasUsed: 'lots' } }, /provider 1: malformed receipt/],
    ['an answer without a result', { http: 200, body: '{"jsonrpc":"2.0","id":1}' }, /provider 1: invalid JSON-RPC response/],
  ])('%s: the next provider answers; alone, ChainUnavailableError with the reason and no URL', async (_name, reply, reason) => {
    const bad = await stub(() => reply);
    const good = await receiptNode({ status: '0x1', blockNumber: '0x9', gasUsed: '0x5208', effectiveGasPrice: '0x1' });
    expect(await chain.receipt(target([bad.url, good.url]), HASH)).toMatchObject({ status: true, blockNumber: 9n });
    expect(bad.calls).toHaveLength(1);

    const error = await failure(chain.receipt(target([bad.url]), HASH));
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect(error.message).toMatch(/^op-test: no provider answered/);
    expect(error.message).toMatch(reason);
    expectNoSecrets(error, [bad.url]);
  });

  it('a provider URL that is not http(s) fails as such, its secret untold', async () => {
    const ws = 'wss://opt.example.org/v2/WS-SECRET-KEY';
    const garbage = 'not a url SECRET-KEY-123';
    const error = await failure(chain.receipt(target([ws, garbage]), HASH));
    expect(error).toBeInstanceOf(ChainUnavailableError);
    expect(error.message).toContain('provider 1: not an http(s) URL; provider 2: not an http(s) URL');
    expectNoSecrets(error, [ws, garbage]);
  });

  it('tells a refused connection from a provider that never answers, and aborts the hung request', async () => {
    const silent = await startSilentServer();
    try {
      const refusing = await refusingUrl();
      const quick = new Web3Chain({ timeoutMs: 200, retryRounds: 1 });
      const started = Date.now();
      const error = await failure(quick.balance(target([refusing, silent.url]), `0x${'11'.repeat(20)}`));
      const elapsed = Date.now() - started;
      expect(error.message).toBe('op-test: no provider answered (provider 1: connection refused; provider 2: timed out after 200 ms)');
      expect(elapsed).toBeGreaterThanOrEqual(195);
      expect(elapsed).toBeLessThan(1500);
      expect(silent.connections()).toBe(1);
      // The timed-out request was aborted: its socket does not linger.
      const until = Date.now() + 1000;
      while (silent.openConnections() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      expect(silent.openConnections()).toBe(0);
    } finally {
      await silent.close();
    }
  });

  it('resolves from the container without options, with the 5000 ms default per-call timeout', async () => {
    const container = new Container();
    container.bind(Web3ChainOptions).toConstantValue({ retryRounds: 1 });
    container.bind(Web3Chain).toSelf();
    const chain5s = container.get(Web3Chain);
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const error = await failure(chain5s.receipt(target([silent.url]), HASH));
      const elapsed = Date.now() - started;
      expect(error.message).toMatch(/provider 1: timed out after 5000 ms/);
      expect(elapsed).toBeGreaterThanOrEqual(4990);
      expect(elapsed).toBeLessThan(6500);
    } finally {
      await silent.close();
    }
  });

  it('takes its options from the Web3ChainOptions token when bound', async () => {
    const container = new Container();
    container.bind(Web3ChainOptions).toConstantValue({ timeoutMs: 150, retryRounds: 1 });
    container.bind(Web3Chain).toSelf();
    const silent = await startSilentServer();
    try {
      const error = await failure(container.get(Web3Chain).receipt(target([silent.url]), HASH));
      expect(error.message).toMatch(/provider 1: timed out after 150 ms/);
    } finally {
      await silent.close();
    }
  });

  it('refuses a timeout or poll interval that is not a positive number', () => {
    expect(() => new Web3Chain({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => new Web3Chain({ timeoutMs: Number.NaN })).toThrow(/timeoutMs/);
    expect(() => new Web3Chain({ pollIntervalMs: -1 })).toThrow(/pollIntervalMs/);
  });

  it('loads web3 when it first signs, not when the module is imported, the class built or a provider read', async () => {
    let loaded = 0;
    await jest.isolateModulesAsync(async () => {
      jest.doMock('web3', () => {
        loaded += 1;
        return jest.requireActual('web3');
      });
      const { Web3Chain: Isolated } = await import('../../../src/adapters/chain/web3-chain');
      const isolated = new Isolated({ timeoutMs: 500, retryRounds: 1 });
      expect(loaded).toBe(0);
      await isolated.receipt(target([await refusingUrl()]), HASH).catch(() => undefined);
      expect(loaded).toBe(0);
      isolated.address(`0x${'11'.repeat(32)}`);
      expect(loaded).toBe(1);
    });
  });
});
