import { inject, injectable } from 'inversify';
import type { BudgetChecked } from '../../domain/journal/journal-event';
import { charges, gasCheck, refusal, reservationCheck, type BudgetRule, type CapCheck } from '../../domain/spend/budget';
import { toIso } from '../../domain/time';
import { ChainflowConfig } from '../config';
import { BudgetReservations } from '../ports/budget-reservations';
import { Clock } from '../ports/clock';
import { JournalWriter } from '../ports/journal-writer';
import { SpendLedger } from '../ports/spend-ledger';

export interface BudgetCheckRequest {
  readonly runId: string;
  readonly stepRunId: string;
  readonly workflow: string;
  readonly relayer: string;
  /** Native value the send would move, in wei. */
  readonly valueWei: bigint;
  /** For token flows: the token contract and the amount in its base units. */
  readonly token?: { readonly address: string; readonly amount: bigint };
}

export interface BudgetVerdict {
  readonly allowed: boolean;
  readonly checks: readonly CapCheck[];
  /** One `budget.checked` per cap checked: journaled by `check`, or by the caller with its next write (`evaluate`). */
  readonly events: readonly BudgetChecked[];
  /** Set when refused: the step's error. */
  readonly error?: { readonly kind: 'budget_exceeded'; readonly message: string };
}

/**
 * The budget check the send path calls before any broadcast. Every cap of every budget charging the send
 * is checked and journaled (`budget.checked`, shown on the run's timeline); when any refuses, the send must
 * fail with error kind `budget_exceeded` and nothing may be broadcast.
 */
@injectable()
export class BudgetGuard {
  private readonly rules: BudgetRule[];

  constructor(
    @inject(ChainflowConfig) config: ChainflowConfig,
    @inject(SpendLedger) private readonly ledger: SpendLedger,
    @inject(BudgetReservations) private readonly reservations: BudgetReservations,
    @inject(JournalWriter) private readonly journal: JournalWriter,
    @inject(Clock) private readonly clock: Clock,
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
   * before any broadcast (the send path appends them with `send.queued`, or with the step's failure).
   */
  async evaluate(request: BudgetCheckRequest): Promise<BudgetVerdict> {
    const now = this.clock.now();
    const checks: CapCheck[] = [];
    const rules = this.rules.filter((r) => charges(r, request.workflow, request.relayer));
    const recorded = await this.recorded(rules, now);
    for (const rule of rules) checks.push(...(await this.checkRule(rule, request, now, recorded.get(rule))));
    const events = checks.map((c) => this.event(request, c, now));
    const message = refusal(checks);
    if (message !== undefined) return { allowed: false, checks, events, error: { kind: 'budget_exceeded', message } };
    const token = request.token;
    for (const c of checks) {
      if (c.cap === 'max_token_value' && token) {
        await this.reservations.grantToken({ budget: c.budget, token: token.address, stepRunId: request.stepRunId, amount: token.amount, at: now });
      }
    }
    return { allowed: true, checks, events };
  }

  /**
   * What the ledger recorded in each rule's window (gas spent, value moved), for the rules with a gas or native-value
   * cap. Rules sharing a window share one read of the ledger: its totals come per (workflow, relayer, network), so
   * one read over the union of their scopes is split exactly between them. A send charged by a gas budget and a
   * value budget thus waits for the storage once, not once per budget (docs/benchmarks.md, issue #14, seventh pass).
   */
  private async recorded(rules: readonly BudgetRule[], now: number): Promise<Map<BudgetRule, { gas: bigint; value: bigint }>> {
    const out = new Map<BudgetRule, { gas: bigint; value: bigint }>();
    const byWindow = new Map<number, BudgetRule[]>();
    for (const rule of rules) {
      if (rule.maxGasSpendWei === undefined && rule.maxNativeValueWei === undefined) continue;
      const group = byWindow.get(rule.windowMs);
      if (group) group.push(rule);
      else byWindow.set(rule.windowMs, [rule]);
    }
    for (const [windowMs, group] of byWindow) {
      const workflows = [...new Set(group.flatMap((r) => r.workflows))];
      const relayers = group.some((r) => r.relayers === undefined) ? undefined : [...new Set(group.flatMap((r) => r.relayers ?? []))];
      const combos = await this.ledger.totals({ workflows, relayers, since: now - windowMs, until: now });
      for (const rule of group) {
        const sum = { gas: 0n, value: 0n };
        for (const c of combos) {
          if (!charges(rule, c.workflow, c.relayer)) continue;
          sum.gas += c.gasSpendWei;
          sum.value += c.valueWei;
        }
        out.set(rule, sum);
      }
    }
    return out;
  }

  private async checkRule(rule: BudgetRule, request: BudgetCheckRequest, now: number, recorded = { gas: 0n, value: 0n }): Promise<CapCheck[]> {
    const since = now - rule.windowMs;
    const out: CapCheck[] = [];
    const { gas, value } = recorded;
    if (rule.maxGasSpendWei !== undefined) out.push(gasCheck(rule.name, gas, rule.maxGasSpendWei));
    if (rule.maxNativeValueWei !== undefined) {
      const inFlight = await this.reservations.valueInFlight(rule.workflows, rule.relayers);
      out.push(reservationCheck(rule.name, 'max_native_value', value + inFlight, request.valueWei, rule.maxNativeValueWei));
    }
    if (rule.maxTokenValue !== undefined && request.token) {
      const granted = await this.reservations.tokenGranted(rule.name, request.token.address, since);
      out.push(reservationCheck(rule.name, 'max_token_value', granted, request.token.amount, rule.maxTokenValue, request.token.address));
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
