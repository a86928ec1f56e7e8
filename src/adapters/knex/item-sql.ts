import { toIso } from '../../domain/time';

/**
 * The history's items (CONTRACT section 4) as SQLite renders them from a row, in SQL, and what JavaScript adds to
 * them when it reads them (times, links): the list pages and the export answer this text without making objects of
 * their rows. The stored items of migrations 0010 and 0012 are made of the same SQL (runItemHead, sendItemPieces,
 * approvalItemPieces): a journal keeps the expression it was migrated with, so what these render must not change
 * without a migration that makes those columns again (the contract tests hold every item to its `to…Item`).
 */

/**
 * The head of a run's item (RunItem, CONTRACT section 4) as JSON text, rendered by SQLite: what `toRunItem` and
 * JSON.stringify make of the run up to its times, `{"run_id":…,"replay_of":…` (no closing brace); `runItemText`
 * adds the times. Strings and numbers go through `json_quote` (NULL gives `null`), the JSON text columns are
 * spliced in as stored (written by JSON.stringify). One `concat` (SQLite 3.44+) per row: a chain of `||` copies the
 * text at every step, and SQLite's `strftime` costs more than the rest of the row, so times are rendered here.
 */
export function runItemHead(alias: string, dialect: ItemDialect = 'sqlite'): string {
  const q = quoted(alias, dialect);
  return jsonMembers(dialect, '{', [
    ['run_id', q('run_id')], ['workflow', q('workflow')], ['status', q('status')], ['trigger', q('trigger_kind')],
    ['session', q('session')], ['session_id', q('session_id')], ['network', q('network')], ['contract', q('contract')],
    ['relayers', column(alias, 'relayers')], ['tx_hashes', column(alias, 'tx_hashes')], ['block', q('block')],
    ['step_ids', column(alias, 'step_ids')], ['error_kind', q('error_kind')], ['approval_status', q('approval_status')],
    ['wait_kind', q('wait_kind')], ['replay_of', q('replay_of')],
  ]);
}

/** A run's item as JSON text, from the head SQLite rendered (runItemHead) and the run's times, as `toRunItem` has them. */
export function runItemText(head: string, createdAt: number, finishedAt: number | null, durationMs: string | null): string {
  const finished = finishedAt === null ? 'null' : `"${toIso(finishedAt)}"`;
  return `${head},"created_at":"${toIso(createdAt)}","finished_at":${finished},"duration_ms":${durationMs ?? 'null'}}`;
}

/**
 * A send's item (SendAttemptItem, CONTRACT section 4) as JSON text in two pieces rendered by SQLite (as
 * runItemHead): its head up to `idempotency_key`, and `to` with `value_wei` and `token_transfer`. The sends' stored
 * `item` is made of them (migration 0014; 0010 made it without `token_transfer`, `withTokenTransfer` false);
 * `sendItemOfStored` adds the explorer link between them and the times after.
 */
export function sendItemPieces(alias: string, withTokenTransfer = true, dialect: ItemDialect = 'sqlite'): { head: string; middle: string } {
  const q = quoted(alias, dialect);
  const head = jsonMembers(dialect, '{', [
    ['send_id', q('send_id')], ['run_id', q('run_id')], ['step_run_id', q('step_run_id')], ['workflow', q('workflow')],
    ['session', q('session')], ['network', q('network')], ['chain_id', q('chain_id')], ['relayer', q('relayer')],
    ['status', q('status')], ['outcome', q('outcome')], ['tx_hash', q('tx_hash')], ['idempotency_key', q('idempotency_key')],
  ]);
  const middle: [string, string][] = [['to', q('to_address')], ['value_wei', quotedText(alias, dialect)('value_wei')]];
  // JSON text as stored (written by JSON.stringify), or null: concat would take a NULL for an empty string.
  if (withTokenTransfer) middle.push(['token_transfer', `coalesce(${column(alias, 'token_transfer')}, 'null')`]);
  return { head, middle: jsonMembers(dialect, ',', middle) };
}

/**
 * A send's item as JSON text, from its stored `item` cut at its tab (`head` ends with `"explorer_url":`, `tail` holds
 * `to`, `value_wei` and `token_transfer`), the JSON text of its explorer link and its times: the text JSON.stringify makes of
 * `toSendAttemptItem`.
 */
export function sendItemOfStored(head: string, linkJson: string, tail: string, createdAt: number, updatedAt: number): string {
  return `${head}${linkJson}${tail},"created_at":"${toIso(createdAt)}","updated_at":"${toIso(updatedAt)}"}`;
}

/**
 * An approval's item (ApprovalItem, CONTRACT section 4) as JSON text in two pieces rendered by SQLite (as
 * runItemHead): its head up to `message`, and `decided_by` with `reason`; `approvalItemText` adds the times between.
 */
export function approvalItemPieces(alias: string, dialect: ItemDialect = 'sqlite'): { head: string; tail: string } {
  const q = quoted(alias, dialect);
  return {
    head: jsonMembers(dialect, '{', [['approval_id', q('approval_id')], ['run_id', q('run_id')], ['step_run_id', q('step_run_id')], ['workflow', q('workflow')],
      ['status', q('status')], ['message', q('message')]]),
    tail: jsonMembers(dialect, ',', [['decided_by', q('decided_by')], ['reason', q('reason')]]),
  };
}

/** An approval's item as JSON text, from its pieces (approvalItemPieces) and its times, as `toApprovalItem` has them. */
export function approvalItemText(head: string, requestedAt: number, expiresAt: number | null, decidedAt: number | null, tail: string): string {
  const time = (ms: number | null): string => (ms === null ? 'null' : `"${toIso(ms)}"`);
  return `${head},"requested_at":"${toIso(requestedAt)}","expires_at":${time(expiresAt)},"decided_at":${time(decidedAt)}${tail}}`;
}

/** What JSON.stringify escapes in a string (a surrogate, paired or not, is left to it). */
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(text), without its cost for text it writes as it is between quotes (a link of a hash). */
export function jsonString(text: string): string {
  return JSON_ESCAPED.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** The head of a waiting run's item (WaitingItem) as JSON text rendered by SQLite, up to its times (as runItemHead). */
export function waitingItemHead(alias: string, dialect: ItemDialect = 'sqlite'): string {
  const q = quoted(alias, dialect);
  return jsonMembers(dialect, '{', [['run_id', q('run_id')], ['workflow', q('workflow')], ['wait_kind', q('wait_kind')], ['step_run_id', q('wait_step_run_id')]]);
}

/** A waiting run's item as JSON text, from its head (waitingItemHead) and its times, as `toWaitingItem` has them. */
export function waitingItemText(head: string, parkedAt: number | null, dueAt: number | null, expiresAt: number | null): string {
  const time = (ms: number | null): string => (ms === null ? 'null' : `"${toIso(ms)}"`);
  return `${head},"parked_at":${time(parkedAt)},"due_at":${time(dueAt)},"expires_at":${time(expiresAt)}}`;
}

/**
 * A line of a replays page (ReplaySessionItem, CONTRACT section 4), eight tab-separated fields: the session's id and
 * kind as stored (an id matches ID_PATTERN and a kind is `replay` or `test`: no tab, newline or character JSON
 * escapes), its workflow as JSON text, its two times, run count and blocks; `sessionItemText` makes the item of it.
 * Only the workflow is rendered in SQL: PostgreSQL renders these lines in the query, at a price per value rendered.
 */
export function sessionLineSql(alias: string, dialect: 'sqlite' | 'postgres'): string {
  const tab = dialect === 'sqlite' ? 'char(9)' : 'chr(9)';
  const c = (name: string): string => column(alias, name);
  const fields = [c('session_id'), c('kind'), quoted(alias, dialect)('workflow'), c('created_at'), c('finished_at'), c('run_count'), c('from_block'), c('to_block')];
  return joinedSql(dialect, fields.flatMap((field, i) => (i ? [tab, field] : [field])));
}

/** A session's item as JSON text (what JSON.stringify makes of `toReplaySessionItem`) from the fields of its line (sessionLineSql). */
export function sessionItemText(
  id: string, kind: string, workflowJson: string, createdAt: number, finishedAt: number | null, runCount: string, fromBlock: string, toBlock: string,
): string {
  const finished = finishedAt === null ? 'null' : `"${toIso(finishedAt)}"`;
  return `{"session_id":${jsonString(id)},"kind":${jsonString(kind)},"workflow":${workflowJson},"created_at":"${toIso(createdAt)}",` +
    `"finished_at":${finished},"run_count":${runCount},"from_block":${fromBlock || 'null'},"to_block":${toBlock || 'null'}}`;
}

/** A column of `alias` (of the row itself when ''), in SQL. */
function column(alias: string, name: string): string {
  return alias ? `${alias}."${name}"` : `"${name}"`;
}

/**
 * Whose SQL renders the items: SQLite's (stored items, the SQLite pages), PostgreSQL's in a query (its waiting
 * page), or PostgreSQL's stored items (`postgres-stored`: generated columns, migration 0025, whose expression may
 * call only IMMUTABLE functions, so strings go through STORED_JSON and pieces are joined by `||`). The same text
 * every way: PostgreSQL's `to_json` of a text escapes as JSON.stringify does (`\n`-style escapes, other control
 * characters as lowercase `\u00xx`, nothing else), and a bigint is its digits.
 */
export type ItemDialect = 'sqlite' | 'postgres' | 'postgres-stored';

/**
 * PostgreSQL's function of a text or bigint value as JSON text (`null` for NULL), declared IMMUTABLE so that stored
 * items may call it (generated columns, migration 0025; see storedJsonFunctions).
 */
export const STORED_JSON = 'chainflow_json';

/**
 * The SQL that makes STORED_JSON of a text and of a bigint. `to_json` of a text escapes as STORED_JSON must, but
 * PostgreSQL marks it STABLE (for the types whose output depends on settings), and an IMMUTABLE function whose body
 * calls a STABLE one is not inlined: each call then ran as a function of its own, a few microseconds each, about
 * half of an update of a run's row (its `line` calls it a dozen times). `json_object` of a text array is IMMUTABLE
 * and escapes with the same code: its object `{"" : <value>}` less the 6 characters before the value and the `}`
 * after it is the value as `to_json` writes it, `null` for NULL (stored-items.test.ts holds the two to the same
 * text). Migration 0030 replaces the `to_json` body (`previous`) of databases made before it.
 */
export function storedJsonFunctions(previous = false): string[] {
  const text = previous ? `coalesce(to_json(value)::text, 'null')` : `left(substr(json_object(ARRAY['', value])::text, 7), -1)`;
  return [
    `CREATE OR REPLACE FUNCTION ${STORED_JSON}(value text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN ${text}`,
    `CREATE OR REPLACE FUNCTION ${STORED_JSON}(value bigint) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN coalesce(value::text, 'null')`,
  ];
}

/** A column of `alias` (of the row itself when '') as JSON, in SQL: a string quoted and escaped, a number as it is, NULL as `null`. */
function quoted(alias: string, dialect: ItemDialect): (name: string) => string {
  if (dialect === 'sqlite') return (name) => `json_quote(${column(alias, name)})`;
  if (dialect === 'postgres-stored') return (name) => `${STORED_JSON}(${column(alias, name)})`;
  return (name) => `coalesce(to_json(${column(alias, name)})::text, 'null')`;
}

/** As quoted, for a column whose JSON is its decimal text whatever its type (wei: NUMERIC(78,0) on PostgreSQL). */
function quotedText(alias: string, dialect: ItemDialect): (name: string) => string {
  if (dialect === 'sqlite') return quoted(alias, dialect);
  if (dialect === 'postgres-stored') return (name) => `${STORED_JSON}(${column(alias, name)}::text)`;
  return (name) => `coalesce(to_json(${column(alias, name)}::text)::text, 'null')`;
}

/**
 * SQL of pieces of text joined: one `concat` (SQLite's, and PostgreSQL's in a query), or `||` in a stored item's
 * expression (PostgreSQL's `concat` is STABLE); every piece here is non-NULL, so both give the same text.
 */
export function joinedSql(dialect: ItemDialect, pieces: readonly string[]): string {
  return dialect === 'postgres-stored' ? `(${pieces.join(' || ')})` : `concat(${pieces.join(', ')})`;
}

/**
 * SQL of JSON members `"name":value,…` from (name, SQL of a JSON value) pairs, after `first` (`{` to open an
 * object, `,` to go on with one), joined once (joinedSql). Names are written as they are: JSON-safe literals.
 */
function jsonMembers(dialect: ItemDialect, first: '{' | ',', members: ReadonlyArray<readonly [string, string]>): string {
  return joinedSql(dialect, members.flatMap(([name, sql], i) => [`'${i ? ',' : first}"${name}":'`, sql]));
}
