import type { SendAttempt } from '../../domain/send-attempt';
import { receiptBlock } from '../../domain/spend/ledger-entry';
import { insertRows, type Db } from './bulk';

/**
 * The receipt's block of each settled send whose receipt names one (migration 0022), written with the journal's send
 * rows: a reorg's roll back finds the settled sends of the blocks it removed by it. A send settled again (after a reorg)
 * replaces its row; a reopened one keeps it, and the roll back reads only sends still settled.
 */
export async function writeReceiptBlocks(db: Db, sends: readonly SendAttempt[]): Promise<void> {
  const rows: unknown[][] = [];
  for (const s of sends) {
    if (s.status !== 'settled') continue;
    const { blockNumber, blockHash } = receiptBlock(s.receipt);
    if (blockNumber === null || blockHash === null || blockNumber > BigInt(Number.MAX_SAFE_INTEGER)) continue;
    rows.push([s.sendId, s.network, Number(blockNumber), blockHash]);
  }
  await insertRows(db, 'send_receipt_blocks', ['send_id', 'network', 'block_number', 'block_hash'], rows, { conflictKey: ['send_id'] });
}
