/**
 * Literal addresses in workflow definitions (CONTRACT 8.8): a mixed-case address whose EIP-55 checksum is wrong is
 * refused when the config loads, naming its path; all-lowercase and all-uppercase are taken as they are.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../../src/adapters/config/config.loader';
import { InvalidConfigError } from '../../../src/domain/errors';

/** EIP-55's own example, and the same address with its last letter's case flipped. */
export const GOOD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const BAD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
const LOWER = GOOD.toLowerCase();
const UPPER = `0x${GOOD.slice(2).toUpperCase()}`;

const CHAIN = `
secrets:
  key: { env: OPS_KEY }
networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ] }
relayers:
  ops: { network: anvil, signer: { secret: key } }
`;
const ENV = { OPS_KEY: `0x${'11'.repeat(32)}`, RPC: 'http://127.0.0.1:8545' };

function problems(workflows: string): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-addr-'));
  try {
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `chainflow_version: 1\n${CHAIN}workflows:\n${workflows}`);
    loadConfig({ cwd: dir, env: ENV });
    return [];
  } catch (err) {
    if (err instanceof InvalidConfigError) return [...err.problems];
    throw err;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('literal addresses at config load', () => {
  it('takes a right checksum, all-lowercase and all-uppercase in to, call address arguments and event triggers', () => {
    expect(problems(`  pay:
    trigger: { kind: manual }
    steps:
      - { id: a, type: send, relayer: ops, to: "${GOOD}", value: "1 wei" }
      - { id: b, type: send, relayer: ops, to: "${LOWER}", call: { function: "transfer(address,uint256)", args: [ "${UPPER}", 5 ] } }
      - { id: c, type: read, network: anvil, to: "${UPPER}", call: { function: "balanceOf(address) returns (uint256)", args: [ "${GOOD}" ] } }
  watch:
    trigger: { kind: event, network: anvil, address: "${LOWER}", event: "Transfer(address indexed from, address indexed to, uint256 value)" }
    steps: [ { id: a, type: delay, duration: 1s } ]
`)).toEqual([]);
  });

  it('refuses a wrong mixed-case checksum wherever it is literal, naming its path', () => {
    const checksum = `'${BAD}' has a wrong EIP-55 checksum (its mixed case does not match: a mistyped address?)`;
    expect(problems(`  pay:
    trigger: { kind: manual }
    steps:
      - { id: a, type: send, relayer: ops, to: "${BAD}", value: "1 wei" }
      - { id: b, type: send, relayer: ops, to: "${GOOD}", call: { function: "transfer(address to, uint256 amount)", args: [ "${BAD}", 5 ] } }
      - { id: c, type: read, network: anvil, to: "${BAD}", call: { function: "balanceOf(address) returns (uint256)", args: [ "${BAD}" ] } }
      - { id: d, type: send, relayer: ops, to: "\${{ trigger.payload.to }}", call: { function: "transfer(address,uint256)", args: [ "\${{ trigger.payload.to }}", 5 ] } }
  watch:
    trigger: { kind: event, network: anvil, address: "${BAD}", event: "Transfer(address indexed from, address indexed to, uint256 value)" }
    steps: [ { id: a, type: delay, duration: 1s } ]
`)).toEqual([
      `workflows.pay.steps[0].to: ${checksum}`,
      `workflows.pay.steps[1].call.args[0]: ${checksum}`,
      `workflows.pay.steps[2].to: ${checksum}`,
      `workflows.pay.steps[2].call.args[0]: ${checksum}`,
      `workflows.watch.trigger.address: ${checksum}`,
    ]);
  });

  it('refuses a literal to that is not a 20-byte address', () => {
    expect(problems(`  pay:
    trigger: { kind: manual }
    steps:
      - { id: a, type: send, relayer: ops, to: "0xbeef", value: "1 wei" }
`)).toEqual(["workflows.pay.steps[0].to: '0xbeef' is not a 20-byte 0x-hex address"]);
  });
});
