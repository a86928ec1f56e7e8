import { Container } from 'inversify';
import type { Knex } from 'knex';
import { loadConfig } from '../adapters/config/config.loader';
import { openDatabase, type StorageProfile } from '../adapters/storage';
import { openPostgresCopyTarget, openSqliteCopySource } from '../adapters/storage';
import { CopyStorage } from '../application/storage/copy-storage.use-case';
import type { CopySource, CopyTarget } from '../application/ports/storage-copy';
import { Database, KnexJournalWriter } from '../adapters/knex/knex-journal.writer';
import { KnexBearerRepository } from '../adapters/knex/knex-bearer.repository';
import { KnexHistoryRepository } from '../adapters/knex/knex-history.repository';
import { KnexRetentionRepository } from '../adapters/knex/knex-retention.repository';
import { KnexRunRepository } from '../adapters/knex/knex-run.repository';
import { SystemClock } from '../adapters/system-clock';
import { FileSpools } from '../adapters/file-spools';
import { ProviderChainIds } from '../adapters/chain/chain-ids';
import { Web3Chain } from '../adapters/chain/web3-chain';
import { Web3Logs } from '../adapters/chain/web3-logs';
import { ChainLogs } from '../application/ports/chain-logs';
import { KnexBudgetReservations } from '../adapters/knex/knex-budget-reservations';
import { KnexSpendLedger } from '../adapters/knex/knex-spend-ledger';
import { PinoLogger } from '../adapters/pino-logger';
import { BudgetReservations } from '../application/ports/budget-reservations';
import { SendBudget } from '../application/ports/send-budget';
import { ChainReader, ChainSender } from '../application/ports/chain';
import { ContractAbi } from '../application/ports/contract-abi';
import { NonceAllocator } from '../application/ports/nonce-allocator';
import { SendMetrics } from '../application/ports/send-metrics';
import { SendWatch } from '../application/ports/send-watch';
import { Web3Abi } from '../adapters/chain/web3-abi';
import { KnexSendStore } from '../adapters/knex/knex-send.store';
import { PromSendMetrics } from '../adapters/metrics/prom-send-metrics';
import { PromEngineMetrics } from '../adapters/metrics/prom-engine-metrics';
import { KnexOperationsGauges } from '../adapters/knex/knex-operations-gauges';
import { EngineMetrics } from '../application/ports/engine-metrics';
import { OperationsGauges } from '../application/ports/operations-gauges';
import { ReadStep } from '../application/engine/read-step';
import { SendStep } from '../application/engine/send-step';
import { AdvanceSend } from '../application/sends/advance-send.use-case';
import { FillNonceGaps } from '../application/sends/fill-nonce-gaps.use-case';
import { LaneWatch } from '../application/sends/lane-watch';
import { Relayers } from '../application/sends/relayers';
import { SubmitSend } from '../application/sends/submit-send.use-case';
import { WatchSends } from '../application/sends/watch-sends.use-case';
import { TopupSettlement } from '../application/relayers/topup-settlement';
import { UnattendedRuns } from '../application/ports/unattended-runs';
import { Logger } from '../application/ports/logger';
import { PendingReceipts, SpendLedger } from '../application/ports/spend-ledger';
import { BudgetGuard } from '../application/spend/budget-guard.use-case';
import { ExportSpend } from '../application/spend/export-spend.use-case';
import { GetSpend } from '../application/spend/get-spend.use-case';
import { SendTransaction } from '../application/sends/send-transaction.use-case';
import { SettlePendingReceipts } from '../application/spend/settle-pending-receipts.use-case';
import { KnexTopupAudit } from '../adapters/knex/knex-topup-audit';
import { TopupAudit } from '../application/ports/topup-audit';
import { KnexNotificationOutbox } from '../adapters/knex/knex-notification-outbox';
import { HttpNotificationChannels } from '../adapters/notifications/http-notification-channels';
import { NotificationChannels, NotificationOutbox } from '../application/ports/notification-outbox';
import { DeliverNotifications } from '../application/notifications/deliver-notifications.use-case';
import { NotifyRunEvents } from '../application/notifications/notify.use-case';
import { NotifyLowBalances } from '../application/notifications/notify-low-balances.use-case';
import { PollEventLogs } from '../application/engine/poll-event-logs.use-case';
import { AnswerReorgs } from '../application/engine/answer-reorgs';
import { ReopenReorgedSends } from '../application/sends/reopen-reorged-sends.use-case';
import { WatchEventWaits } from '../application/engine/watch-event-waits.use-case';
import { WaitEventStepRunner } from '../application/engine/wait-event-step';
import { KnexEventWaits } from '../adapters/knex/knex-event-waits';
import { EventWaits } from '../application/ports/event-waits';
import { ListNotifications } from '../application/notifications/list-notifications.use-case';
import { TestNotification } from '../application/notifications/test-notification.use-case';
import { ListRelayers } from '../application/relayers/list-relayers.use-case';
import { ListTopups } from '../application/relayers/list-topups.use-case';
import { RecentGasSpend } from '../application/relayers/recent-gas-spend';
import { CheckProviders } from '../application/relayers/check-providers.use-case';
import { DEFAULT_BALANCE_READ_MS, RelayerBalanceChain, RelayerBalances } from '../application/relayers/relayer-balances';
import { RelayerBook } from '../application/relayers/relayer-book';
import { RelayerGauges } from '../application/relayers/relayer-gauges.use-case';
import { TopUpRelayer } from '../application/relayers/top-up-relayer.use-case';
import { ChainflowConfig } from '../application/config';
import { requireSecrets } from '../application/secrets-needed';
import { Authenticate } from '../application/auth/authenticate.use-case';
import { ListBearers, MintBearer, RevokeBearer } from '../application/auth/manage-bearers.use-case';
import { CheckHealth } from '../application/health/check-health.use-case';
import { JournalSizes } from '../application/health/journal-sizes.use-case';
import { ArchiveExport } from '../application/history/archive-export.use-case';
import { PruneHistory } from '../application/history/prune-history.use-case';
import { DiffRuns } from '../application/history/diff-runs.use-case';
import { ExportHistory } from '../application/history/export-history.use-case';
import { GetRunTimeline } from '../application/history/get-run-timeline.use-case';
import { ListApprovals } from '../application/history/list-approvals.use-case';
import { ListReorgs } from '../application/history/list-reorgs.use-case';
import { ListReplays } from '../application/history/list-replays.use-case';
import { ListRuns } from '../application/history/list-runs.use-case';
import { ListSends } from '../application/history/list-sends.use-case';
import { ListWaiting } from '../application/history/list-waiting.use-case';
import { ListWorkflows } from '../application/history/list-workflows.use-case';
import { WriteDemoJournal } from '../application/journal/demo-journal.use-case';
import { ImportJournal } from '../application/journal/import-journal.use-case';
import { BearerRepository } from '../application/ports/bearer-repository';
import { Clock } from '../application/ports/clock';
import { Spools } from '../application/ports/spool';
import { HistoryRepository } from '../application/ports/history-repository';
import { RetentionRepository } from '../application/ports/retention-repository';
import { JournalWriter } from '../application/ports/journal-writer';
import { RunRepository } from '../application/ports/run-repository';
import { StorageHealth } from '../application/ports/storage-health';
import { CursorCodec } from '../domain/cursor';
import { ExplorerLinks } from '../domain/explorer';
import { Redactor } from '../domain/redactor';
import { CelExpressions } from '../adapters/cel';
import { LosslessJson } from '../adapters/json';
import { ExactJson } from '../application/ports/exact-json';
import { CronerCalendar } from '../adapters/cron';
import { NodeHttpClient } from '../adapters/http-client';
import { KnexEngineStore } from '../adapters/knex/knex-engine.store';
import { KnexEventCursors } from '../adapters/knex/knex-event-cursors';
import { EventCursors } from '../application/ports/event-cursors';
import { KnexWorkflowStates } from '../adapters/knex/knex-workflow-states';
import { CancelRun } from '../application/engine/cancel-run.use-case';
import { FinishSessions } from '../application/engine/finish-sessions';
import { ReplayEvents } from '../application/engine/replay-events.use-case';
import { DecideApproval } from '../application/engine/decide-approval.use-case';
import { DriveRun } from '../application/engine/drive-run.use-case';
import { Engine } from '../application/engine/engine';
import { ReceiveWebhook } from '../application/engine/receive-webhook.use-case';
import { OperatorLog } from '../application/operator-log';
import { ListBudgets } from '../application/spend/list-budgets.use-case';
import { RelayerAddresses } from '../application/engine/relayer-addresses';
import { StartRun } from '../application/engine/start-run.use-case';
import { StepRunners } from '../application/engine/step-runners';
import { WorkflowCatalog } from '../application/workflow-catalog';
import { ListConfiguredWorkflows, SetWorkflowPaused } from '../application/engine/workflow-controls.use-case';
import { CronCalendar } from '../application/ports/cron-calendar';
import { EngineStore } from '../application/ports/engine-store';
import { Expressions } from '../application/ports/expressions';
import { HttpClient } from '../application/ports/http-client';
import { WorkflowStates } from '../application/ports/workflow-states';

export interface RootOptions {
  /** Working directory (config file and default SQLite location). Default `process.cwd()`. */
  readonly cwd?: string;
  /** `--config PATH`. */
  readonly configPath?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** `server` for a long-lived server process (larger read cache, memory map); `stream` for an export; default `tool`. */
  readonly profile?: StorageProfile;
  /** Where warnings go (default: JSON lines on standard error). */
  readonly logger?: Logger;
}

/** The composition root: the one container, with its storage open. `close()` releases the storage. */
export interface Root {
  readonly container: Container;
  readonly config: ChainflowConfig;
  close(): Promise<void>;
}

/**
 * Builds the one Inversify container: loads the configuration, opens the storage it names (migrating it),
 * and binds every port to its adapter and every use case. Nothing else touches the container.
 */
export async function openRoot(options: RootOptions = {}): Promise<Root> {
  const config = loadConfig({ cwd: options.cwd ?? process.cwd(), configPath: options.configPath, env: options.env ?? process.env });
  // Every command here opens the storage: an unset `storage.password` variable stops it, named.
  requireSecrets(config, ['storage'], 'opening the storage');
  const db = await openDatabase(config.storage.url, options.profile, config.storage.password === undefined ? {} : { password: config.storage.password });
  const cursorKey = (await db('meta').where({ key: 'cursor_key' }).first()) as { value: string };
  const container = new Container({ defaultScope: 'Singleton' });

  container.bind<ChainflowConfig>(ChainflowConfig).toConstantValue(config);
  container.bind<Knex>(Database).toConstantValue(db);
  container.bind(Clock).to(SystemClock);
  container.bind(Spools).toConstantValue(new FileSpools());
  container.bind(CursorCodec).toConstantValue(new CursorCodec(cursorKey.value));
  container.bind(Redactor).toConstantValue(new Redactor(config.secretValues));
  const explorerOverrides = new Map([...config.networks.values()].flatMap((n) => (n.explorer ? [[n.name, n.explorer] as const] : [])));
  const networkChainIds = new Map([...config.networks.values()].map((n) => [n.name, n.chainId] as const));
  container.bind(ExplorerLinks).toConstantValue(new ExplorerLinks(explorerOverrides, networkChainIds));

  container.bind(KnexJournalWriter).toSelf();
  container.bind(JournalWriter).toService(KnexJournalWriter);
  container.bind(KnexRunRepository).toSelf();
  container.bind(RunRepository).toService(KnexRunRepository);
  container.bind(StorageHealth).toService(KnexRunRepository);
  container.bind(HistoryRepository).to(KnexHistoryRepository);
  container.bind(RetentionRepository).to(KnexRetentionRepository);
  container.bind(BearerRepository).to(KnexBearerRepository);
  container.bind(KnexSpendLedger).toSelf();
  container.bind(SpendLedger).toService(KnexSpendLedger);
  container.bind(PendingReceipts).toService(KnexSpendLedger);
  container.bind(BudgetReservations).to(KnexBudgetReservations);
  const logger = options.logger ?? new PinoLogger();
  // One record of which chain each provider serves, so that sends and balance reads agree on the usable ones.
  const chainIds = new ProviderChainIds(logger);
  container.bind(Web3Chain).toConstantValue(new Web3Chain({ chainIds, logger }));
  container.bind(ChainReader).toService(Web3Chain);
  container.bind(ChainSender).toService(Web3Chain);
  container.bind(ChainLogs).toConstantValue(new Web3Logs({ chainIds, logger }));
  // Balance reads: each provider call bounded by half the read bound, so that a second provider still answers
  // within it when the first one hangs; one pass only, as a second would not fit the bound (the 15 s cache makes
  // the next scrape the retry).
  container.bind(RelayerBalanceChain).toConstantValue(new Web3Chain({ timeoutMs: DEFAULT_BALANCE_READ_MS / 2, retryRounds: 1, chainIds, logger }));
  container.bind(TopupAudit).to(KnexTopupAudit);
  container.bind(NotificationOutbox).to(KnexNotificationOutbox);
  container.bind(NotificationChannels).to(HttpNotificationChannels);
  container.bind(ContractAbi).to(Web3Abi);
  container.bind(KnexSendStore).toSelf();
  container.bind(NonceAllocator).toService(KnexSendStore);
  container.bind(SendWatch).toService(KnexSendStore);
  container.bind(PromSendMetrics).toConstantValue(new PromSendMetrics());
  container.bind(SendMetrics).toService(PromSendMetrics);
  container.bind(PromEngineMetrics).toConstantValue(new PromEngineMetrics());
  container.bind(EngineMetrics).toService(PromEngineMetrics);
  container.bind(OperationsGauges).to(KnexOperationsGauges);
  container.bind<Logger>(Logger).toConstantValue(logger);
  container.bind(OperatorLog).toSelf().inSingletonScope();
  container.bind(EngineStore).to(KnexEngineStore);
  container.bind(EventCursors).to(KnexEventCursors);
  container.bind(EventWaits).to(KnexEventWaits);
  container.bind(WorkflowStates).to(KnexWorkflowStates);
  container.bind(HttpClient).toConstantValue(new NodeHttpClient());
  container.bind(Expressions).toConstantValue(new CelExpressions());
  container.bind(ExactJson).toConstantValue(new LosslessJson());
  container.bind(CronCalendar).toConstantValue(new CronerCalendar());

  const useCases = [
    ListRuns, GetRunTimeline, DiffRuns, ExportHistory, ListSends, ListApprovals, ListWaiting, ListReorgs, ListReplays, ListWorkflows,
    PruneHistory, ArchiveExport, ImportJournal, WriteDemoJournal, CheckHealth, JournalSizes,
    Authenticate, MintBearer, RevokeBearer, ListBearers,
    GetSpend, ExportSpend, ListBudgets, BudgetGuard, SendTransaction, SettlePendingReceipts,
    WorkflowCatalog, StepRunners, StartRun, DriveRun, DecideApproval, CancelRun, SetWorkflowPaused, ListConfiguredWorkflows,
    ReceiveWebhook, RelayerAddresses, Engine, Relayers, LaneWatch, FillNonceGaps, SubmitSend, AdvanceSend, WatchSends, SendStep, ReadStep,
    RelayerBalances, RecentGasSpend, CheckProviders, RelayerBook, ListRelayers, RelayerGauges, ListTopups, TopUpRelayer, TopupSettlement,
    DeliverNotifications, NotifyRunEvents, NotifyLowBalances, ListNotifications, TestNotification, PollEventLogs,
    WatchEventWaits, WaitEventStepRunner, AnswerReorgs, ReplayEvents, FinishSessions, ReopenReorgedSends,
  ];
  for (const useCase of useCases) container.bind(useCase).toSelf();
  container.bind(UnattendedRuns).toService(TopupSettlement);
  container.bind(SendBudget).toService(BudgetGuard);

  return { container, config, close: () => db.destroy() };
}

/** `chainflow storage copy`: its two ends, opened apart from any config (the command names both), and the use case. */
export interface StorageCopy {
  readonly copy: CopyStorage;
  readonly source: CopySource;
  readonly target: CopyTarget;
  close(): Promise<void>;
}

/** Opens `from` (`sqlite:PATH`, read-only) and `to` (`postgres://…`, migrated); the caller has checked both. */
export async function openStorageCopy(from: string, to: string, password?: string): Promise<StorageCopy> {
  const source = await openSqliteCopySource(from);
  let target: CopyTarget;
  try {
    target = await openPostgresCopyTarget(to, password);
  } catch (err) {
    await source.close();
    throw err;
  }
  return { copy: new CopyStorage(), source, target, close: async () => void (await Promise.allSettled([source.close(), target.close()])) };
}
