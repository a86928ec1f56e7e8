/**
 * Chain events in the CLI, through the real compiled program (issue #28 part 5): `chainflow workflows` shows an event
 * workflow's cursor / head / lag from the engine's `workflow.state`; on the demo journal, `chainflow runs timeline`
 * shows the log that started an event run with explorer links and the reorg that removed its block, and
 * `chainflow history reorgs` the removed block's hash (`--json`: links to both blocks).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, chainflow, lines, type CliResult } from '../../support/cli';
import { makeTempDir, removeTempDir, writeConfig } from '../../support/server';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function ok(res: CliResult): string {
  expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
  return res.stdout;
}

beforeAll(() => assertBuilt());

describe('chainflow workflows: an event workflow\'s cursor / head / lag', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-events-');
    writeConfig(dir, {
      networks: { devnet: { chain_id: 31337, rpc: [{ env: 'DEVNET_RPC' }] } },
      workflows: {
        deposits: {
          trigger: { kind: 'event', network: 'devnet', address: '0x5fbdb2315678afecb367f032d93f642f64180aa3', event: 'Transfer(address indexed from, address indexed to, uint256 value)' },
          steps: [{ id: 'noop', type: 'delay', duration: '1s' }],
        },
        sweep: { trigger: { kind: 'manual' }, steps: [{ id: 'noop', type: 'delay', duration: '1s' }] },
      },
    });
    // What the engine's log poller journals, imported as a file.
    const states = [
      { type: 'workflow.state', at: '2026-11-20T12:00:00.000Z', workflow: 'deposits', trigger: 'event', network: 'devnet', head_block: 130 },
      { type: 'workflow.state', at: '2026-11-20T12:00:02.000Z', workflow: 'deposits', trigger: 'event', network: 'devnet', cursor_block: 118, head_block: 131 },
    ];
    fs.writeFileSync(path.join(dir, 'states.ndjson'), states.map((s) => JSON.stringify(s)).join('\n') + '\n');
    ok(chainflow(['journal', 'import', 'states.ndjson'], { cwd: dir }));
  });
  afterAll(() => removeTempDir(dir));

  it('the table shows cursor / head and the lag; --json gives the blocks as numbers', () => {
    const out = lines(ok(chainflow(['workflows'], { cwd: dir })));
    expect(out[0]).toMatch(/^WORKFLOW\s+TRIGGER\s+PAUSED\s+NEXT TICK\s+CURSOR \/ HEAD\s+LAG\s+LEASES\s+STEPS$/);
    expect(out.find((l) => l.startsWith('deposits'))).toMatch(/^deposits\s+event on devnet\s+no\s+-\s+118 \/ 131\s+13\s+0\s+noop$/);
    expect(out.find((l) => l.startsWith('sweep'))).toMatch(/^sweep\s+manual\s+no\s+-\s+-\s+-\s+0\s+noop$/);
    const items = JSON.parse(ok(chainflow(['workflows', '--json'], { cwd: dir }))).items as Json[];
    expect(items.map((w) => [w.workflow, w.network, w.cursor_block, w.head_block, w.lag_blocks])).toEqual([
      ['deposits', 'devnet', 118, 131, 13], ['sweep', null, null, null, null],
    ]);
  });
});

describe('the demo\'s reorged event run in the CLI', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDir('chainflow-cli-events-demo-');
    ok(chainflow(['demo'], { cwd: dir }));
  });
  afterAll(() => removeTempDir(dir));

  it('runs timeline shows the log (index, contract, network, block, hash, tx) with explorer links, and the reorg', () => {
    const timeline = JSON.parse(ok(chainflow(['runs', 'timeline', 'demo-0042', '--json'], { cwd: dir })));
    const trigger = timeline.events.find((e: Json) => e.kind === 'trigger');
    const { log } = trigger;
    expect(log).toMatchObject({ network: 'base', contract: timeline.run.contract, block_number: timeline.run.block });
    const text = ok(chainflow(['runs', 'timeline', 'demo-0042'], { cwd: dir }));
    expect(text).toContain(`log ${log.log_index} of ${log.contract} on base, block ${log.block_number} ${log.block_hash} (${log.block_time})`);
    expect(text).toContain(`tx ${log.tx_hash}  https://basescan.org/tx/${log.tx_hash}`);
    expect(text).toContain(`block https://basescan.org/block/${log.block_hash}`);
    const [reorg] = trigger.reorgs;
    expect(reorg).toMatchObject({ reorg_id: 'demo-reorg-1', block: log.block_number, removed_block_hash: log.block_hash });
    expect(text).toContain(`reorged: demo-reorg-1 at ${reorg.created_at} removed block ${log.block_number} ${log.block_hash}  https://basescan.org/block/${log.block_hash}`);
  });

  it('history reorgs shows the removed block\'s hash; --json links both blocks', () => {
    const out = lines(ok(chainflow(['history', 'reorgs'], { cwd: dir })));
    expect(out[0]).toMatch(/^REORG\s+RUN\s+WORKFLOW\s+NETWORK\s+BLOCK\s+REMOVED BLOCK HASH\s+STEPS\s+CREATED$/);
    const [item] = JSON.parse(ok(chainflow(['history', 'reorgs', '--json'], { cwd: dir }))).items as Json[];
    expect(out[1]).toMatch(new RegExp(`^demo-reorg-1\\s+demo-0042\\s+price-keeper\\s+base\\s+${item.block}\\s+${item.removed_block_hash}\\s+recheck_price:succeeded notify_ops:succeeded`));
    expect([item.block_url, item.removed_block_url]).toEqual([`https://basescan.org/block/${item.block}`, `https://basescan.org/block/${item.removed_block_hash}`]);
  });
});
