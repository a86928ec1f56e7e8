import type { JournalEvent } from '../../domain/journal/journal-event';

/** The demo's ERC-20: its payouts are `transfer(address,uint256)` calls, shown with their token_transfer. */
const DEMO_TOKEN = '0x1c7d4b196cb0c7b01d743fbc6116a902379c7238';

/** A small deterministic PRNG (mulberry32) so that the sample is the same for the same anchor time. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HOUR = 3_600_000;
const MIN = 60_000;

interface Network { name: string; chainId: number }
const NETWORKS: Record<string, Network> = {
  sepolia: { name: 'sepolia', chainId: 11155111 },
  base: { name: 'base', chainId: 8453 },
  mainnet: { name: 'mainnet', chainId: 1 },
  'devnet-local': { name: 'devnet-local', chainId: 31337 },
};

interface WorkflowSpec {
  name: string;
  trigger: string;
  network: Network;
  relayer: string;
  contract: string | undefined;
  sends: boolean;
  approval: boolean;
}

const WORKFLOWS: WorkflowSpec[] = [
  { name: 'payouts', trigger: 'cron', network: NETWORKS.sepolia!, relayer: 'ops', contract: undefined, sends: true, approval: false },
  { name: 'price-keeper', trigger: 'event', network: NETWORKS.base!, relayer: 'keeper-base', contract: '0x4200000000000000000000000000000000000006', sends: true, approval: false },
  { name: 'treasury-sweep', trigger: 'webhook', network: NETWORKS.mainnet!, relayer: 'treasury', contract: undefined, sends: true, approval: true },
  { name: 'alerts', trigger: 'webhook', network: NETWORKS['devnet-local']!, relayer: 'ops', contract: undefined, sends: false, approval: false },
];

/**
 * A realistic sample journal for `chainflow demo`: several workflows, networks and relayers; successes,
 * failures with retries, approvals (pending, approved, rejected), parked runs of every wait kind, sends in
 * every status and outcome, a replay and a test session, and a reorg response. Ids start with `demo-`.
 * Times run over the week before `now`.
 */
export function sampleJournal(now: number): JournalEvent[] {
  const rand = prng(42);
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  const iso = (ms: number): string => new Date(ms).toISOString();
  const out: JournalEvent[] = [];
  let sendNo = 0;

  for (const wf of WORKFLOWS) {
    out.push({ type: 'workflow.state', at: iso(now - 7 * 24 * HOUR), workflow: wf.name, paused: false, trigger: wf.trigger, network: wf.network.name, cursor_block: 7_100_000, head_block: 7_100_000 });
  }

  const runCount = 48;
  for (let i = 0; i < runCount; i++) {
    const wf = WORKFLOWS[i % WORKFLOWS.length]!;
    const runId = `demo-${String(i + 1).padStart(4, '0')}`;
    let t = now - (runCount - i) * 3 * HOUR - Math.floor(rand() * HOUR);
    const at = (): string => iso((t += Math.floor(5_000 + rand() * 40_000)));
    const block = 7_000_000 + i * 97;
    // The newest runs of each workflow are parked, one per wait kind (the approval one on treasury-sweep).
    const scenario = i === runCount - 1 ? 'park-event' : i === runCount - 2 ? 'park-approval' : i === runCount - 3 ? 'park-tx' : i === runCount - 4 ? 'park-delay'
      : i % 11 === 5 ? 'fail-http' : i % 13 === 7 ? 'revert' : i % 17 === 3 ? 'budget' : i % 9 === 4 ? 'retry' : 'ok';
    out.push({
      type: 'run.started', at: at(), run_id: runId, workflow: wf.name, session: 'live',
      trigger: {
        kind: wf.trigger,
        summary: wf.trigger === 'cron' ? 'schedule 0 */3 * * *' : wf.trigger === 'event' ? `AnswerUpdated at block ${block}` : 'POST /hooks/' + wf.name,
        payload: wf.trigger === 'webhook'
          ? { body: { amount: '1500000000000000000', note: '<img src=x onerror=alert(1)>' }, headers: { authorization: 'Bearer demo-webhook-token' } }
          : { block, price: String(1800 + (i % 50)) },
        // An event run keeps its log beside the payload, as the engine's log poller journals it (CONTRACT 8.6).
        ...(wf.trigger === 'event' && wf.contract ? {
          block: { number: block, hash: demoHash('b10c', block), timestamp: Math.floor(t / 1000) - 4 },  // mined a poll before the run started (`at` above moved t)
          tx_hash: demoHash('7a11', block), log: { address: wf.contract, log_index: i % 7 },
        } : {}),
      },
      network: wf.network.name, contract: wf.contract, block,
    });
    out.push({ type: 'run.conditions', at: at(), run_id: runId, results: [{ name: 'amount_above_min', passed: true }, { name: 'not_paused', passed: true }] });

    const fetchId = `${runId}.fetch`;
    out.push({ type: 'step.started', at: at(), run_id: runId, step_run_id: fetchId, step_id: 'fetch_quote', step_type: 'http_call', attempt: 1, input: { url: 'https://api.example.com/quote', headers: { 'x-api-key': 'demo-api-key-123456' } } });
    if (scenario === 'retry' || scenario === 'fail-http') {
      out.push({ type: 'step.finished', at: at(), run_id: runId, step_run_id: fetchId, status: 'failed', error: { kind: 'http_status', message: 'GET answered HTTP 503' } });
      if (scenario === 'fail-http') {
        out.push({ type: 'step.started', at: at(), run_id: runId, step_run_id: fetchId, step_id: 'fetch_quote', step_type: 'http_call', attempt: 2 });
        out.push({ type: 'step.finished', at: at(), run_id: runId, step_run_id: fetchId, status: 'failed', error: { kind: 'http_status', message: 'GET answered HTTP 503' } });
        out.push({ type: 'run.finished', at: at(), run_id: runId, status: i % 2 ? 'dead_lettered' : 'failed', error: { kind: 'http_status', message: 'fetch_quote failed after 2 attempts' } });
        continue;
      }
      out.push({ type: 'step.started', at: at(), run_id: runId, step_run_id: fetchId, step_id: 'fetch_quote', step_type: 'http_call', attempt: 2 });
    }
    out.push({ type: 'step.finished', at: at(), run_id: runId, step_run_id: fetchId, status: 'succeeded', output: { status: 200, body: { price: String(1800 + (i % 50)) } } });

    if (scenario === 'park-event') {
      out.push({ type: 'run.parked', at: at(), run_id: runId, wait_kind: 'event', expires_at: iso(now + 6 * HOUR) });
      continue;
    }
    if (scenario === 'park-delay') {
      out.push({ type: 'run.parked', at: at(), run_id: runId, wait_kind: 'delay', due_at: iso(now + 30 * MIN) });
      continue;
    }
    if (!wf.sends) {
      out.push({ type: 'step.started', at: at(), run_id: runId, step_run_id: `${runId}.notify`, step_id: 'notify', step_type: 'http_call', attempt: 1, input: { channel: '#ops', text: `run ${runId} done` } });
      out.push({ type: 'step.finished', at: at(), run_id: runId, step_run_id: `${runId}.notify`, status: 'succeeded', output: { ok: true } });
      out.push({ type: 'run.finished', at: at(), run_id: runId, status: 'succeeded' });
      continue;
    }

    const sendStep = `${runId}.send`;
    out.push({ type: 'step.started', at: at(), run_id: runId, step_run_id: sendStep, step_id: 'send_payout', step_type: 'send', attempt: 1, input: { to: `0x${hex(40)}`, value: '0.05 ether' } });
    if (wf.approval || scenario === 'park-approval') {
      const approvalId = `${runId}.approval`;
      out.push({ type: 'approval.requested', at: at(), approval_id: approvalId, run_id: runId, step_run_id: sendStep, message: `Send 0.05 ETH from ${wf.relayer} on ${wf.network.name}?`, expires_at: iso(t + 24 * HOUR) });
      if (scenario === 'park-approval') {
        out.push({ type: 'run.parked', at: at(), run_id: runId, wait_kind: 'approval', step_run_id: sendStep, expires_at: iso(now + 20 * HOUR) });
        continue;
      }
      const rejected = i % 8 === 2;
      out.push({ type: 'approval.decided', at: at(), approval_id: approvalId, decision: rejected ? 'rejected' : 'approved', by: rejected ? 'carol@ops' : 'alice@ops', reason: rejected ? 'destination not on allow-list' : 'matches payout sheet' });
      if (rejected) {
        out.push({ type: 'step.finished', at: at(), run_id: runId, step_run_id: sendStep, status: 'failed', error: { kind: 'approval_rejected', message: 'rejected by carol@ops' } });
        out.push({ type: 'run.finished', at: at(), run_id: runId, status: 'failed', error: { kind: 'approval_rejected', message: 'send_payout was rejected' } });
        continue;
      }
    }
    out.push({ type: 'step.simulated', at: at(), run_id: runId, step_run_id: sendStep, ok: scenario !== 'revert', gas_estimate: '52000', revert_reason: scenario === 'revert' ? 'ERC20: transfer amount exceeds balance' : undefined });
    const spent = BigInt(1e15) * BigInt(i + 1);
    out.push({ type: 'budget.checked', at: at(), run_id: runId, step_run_id: sendStep, budget: 'daily_gas', spent_wei: spent.toString(), cap_wei: '200000000000000000', allowed: scenario !== 'budget' });
    if (scenario === 'budget') {
      out.push({ type: 'step.finished', at: at(), run_id: runId, step_run_id: sendStep, status: 'failed', error: { kind: 'budget_exceeded', message: 'daily_gas: recorded gas spend reached the cap' } });
      out.push({ type: 'run.finished', at: at(), run_id: runId, status: 'failed', error: { kind: 'budget_exceeded', message: 'send refused before broadcast' } });
      continue;
    }
    const sendId = `demo-send-${String(++sendNo).padStart(4, '0')}`;
    out.push({ type: 'send.queued', at: at(), run_id: runId, step_run_id: sendStep, send_id: sendId, network: wf.network.name, chain_id: wf.network.chainId, relayer: wf.relayer, to: `0x${hex(40)}`, value_wei: '50000000000000000', idempotency_key: `${wf.name}:${runId}:send_payout` });
    if (i % 10 === 6) out.push({ type: 'send.parked', at: at(), send_id: sendId, reason: 'nonce gap on relayer' });
    const txHash = `0x${hex(64)}`;
    out.push({ type: 'send.submitted', at: at(), send_id: sendId, tx_hash: txHash, nonce: 100 + i });
    if (scenario === 'park-tx') {
      out.push({ type: 'run.parked', at: at(), run_id: runId, wait_kind: 'tx', step_run_id: sendStep, expires_at: iso(now + 2 * HOUR) });
      continue;
    }
    const reverted = scenario === 'revert';
    const dropped = i % 19 === 12;
    const gasPrice = String(1_000_000_000 + Math.floor(rand() * 30_000_000_000));
    out.push({
      type: 'send.settled', at: at(), send_id: sendId, outcome: reverted ? 'reverted' : dropped ? 'dropped' : 'confirmed', tx_hash: txHash,
      receipt: dropped ? undefined : { gasUsed: reverted ? '48211' : '51234', effectiveGasPrice: gasPrice, status: reverted ? '0x0' : '0x1', blockNumber: block + 3, ...(wf.network.name === 'base' ? { l1Fee: '31337000000' } : {}) },
    });
    out.push({
      type: 'step.finished', at: at(), run_id: runId, step_run_id: sendStep, status: reverted || dropped ? 'failed' : 'succeeded',
      output: { tx_hash: txHash }, error: reverted ? { kind: 'reverted', message: 'execution reverted' } : dropped ? { kind: 'tx_dropped', message: 'dropped from mempool' } : undefined,
    });
    out.push({ type: 'run.finished', at: at(), run_id: runId, status: reverted || dropped ? 'failed' : 'succeeded', error: reverted ? { kind: 'reverted', message: 'send_payout reverted' } : dropped ? { kind: 'tx_dropped', message: 'send_payout dropped' } : undefined });
  }

  // A send parked for a nonce gap, and a queued send still waiting for a relayer slot.
  out.push({ type: 'run.started', at: iso(now - 9 * MIN), run_id: 'demo-0050', workflow: 'payouts', session: 'live', trigger: { kind: 'cron', summary: 'schedule 0 */3 * * *' }, network: 'sepolia' });
  out.push({ type: 'step.started', at: iso(now - 9 * MIN + 1000), run_id: 'demo-0050', step_run_id: 'demo-0050.send', step_id: 'send_payout', step_type: 'send', attempt: 1 });
  out.push({ type: 'send.queued', at: iso(now - 9 * MIN + 2000), run_id: 'demo-0050', step_run_id: 'demo-0050.send', send_id: 'demo-send-parked', network: 'sepolia', chain_id: 11155111, relayer: 'ops', to: `0x${hex(40)}`, value_wei: '20000000000000000', idempotency_key: 'payouts:demo-0050:send_payout' });
  out.push({ type: 'send.parked', at: iso(now - 9 * MIN + 3000), send_id: 'demo-send-parked', reason: 'nonce gap on relayer ops' });
  out.push({ type: 'run.parked', at: iso(now - 9 * MIN + 3500), run_id: 'demo-0050', wait_kind: 'tx', step_run_id: 'demo-0050.send', expires_at: iso(now + HOUR) });
  out.push({ type: 'run.started', at: iso(now - 2 * MIN), run_id: 'demo-0049', workflow: 'payouts', session: 'live', trigger: { kind: 'manual', summary: 'chainflow run payouts' }, network: 'sepolia' });
  out.push({ type: 'step.started', at: iso(now - 2 * MIN + 1000), run_id: 'demo-0049', step_run_id: 'demo-0049.send', step_id: 'send_payout', step_type: 'send', attempt: 1 });
  out.push({ type: 'send.queued', at: iso(now - 2 * MIN + 2000), run_id: 'demo-0049', step_run_id: 'demo-0049.send', send_id: 'demo-send-queued', network: 'sepolia', chain_id: 11155111, relayer: 'ops', to: DEMO_TOKEN, value_wei: '0', idempotency_key: 'payouts:demo-0049:send_payout', token_transfer: { contract: DEMO_TOKEN, to: `0x${hex(40)}`, amount: '2500000000000000000000' } });

  // A relayer top-up: a send of the synthetic workflow relayers.topup, attributed to the funding relayer.
  const topupAt = now - 3 * HOUR;
  const topupTx = `0x${hex(64)}`;
  out.push({ type: 'run.started', at: iso(topupAt), run_id: 'demo-topup-1', workflow: 'relayers.topup', session: 'live', trigger: { kind: 'manual', summary: 'top-up of relayer keeper-sepolia from ops (0.25 ETH)' }, network: 'sepolia' });
  out.push({ type: 'step.started', at: iso(topupAt + 1000), run_id: 'demo-topup-1', step_run_id: 'demo-topup-1.send', step_id: 'topup', step_type: 'send', attempt: 1 });
  out.push({ type: 'send.queued', at: iso(topupAt + 2000), run_id: 'demo-topup-1', step_run_id: 'demo-topup-1.send', send_id: 'demo-topup-1.send-1', network: 'sepolia', chain_id: 11155111, relayer: 'ops', to: `0x${hex(40)}`, value_wei: '250000000000000000', idempotency_key: 'relayers.topup:keeper-sepolia:1' });
  out.push({ type: 'send.submitted', at: iso(topupAt + 3000), send_id: 'demo-topup-1.send-1', tx_hash: topupTx, nonce: 512 });
  out.push({ type: 'send.settled', at: iso(topupAt + 15000), send_id: 'demo-topup-1.send-1', outcome: 'confirmed', tx_hash: topupTx, receipt: { gasUsed: '21000', effectiveGasPrice: '3100000000', status: '0x1' } });
  out.push({ type: 'step.finished', at: iso(topupAt + 15500), run_id: 'demo-topup-1', step_run_id: 'demo-topup-1.send', status: 'succeeded', output: { tx_hash: topupTx } });
  out.push({ type: 'run.finished', at: iso(topupAt + 16000), run_id: 'demo-topup-1', status: 'succeeded' });

  // A replay (backtest) session over past blocks, and a dry-run test session.
  const replayStart = now - 26 * HOUR;
  out.push({ type: 'session.started', at: iso(replayStart), session_id: 'demo-replay-1', kind: 'replay', workflow: 'price-keeper', from_block: 7_000_000, to_block: 7_000_300, note: 'backtest after threshold change' });
  for (let k = 0; k < 3; k++) {
    const runId = `demo-replay-1-run-${k + 1}`;
    const base = replayStart + (k + 1) * MIN;
    out.push({ type: 'run.started', at: iso(base), run_id: runId, workflow: 'price-keeper', session: 'replay', session_id: 'demo-replay-1', trigger: { kind: 'event', summary: `AnswerUpdated at block ${7_000_000 + k * 100}` }, network: 'base', block: 7_000_000 + k * 100, replay_of: `demo-${String(2 + k * 4).padStart(4, '0')}` });
    out.push({ type: 'step.started', at: iso(base + 1000), run_id: runId, step_run_id: `${runId}.send`, step_id: 'send_payout', step_type: 'send', attempt: 1 });
    out.push({ type: 'send.queued', at: iso(base + 2000), run_id: runId, step_run_id: `${runId}.send`, send_id: `${runId}.send-1`, network: 'base', chain_id: 8453, relayer: 'keeper-base', to: `0x${hex(40)}`, value_wei: '0', idempotency_key: `replay:${runId}` });
    out.push({ type: 'step.finished', at: iso(base + 3000), run_id: runId, step_run_id: `${runId}.send`, status: 'succeeded', output: { would_send: true } });
    out.push({ type: 'run.finished', at: iso(base + 4000), run_id: runId, status: 'succeeded' });
  }
  out.push({ type: 'session.finished', at: iso(replayStart + 10 * MIN), session_id: 'demo-replay-1' });
  out.push({ type: 'session.started', at: iso(now - 5 * HOUR), session_id: 'demo-test-1', kind: 'test', workflow: 'payouts', note: 'dry run of new payout sheet' });
  out.push({ type: 'run.started', at: iso(now - 5 * HOUR + MIN), run_id: 'demo-test-1-run-1', workflow: 'payouts', session: 'test', session_id: 'demo-test-1', trigger: { kind: 'manual', summary: 'chainflow test payouts' }, network: 'sepolia' });
  out.push({ type: 'run.finished', at: iso(now - 5 * HOUR + 2 * MIN), run_id: 'demo-test-1-run-1', status: 'succeeded' });

  // A chain reorganisation removed the block of an earlier price-keeper run; its on_reorg response re-ran two steps.
  const reorgAt = now - 20 * HOUR;
  out.push({ type: 'reorg.response', at: iso(reorgAt), reorg_id: 'demo-reorg-1', run_id: 'demo-0042', workflow: 'price-keeper', network: 'base', block: 7_000_000 + 41 * 97, removed_block_hash: demoHash('b10c', 7_000_000 + 41 * 97) });
  out.push({ type: 'reorg.step', at: iso(reorgAt + 2000), reorg_id: 'demo-reorg-1', step_id: 'recheck_price', status: 'succeeded', output: { price_changed: false } });
  out.push({ type: 'reorg.step', at: iso(reorgAt + 4000), reorg_id: 'demo-reorg-1', step_id: 'notify_ops', status: 'succeeded', output: { ok: true } });
  out.push({ type: 'workflow.state', at: iso(now - MIN), workflow: 'price-keeper', cursor_block: 7_104_650, head_block: 7_104_662 });
  out.push({ type: 'workflow.state', at: iso(now - MIN), workflow: 'treasury-sweep', paused: true });
  return out;
}

/** A made-up 32-byte hash that names its block (`tag` and the number, repeated), so that the demo's links agree. */
function demoHash(tag: string, block: number): string {
  return `0x${(tag + block.toString(16).padStart(12, '0')).repeat(4)}`;
}
