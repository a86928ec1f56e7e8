/**
 * A command needs only what it uses (issue #13, item 5): an environment variable that the config references
 * but that is unset is no error for a command that does not use it (and there is nothing to redact); a command
 * that uses it stops before doing anything, naming the setting and the variable in one line.
 */
import { assertBuilt, chainflow, hasStackTrace, lines } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

beforeAll(() => assertBuilt());

const CONFIG = {
  secrets: { api_token: { env: 'CF_TEST_API_TOKEN' }, ops_key: { env: 'CF_TEST_OPS_KEY' } },
  server: { auth: { token: { secret: 'api_token' } } },
  networks: { sepolia: { chain_id: 11155111, rpc: [{ env: 'CF_TEST_RPC' }] } },
  relayers: { ops: { network: 'sepolia', signer: { secret: 'ops_key' } } },
  workflows: {
    notify: { trigger: { kind: 'manual' }, steps: [{ id: 'wait', type: 'delay', duration: '1s' }] },
    payouts: {
      trigger: { kind: 'manual' },
      steps: [{ id: 'call', type: 'http_call', url: 'http://127.0.0.1:9/x', headers: { Authorization: { env: 'CF_TEST_PARTNER_KEY' } } }],
    },
  },
};

describe('unset secrets: refused only where used', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-secrets-needed-');
    writeConfig(dir, CONFIG);
  });
  afterAll(() => removeTempDir(dir));

  it('history, spend and token list run with every referenced variable unset', () => {
    for (const args of [['history'], ['spend'], ['token', 'list'], ['history', 'workflows']]) {
      const res = chainflow(args, { cwd: dir });
      expect({ args, status: res.status, stderr: res.stderr }).toEqual({ args, status: 0, stderr: '' });
    }
  });

  it('start refuses without the API token it serves with, naming the setting and the variable', () => {
    const res = chainflow(['start', '--port', '59999', '--no-engine'], { cwd: dir });
    expect(res.status).toBe(1);
    expect(lines(res.stderr)).toEqual(['Error: chainflow start needs server.auth.token (environment variable CF_TEST_API_TOKEN is not set)']);
    expect(hasStackTrace(res.stderr)).toBe(false);
  });

  it('worker (the engine) names every unset setting it may use, in one line', () => {
    const res = chainflow(['worker'], { cwd: dir, env: { CF_TEST_API_TOKEN: 'api-token-value' } });
    expect(res.status).toBe(1);
    expect(lines(res.stderr)).toEqual([
      'Error: chainflow worker needs networks.sepolia.rpc[0] (environment variable CF_TEST_RPC is not set), ' +
        'relayers.ops.signer (environment variable CF_TEST_OPS_KEY is not set), ' +
        'workflows.payouts.steps[0].headers.Authorization (environment variable CF_TEST_PARTNER_KEY is not set)',
    ]);
  });

  it('run WF needs only what that workflow uses', () => {
    const ok = chainflow(['run', 'notify', '--detach'], { cwd: dir });
    expect({ status: ok.status, stderr: ok.stderr }).toEqual({ status: 0, stderr: '' });
    const refused = chainflow(['run', 'payouts'], { cwd: dir });
    expect(refused.status).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      'Error: chainflow run payouts needs workflows.payouts.steps[0].headers.Authorization (environment variable CF_TEST_PARTNER_KEY is not set)',
    ]);
  });

  it('an empty variable counts as unset', () => {
    const res = chainflow(['start', '--port', '59999', '--no-engine'], { cwd: dir, env: { CF_TEST_API_TOKEN: '' } });
    expect(lines(res.stderr)).toEqual(['Error: chainflow start needs server.auth.token (environment variable CF_TEST_API_TOKEN is empty)']);
  });
});
