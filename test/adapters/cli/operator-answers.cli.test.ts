/**
 * The answers an operator needs from the CLI (issue 30, part 2), with the built program: `chainflow run` prints the
 * error message, not only its kind; `chainflow history approvals` shows what each approval asks; `approvals approve`
 * takes a run id when that run has one pending approval, else hints at the id format.
 */
import { assertBuilt, chainflow, hasStackTrace, lines } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

beforeAll(() => assertBuilt());

const CONFIG = {
  budgets: { daily: { window: '24h', max_native_value: '1 ether' } },
  workflows: {
    // Port 9 (discard) on loopback: refused at once, nothing listens.
    broken: { trigger: { kind: 'manual' }, steps: [{ id: 'call', type: 'http_call', url: 'http://127.0.0.1:9/x', retry: { attempts: 1 } }] },
    payouts: {
      trigger: { kind: 'manual' },
      budgets: ['daily'],
      steps: [
        { id: 'approve', type: 'approval', message: 'Pay ${{ trigger.payload.amount }} wei to ops?' },
        { id: 'done', type: 'delay', duration: '1s' },
      ],
    },
  },
};

describe('the operator\'s answers in the CLI', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-operator-answers-');
    writeConfig(dir, CONFIG);
  });
  afterAll(() => removeTempDir(dir));

  it('chainflow run prints the failed run\'s error message after its kind, and exits 1', () => {
    const res = chainflow(['run', 'broken'], { cwd: dir });
    expect(res.status).toBe(1);
    expect(lines(res.stdout)).toEqual([expect.stringMatching(/^\S+ failed \(http_error: GET failed: .+\)$/)]);
  });

  it('history approvals shows the message; a run id with one pending approval is approved; an unknown id hints at the format', () => {
    const started = chainflow(['run', 'payouts', '--input', '{"amount":"12345"}'], { cwd: dir });
    expect(started.status).toBe(0);
    const runId = lines(started.stdout)[0]!.split(' ')[0]!;
    const table = chainflow(['history', 'approvals'], { cwd: dir });
    expect(table.status).toBe(0);
    expect(lines(table.stdout)[0]).toMatch(/\bMESSAGE\b/);
    expect(table.stdout).toContain('Pay 12345 wei to ops?');

    const approved = chainflow(['approvals', 'approve', runId, '--by', 'alice'], { cwd: dir });
    expect({ status: approved.status, stderr: approved.stderr }).toEqual({ status: 0, stderr: '' });
    expect(lines(approved.stdout)).toEqual([`approval ${runId}.approve approved by alice (run ${runId})`]);

    const unknown = chainflow(['approvals', 'reject', 'r-no-such-run'], { cwd: dir });
    expect(unknown.status).toBe(1);
    expect(lines(unknown.stderr)).toEqual([expect.stringContaining('approval ids are <run_id>.<step_id>')]);
    expect(hasStackTrace(unknown.stderr)).toBe(false);
  });

  it('an approval closed by a cancel reads as cancelled when someone then tries to approve it', () => {
    const started = chainflow(['run', 'payouts', '--input', '{"amount":"1"}'], { cwd: dir });
    const runId = lines(started.stdout)[0]!.split(' ')[0]!;
    expect(chainflow(['runs', 'cancel', runId], { cwd: dir }).status).toBe(0);
    const late = chainflow(['approvals', 'approve', `${runId}.approve`, '--by', 'alice'], { cwd: dir });
    expect(late.status).toBe(1);
    expect(lines(late.stderr)).toEqual([expect.stringMatching(/^Error: approval closed: its run was cancelled by \S+$/)]);
  });

  it('chainflow budgets shows each cap\'s spent, reserved, limit and headroom; --json the API\'s envelope with exact wei', () => {
    const table = chainflow(['budgets'], { cwd: dir });
    expect({ status: table.status, stderr: table.stderr }).toEqual({ status: 0, stderr: '' });
    const [header, row, ...rest] = lines(table.stdout);
    expect(header!.split(/\s{2,}/)).toEqual(['BUDGET', 'WINDOW', 'CAP', 'SPENT', 'RESERVED', 'LIMIT', 'HEADROOM']);
    expect(row!.split(/\s{2,}/)).toEqual(['daily', '1d', 'max_native_value', '0 ETH', '0 ETH', '1 ETH', '1 ETH']);
    expect(rest).toEqual([]);
    const json = chainflow(['budgets', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({
      cursor: null, has_more: false,
      items: [{ budget: 'daily', window: '1d', window_start: expect.any(String), relayers: null, workflows: ['payouts'],
        caps: [{ kind: 'max_native_value', token: null, spent: '0', reserved: '0', cap: '1000000000000000000', headroom: '1000000000000000000' }] }],
    });
  });
});

describe('an approval guarding a send its budget cannot fit, with the built CLI and real SQLite', () => {
  let dir: string;
  // Nothing is sent before the approval: the provider is never asked, so none needs to listen.
  const env = { OPS_KEY: `0x${'59'.repeat(32)}`, RPC: 'http://127.0.0.1:9' };
  beforeAll(() => {
    dir = makeTempDir('chainflow-approval-note-');
    writeConfig(dir, {
      networks: { sepolia: { chain_id: 11155111, rpc: [{ env: 'RPC' }] } },
      relayers: { ops: { network: 'sepolia', signer: { env: 'OPS_KEY' } } },
      budgets: { daily: { window: '24h', max_native_value: '1 ether' } },
      workflows: {
        payouts: {
          trigger: { kind: 'manual' }, budgets: ['daily'],
          steps: [
            { id: 'approve', type: 'approval', message: 'Pay ${{ trigger.payload.amount }}?' },
            { id: 'pay', type: 'send', relayer: 'ops', to: '0x000000000000000000000000000000000000bEEF', value: '${{ trigger.payload.amount }}' },
          ],
        },
      },
    });
  });
  afterAll(() => removeTempDir(dir));

  it('says so in the message the approvals table shows; a payout that fits is asked as written', () => {
    for (const amount of ['2 ether', '0.5 ether']) {
      expect(chainflow(['run', 'payouts', '--input', JSON.stringify({ amount })], { cwd: dir, env }).status).toBe(0);
    }
    const table = chainflow(['history', 'approvals', '--json'], { cwd: dir, env });
    const messages = (JSON.parse(table.stdout) as { items: Array<{ message: string }> }).items.map((a) => a.message);
    expect(messages).toEqual([
      'Pay 0.5 ether?',
      "Pay 2 ether? [does not fit: budget 'daily' has 1000000000000000000 wei of max_native_value left, step 'pay' would send 2000000000000000000 wei]",
    ]);
  });
});
