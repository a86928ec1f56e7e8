import type { ParamSpecs, ParsedParams } from '../query/query-params';
import type { SpendFilter } from '../ports/spend-ledger';

/** Filters of the spend ledger (API, CLI, exports): each names the entry field it filters. */
export const SPEND_FILTER_PARAMS: ParamSpecs = {
  workflow: { kind: 'text', description: 'workflow name (relayers.topup for top-ups)' },
  relayer: { kind: 'text', description: 'relayer name' },
  network: { kind: 'text', description: 'network name' },
  since: { kind: 'time', description: 'a duration back from now (24h, 30d) or an RFC 3339 timestamp; recorded_at >= since' },
  until: { kind: 'time', description: 'a duration back from now or an RFC 3339 timestamp; recorded_at <= until' },
};

export function toSpendFilter(p: ParsedParams): SpendFilter {
  const one = (v: string | number | undefined): readonly string[] | undefined => (v === undefined ? undefined : [String(v)]);
  return {
    workflows: one(p.workflow), relayers: one(p.relayer), networks: one(p.network),
    since: p.since as number | undefined, until: p.until as number | undefined,
  };
}
