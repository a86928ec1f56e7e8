import ApprovalsApprove from './approvals/approve';
import ApprovalsReject from './approvals/reject';
import ArchiveExportCommand from './archive/export';
import Demo from './demo';
import History from './history/index';
import HistoryApprovals from './history/approvals';
import HistoryExport from './history/export';
import HistoryReorgs from './history/reorgs';
import HistoryReplays from './history/replays';
import HistoryRuns from './history/runs';
import HistoryTxs from './history/txs';
import HistoryWaiting from './history/waiting';
import HistoryWorkflows from './history/workflows';
import JournalImport from './journal/import';
import NotificationsHistory from './notifications/history';
import NotificationsTest from './notifications/test';
import Relayers from './relayers/index';
import RelayersHistory from './relayers/history';
import RelayersTopup from './relayers/topup';
import Replay from './replay';
import Retention from './retention';
import Run from './run';
import RunsCancel from './runs/cancel';
import RunsDiff from './runs/diff';
import RunsTimeline from './runs/timeline';
import Budgets from './budgets/index';
import Spend from './spend/index';
import SpendExport from './spend/export';
import Start from './start';
import StorageCopy from './storage/copy';
import Test from './test';
import TokenList from './token/list';
import TokenMint from './token/mint';
import TokenRevoke from './token/revoke';
import Worker from './worker';
import Workflows from './workflows/index';
import WorkflowsPause from './workflows/pause';
import WorkflowsResume from './workflows/resume';

/** Every command of the `chainflow` program, by oclif id (oclif's "explicit" command discovery). */
export const COMMANDS = {
  'approvals:approve': ApprovalsApprove,
  'approvals:reject': ApprovalsReject,
  'archive:export': ArchiveExportCommand,
  demo: Demo,
  history: History,
  'history:approvals': HistoryApprovals,
  'history:export': HistoryExport,
  'history:reorgs': HistoryReorgs,
  'history:replays': HistoryReplays,
  'history:runs': HistoryRuns,
  'history:txs': HistoryTxs,
  'history:waiting': HistoryWaiting,
  'history:workflows': HistoryWorkflows,
  'journal:import': JournalImport,
  'notifications:history': NotificationsHistory,
  'notifications:test': NotificationsTest,
  relayers: Relayers,
  'relayers:history': RelayersHistory,
  'relayers:topup': RelayersTopup,
  replay: Replay,
  retention: Retention,
  run: Run,
  'runs:cancel': RunsCancel,
  'runs:diff': RunsDiff,
  'runs:timeline': RunsTimeline,
  budgets: Budgets,
  spend: Spend,
  'spend:export': SpendExport,
  start: Start,
  'storage:copy': StorageCopy,
  test: Test,
  'token:list': TokenList,
  'token:mint': TokenMint,
  'token:revoke': TokenRevoke,
  worker: Worker,
  workflows: Workflows,
  'workflows:pause': WorkflowsPause,
  'workflows:resume': WorkflowsResume,
};
