/**
 * The event trigger in chainflow.yaml (CONTRACT 8.6): its addresses, event signature, confirmations and from_block,
 * and the networks' poll_interval, max_block_range and finality_depth, checked when the config loads, each problem
 * naming its path.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../../src/adapters/config/config.loader';
import { InvalidConfigError } from '../../../src/domain/errors';

const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const OTHER = '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512';
const TRANSFER = 'Transfer(address indexed from, address indexed to, uint256 value)';

function load(yaml: string): ReturnType<typeof loadConfig> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-events-'));
  try {
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `chainflow_version: 1\n${yaml}`);
    return loadConfig({ cwd: dir, env: { DEVNET_RPC_URL: 'http://127.0.0.1:8545' } });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function problems(yaml: string): string[] {
  try {
    load(yaml);
  } catch (err) {
    if (err instanceof InvalidConfigError) return [...err.problems];
    throw err;
  }
  throw new Error('expected the config to be refused');
}

const network = (extra = ''): string => `
networks:
  devnet:
    chain_id: 31337
    rpc: [ { env: DEVNET_RPC_URL } ]${extra}
`;
const workflow = (trigger: string, more = ''): string => `
workflows:
  on_deposit:
    trigger: { kind: event, network: devnet, ${trigger} }
    steps: [ { id: note, type: delay, duration: 1s } ]${more}
`;

describe('event trigger config', () => {
  it('loads the trigger: addresses lowercase, the signature as written, defaults for confirmations and from_block', () => {
    const config = load(network() + workflow(`address: "${TOKEN}", event: "${TRANSFER}"`));
    expect(config.workflows.get('on_deposit')!.engine!.trigger).toEqual({
      kind: 'event', network: 'devnet', addresses: [TOKEN.toLowerCase()], event: TRANSFER, confirmations: 1, fromBlock: 'latest',
    });
    expect(config.networks.get('devnet')).toMatchObject({ pollIntervalMs: 2000, maxBlockRange: 2000, finalityDepth: 64 });
  });

  it('takes a list of addresses, a block number to start from, and the network\'s confirmations as the default', () => {
    const yaml = network('\n    confirmations: 3\n    poll_interval: 5s\n    max_block_range: 500\n    finality_depth: 12')
      + workflow(`address: ["${TOKEN}", "${OTHER}"], event: "event ${TRANSFER}", from_block: 120`);
    const config = load(yaml);
    expect(config.workflows.get('on_deposit')!.engine!.trigger).toMatchObject({
      addresses: [TOKEN.toLowerCase(), OTHER], confirmations: 3, fromBlock: 120,
    });
    expect(config.networks.get('devnet')).toMatchObject({ pollIntervalMs: 5000, maxBlockRange: 500, finalityDepth: 12 });
    const own = load(network('\n    confirmations: 3') + workflow(`address: "${TOKEN}", event: "${TRANSFER}", confirmations: 5`));
    expect(own.workflows.get('on_deposit')!.engine!.trigger).toMatchObject({ confirmations: 5 });
  });

  it('refuses a wrong checksum in the list, a signature without names or with bad types, and a bad from_block, naming each path', () => {
    const badSum = TOKEN.replace('F', 'f');
    expect(problems(network() + workflow(`address: ["${TOKEN}", "${badSum}"], event: "Transfer(address indexed, address to, uint256 value)", from_block: -3`))).toEqual([
      expect.stringMatching(/^workflows\.on_deposit\.trigger\.address\[1\]: .*checksum/),
      expect.stringMatching(/^workflows\.on_deposit\.trigger\.event: .*parameter 1 \(address\) needs a name/),
      'workflows.on_deposit.trigger.from_block: must be latest or a block number (an integer >= 0)',
    ]);
    expect(problems(network() + workflow(`address: "${TOKEN}", event: "Transfer(addres indexed from)"`))).toEqual([
      expect.stringMatching(/^workflows\.on_deposit\.trigger\.event: .*'addres' is not an ABI type/),
    ]);
    expect(problems(network() + workflow(`address: "${TOKEN}", event: "Swap(uint8 indexed a, uint8 indexed b, uint8 indexed c, uint8 indexed d)"`))).toEqual([
      expect.stringMatching(/^workflows\.on_deposit\.trigger\.event: .*at most 3 parameters may be indexed/),
    ]);
  });

  it('refuses an unknown network, a missing event, confirmations of 0 and bad network settings', () => {
    const yaml = network('\n    poll_interval: soon\n    max_block_range: 0\n    finality_depth: many')
      + `
workflows:
  on_deposit:
    trigger: { kind: event, network: mainnet, address: "${TOKEN}", confirmations: 0 }
    steps: [ { id: note, type: delay, duration: 1s } ]
`;
    expect(problems(yaml)).toEqual([
      expect.stringMatching(/^networks\.devnet\.poll_interval: is not a duration/),
      'networks.devnet.max_block_range: must be at least 1',
      'networks.devnet.finality_depth: must be an integer, not a string',
      expect.stringMatching(/^workflows\.on_deposit\.trigger\.network: names no configured network 'mainnet'/),
      'workflows.on_deposit.trigger.confirmations: must be at least 1',
      'workflows.on_deposit.trigger.event: is required',
    ]);
  });

  it('takes on_reorg on an event workflow, its steps checked like steps; refuses it on any other trigger', () => {
    const onReorg = `
    on_reorg:
      - { id: undo, type: http_call, method: POST, url: "https://ops.example/undo", body: { run: "\${{ reorg.run_id }}", was: "\${{ steps.note.status }}" } }`;
    const config = load(network() + workflow(`address: "${TOKEN}", event: "${TRANSFER}"`, onReorg));
    expect(config.workflows.get('on_deposit')!.engine!.onReorg.map((s) => s.id)).toEqual(['undo']);
    expect(problems(network() + workflow(`address: "${TOKEN}", event: "${TRANSFER}"`, `
    on_reorg:
      - { id: undo, type: http_call, url: "\${{ steps.nope.output }}" }`))).toEqual([
      expect.stringMatching(/^workflows\.on_deposit\.on_reorg\[0\]\.url: not a valid CEL expression/),
    ]);
    expect(problems(`
workflows:
  keeper:
    trigger: { kind: manual }
    steps: [ { id: note, type: delay, duration: 1s } ]
    on_reorg: [ { id: undo, type: delay, duration: 1s } ]
`)).toEqual(['workflows.keeper.on_reorg: is allowed with event triggers only']);
  });

  it('loads a wait_event step: its logs, where over log and the run, confirmations and timeout (default 1h)', () => {
    const yaml = network('\n    confirmations: 2') + `
workflows:
  settle:
    trigger: { kind: manual }
    steps:
      - { id: paid, type: wait_event, network: devnet, address: "${TOKEN}", event: "${TRANSFER}", where: "log.to == trigger.payload.to" }
      - { id: fast, type: wait_event, network: devnet, address: ["${OTHER}"], event: "${TRANSFER}", confirmations: 1, timeout: 5m }
`;
    const [paid, fast] = load(yaml).workflows.get('settle')!.engine!.steps;
    expect(paid).toMatchObject({
      type: 'wait_event', network: 'devnet', addresses: [TOKEN.toLowerCase()], event: TRANSFER, where: 'log.to == trigger.payload.to',
      confirmations: 2, timeoutMs: 3_600_000,
    });
    expect(fast).toMatchObject({ addresses: [OTHER], confirmations: 1, timeoutMs: 300_000 });
    expect(fast).not.toHaveProperty('where');
  });

  it('refuses a wait_event whose where does not check, names an unknown network or lacks its event', () => {
    expect(problems(network() + `
workflows:
  settle:
    trigger: { kind: manual }
    steps:
      - { id: paid, type: wait_event, network: devnet, address: "${TOKEN}", event: "${TRANSFER}", where: "steps.later.status == 'x'" }
      - { id: later, type: wait_event, network: mainnet, address: "${TOKEN}" }
`)).toEqual([
      expect.stringMatching(/^workflows\.settle\.steps\[0\]\.where: not a valid CEL expression: .*later/),
      "workflows.settle.steps[1].network: names no configured network 'mainnet'",
      'workflows.settle.steps[1].event: is required',
    ]);
  });
});
