import type { StepDefinition } from '../../domain/engine/workflow';
import type { Json } from '../../domain/journal/journal-event';
import { parseAmount } from '../../domain/wei';
import type { Expressions } from '../ports/expressions';
import type { ListBudgets } from '../spend/list-budgets.use-case';
import { renderTree } from './templates';

/**
 * What an approver should know before approving: whether the workflow's next send, rendered now, would fit the
 * native value headroom of the budgets that charge it (issue 30: a human approved a payout the budget then refused).
 * Looks at the first `send` step after the approval only, rendered with the context the approval has: a send whose
 * fields need a later step's output (or that fails to render now) gets no note, as does one that fits. A note only
 * informs: the guard still decides at the send, against the headroom as it stands then.
 */
export async function approvalBudgetNote(
  upcoming: readonly StepDefinition[], scope: Readonly<Record<string, unknown>>, expressions: Expressions, budgets: ListBudgets,
): Promise<string | undefined> {
  const send = upcoming.find((s) => s.type === 'send');
  if (!send || send.type !== 'send') return undefined;
  let relayer: string;
  let valueWei: bigint;
  try {
    const f = renderTree({ relayer: send.fields.relayer ?? null, value: send.fields.value ?? null } as Json, expressions, scope) as Record<string, Json>;
    relayer = String(f.relayer ?? '');
    valueWei = f.value === null || f.value === '' ? 0n : parseAmount(typeof f.value === 'number' ? f.value : String(f.value).trim(), 'value');
  } catch {
    return undefined;
  }
  if (valueWei === 0n) return undefined;
  const workflow = String((scope.run as { workflow?: unknown } | undefined)?.workflow ?? '');
  const notes: string[] = [];
  for (const b of (await budgets.execute()).items) {
    if (!b.workflows.includes(workflow) || (b.relayers !== null && !b.relayers.includes(relayer))) continue;
    const cap = b.caps.find((c) => c.kind === 'max_native_value');
    if (cap && valueWei > BigInt(cap.headroom)) {
      notes.push(`budget '${b.budget}' has ${cap.headroom} wei of max_native_value left, step '${send.id}' would send ${valueWei} wei`);
    }
  }
  return notes.length ? `[does not fit: ${notes.join('; ')}]` : undefined;
}
