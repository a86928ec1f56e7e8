import { inject, injectable } from 'inversify';
import { toIso } from '../../domain/time';
import { Clock } from '../ports/clock';
import type { TextSink } from '../ports/text-sink';
import { ExportHistory, type ExportReport } from './export-history.use-case';
import { cutOf } from './prune-history.use-case';

export interface ArchiveReport extends ExportReport {
  /** Runs created before this time (RFC 3339) are in the archive. */
  cut: string;
}

/**
 * `chainflow archive export --older-than <d> --out FILE`: the runs that retention would remove, in the
 * history export's redacted JSON shape, so that they can be kept before they are pruned.
 */
@injectable()
export class ArchiveExport {
  constructor(
    @inject(ExportHistory) private readonly exporter: ExportHistory,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(olderThan: string | undefined, sink: TextSink, onProgress?: (report: ExportReport) => void): Promise<ArchiveReport> {
    const cut = cutOf(olderThan, this.clock.now());
    // Retention removes created_at < cut; `until` is inclusive, hence the millisecond.
    const report = await this.exporter.execute({ until: cut - 1 }, 'json', sink, onProgress);
    return { ...report, cut: toIso(cut) };
  }
}
