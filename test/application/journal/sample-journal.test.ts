/**
 * `chainflow demo` writes the sample journal an operator learns the page on: its error kinds are the contract's own
 * (CONTRACT 8.2, plus 8.6's and 8.8's additions), so that a filter learned on the demo works on a real journal.
 */
import { sampleJournal } from '../../../src/application/journal/sample-journal';

/** CONTRACT 8.2's stable error kinds, with those 8.6 (`reorged`, `event_timeout`) and 8.8 (`chain_mismatch`) add. */
const CONTRACT_KINDS = new Set([
  'http_status', 'http_timeout', 'http_error', 'expression_error', 'budget_exceeded', 'simulation_failed', 'broadcast_failed',
  'reverted', 'tx_dropped', 'tx_expired', 'approval_rejected', 'approval_expired', 'cancelled', 'definition_changed',
  'engine_crash', 'reorged', 'event_timeout', 'chain_mismatch',
]);

describe('the demo journal', () => {
  const kinds = new Set<string>();
  for (const e of sampleJournal(Date.UTC(2026, 10, 26))) {
    const error = (e as { error?: { kind?: string } }).error;
    if (error?.kind !== undefined) kinds.add(error.kind);
  }

  test('uses only the contract\'s error kinds', () => {
    expect([...kinds].filter((k) => !CONTRACT_KINDS.has(k))).toEqual([]);
  });

  test('still shows failures of several kinds, a reverted send among them', () => {
    expect(kinds).toEqual(new Set(['http_status', 'approval_rejected', 'budget_exceeded', 'reverted', 'tx_dropped']));
  });
});
