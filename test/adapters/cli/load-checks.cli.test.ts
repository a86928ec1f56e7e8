/**
 * The operator's first hour (issue #30): an unset signer variable stops only the commands that sign, naming the
 * variable; a mistake in a workflow stops every command at config load, naming its path, with no stack trace.
 */
import { assertBuilt, chainflow, hasStackTrace, lines } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

beforeAll(() => assertBuilt());

const TO = '0x000000000000000000000000000000000000beef';
const KEEPER_KEY = `0x${'22'.repeat(32)}`;
const ENV = { CF_TEST_RPC: 'http://127.0.0.1:9', CF_TEST_KEEPER_KEY: KEEPER_KEY };

const config = (fn = 'transfer(address,uint256)'): Record<string, unknown> => ({
  networks: { sepolia: { chain_id: 11155111, rpc: [{ env: 'CF_TEST_RPC' }] } },
  relayers: {
    ops: { network: 'sepolia', signer: { env: 'CF_TEST_OPS_KEY' } },
    keeper: { network: 'sepolia', signer: { env: 'CF_TEST_KEEPER_KEY' } },
  },
  workflows: {
    payouts: {
      trigger: { kind: 'manual' },
      steps: [{ id: 'pay', type: 'send', relayer: 'ops', to: TO, call: { function: fn, args: [TO, 1] } }],
    },
  },
});

describe('an unset signer variable', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-load-checks-');
    writeConfig(dir, config());
  });
  afterAll(() => removeTempDir(dir));

  it('is no error for commands that sign nothing', () => {
    for (const args of [['history'], ['spend'], ['history', 'workflows'], ['workflows']]) {
      const res = chainflow(args, { cwd: dir, env: ENV });
      expect({ args, status: res.status, stderr: res.stderr }).toEqual({ args, status: 0, stderr: '' });
    }
  });

  it('is named by start, worker, run and relayers topup', () => {
    const needs = '(environment variable CF_TEST_OPS_KEY is not set)';
    for (const [args, purpose] of [
      [['start', '--port', '59997'], 'chainflow start'],
      [['worker'], 'chainflow worker'],
      [['run', 'payouts'], 'chainflow run payouts'],
      [['relayers', 'topup', '--from', 'ops', '--to', 'keeper', '--amount', '0.1ether'], 'a top-up from relayer ops'],
    ] as const) {
      const res = chainflow(args, { cwd: dir, env: ENV });
      expect({ args, status: res.status, stderr: lines(res.stderr) }).toEqual({ args, status: 1, stderr: [`Error: ${purpose} needs relayers.ops.signer ${needs}`] });
      expect(hasStackTrace(res.stderr)).toBe(false);
    }
  });
});

describe('a workflow mistake', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-load-checks-');
    writeConfig(dir, config('transfer(address uint256)'));
  });
  afterAll(() => removeTempDir(dir));

  it('stops any command at config load, naming its path, without a stack trace', () => {
    const res = chainflow(['history'], { cwd: dir, env: { ...ENV, CF_TEST_OPS_KEY: `0x${'11'.repeat(32)}` } });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain("workflows.payouts.steps[0].call.function: 'transfer(address uint256)': a comma is missing between address and uint256");
    expect(hasStackTrace(res.stderr)).toBe(false);
  });
});
