import { ChainUnavailableError, type ChainTarget } from '../../src/application/ports/chain';
import { LogRangeTooLargeError, type ChainLogs } from '../../src/application/ports/chain-logs';
import type { ChainLog } from '../../src/domain/chain/chain-log';

export const TRANSFER = 'Transfer(address indexed from, address indexed to, uint256 value)';
export const APPROVAL = 'Approval(address indexed owner, address indexed spender, uint256 value)';
const ZERO = `0x${'0'.repeat(40)}`;

/** One implementation of ChainLogs with a chain behind it: two token contracts that mint (Transfer from 0x0). */
export interface ChainLogsFixture {
  readonly logs: ChainLogs;
  /** The chain with one working provider. */
  readonly target: ChainTarget;
  /** Two token contracts, lowercase. */
  readonly tokens: readonly [string, string];
  /** Mints `amount` of `token` to `to` in a block of its own: one Transfer(0x0, to, amount) log. */
  mint(token: string, to: string, amount: bigint): Promise<void>;
  /** Approves (an Approval log, another event of the same contract) in a block of its own. */
  approve(token: string, spender: string, amount: bigint): Promise<void>;
  /** Mines `count` empty blocks. */
  mine(count: number): Promise<void>;
  /** A target for the same chain whose provider refuses eth_getLogs over `blocks` blocks. */
  refusingRangesOver(blocks: number): Promise<ChainTarget>;
  /** A target whose only provider never answers. */
  deadTarget(): Promise<ChainTarget>;
  close(): Promise<void>;
}

const ALICE = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const BOB = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';

export function chainLogsContract(name: string, setup: () => Promise<ChainLogsFixture>): void {
  describe(`ChainLogs contract: ${name}`, () => {
    let f: ChainLogsFixture;
    beforeAll(async () => {
      f = await setup();
    }, 60_000);
    afterAll(async () => {
      await f?.close();
    });

    const head = async (): Promise<bigint> => (await f.logs.headerByNumber(f.target, 'latest'))!.number;

    it('reads the logs of a range by address and event, decoded by name, in chain order, with block, tx and log index', async () => {
      const [a, b] = f.tokens;
      const from = (await head()) + 1n;
      await f.mint(a, ALICE, 10n ** 30n);
      await f.approve(a, BOB, 5n);
      await f.mint(b, BOB, 7n);
      await f.mint(a, BOB, 1n);
      const to = await head();
      const logs = await f.logs.logs(f.target, { fromBlock: from, toBlock: to, addresses: [a], event: TRANSFER });
      expect(logs.map((l) => l.args)).toEqual([
        { from: ZERO, to: ALICE, value: (10n ** 30n).toString() },
        { from: ZERO, to: BOB, value: '1' },
      ]);
      expect(logs.map((l) => l.address)).toEqual([a, a]);
      expect(logs[0]!.blockNumber).toBe(from);
      expect(logs[1]!.blockNumber).toBe(to);
      for (const log of logs) {
        expect(log.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(log.txHash).toMatch(/^0x[0-9a-f]{64}$/);
        expect(Number.isInteger(log.logIndex) && log.logIndex >= 0).toBe(true);
      }
      const both = await f.logs.logs(f.target, { fromBlock: from, toBlock: to, addresses: [b, a.toUpperCase().replace('0X', '0x')], event: TRANSFER });
      expect(both.map((l) => [l.address, l.args.value])).toEqual([[a, (10n ** 30n).toString()], [b, '7'], [a, '1']]);
      const approvals = await f.logs.logs(f.target, { fromBlock: from, toBlock: to, addresses: [a], event: APPROVAL });
      expect(approvals.map((l) => l.args)).toEqual([{ owner: expect.stringMatching(/^0x[0-9a-f]{40}$/), spender: BOB, value: '5' }]);
      const none = await f.logs.logs(f.target, { fromBlock: from + 1n, toBlock: from + 1n, addresses: [a], event: TRANSFER });
      expect(none).toEqual([]);
    });

    it('reads block headers by number and by hash, each linking to its parent; null for blocks that are not there', async () => {
      await f.mine(2);
      const top = await f.logs.headerByNumber(f.target, 'latest');
      const byNumber = await f.logs.headerByNumber(f.target, top!.number);
      expect(byNumber).toEqual(top);
      expect(await f.logs.headerByHash(f.target, top!.hash)).toEqual(top);
      const parent = await f.logs.headerByNumber(f.target, top!.number - 1n);
      expect(top!.parentHash).toBe(parent!.hash);
      expect(top!.timestamp).toBeGreaterThanOrEqual(parent!.timestamp);
      expect(await f.logs.headerByNumber(f.target, top!.number + 1000n)).toBeNull();
      expect(await f.logs.headerByHash(f.target, `0x${'ab'.repeat(32)}`)).toBeNull();
    });

    it('says a range is too wide when the provider refuses it, and serves the same blocks in narrower ranges', async () => {
      const [a] = f.tokens;
      const from = (await head()) + 1n;
      for (let i = 0; i < 3; i++) await f.mint(a, ALICE, BigInt(i + 1));
      const to = await head();
      const narrow = await f.refusingRangesOver(2);
      const refused = f.logs.logs(narrow, { fromBlock: from, toBlock: to, addresses: [a], event: TRANSFER });
      await expect(refused).rejects.toBeInstanceOf(LogRangeTooLargeError);
      await expect(refused).rejects.toMatchObject({ fromBlock: from, toBlock: to });
      const parts: ChainLog[] = [
        ...(await f.logs.logs(narrow, { fromBlock: from, toBlock: from + 1n, addresses: [a], event: TRANSFER })),
        ...(await f.logs.logs(narrow, { fromBlock: to, toBlock: to, addresses: [a], event: TRANSFER })),
      ];
      expect(parts.map((l) => l.args.value)).toEqual(['1', '2', '3']);
    });

    it('fails with ChainUnavailableError when no provider answers, and refuses a range that runs backwards', async () => {
      await expect(f.logs.logs(await f.deadTarget(), { fromBlock: 1n, toBlock: 1n, addresses: [f.tokens[0]], event: TRANSFER }))
        .rejects.toBeInstanceOf(ChainUnavailableError);
      await expect(f.logs.logs(f.target, { fromBlock: 5n, toBlock: 4n, addresses: [f.tokens[0]], event: TRANSFER })).rejects.toThrow(/not a block range/);
    });
  });
}
