/**
 * A deterministic, realistic journal for the benchmark: NDJSON lines, ~10 events a run. Run i's events depend
 * only on (i, total runs, end time), so the same range can be generated twice (the import's validate pass,
 * then its import pass) and gives the same lines.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { prng } from '../src/application/journal/sample-journal';

export const DAY = 86_400_000;
/** The journal spans this many days, ending at `end`. */
export const SPAN_DAYS = 90;
/** Runs of one replay / test session window. */
const SESSION_WINDOW = 5000;

interface Net { name: string; chainId: number; blockMs: number; base: number }
const NET: Record<string, Net> = {
  mainnet: { name: 'mainnet', chainId: 1, blockMs: 12_000, base: 19_000_000 },
  base: { name: 'base', chainId: 8453, blockMs: 2_000, base: 12_000_000 },
  arbitrum: { name: 'arbitrum', chainId: 42161, blockMs: 250, base: 180_000_000 },
  optimism: { name: 'optimism', chainId: 10, blockMs: 2_000, base: 115_000_000 },
  sepolia: { name: 'sepolia', chainId: 11155111, blockMs: 12_000, base: 5_000_000 },
};

export const CONTRACTS = [
  '0x4200000000000000000000000000000000000006', '0x794a61358d6845594f94dc1db02a252b5b4814ad',
  '0x1f98431c8ad98523631ae4a59f267346ea31f984', '0x3154cf16ccdb4c6d922629664174b904d80f2c35',
];

interface Step { id: string; kind: 'http_call' | 'send' }
interface Workflow {
  name: string; weight: number; trigger: string; net: Net; relayer: string; contract?: string; approval: boolean; steps: Step[];
}
const http = (id: string): Step => ({ id, kind: 'http_call' });
const send = (id: string): Step => ({ id, kind: 'send' });
export const WORKFLOWS: Workflow[] = [
  { name: 'price-keeper', weight: 30, trigger: 'event', net: NET.base!, relayer: 'keeper-base', contract: CONTRACTS[0], approval: false, steps: [http('read_oracle'), send('update_price')] },
  { name: 'liquidation-guard', weight: 20, trigger: 'event', net: NET.arbitrum!, relayer: 'keeper-arb', contract: CONTRACTS[1], approval: false, steps: [http('fetch_positions'), send('liquidate')] },
  { name: 'payouts', weight: 15, trigger: 'cron', net: NET.sepolia!, relayer: 'ops', approval: false, steps: [http('fetch_balances'), send('send_payout'), http('notify')] },
  { name: 'bridge-relay', weight: 12, trigger: 'event', net: NET.optimism!, relayer: 'bridge-op', contract: CONTRACTS[2], approval: false, steps: [http('fetch_proof'), send('relay_message')] },
  { name: 'alerts', weight: 10, trigger: 'webhook', net: NET.mainnet!, relayer: 'ops', approval: false, steps: [http('evaluate'), http('notify'), http('page_oncall')] },
  { name: 'nft-mint', weight: 7, trigger: 'webhook', net: NET.base!, relayer: 'minter', approval: false, steps: [http('verify_order'), send('mint')] },
  { name: 'rebalancer', weight: 4, trigger: 'cron', net: NET.arbitrum!, relayer: 'keeper-arb', contract: CONTRACTS[3], approval: true, steps: [http('compute_weights'), send('rebalance')] },
  { name: 'treasury-sweep', weight: 2, trigger: 'webhook', net: NET.mainnet!, relayer: 'treasury', approval: true, steps: [http('check_balance'), send('sweep')] },
];
const TOTAL_WEIGHT = WORKFLOWS.reduce((s, w) => s + w.weight, 0);

/** Values the benchmark filters on (each exists in the generated data). */
export const PICKS = {
  workflow: 'payouts', status: 'failed', trigger: 'webhook', network: 'base', contract: CONTRACTS[1]!,
  relayer: 'keeper-arb', step_id: 'fetch_proof', error_kind: 'revert', approval_status: 'approved', session: 'replay',
} as const;

export interface JournalShape {
  /** Total runs of the journal. */
  readonly runs: number;
  /** Epoch ms of the newest run. */
  readonly end: number;
}

export function runId(i: number): string {
  return `r${String(i + 1).padStart(7, '0')}`;
}

/** created_at of run i: evenly spread over the span with jitter, strictly increasing. */
export function createdAt(shape: JournalShape, i: number, jitter: number): number {
  const span = SPAN_DAYS * DAY;
  const gap = span / shape.runs;
  return Math.floor(shape.end - span + i * gap + jitter * gap * 0.5);
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The NDJSON lines of run i (and of the sessions / workflow states written next to it). */
export function runLines(shape: JournalShape, i: number): string[] {
  const rand = prng(Math.imul(i + 1, 0x9e3779b1) ^ 0x5bd1e995);
  const hex = (words: number): string => {
    let s = '';
    for (let k = 0; k < words; k++) s += ((rand() * 4294967296) >>> 0).toString(16).padStart(8, '0');
    return s;
  };
  const out: string[] = [];
  const emit = (e: Record<string, unknown>): void => void out.push(JSON.stringify(e));
  const t0 = createdAt(shape, i, rand());
  let t = t0;
  const at = (minMs = 40, maxMs = 2500): string => iso((t += Math.floor(minMs + rand() * (maxMs - minMs))));

  if (i === 0) {
    for (const w of WORKFLOWS) {
      emit({ type: 'workflow.state', at: iso(t0 - 1000), workflow: w.name, paused: false, trigger: w.trigger, network: w.net.name });
    }
  }
  // One replay and one test session per window of runs, each for one workflow.
  const win = Math.floor(i / SESSION_WINDOW);
  const sessionWf = (kind: number): Workflow => WORKFLOWS[(win * 3 + kind) % WORKFLOWS.length]!;
  if (i % SESSION_WINDOW === 0) {
    emit({ type: 'session.started', at: iso(t0 - 500), session_id: `replay-${win}`, kind: 'replay', workflow: sessionWf(0).name, from_block: 1000 * win, to_block: 1000 * win + 999 });
    emit({ type: 'session.started', at: iso(t0 - 400), session_id: `test-${win}`, kind: 'test', workflow: sessionWf(1).name, note: 'fixture run' });
  }

  const body = (): void => {
    // Session and workflow.
    const s = rand();
    const session = s < 0.05 ? 'replay' : s < 0.08 ? 'test' : 'live';
    let wf: Workflow;
    if (session === 'replay') wf = sessionWf(0);
    else if (session === 'test') wf = sessionWf(1);
    else {
      let pick = rand() * TOTAL_WEIGHT;
      wf = WORKFLOWS.find((w) => (pick -= w.weight) < 0) ?? WORKFLOWS[0]!;
    }
    const id = runId(i);
    const trigger = rand() < 0.01 ? 'manual' : wf.trigger;
    const block = wf.trigger === 'event' ? wf.net.base + Math.floor((t0 - (shape.end - SPAN_DAYS * DAY)) / wf.net.blockMs) : undefined;
    emit({
      type: 'run.started', at: iso(t0), run_id: id, workflow: wf.name, session,
      ...(session !== 'live' ? { session_id: `${session}-${win}` } : {}),
      ...(session === 'replay' && i > 0 ? { replay_of: runId(Math.floor(rand() * i)) } : {}),
      trigger: { kind: trigger, summary: trigger === 'event' ? `Log at block ${block}` : trigger === 'cron' ? 'every 5m' : `POST /hooks/${wf.name}` },
      network: wf.net.name, ...(wf.contract ? { contract: wf.contract } : {}), ...(block !== undefined ? { block } : {}),
    });
    const skipped = rand() < 0.02;
    emit({ type: 'run.conditions', at: at(), run_id: id, results: [{ name: 'not_paused', passed: true }, { name: 'threshold', passed: !skipped }] });
    if (skipped) {
      emit({ type: 'run.finished', at: at(), run_id: id, status: 'skipped' });
      return;
    }
    // The newest runs are still in flight; a few older ones are parked for a long wait.
    const recent = i >= shape.runs - Math.max(50, Math.floor(shape.runs * 0.001));
    const r = rand();
    const parkDelay = recent ? r < 0.3 : r < 0.002;
    const stillRunning = recent && r > 0.85;
    const cancel = !recent && r > 0.997;

    let failure: { kind: string; message: string } | undefined;
    for (let k = 0; k < wf.steps.length && !failure; k++) {
      const step = wf.steps[k]!;
      const srid = `${id}.s${k + 1}`;
      emit({ type: 'step.started', at: at(), run_id: id, step_run_id: srid, step_id: step.id, step_type: step.kind, attempt: 1 });
      if (step.kind === 'http_call') {
        const f = rand();
        if (f < 0.02) {
          const kind = f < 0.012 ? 'http_error' : 'timeout';
          const message = kind === 'http_error' ? 'HTTP 503 from upstream' : 'no answer within 10s';
          emit({ type: 'step.finished', at: at(), run_id: id, step_run_id: srid, status: 'failed', error: { kind, message } });
          if (f < 0.008) {
            emit({ type: 'step.started', at: at(1000, 5000), run_id: id, step_run_id: srid, step_id: step.id, step_type: step.kind, attempt: 2 });
          } else {
            failure = { kind, message: `${step.id} failed` };
            break;
          }
        }
        emit({ type: 'step.finished', at: at(), run_id: id, step_run_id: srid, status: 'succeeded', output: { status: 200 } });
        if (k === 0 && parkDelay) {
          emit({ type: 'run.parked', at: at(), run_id: id, wait_kind: 'delay', due_at: iso(t + 3_600_000) });
          return;
        }
        continue;
      }
      // A send step, behind an approval for some workflows.
      if (wf.approval) {
        const aid = `${id}.a${k + 1}`;
        emit({ type: 'approval.requested', at: at(), approval_id: aid, run_id: id, step_run_id: srid, message: `${step.id} on ${wf.net.name}?`, expires_at: iso(t + DAY) });
        const d = rand();
        if (d < 0.02 || recent) {
          emit({ type: 'run.parked', at: at(), run_id: id, wait_kind: 'approval', step_run_id: srid, expires_at: iso(t + DAY) });
          return;
        }
        const decision = d < 0.05 ? 'expired' : d < 0.15 ? 'rejected' : 'approved';
        emit({ type: 'approval.decided', at: at(60_000, 3_600_000), approval_id: aid, decision, ...(decision !== 'expired' ? { by: d < 0.5 ? 'alice@ops' : 'bob@ops' } : {}) });
        if (decision !== 'approved') {
          failure = { kind: `approval_${decision}`, message: `${step.id} was ${decision}` };
          emit({ type: 'step.finished', at: at(), run_id: id, step_run_id: srid, status: 'failed', error: failure });
          break;
        }
      }
      const pre = rand();
      if (pre < 0.01) {
        failure = pre < 0.005 ? { kind: 'budget_exceeded', message: 'daily_gas cap reached' } : { kind: 'rpc_error', message: 'all read providers failed' };
        emit({ type: 'step.finished', at: at(), run_id: id, step_run_id: srid, status: 'failed', error: failure });
        break;
      }
      const sid = `${id}.tx${k + 1}`;
      emit({
        type: 'send.queued', at: at(), run_id: id, step_run_id: srid, send_id: sid, network: wf.net.name, chain_id: wf.net.chainId,
        relayer: wf.relayer, to: `0x${hex(5)}`, value_wei: `${1 + Math.floor(rand() * 1e6)}000000000000`, idempotency_key: `${wf.name}:${id}:${step.id}`,
      });
      const txHash = `0x${hex(8)}`;
      emit({ type: 'send.submitted', at: at(), send_id: sid, tx_hash: txHash, nonce: (i * 7 + k) % 1_000_000 });
      if (recent && r < 0.5) {
        emit({ type: 'run.parked', at: at(), run_id: id, wait_kind: 'tx', step_run_id: srid, expires_at: iso(t + 3_600_000) });
        return;
      }
      const o = rand();
      const outcome = o < 0.03 ? 'reverted' : o < 0.045 ? 'dropped' : 'confirmed';
      const blockNumber = wf.net.base + Math.floor((t - (shape.end - SPAN_DAYS * DAY)) / wf.net.blockMs) + 2;
      emit({
        type: 'send.settled', at: at(wf.net.blockMs, wf.net.blockMs * 4), send_id: sid, outcome, tx_hash: txHash,
        ...(outcome === 'dropped' ? {} : {
          receipt: { gasUsed: String(21_000 + Math.floor(rand() * 200_000)), effectiveGasPrice: String(1_000_000_000 + Math.floor(rand() * 40_000_000_000)), status: outcome === 'confirmed' ? '0x1' : '0x0', blockNumber },
        }),
      });
      if (outcome !== 'confirmed') {
        failure = outcome === 'reverted' ? { kind: 'revert', message: 'execution reverted' } : { kind: 'tx_dropped', message: 'not mined before expiry' };
        emit({ type: 'step.finished', at: at(), run_id: id, step_run_id: srid, status: 'failed', error: failure });
        break;
      }
      emit({ type: 'step.finished', at: at(), run_id: id, step_run_id: srid, status: 'succeeded', output: { tx_hash: txHash } });
    }
    if (stillRunning && !failure) return;
    if (failure) {
      emit({ type: 'run.finished', at: at(), run_id: id, status: rand() < 0.15 ? 'dead_lettered' : 'failed', error: failure });
    } else {
      emit({ type: 'run.finished', at: at(), run_id: id, status: cancel ? 'cancelled' : 'succeeded' });
    }
  };
  body();
  if ((i + 1) % SESSION_WINDOW === 0) {
    emit({ type: 'session.finished', at: iso(t0 + 60_000), session_id: `replay-${win}` });
    emit({ type: 'session.finished', at: iso(t0 + 60_000), session_id: `test-${win}` });
  }
  return out;
}

/** Runs [from, to) of `shape` as an NDJSON file at `path` (what `chainflow journal import FILE` reads). */
export async function writeJournal(path: string, shape: JournalShape, from: number, to: number): Promise<void> {
  const out = createWriteStream(path, { encoding: 'utf8' });
  let buffer = '';
  for (let i = from; i < to; i++) {
    buffer += `${runLines(shape, i).join('\n')}\n`;
    if (buffer.length > 1 << 20) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
}
