/**
 * docs/events.md promises that docs/examples/events.yaml runs as it is against anvil: MiniToken deployed from anvil's
 * first account as its first transaction lands at the address the example watches, the real server runs the file
 * (on a free port instead of 8080, the one change), a mint of 5000 runs the read, a mint of 10 ends skipped; and the
 * page quotes the file word for word. The file runs as it is on the default SQLite file and, with a `storage:`
 * section added, on PostgreSQL; the quote is checked once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { ANVIL_ACCOUNTS, startAnvil, type Anvil } from '../support/anvil';
import { assertBuilt } from '../support/cli';
import type { Json } from '../support/engine-client';
import { eventually, freePort, startProcessServer, type ProcessServer } from '../support/process';
import type { FreshPostgres } from '../support/postgres';
import { makeTempDir, tearDownSuite } from '../support/server';
import { E2E_STORAGES, itOnFirstStorage, storageSection } from '../support/stores';
import { compileContract } from '../support/solidity';

const REPO = path.resolve(__dirname, '../..');
const EXAMPLE = fs.readFileSync(path.join(REPO, 'docs/examples/events.yaml'), 'utf8');
const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const RECIPIENT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

describe.each(E2E_STORAGES)('docs/examples/events.yaml, run against anvil as docs/events.md says, on %s', (storageName, freshStorage) => {
  const abi = new Web3Abi();
  let database: FreshPostgres | undefined;
  let anvil: Anvil;
  let dir: string;
  let server: ProcessServer;
  const transact = async (tx: Record<string, string>): Promise<Json> => {
    const hash = await anvil.rpc<string>('eth_sendTransaction', [{ from: ANVIL_ACCOUNTS[0]!.address, gas: '0x1e8480', ...tx }]);
    return eventually(() => anvil.rpc<Json | null>('eth_getTransactionReceipt', [hash]).then((r) => r ?? undefined), 10_000, 'receipt');
  };
  const runs = async (): Promise<Json[]> => ((await (await fetch(`${server.baseUrl}/api/history/runs?workflow=on_deposit`)).json()) as { items: Json[] }).items;

  beforeAll(async () => {
    assertBuilt();
    anvil = await startAnvil();
    dir = makeTempDir('chainflow-events-example-');
    const port = await freePort();
    database = await freshStorage();
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `${EXAMPLE.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)}${storageSection(database)}`);
    server = await startProcessServer(dir, { ANVIL_RPC_URL: anvil.url }, [], port);
  }, 60_000);
  afterAll(() => tearDownSuite({ server, stops: [anvil], database, dir }));

  itOnFirstStorage(storageName)('docs/events.md quotes the example file word for word', () => {
    const doc = fs.readFileSync(path.join(REPO, 'docs/events.md'), 'utf8');
    expect(doc).toContain(['```yaml', EXAMPLE.trimEnd(), '```'].join('\n'));
  });

  it('MiniToken, deployed as the page says, lands where the example watches; a mint of 10 is skipped, one of 5000 runs the read', async () => {
    const deployed = await transact({ data: compileContract('MiniToken.sol', 'MiniToken') });
    expect(String(deployed.contractAddress).toLowerCase()).toBe(TOKEN);
    await transact({ to: TOKEN, data: abi.encodeCall('mint(address,uint256)', [RECIPIENT, '10']) });
    await transact({ to: TOKEN, data: abi.encodeCall('mint(address,uint256)', [RECIPIENT, '5000']) });
    const ended = await eventually(async () => {
      const items = await runs();
      return items.length === 2 && items.every((r) => ['succeeded', 'skipped', 'failed'].includes(r.status)) ? items : undefined;
    }, 30_000, 'two ended runs of on_deposit');
    expect(ended.map((r) => r.status).sort()).toEqual(['skipped', 'succeeded']);
    const succeeded = ended.find((r) => r.status === 'succeeded')!;
    const timeline = (await (await fetch(`${server.baseUrl}/api/history/runs/${succeeded.run_id}/timeline`)).json()) as { events: Json[] };
    const read = timeline.events.find((e) => e.kind === 'step' && e.step_id === 'balance');
    // The 5000 run reads after its own mint, which came after the mint of 10: the balance is their sum.
    expect(read?.output).toEqual({ result: '5010' });
  }, 60_000);

  it('replays the two mints as docs/events.md says: the same runs again, reading at each mint\'s block', async () => {
    const live = await runs();
    const head = Number(await anvil.rpc<string>('eth_blockNumber'));
    // Minted after the range: the replay's read must not see it (it reads at the 5000 mint's block).
    await transact({ to: TOKEN, data: abi.encodeCall('mint(address,uint256)', [RECIPIENT, '7']) });
    const res = await fetch(`${server.baseUrl}/api/workflows/on_deposit/replays`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from_block: 0, to_block: head }),
    });
    expect(res.status).toBe(202);
    const { session_id: sessionId } = (await res.json()) as { session_id: string };
    const replayed = await eventually(async () => {
      const items = ((await (await fetch(`${server.baseUrl}/api/history/runs?session_id=${sessionId}`)).json()) as { items: Json[] }).items;
      return items.length === 2 && items.every((r) => ['succeeded', 'skipped'].includes(r.status)) ? items : undefined;
    }, 30_000, 'the two replayed runs ended');
    // Both by block: the live runs of one poll share a creation time, so their list order is not the chain's.
    const byBlock = (a: Json, b: Json): number => a.block - b.block;
    expect(replayed.sort(byBlock).map((r) => [r.session, r.status, r.replay_of])).toEqual(live.sort(byBlock).map((r) => ['replay', r.status, r.run_id]));
    const succeeded = replayed.find((r) => r.status === 'succeeded')!;
    const timeline = (await (await fetch(`${server.baseUrl}/api/history/runs/${succeeded.run_id}/timeline`)).json()) as { events: Json[] };
    expect(timeline.events.find((e) => e.kind === 'step' && e.step_id === 'balance')?.output).toEqual({ result: '5010' });
  }, 60_000);
});
