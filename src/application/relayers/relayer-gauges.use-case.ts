import { inject, injectable } from 'inversify';
import { Redactor } from '../../domain/redactor';
import { RelayerBook, type RelayerStatus } from './relayer-book';

/**
 * The relayers' figures for metrics: every configured relayer from cached balances only (a stale one starts a
 * read for the next scrape), so a scrape never waits on a chain, whatever the providers do. A relayer whose
 * balance was never read yet has neither `balanceWei` nor `balanceError`.
 */
@injectable()
export class RelayerGauges {
  constructor(
    @inject(RelayerBook) private readonly book: RelayerBook,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  async execute(): Promise<RelayerStatus[]> {
    const statuses = await this.book.statuses(this.book.names(), 'cached');
    return statuses.map((s) => ({ ...s, relayer: this.redactor.redactText(s.relayer), network: this.redactor.redactText(s.network) }));
  }
}
