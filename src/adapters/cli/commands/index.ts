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
import Retention from './retention';
import RunsDiff from './runs/diff';
import RunsTimeline from './runs/timeline';
import Spend from './spend/index';
import SpendExport from './spend/export';
import Start from './start';
import TokenList from './token/list';
import TokenMint from './token/mint';
import TokenRevoke from './token/revoke';

/** Every command of the `chainflow` program, by oclif id (oclif's "explicit" command discovery). */
export const COMMANDS = {
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
  retention: Retention,
  'runs:diff': RunsDiff,
  'runs:timeline': RunsTimeline,
  spend: Spend,
  'spend:export': SpendExport,
  start: Start,
  'token:list': TokenList,
  'token:mint': TokenMint,
  'token:revoke': TokenRevoke,
};
