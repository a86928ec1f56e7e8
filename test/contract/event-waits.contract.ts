import type { EventWait, EventWaits } from '../../src/application/ports/event-waits';

const T = 1_800_000_000_000;

export interface EventWaitsStorage {
  readonly waits: EventWaits;
  /** A second handle on the same storage (another engine process), where the storage can have one; else the same. */
  readonly other: EventWaits;
  close(): Promise<void>;
}

const aWait = (stepRunId: string, nextBlock = 11n): Omit<EventWait, 'match'> => ({
  stepRunId, runId: stepRunId.split('.')[0]!, workflow: 'settle', network: 'devnet', addresses: ['0x5fbdb2315678afecb367f032d93f642f64180aa3'],
  event: 'Transfer(address indexed from, address indexed to, uint256 value)', where: 'log.value == "5"', confirmations: 2,
  context: { trigger: { kind: 'manual', payload: { to: '0xabc', big: '123456789012345678901234567890' } } }, nextBlock, expiresAt: T,
});

/** What every EventWaits must do (the knex adapter and the in-memory fake alike). */
export function eventWaitsContract(name: string, open: () => Promise<EventWaitsStorage>): void {
  describe(`event waits contract: ${name}`, () => {
    let s: EventWaitsStorage;
    beforeEach(async () => {
      s = await open();
    });
    afterEach(async () => s.close());

    it('opens a wait once: an attempt run again keeps the first one\'s start; it reads back whole', async () => {
      expect(await s.waits.open(aWait('r1.wait', 11n))).toEqual({ ...aWait('r1.wait', 11n), match: null });
      expect(await s.other.open(aWait('r1.wait', 40n))).toEqual({ ...aWait('r1.wait', 11n), match: null });
      expect(await s.waits.get('r1.wait')).toEqual({ ...aWait('r1.wait', 11n), match: null });
      expect(await s.waits.get('r2.wait')).toBeUndefined();
    });

    it('moves a wait by compare-and-set, keeps its match, and lists only the waits without one', async () => {
      await s.waits.open(aWait('r1.wait'));
      await s.waits.open(aWait('r2.wait'));
      expect(await s.waits.advance('r1.wait', 11n, 15n)).toBe(true);
      expect(await s.other.advance('r1.wait', 11n, 15n)).toBe(false);
      const match = { value: '5', block: { number: 16, hash: `0x${'1'.repeat(64)}` } };
      expect(await s.waits.advance('r1.wait', 15n, 17n, match)).toBe(true);
      expect(await s.waits.advance('r1.wait', 17n, 18n)).toBe(false);
      expect(await s.waits.get('r1.wait')).toMatchObject({ nextBlock: 17n, match });
      expect((await s.waits.pending()).map((w) => w.stepRunId)).toEqual(['r2.wait']);
      await s.waits.close('r2.wait');
      expect(await s.waits.pending()).toEqual([]);
      expect(await s.waits.get('r2.wait')).toBeUndefined();
    });
  });
}
