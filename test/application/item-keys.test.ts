/**
 * The keys the flat history items are declared to hold (what their pages tell Redactor.itemsRedaction): each list
 * is exactly the keys its `to…Item` makes, in order, and every value is a string, a number, null or an array of
 * strings (no object inside, so no field of an item can be secret-typed).
 */
import {
  APPROVAL_ITEM_KEYS, REPLAY_ITEM_KEYS, RUN_ITEM_KEYS, SEND_ITEM_KEYS, WAITING_ITEM_KEYS, toApprovalItem, toReplaySessionItem, toRunItem,
  toSendAttemptItem, toWaitingItem,
} from '../../src/application/history/items';
import { SECRET_FIELD_NAMES } from '../../src/domain/redactor';
import { aRunRecord, aSendRecord, aSettledSendRecord, anApprovalRecord } from '../mothers/records';

const flatValue = (v: unknown): boolean =>
  v === null || typeof v === 'string' || typeof v === 'number' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));

describe('the keys of the flat history items', () => {
  const cases: Array<[string, readonly string[], object[]]> = [
    ['runs', RUN_ITEM_KEYS, [toRunItem(aRunRecord()), toRunItem(aRunRecord({ relayers: ['ops'], txHashes: ['0xab'], stepIds: ['pay'], finishedAt: 5 }))]],
    ['txs', SEND_ITEM_KEYS, [toSendAttemptItem(aSendRecord(), () => null), toSendAttemptItem(aSettledSendRecord(), () => 'https://x/tx/1')]],
    ['approvals', APPROVAL_ITEM_KEYS, [toApprovalItem(anApprovalRecord())]],
    ['waiting', WAITING_ITEM_KEYS, [toWaitingItem(aRunRecord({ status: 'waiting', waitKind: 'delay', parkedAt: 1, dueAt: 2 }))]],
    ['replays', REPLAY_ITEM_KEYS, [
      toReplaySessionItem({ sessionId: 's1', kind: 'test', workflow: 'w', createdAt: 1, finishedAt: null, runCount: 0, fromBlock: null, toBlock: null, note: null }),
      toReplaySessionItem({ sessionId: 's2', kind: 'replay', workflow: 'w', createdAt: 1, finishedAt: 2, runCount: 3, fromBlock: 4, toBlock: 5, note: 'n' }),
    ]],
  ];

  it.each(cases)('%s: the keys its item has, in order; flat values; no secret-typed field', (_list, keys, items) => {
    for (const item of items) {
      expect(Object.keys(item)).toEqual([...keys]);
      for (const value of Object.values(item)) expect(flatValue(value)).toBe(true);
    }
    for (const key of keys) expect(SECRET_FIELD_NAMES).not.toContain(key.toLowerCase());
  });
});
