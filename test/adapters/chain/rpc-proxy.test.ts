/** The fault-injecting proxy the fault tests stand on: it forwards, counts, and answers faults as providers do. */
import { startAnvil, type Anvil } from '../../support/anvil';
import { flakyProvider, startRpcProxy, type RpcProxy } from '../../support/rpc-proxy';

describe('the fault-injecting JSON-RPC proxy', () => {
  let anvil: Anvil;
  let proxy: RpcProxy;
  const call = async (method: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: [] }) });
    const text = await res.text();
    return { status: res.status, body: res.status === 200 ? JSON.parse(text) : text };
  };

  beforeAll(async () => {
    anvil = await startAnvil();
    proxy = await startRpcProxy(anvil.url);
  }, 30_000);
  afterAll(async () => {
    await proxy?.stop();
    await anvil?.stop();
  });

  it('forwards to the node and counts per method', async () => {
    proxy.reset();
    proxy.setPolicy(undefined);
    expect((await call('eth_chainId')).body.result).toBe('0x7a69');
    await call('eth_blockNumber');
    await call('eth_blockNumber');
    expect(proxy.counts.get('eth_blockNumber')).toBe(2);
    expect(proxy.total()).toBe(3);
    expect(proxy.total(['eth_chainId'])).toBe(1);
  });

  it('answers HTTP statuses, JSON-RPC errors and made-up results in the node\'s place', async () => {
    proxy.setPolicy((r) => (r.method === 'eth_blockNumber' ? { status: 503 } : r.method === 'eth_gasPrice' ? { rpcError: { code: -32005, message: 'rate limited' } } : { result: null }));
    expect((await call('eth_blockNumber')).status).toBe(503);
    expect((await call('eth_gasPrice')).body.error).toEqual({ code: -32005, message: 'rate limited' });
    expect((await call('eth_chainId')).body).toEqual({ jsonrpc: '2.0', id: 7, result: null });
    expect(proxy.faults.get('eth_blockNumber')).toBe(1);
  });

  it('a flaky provider fails about as often as asked, the same way for the same seed', () => {
    const draws = (seed: number): string[] => {
      const policy = flakyProvider({ http503: 0.2, rateLimited: 0.1, seed });
      return Array.from({ length: 2000 }, (_, i) => {
        const f = policy({ method: 'eth_call', params: [], id: i }, i + 1) as any;
        return f === undefined ? 'ok' : 'status' in f ? '503' : 'limit';
      });
    };
    const a = draws(42);
    expect(draws(42)).toEqual(a);
    const share = (k: string): number => a.filter((d) => d === k).length / a.length;
    expect(share('503')).toBeGreaterThan(0.15);
    expect(share('503')).toBeLessThan(0.25);
    expect(share('limit')).toBeGreaterThan(0.06);
    expect(share('limit')).toBeLessThan(0.14);
  });
});
