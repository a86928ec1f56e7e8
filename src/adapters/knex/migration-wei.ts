import type { Knex } from 'knex';
import { dialectOf } from './dialect';

/** Every column that holds wei or a token amount, by table (CONTRACT 10). `gas_used` counts gas, not wei, and stays TEXT. */
export const WEI_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  sends: ['value_wei'],
  signed_transactions: ['value_wei'],
  spend_entries: ['effective_gas_price', 'gas_spend_wei', 'value_wei'],
  budget_token_grants: ['amount'],
  budget_reservations: ['amount'],
  relayer_topups: ['amount_wei'],
};

/**
 * Migration 0023 (CONTRACT 10): wei is NUMERIC(78,0) where the dialect stores it so (PostgreSQL), which holds any
 * uint256 (78 digits) exactly and sums it exactly in SQL; SQLite keeps exact decimal TEXT (its numbers are 64-bit
 * integers or floats). The rollups keep their 32-bit limbs on both: their sums are exact already. Values read back
 * as the same decimal strings (node-postgres gives NUMERIC as its text; scale 0: no fraction, no exponent).
 */
export const weiNumericMigration = {
  async up(db: Knex): Promise<void> {
    if (dialectOf(db).wei !== 'numeric') return;
    for (const [table, columns] of Object.entries(WEI_COLUMNS)) {
      await db.schema.alterTable(table, (t) => {
        for (const column of columns) t.decimal(column, 78, 0).notNullable().alter();
      });
    }
  },
  async down(db: Knex): Promise<void> {
    if (dialectOf(db).wei !== 'numeric') return;
    for (const [table, columns] of Object.entries(WEI_COLUMNS)) {
      await db.schema.alterTable(table, (t) => {
        for (const column of columns) t.text(column).notNullable().alter();
      });
    }
  },
};
