/**
 * Notification channels and rules in chainflow.yaml (CONTRACT 11): each mistake refused when the config loads,
 * naming its path, and never showing a secret's value.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../../src/adapters/config/config.loader';
import type { ChainflowConfig } from '../../../src/application/config';
import { ENGINE_SECRET_PATHS, requireSecrets, serverSecretPaths } from '../../../src/application/secrets-needed';
import { InvalidConfigError, SecretMissingError } from '../../../src/domain/errors';

const WHSEC = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const SLACK = 'https://hooks.slack.example/services/T000/B000/XXXXSECRET';
const ENV = { HOOK_SECRET: WHSEC, SLACK_URL: SLACK };

const BASE = `chainflow_version: 1
secrets:
  hook: { env: HOOK_SECRET }
  slack: { env: SLACK_URL }
notifications:
  ops: { kind: webhook, url: "https://receiver.example/hooks", secret: { secret: hook } }
  team: { kind: slack, url: { secret: slack } }
`;
const WORKFLOW = `workflows:
  payouts:
    trigger: { kind: manual }
    steps: [ { id: wait, type: delay, duration: 1s } ]
`;

function load(yaml: string, env: Record<string, string> = ENV): ChainflowConfig {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-notify-'));
  try {
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), yaml);
    return loadConfig({ cwd: dir, env });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function problems(yaml: string, env: Record<string, string> = ENV): string[] {
  try {
    load(yaml, env);
    return [];
  } catch (err) {
    if (err instanceof InvalidConfigError) return [...err.problems];
    throw err;
  }
}

describe('notifications in the config', () => {
  it('reads channels with their resolved credentials, a top-level default and a workflow rule', () => {
    const config = load(`${BASE}notify: { on: [run_failed], to: [ops] }\n${WORKFLOW}    notify: { on: [run_failed, approval_requested, reorg, event_lag], to: [ops, team] }\n`);
    expect([...config.notifications!.values()]).toEqual([
      { name: 'ops', kind: 'webhook', url: 'https://receiver.example/hooks', secret: WHSEC },
      { name: 'team', kind: 'slack', url: SLACK },
    ]);
    expect(config.notify).toEqual({ on: ['run_failed'], to: ['ops'] });
    expect(config.workflows.get('payouts')!.notify).toEqual({ on: ['run_failed', 'approval_requested', 'reorg', 'event_lag'], to: ['ops', 'team'] });
    // Both credentials are redacted wherever they appear.
    expect(config.secretValues).toEqual(expect.arrayContaining([WHSEC, SLACK]));
  });

  it('refuses an unknown channel name, event type or key, naming the path', () => {
    const found = problems(`${BASE}notify: { on: [run_failed], to: [pager] }\n${WORKFLOW}    notify: { on: [run_exploded], to: [ops, nobody] }\n`);
    expect(found).toEqual([
      expect.stringMatching(/^notify\.to\[0\]: names no configured notification channel \(configured: ops, team\)$/),
      expect.stringMatching(/^workflows\.payouts\.notify\.on\[0\]: must be one of run_failed, run_dead_lettered, budget_exceeded, approval_requested, relayer_low_balance, reorg, event_lag$/),
      expect.stringMatching(/^workflows\.payouts\.notify\.to\[1\]: names no configured notification channel/),
    ]);
  });

  it('refuses a literal where a secret belongs, and a webhook secret that is not whsec_ base64, without showing it', () => {
    const literal = problems(`chainflow_version: 1\nnotifications:\n  ops: { kind: webhook, url: "https://r.example", secret: "whsec_abc" }\n  team: { kind: slack, url: "${SLACK}" }\n`);
    expect(literal).toEqual([
      expect.stringMatching(/^notifications\.ops\.secret: must be a reference/),
      expect.stringMatching(/^notifications\.team\.url: must be a reference/),
    ]);
    const bad = problems(BASE, { ...ENV, HOOK_SECRET: 'not-a-standard-webhooks-secret' });
    expect(bad).toEqual(['notifications.ops.secret: environment variable HOOK_SECRET does not hold a Standard Webhooks secret (whsec_ and base64 of 24 to 64 bytes)']);
    expect(bad.join('\n')).not.toContain('not-a-standard-webhooks-secret');
  });

  it('refuses a webhook without a secret or with a URL that is not http(s), and an unknown kind', () => {
    expect(problems(`chainflow_version: 1\nnotifications:\n  a: { kind: webhook, url: "ftp://x.example" }\n  b: { kind: email, url: "x" }\n`)).toEqual([
      expect.stringMatching(/^notifications\.a\.url: must be an http\(s\) URL$/),
      expect.stringMatching(/^notifications\.a\.secret: is required$/),
      expect.stringMatching(/^notifications\.b\.kind: must be one of webhook, slack$/),
    ]);
  });

  it('an unset channel credential loads (read commands need none), and stops the engine naming the setting and its variable', () => {
    const config = load(BASE, { SLACK_URL: SLACK });
    expect(config.notifications!.get('ops')).toEqual({ name: 'ops', kind: 'webhook', url: 'https://receiver.example/hooks' });
    expect(() => requireSecrets(config, serverSecretPaths(config), 'chainflow start --no-engine')).not.toThrow();
    expect(() => requireSecrets(config, ENGINE_SECRET_PATHS, 'chainflow worker')).toThrow(new SecretMissingError([
      { at: 'notifications.ops.secret', variable: 'HOOK_SECRET', empty: false },
    ], 'chainflow worker'));
  });
});
