import { inject, injectable } from 'inversify';
import { formatDuration } from '../../domain/duration';
import { charges, type BudgetRule, type CapKind } from '../../domain/spend/budget';
import type { ComboTotals } from '../../domain/spend/spend-totals';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import type { ListEnvelope } from '../history/items';
import { QueryParser, type ParamSpecs } from '../query/query-params';
import { BudgetReservations, type ReservationClaim } from '../ports/budget-reservations';
import { Clock } from '../ports/clock';
import { SpendLedger } from '../ports/spend-ledger';

/**
 * One cap of a budget as it stands (amounts as decimal strings: wei, or the token's base units).
 * `spent`: recorded in the ledger over the window; `reserved`: held by sends in flight; `headroom`: what a send may
 * still ask (the cap less both, never below 0). A token cap's reservations count landed and in-flight transfers
 * together (the guard does not tell them apart), so its `spent` is null and `reserved` holds both.
 */
export interface BudgetCapItem {
  kind: CapKind;
  token: string | null;
  spent: string | null;
  reserved: string;
  cap: string;
  headroom: string;
}

/** A configured budget and each of its caps (`GET /api/budgets`, `chainflow budgets`). */
export interface BudgetItem {
  budget: string;
  window: string;
  window_start: string;
  relayers: string[] | null;
  workflows: string[];
  caps: BudgetCapItem[];
}

/** Budgets are few and named in the config: one page, no parameters. */
export const BUDGET_LIST_PARAMS: ParamSpecs = {};

/** What the view never holds a reservation for: its reads go through `reserve` with a decision that refuses. */
const VIEW_SEND_ID = 'budgets-view';

/**
 * Budget headroom where a decision is made (issue 30): each budget's caps read as the send path's BudgetGuard
 * counts them, at one moment. The value caps are read through BudgetReservations.reserve with a decision that
 * always refuses: the same reads, under the same lock, and nothing written, so the figures are the guard's own and
 * the reservation semantics stay where they are. Token caps are listed for the tokens the budget's workflows
 * transfer by a literal contract address (other token transfers are not known until they are rendered).
 */
@injectable()
export class ListBudgets {
  private readonly rules: BudgetRule[];
  private readonly parser: QueryParser;

  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(SpendLedger) private readonly ledger: SpendLedger,
    @inject(BudgetReservations) private readonly reservations: BudgetReservations,
    @inject(Clock) private readonly clock: Clock,
  ) {
    this.rules = [...config.budgets.values()].map((b) => ({
      name: b.name, windowMs: b.windowMs, maxGasSpendWei: b.maxGasSpendWei, maxNativeValueWei: b.maxNativeValueWei,
      maxTokenValue: b.maxTokenValue, relayers: b.scope.relayers,
      workflows: [...config.workflows.values()].filter((w) => w.budgets.includes(b.name)).map((w) => w.name),
    }));
    this.parser = new QueryParser(BUDGET_LIST_PARAMS, () => clock.now());
  }

  /** The query parameters this list takes (for the API's declarations): none. */
  get params(): ParamSpecs {
    return BUDGET_LIST_PARAMS;
  }

  /** Every configured budget, by name, in the list envelope. `query`: raw parameters, validated (none is known). */
  async execute(query: Readonly<Record<string, unknown>> = {}): Promise<ListEnvelope<BudgetItem>> {
    this.parser.parse(query);
    const now = this.clock.now();
    const items: BudgetItem[] = [];
    for (const rule of [...this.rules].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) items.push(await this.item(rule, now));
    return { items, cursor: null, has_more: false };
  }

  private async item(rule: BudgetRule, now: number): Promise<BudgetItem> {
    const since = now - rule.windowMs;
    const combos = rule.workflows.length
      ? (await this.ledger.totals({ workflows: rule.workflows, ...(rule.relayers ? { relayers: rule.relayers } : {}), since, until: now }))
        .filter((c) => charges(rule, c.workflow, c.relayer))
      : [];
    const recorded = (pick: (c: ComboTotals) => bigint): bigint => combos.reduce((sum, c) => sum + pick(c), 0n);
    const caps: BudgetCapItem[] = [];
    if (rule.maxGasSpendWei !== undefined) {
      // A circuit breaker on recorded truth: gas in flight is not known before it lands, so nothing is reserved.
      caps.push(capItem('max_gas_spend', null, recorded((c) => c.gasSpendWei), 0n, rule.maxGasSpendWei));
    }
    const claims: ReservationClaim[] = [];
    if (rule.maxNativeValueWei !== undefined) {
      claims.push({ budget: rule.name, amount: 0n, since, ledger: { workflows: rule.workflows, ...(rule.relayers ? { relayers: rule.relayers } : {}) } });
    }
    const tokens = rule.maxTokenValue === undefined ? [] : this.tokensOf(rule);
    for (const token of tokens) claims.push({ budget: rule.name, token, amount: 0n, since });
    let counted: readonly bigint[] = [];
    if (claims.length) {
      await this.reservations.reserve(VIEW_SEND_ID, now, claims, (c) => {
        counted = c;
        return false;
      });
    }
    if (rule.maxNativeValueWei !== undefined) {
      const spent = recorded((c) => c.valueWei);
      // Both reads are the guard's (the ledger inside the lock counts what settled since the read above too).
      const total = counted[0] ?? 0n;
      caps.push(capItem('max_native_value', null, spent, total > spent ? total - spent : 0n, rule.maxNativeValueWei));
    }
    const offset = rule.maxNativeValueWei !== undefined ? 1 : 0;
    tokens.forEach((token, i) => caps.push(capItem('max_token_value', token, null, counted[offset + i] ?? 0n, rule.maxTokenValue!)));
    return {
      budget: rule.name, window: formatDuration(rule.windowMs), window_start: toIso(since),
      relayers: rule.relayers ? [...rule.relayers] : null, workflows: [...rule.workflows], caps,
    };
  }

  /** Token contracts the budget's workflows transfer from a literal address (lowercase), in the order met. */
  private tokensOf(rule: BudgetRule): string[] {
    const found = new Set<string>();
    for (const name of rule.workflows) {
      for (const step of this.config.workflows.get(name)?.engine?.steps ?? []) {
        if (step.type !== 'send') continue;
        const to = step.fields.to;
        const call = step.fields.call as { function?: unknown } | undefined;
        const fn = typeof call?.function === 'string' ? call.function.replace(/\s+/g, '') : '';
        if (typeof to === 'string' && /^0x[0-9a-fA-F]{40}$/.test(to) && /^transfer(From)?\(/.test(fn)) found.add(to.toLowerCase());
      }
    }
    return [...found];
  }
}

function capItem(kind: CapKind, token: string | null, spent: bigint | null, reserved: bigint, cap: bigint): BudgetCapItem {
  const used = (spent ?? 0n) + reserved;
  return {
    kind, token, spent: spent === null ? null : spent.toString(), reserved: reserved.toString(), cap: cap.toString(),
    headroom: (used >= cap ? 0n : cap - used).toString(),
  };
}
