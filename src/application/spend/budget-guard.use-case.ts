import { inject, injectable, optional } from 'inversify';
import type { BudgetChecked } from '../../domain/journal/journal-event';
import { charges, gasCheck, refusal, reservationCheck, type BudgetRule, type CapCheck } from '../../domain/spend/budget';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import { OperatorLog } from '../operator-log';
import { BudgetReservations, type ReservationClaim } from '../ports/budget-reservations';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import type { BudgetCheckRequest, BudgetVerdict, SendBudget } from '../ports/send-budget';
import { SpendLedger } from '../ports/spend-ledger';

export type { BudgetCheckRequest, BudgetVerdict } from '../ports/send-budget';

/** A value cap a send is charged against, with the claim it makes of the cap's reservations. */
interface ValueCap {
  readonly rule: BudgetRule;
  readonly cap: 'max_native_value' | 'max_token_value';
  readonly capWei: bigint;
  readonly claim: ReservationClaim;
}

/**
 * The budget check the send path calls before any broadcast. Every cap of every budget charging the send
 * is checked and journaled (`budget.checked`, shown on the run's timeline); when any refuses, the send must
 * fail with error kind `budget_exceeded` and nothing may be broadcast. The value caps are checked and reserved
 * in one atomic step of the storage (BudgetReservations.reserve), so that racing sends never both pass a cap
 * only one of them fits (CONTRACT 8.7).
 */
@injectable()
export class BudgetGuard implements SendBudget {
  private readonly rules: BudgetRule[];

  constructor(
    @inject(ChainflowConfig) config: ChainflowConfig,
    @inject(SpendLedger) private readonly ledger: SpendLedger,
    @inject(BudgetReservations) private readonly reservations: BudgetReservations,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
    @inject(OperatorLog) @optional() private readonly log?: OperatorLog,
  ) {
    this.rules = [...config.budgets.values()].map((b) => ({
      name: b.name, windowMs: b.windowMs, maxGasSpendWei: b.maxGasSpendWei, maxNativeValueWei: b.maxNativeValueWei,
      maxTokenValue: b.maxTokenValue, relayers: b.scope.relayers,
      workflows: [...config.workflows.values()].filter((w) => w.budgets.includes(b.name)).map((w) => w.name),
    }));
  }

  /** Checks and journals the checks at once. */
  async check(request: BudgetCheckRequest): Promise<BudgetVerdict> {
    const verdict = await this.evaluate(request);
    if (verdict.events.length) await this.journal.append(verdict.events);
    return verdict;
  }

  /**
   * Checks without writing the journal: the caller appends `verdict.events` with its next journal write,
   * before any broadcast (the send path appends them with `send.queued`, or with the step's failure). When every
   * cap allows, the send's value caps are reserved for `request.sendId`; when one refuses, nothing is reserved.
   */
  async evaluate(request: BudgetCheckRequest): Promise<BudgetVerdict> {
    const now = this.clock.now();
    const rules = this.rules.filter((r) => charges(r, request.workflow, request.relayer));
    // The gas cap is a circuit breaker on recorded truth (sends in flight may pass it by their own gas): read apart.
    const gas = await this.recordedGas(rules.filter((r) => r.maxGasSpendWei !== undefined), now);
    const gasChecks = new Map<BudgetRule, CapCheck>();
    for (const [rule, spent] of gas) gasChecks.set(rule, gasCheck(rule.name, spent, rule.maxGasSpendWei!));
    const gasAllowed = [...gasChecks.values()].every((c) => c.allowed);
    const caps = this.valueCaps(rules, request, now);
    let valueChecks: CapCheck[] = [];
    if (caps.length) {
      await this.reservations.reserve(request.sendId, now, caps.map((c) => c.claim), (counted) => {
        valueChecks = caps.map((c, i) => reservationCheck(c.rule.name, c.cap, counted[i]!, c.claim.amount, c.capWei, c.claim.token));
        return gasAllowed && valueChecks.every((c) => c.allowed);
      });
    }
    // In the order of the budgets, each budget's caps in the order gas, native value, token value.
    const checks = rules.flatMap((rule) => [
      ...(gasChecks.has(rule) ? [gasChecks.get(rule)!] : []),
      ...valueChecks.filter((_, i) => caps[i]!.rule === rule),
    ]);
    const events = checks.map((c) => this.event(request, c, now));
    const message = refusal(checks);
    if (message !== undefined) {
      const refusing = [...new Set(checks.filter((c) => !c.allowed).map((c) => c.budget))];
      this.log?.budgetRefused(request, refusing, message);
      return { allowed: false, checks, events, error: { kind: 'budget_exceeded', message } };
    }
    return { allowed: true, checks, events };
  }

  /** The send ended without broadcasting: what it reserved counts no more. */
  async release(sendId: string): Promise<void> {
    await this.reservations.release(sendId);
  }

  private valueCaps(rules: readonly BudgetRule[], request: BudgetCheckRequest, now: number): ValueCap[] {
    const caps: ValueCap[] = [];
    for (const rule of rules) {
      const since = now - rule.windowMs;
      if (rule.maxNativeValueWei !== undefined) {
        caps.push({
          rule, cap: 'max_native_value', capWei: rule.maxNativeValueWei,
          claim: { budget: rule.name, amount: request.valueWei, since, ledger: { workflows: rule.workflows, ...(rule.relayers ? { relayers: rule.relayers } : {}) } },
        });
      }
      if (rule.maxTokenValue !== undefined && request.token) {
        caps.push({
          rule, cap: 'max_token_value', capWei: rule.maxTokenValue,
          claim: { budget: rule.name, token: request.token.address.toLowerCase(), amount: request.token.amount, since },
        });
      }
    }
    return caps;
  }

  /**
   * The gas spend the ledger recorded in each rule's window. Rules sharing a window share one read of the ledger:
   * its totals come per (workflow, relayer, network), so one read over the union of their scopes is split exactly
   * between them.
   */
  private async recordedGas(rules: readonly BudgetRule[], now: number): Promise<Map<BudgetRule, bigint>> {
    const out = new Map<BudgetRule, bigint>();
    const byWindow = new Map<number, BudgetRule[]>();
    for (const rule of rules) {
      const group = byWindow.get(rule.windowMs);
      if (group) group.push(rule);
      else byWindow.set(rule.windowMs, [rule]);
    }
    for (const [windowMs, group] of byWindow) {
      const workflows = [...new Set(group.flatMap((r) => r.workflows))];
      const relayers = group.some((r) => r.relayers === undefined) ? undefined : [...new Set(group.flatMap((r) => r.relayers ?? []))];
      const combos = await this.ledger.totals({ workflows, relayers, since: now - windowMs, until: now });
      for (const rule of group) {
        let sum = 0n;
        for (const c of combos) if (charges(rule, c.workflow, c.relayer)) sum += c.gasSpendWei;
        out.set(rule, sum);
      }
    }
    return out;
  }

  private event(request: BudgetCheckRequest, c: CapCheck, now: number): BudgetChecked {
    return {
      type: 'budget.checked', at: toIso(now), run_id: request.runId, step_run_id: request.stepRunId, budget: c.budget,
      spent_wei: c.spentWei.toString(), cap_wei: c.capWei.toString(), allowed: c.allowed, cap: c.cap,
      ...(c.requestWei ? { request_wei: c.requestWei.toString() } : {}), ...(c.token ? { token: c.token } : {}),
    };
  }
}
