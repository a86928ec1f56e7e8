import { OperatorLog } from '../../src/application/operator-log';
import { ListBudgets } from '../../src/application/spend/list-budgets.use-case';
import { RecordingLogger } from '../fakes/recording-logger';
import { Web3Abi } from '../../src/adapters/chain/web3-abi';
import { CelExpressions } from '../../src/adapters/cel';
import type { BudgetConfig, ChainflowConfig, NetworkConfig, WorkflowConfig } from '../../src/application/config';
import { DriveRun } from '../../src/application/engine/drive-run.use-case';
import { FinishSessions } from '../../src/application/engine/finish-sessions';
import { DeliverNotifications } from '../../src/application/notifications/deliver-notifications.use-case';
import { NotifyRunEvents } from '../../src/application/notifications/notify.use-case';
import { InMemoryNotificationOutbox } from '../fakes/in-memory-notification-outbox';
import { ReadStep } from '../../src/application/engine/read-step';
import { SendStep } from '../../src/application/engine/send-step';
import { StartRun } from '../../src/application/engine/start-run.use-case';
import { StepRunners } from '../../src/application/engine/step-runners';
import { WorkflowCatalog } from '../../src/application/workflow-catalog';
import type { ClaimedRun } from '../../src/application/ports/engine-store';
import { FillNonceGaps } from '../../src/application/sends/fill-nonce-gaps.use-case';
import { LaneWatch } from '../../src/application/sends/lane-watch';
import { AdvanceSend } from '../../src/application/sends/advance-send.use-case';
import { RelayerAddresses } from '../../src/application/engine/relayer-addresses';
import { Relayers } from '../../src/application/sends/relayers';
import { SubmitSend } from '../../src/application/sends/submit-send.use-case';
import { WatchSends } from '../../src/application/sends/watch-sends.use-case';
import { TopupSettlement } from '../../src/application/relayers/topup-settlement';
import { InMemoryTopupAudit } from '../fakes/in-memory-topup-audit';
import { BudgetGuard } from '../../src/application/spend/budget-guard.use-case';
import { SendTransaction } from '../../src/application/sends/send-transaction.use-case';
import type { WorkflowDefinition } from '../../src/domain/engine/workflow';
import type { JournalEvent } from '../../src/domain/journal/journal-event';
import { Redactor } from '../../src/domain/redactor';
import { CountingSendMetrics } from '../fakes/counting-send-metrics';
import { FixedClock } from '../fakes/fixed-clock';
import { InMemoryChain } from '../fakes/in-memory-chain';
import { InMemoryEngineStore } from '../fakes/in-memory-engine-store';
import { InMemoryJournal } from '../fakes/in-memory-journal';
import { InMemorySendStore } from '../fakes/in-memory-send-store';
import { InMemoryBudgetReservations, InMemorySpendLedger } from '../fakes/in-memory-spend';
import { ScriptedHttpClient } from '../fakes/scripted-http-client';
import { T0 } from '../mothers/journal-events';

export const RPC_URL = 'https://sepolia.rpc.example/v3/secret-project-key-123';
export const SIGNER = `0x${'ab'.repeat(32)}`;
export const RELAYER_ADDRESS = '0x00000000000000000000000000000000000000aa';
export const TO = '0x000000000000000000000000000000000000beef';
const OWNER = 'engine-a';
const TTL = 15_000;

export interface HarnessOptions {
  readonly workflows?: readonly WorkflowDefinition[];
  /** Budget caps: name → max_gas_spend in wei, scoped to relayer ops, listed by every workflow given. */
  readonly gasCapWei?: bigint;
  /** More budgets, listed by every workflow given too. */
  readonly budgets?: readonly BudgetConfig[];
  readonly network?: Partial<NetworkConfig>;
  readonly l1FeeWei?: bigint;
}

/**
 * The send path and the engine on fakes of every port: an in-memory chain (relayer `ops` funded), journal, spend
 * ledger, send store and engine store, a clock that stands still until told, and the real use cases wired by hand.
 */
export class SendHarness {
  readonly clock = new FixedClock(T0);
  readonly spend = new InMemorySpendLedger();
  readonly engineStore = new InMemoryEngineStore();
  readonly journal = new InMemoryJournal({ spend: this.spend, schedule: this.engineStore });
  readonly chain: InMemoryChain;
  readonly store = new InMemorySendStore();
  private readonly reservations: InMemoryBudgetReservations;
  readonly metrics = new CountingSendMetrics();
  /** The operator's log lines (CONTRACT 11) of every process this harness started. */
  readonly logger = new RecordingLogger();
  readonly http = new ScriptedHttpClient();
  /** What the runs noted for the channel `ops` (the config's top-level `notify` lists failures and budget refusals). */
  readonly notifications = new InMemoryNotificationOutbox();
  readonly config: ChainflowConfig;
  // The process's own parts: made again by restart(), as a process started afresh on the same storage and chain.
  relayers!: Relayers;
  submit!: SubmitSend;
  /** The budgets as the send path sees them (BudgetGuard over the in-memory reservations). */
  budget!: BudgetGuard;
  advance!: AdvanceSend;
  sendTransaction!: SendTransaction;
  watch!: WatchSends;
  drive!: DriveRun;
  start!: StartRun;

  constructor(options: HarnessOptions = {}) {
    const workflows = options.workflows ?? [];
    const budgets = new Map<string, BudgetConfig>(options.gasCapWei === undefined ? [] : [['gas_cap', { name: 'gas_cap', windowMs: 86_400_000, maxGasSpendWei: options.gasCapWei, scope: { relayers: ['ops'] } }]]);
    for (const b of options.budgets ?? []) budgets.set(b.name, b);
    const budgetNames = [...budgets.keys()];
    const entries: [string, WorkflowConfig][] = workflows.map((w) => [w.name, { name: w.name, budgets: budgetNames, definition: {}, engine: { ...w, budgets: budgetNames } }]);
    if (!entries.some(([n]) => n === 'payouts')) entries.push(['payouts', { name: 'payouts', budgets: budgetNames, definition: {} }]);
    this.config = {
      server: { host: '127.0.0.1', port: 8080, healthPublic: true, metricsPublic: false }, storage: { url: 'sqlite::memory:' },
      networks: new Map([['sepolia', { name: 'sepolia', chainId: 11155111, nativeSymbol: 'ETH', rpc: [RPC_URL], replaceAfterMs: 60_000, confirmations: 1, ...options.network }]]),
      relayers: new Map([['ops', { name: 'ops', network: 'sepolia', signer: SIGNER }]]),
      budgets, workflows: new Map(entries), secretValues: [RPC_URL, SIGNER],
      notify: { on: ['run_failed', 'budget_exceeded'], to: ['ops'] },
    };
    this.chain = new InMemoryChain({ chainId: 11155111, ...(options.l1FeeWei !== undefined ? { l1FeeWei: options.l1FeeWei } : {}) });
    this.chain.addAccount(SIGNER, RELAYER_ADDRESS, 10n ** 22n);
    this.reservations = InMemoryBudgetReservations.over(this.journal);
    this.restart();
  }

  /** The engine process starts afresh: what it kept in memory is gone; storage and the chain stay. */
  restart(): void {
    const redactor = new Redactor(this.config.secretValues);
    const expressions = new CelExpressions();
    const log = new OperatorLog(this.logger, redactor);
    const guard = new BudgetGuard(this.config, this.spend, this.reservations, this.journal, this.clock, log);
    this.budget = guard;
    this.relayers = new Relayers(this.config, this.chain);
    this.submit = new SubmitSend(this.relayers, this.chain, this.chain, this.store, this.store, guard, this.journal, this.metrics, this.clock, redactor, log);
    this.advance = new AdvanceSend(this.relayers, this.chain, this.chain, this.store, this.journal, this.metrics, this.clock, new LaneWatch(this.config, this.chain, this.clock), log);
    this.sendTransaction = new SendTransaction(this.submit, this.advance, this.store, this.journal, this.journal, this.clock);
    const catalog = new WorkflowCatalog(this.config);
    const logger = { error: () => undefined, warn: () => undefined, info: () => undefined };
    this.watch = new WatchSends(this.store, this.advance, this.store, this.journal, this.journal, catalog, this.relayers, this.clock, logger, redactor, new TopupSettlement(new InMemoryTopupAudit(), this.clock),
      new FillNonceGaps(this.config, this.relayers, this.store, this.chain, this.chain, this.clock, logger, redactor));
    const sendStep = new SendStep(this.submit, this.advance, this.store, this.relayers, guard, this.journal, new Web3Abi(), expressions, this.clock);
    const readStep = new ReadStep(this.config, this.chain, new Web3Abi(), expressions, redactor);
    const steps = new StepRunners(this.http, expressions, this.clock, sendStep, readStep, undefined, new ListBudgets(this.config, this.spend, this.reservations, this.clock));
    const deliveries = new DeliverNotifications(this.notifications, { deliver: async () => ({ ok: true }) }, this.clock, logger, redactor);
    const notify = new NotifyRunEvents(this.config, this.notifications, deliveries, redactor, this.clock, logger);
    this.drive = new DriveRun(this.journal, this.journal, this.engineStore, catalog, steps, expressions, this.clock, new RelayerAddresses(this.config, this.chain), undefined, notify, log, new FinishSessions(this.journal, this.journal, this.clock));
    this.start = new StartRun(catalog, this.journal, this.engineStore, this.journal, this.clock);
  }

  async run(workflow: string, payload: Record<string, unknown> = {}, session: 'live' | 'test' = 'live'): Promise<string> {
    const { runId } = await this.start.execute({ workflow, session, trigger: { kind: 'manual', summary: 'manual by test', payload: payload as never } });
    await this.tick();
    return runId;
  }

  /** One engine pass: claim what is due now and drive it. */
  async tick(owner = OWNER): Promise<ClaimedRun[]> {
    const claims = await this.engineStore.claimDue(owner, this.clock.now(), this.clock.now() + TTL, 100);
    for (const c of claims) await this.drive.execute(c, owner);
    return claims;
  }

  async status(runId: string): Promise<string | undefined> {
    return (await this.journal.get(runId))?.status;
  }

  async events<T extends JournalEvent['type']>(runId: string, type?: T): Promise<Extract<JournalEvent, { type: T }>[]> {
    return (await this.journal.stream(runId)).filter((e) => type === undefined || e.type === type) as Extract<JournalEvent, { type: T }>[];
  }
}
