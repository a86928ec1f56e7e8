import { inject, injectable } from 'inversify';
import { parseDuration } from '../../domain/duration';
import { InvalidInputError } from '../../domain/errors';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import { RetentionRepository, type PruneCounts } from '../ports/retention-repository';

export interface PruneReport extends PruneCounts {
  /** Runs created before this time (RFC 3339) were (or, on a dry run, would be) removed. */
  cut: string;
  dry_run: boolean;
}

/**
 * `chainflow retention --older-than <d> [--dry-run]`: removes runs older than the cut with their events,
 * sends, approvals and reorg responses. Only when asked (the explorer never prunes on its own), and never
 * the spend ledger, which has no link to the run journal.
 */
@injectable()
export class PruneHistory {
  constructor(
    @inject(RetentionRepository) private readonly retention: RetentionRepository,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** `olderThan`: a duration such as `90d`; `onStep(done, steps)`: progress of the removal. */
  async execute(olderThan: string | undefined, dryRun: boolean | undefined, onStep?: (done: number, steps: number) => void): Promise<PruneReport> {
    const cut = cutOf(olderThan, this.clock.now());
    const counts = dryRun ? await this.retention.countBefore(cut) : await this.retention.pruneBefore(cut, onStep);
    return { ...counts, cut: toIso(cut), dry_run: dryRun === true };
  }
}

/** The cut for `--older-than`: now minus the duration. */
export function cutOf(olderThan: string | undefined, now: number): number {
  if (!olderThan) throw new InvalidInputError('older-than', 'required (a duration such as 90d)');
  return now - parseDuration(olderThan, 'older-than');
}
