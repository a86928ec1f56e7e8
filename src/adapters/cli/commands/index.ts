import Demo from './demo';
import History from './history/index';
import HistoryRuns from './history/runs';
import JournalImport from './journal/import';
import RunsTimeline from './runs/timeline';
import Start from './start';

/** Every command of the `chainflow` program, by oclif id (oclif's "explicit" command discovery). */
export const COMMANDS = {
  demo: Demo,
  history: History,
  'history:runs': HistoryRuns,
  'journal:import': JournalImport,
  'runs:timeline': RunsTimeline,
  start: Start,
};
