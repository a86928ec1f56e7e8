/**
 * Workflow definitions in chainflow.yaml (CONTRACT 8.1): validated with the rest of the config, one line per
 * problem naming its path; what loads is the typed definition the engine runs.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../../src/adapters/config/config.loader';
import { InvalidConfigError } from '../../../src/domain/errors';

function load(yaml: string, env: Record<string, string> = {}): ReturnType<typeof loadConfig> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-wf-'));
  try {
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `chainflow_version: 1\n${yaml}`);
    return loadConfig({ cwd: dir, env });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function problems(yaml: string, env: Record<string, string> = {}): string[] {
  try {
    load(yaml, env);
  } catch (err) {
    if (err instanceof InvalidConfigError) return [...err.problems];
    throw err;
  }
  throw new Error('expected the config to be refused');
}

const PAYOUTS = `
secrets:
  payouts_hook: { env: PAYOUTS_HOOK_SECRET }
  quote_key: { env: QUOTE_API_KEY }
workflows:
  payouts:
    trigger: { kind: webhook, auth: { hmac: { secret: payouts_hook } } }
    conditions:
      - { name: amount_positive, if: "int(trigger.payload.amount) > 0" }
    steps:
      - id: quote
        type: http_call
        method: POST
        url: "https://quotes.example/v1/\${{ trigger.payload.asset }}"
        headers: { Authorization: { secret: quote_key } }
        body: { amount: "\${{ trigger.payload.amount }}" }
        timeout: 5s
        retry: { attempts: 4, backoff: 2s, max_backoff: 30s }
      - { id: approve, type: approval, message: "Pay?", expires: 2h }
      - { id: cool_down, type: delay, duration: 10m }
      - { id: notify, type: http_call, if: "steps.quote.status == 'succeeded'", url: "https://hooks.example/notify", in_test: skip }
  keeper:
    trigger: { kind: cron, schedule: "*/5 * * * *" }
    paused: true
    steps: [ { id: tick, type: delay, duration: 1s } ]
`;
const ENV = { PAYOUTS_HOOK_SECRET: 'hook-secret-value', QUOTE_API_KEY: 'quote-key-value' };

describe('workflow definitions', () => {
  it('loads the CONTRACT example into what the engine runs: durations in ms, secrets resolved, defaults applied', () => {
    const config = load(PAYOUTS, ENV);
    const payouts = config.workflows.get('payouts')!.engine!;
    expect(payouts.trigger).toEqual({ kind: 'webhook', secret: 'hook-secret-value' });
    expect(payouts.conditions).toEqual([{ name: 'amount_positive', if: 'int(trigger.payload.amount) > 0' }]);
    expect(payouts.steps.map((s) => [s.id, s.type])).toEqual([['quote', 'http_call'], ['approve', 'approval'], ['cool_down', 'delay'], ['notify', 'http_call']]);
    expect(payouts.steps[0]).toMatchObject({
      method: 'POST', headers: { Authorization: 'quote-key-value' }, timeoutMs: 5000, retry: { attempts: 4, backoffMs: 2000, maxBackoffMs: 30000 },
    });
    expect(payouts.steps[1]).toMatchObject({ expiresMs: 2 * 3600_000, retry: { attempts: 1 } });
    expect(payouts.steps[2]).toMatchObject({ durationMs: 600_000 });
    expect(payouts.steps[3]).toMatchObject({ method: 'GET', timeoutMs: 10_000, skipInTest: true, retry: { attempts: 3, backoffMs: 1000, maxBackoffMs: 60_000 } });
    expect(config.workflows.get('keeper')!.engine).toMatchObject({ paused: true, trigger: { kind: 'cron', schedule: '*/5 * * * *' } });
    expect(config.secretValues).toEqual(expect.arrayContaining(['hook-secret-value', 'quote-key-value']));
  });

  it('names the path of each problem: bad CEL, bad cron, unknown keys, missing fields, duplicate ids, bad durations', () => {
    const lines = problems(`
workflows:
  bad:
    trigger: { kind: cron, schedule: "61 * * * *" }
    conditions:
      - { name: c1, if: "int((" }
    steps:
      - { id: a, type: http_call, url: "https://x.example/\${{ trigger.payload. }}" }
      - { id: a, type: delay, duration: 5 minutes }
      - { id: b, type: delay }
      - { id: c, type: approval, if: "steps.a.status ==", url: "https://nope" }
      - { id: "bad id", type: teleport }
      - { id: d, type: http_call, url: "https://x.example", retry: { attempts: 0 } }
  cronless:
    trigger: { kind: cron }
    steps: [ { id: x, type: delay, duration: 1s } ]
`);
    const at = (p: string): string | undefined => lines.find((l) => l.startsWith(`${p}: `));
    expect(at('workflows.bad.trigger.schedule')).toMatch(/not a cron schedule/);
    expect(at('workflows.bad.conditions[0].if')).toMatch(/not a valid CEL expression/);
    expect(at('workflows.bad.steps[0].url')).toMatch(/not a valid CEL expression/);
    expect(at('workflows.bad.steps[1].id')).toMatch(/is used by an earlier step/);
    expect(at('workflows.bad.steps[1].duration')).toMatch(/not a duration/);
    expect(at('workflows.bad.steps[2].duration')).toBe('workflows.bad.steps[2].duration: is required');
    expect(at('workflows.bad.steps[3].url')).toBe("workflows.bad.steps[3].url: unknown key 'url'");
    expect(at('workflows.bad.steps[4].id')).toMatch(/must be an id/);
    expect(at('workflows.bad.steps[4].type')).toMatch(/must be one of http_call, approval, delay, send, read, wait_event$/);
    expect(at('workflows.bad.steps[5].retry.attempts')).toMatch(/at least 1/);
    expect(at('workflows.cronless.trigger.schedule')).toBe('workflows.cronless.trigger.schedule: is required');
    for (const line of lines) expect(line.split('\n')).toHaveLength(1);
  });

  it('refuses an Idempotency-Key among an http_call\'s headers: the engine sends its own per attempt', () => {
    expect(problems(PAYOUTS.replace('headers: { Authorization: { secret: quote_key } }', 'headers: { Authorization: { secret: quote_key }, idempotency-key: { secret: quote_key } }'), ENV))
      .toEqual(['workflows.payouts.steps[0].headers.idempotency-key: is set by the engine (<step_run_id>:<attempt>); remove it']);
  });

  it('keeps a workflow without steps as a name the journal knows (budgets, overview), not one the engine runs', () => {
    const config = load('workflows:\n  legacy: { budgets: [] }\n');
    expect(config.workflows.get('legacy')).toMatchObject({ name: 'legacy', budgets: [] });
    expect(config.workflows.get('legacy')!.engine).toBeUndefined();
  });
});

describe('send and read steps, and the networks\' send keys', () => {
  const CHAIN = `
secrets:
  key: { env: OPS_KEY }
networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ], replace_after: 30s, max_fee_per_gas: 50 gwei, confirmations: 2 }
  plain: { chain_id: 1, rpc: [ { env: RPC } ] }
relayers:
  ops: { network: anvil, signer: { secret: key } }
  watcher: { network: anvil }
`;
  const CHAIN_ENV = { OPS_KEY: `0x${'11'.repeat(32)}`, RPC: 'http://127.0.0.1:8545' };

  it('loads replace_after, max_fee_per_gas and confirmations (defaults 60 s, none, 1), and a send step\'s timeout (default 10m)', () => {
    const config = load(`${CHAIN}workflows:
  pay:
    trigger: { kind: manual }
    steps:
      - { id: a, type: send, relayer: ops, to: "\${{ trigger.payload.to }}", value: "0.1 ether", wait_for: submitted, timeout: 2m }
      - { id: b, type: send, relayer: ops, to: "0x000000000000000000000000000000000000beef", call: { function: "transfer(address,uint256)", args: [ "0x000000000000000000000000000000000000beef", 5 ] } }
      - { id: c, type: read, network: anvil, to: "0x000000000000000000000000000000000000beef", call: { function: "balanceOf(address) returns (uint256)", args: [ "0x000000000000000000000000000000000000beef" ] } }
`, CHAIN_ENV);
    expect(config.networks.get('anvil')).toMatchObject({ replaceAfterMs: 30_000, maxFeePerGasWei: 50n * 10n ** 9n, confirmations: 2 });
    expect(config.networks.get('plain')).toMatchObject({ replaceAfterMs: 60_000, confirmations: 1 });
    expect(config.networks.get('plain')!.maxFeePerGasWei).toBeUndefined();
    const steps = config.workflows.get('pay')!.engine!.steps;
    expect(steps.map((s) => [s.type, (s as { timeoutMs: number }).timeoutMs])).toEqual([['send', 120_000], ['send', 600_000], ['read', 10_000]]);
    expect(steps[0]).toMatchObject({ fields: { relayer: 'ops', value: '0.1 ether', wait_for: 'submitted' } });
  });

  it('refuses an unknown relayer, one without a signer, an unknown read network, a bad amount, data with call, and bad send keys', () => {
    expect(problems(`${CHAIN}workflows:
  pay:
    trigger: { kind: manual }
    steps:
      - { id: a, type: send, relayer: nobody, to: "0x000000000000000000000000000000000000beef" }
      - { id: b, type: send, relayer: watcher, to: "0x000000000000000000000000000000000000beef" }
      - { id: c, type: read, network: mars, to: "0x000000000000000000000000000000000000beef", call: { function: "f() returns (uint256)" } }
      - { id: d, type: send, relayer: ops, to: "0x000000000000000000000000000000000000beef", value: "1.5 wei" }
      - { id: e, type: send, relayer: ops, to: "0x000000000000000000000000000000000000beef", data: "0x", call: { function: "f()" } }
      - { id: f, type: send, relayer: ops, to: "0x000000000000000000000000000000000000beef", wait_for: never }
`, CHAIN_ENV)).toEqual([
      expect.stringMatching(/^workflows\.pay\.steps\[0\]\.relayer: names no configured relayer 'nobody'/),
      "workflows.pay.steps[1].relayer: relayer 'watcher' has no signer",
      expect.stringMatching(/^workflows\.pay\.steps\[2\]\.network: names no configured network 'mars'/),
      expect.stringMatching(/^workflows\.pay\.steps\[3\]\.value: /),
      'workflows.pay.steps[4].call: give data or call, not both',
      expect.stringMatching(/^workflows\.pay\.steps\[5\]\.wait_for: /),
    ]);
    expect(problems(`${CHAIN.replace('replace_after: 30s', 'replace_after: soon').replace('confirmations: 2', 'confirmations: 0')}`, CHAIN_ENV)).toEqual([
      expect.stringMatching(/^networks\.anvil\.replace_after: /),
      expect.stringMatching(/^networks\.anvil\.confirmations: /),
    ]);
  });
});
