import History from './index';

/** `chainflow history runs`: the same as `chainflow history`. */
export default class HistoryRuns extends History {
  static override summary = 'List runs, newest first (same as `history`)';
}
