import { randomBytes } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { unsetUnder } from '../secrets-needed';
import { Redactor } from '../../domain/redactor';
import { completeEntry, type PendingReceipt } from '../../domain/spend/ledger-entry';
import { ChainflowConfig } from '../config';
import { ChainReader } from '../ports/chain';
import { Clock } from '../ports/clock';
import { journalReceipt } from '../../domain/chain/tx-receipt';
import { Logger } from '../ports/logger';
import { PendingReceipts } from '../ports/spend-ledger';

const BATCH = 100;
/** How long a drain holds the reads it took: far beyond a batch of receipt reads, short enough for a dead process. */
const CLAIM_MS = 120_000;

/**
 * Completes the ledger entries of landed sends whose journaled receipt had no gas numbers: ONE receipt read
 * each, over the network's read providers. A failed read logs a warning and writes nothing (a ledger gap);
 * nothing here ever fails a send. Safe to run again after a crash: an entry already recorded is not
 * recorded twice. Each drain claims the reads it makes (CONTRACT 10): the drains of several processes read
 * different receipts, and a read held by a process that died is taken again once its claim runs out.
 */
@injectable()
export class SettlePendingReceipts {
  private running: Promise<{ recorded: number; gaps: number }> | undefined;
  /** Who holds this process's claims. */
  private readonly owner = `receipts-${randomBytes(6).toString('hex')}`;

  constructor(
    @inject(PendingReceipts) private readonly pending: PendingReceipts,
    @inject(ChainReader) private readonly reader: ChainReader,
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(Logger) private readonly logger: Logger,
    @inject(Redactor) private readonly redactor: Redactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Reads every owed receipt (one drain at a time per process). */
  drain(): Promise<{ recorded: number; gaps: number }> {
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<{ recorded: number; gaps: number }> {
    let recorded = 0;
    let gaps = 0;
    for (;;) {
      const now = this.clock.now();
      const batch = await this.pending.claim(this.owner, now, now + CLAIM_MS, BATCH);
      if (!batch.length) break;
      for (const p of batch) {
        const reason = await this.settle(p);
        if (reason === undefined) {
          recorded++;
          continue;
        }
        gaps++;
        // The reason may quote a provider URL (secret-typed: it can hold a key); it is stored redacted, like the log.
        await this.pending.fail(p, this.redactor.redactText(reason));
        this.logger.warn('spend ledger: receipt read failed, no entry recorded', this.redactor.redact({
          step_run_id: p.stepRunId, tx_hash: p.txHash, network: p.network, reason,
        }));
      }
    }
    return { recorded, gaps };
  }

  /** Records the entry; returns why it could not be, if it could not. */
  private async settle(p: PendingReceipt): Promise<string | undefined> {
    if (p.txHash === null) return 'the settle names no transaction hash';
    const network = this.config.networks.get(p.network);
    if (!network || !network.rpc.length) {
      // A provider whose variable is unset is named: the read is the moment it was needed.
      const unset = network ? unsetUnder(this.config, [`networks.${network.name}.rpc`]) : [];
      if (unset.length) return unset.map((u) => `${u.at}: environment variable ${u.variable} is ${u.empty ? 'empty' : 'not set'}`).join('; ');
      return `network '${p.network}' has no read providers configured`;
    }
    let receipt;
    try {
      receipt = await this.reader.receipt({ network: network.name, chainId: network.chainId, rpc: network.rpc }, p.txHash);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    if (!receipt) return 'no receipt found for the transaction';
    const entry = completeEntry(p, journalReceipt(receipt));
    if (!entry) return 'the receipt has no gas numbers';
    // A storage failure here is not a gap: it propagates, the read stays owed, and the next drain does it again.
    await this.pending.complete(p, entry);
    return undefined;
  }
}
