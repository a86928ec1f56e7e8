/**
 * Mistakes refused when the config loads (CONTRACT 8.1, 8.8 "Checked at config load", issue #30): each of these
 * used to load and fail only at run time, after a human had approved the run. Each problem names its path.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../../src/adapters/config/config.loader';
import { InvalidConfigError } from '../../../src/domain/errors';

const TO = '0x000000000000000000000000000000000000beef';
const KEY = `0x${'11'.repeat(32)}`;
const CHAIN = `
networks:
  anvil: { chain_id: 31337, rpc: [ { env: RPC } ] }
relayers:
  ops: { network: anvil, signer: { env: OPS_KEY } }
`;
const ENV = { OPS_KEY: KEY, RPC: 'http://127.0.0.1:8545' };

function problems(yaml: string, env: Record<string, string> = ENV): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-load-checks-'));
  try {
    fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `chainflow_version: 1\n${CHAIN}${yaml}`);
    loadConfig({ cwd: dir, env });
    return [];
  } catch (err) {
    if (err instanceof InvalidConfigError) return [...err.problems];
    throw err;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One manual workflow `pay` with these steps (YAML flow maps, one a line). */
const pay = (...steps: string[]): string => `workflows:\n  pay:\n    trigger: { kind: manual }\n    steps:\n${steps.map((s) => `      - ${s}\n`).join('')}`;

describe('function signatures and calls at config load', () => {
  it('takes canonical types, aliases, names, tuples and arrays', () => {
    expect(problems(pay(
      `{ id: a, type: send, relayer: ops, to: "${TO}", call: { function: "transfer(address to, uint amount)", args: [ "${TO}", 5 ] } }`,
      `{ id: b, type: send, relayer: ops, to: "${TO}", call: { function: "function f((address,uint256)[] memory xs, bytes32, int8[2])", args: [ [], "0x00", [1, 2] ] } }`,
      `{ id: c, type: read, network: anvil, to: "${TO}", call: { function: "balanceOf(address) view returns (uint256)", args: [ "${TO}" ] } }`,
      `{ id: d, type: send, relayer: ops, to: "${TO}", call: { function: "ping()" } }`,
    ))).toEqual([]);
  });

  it('refuses a missing comma, an unknown type and a bad tuple, naming call.function', () => {
    expect(problems(pay(
      `{ id: a, type: send, relayer: ops, to: "${TO}", call: { function: "transfer(address uint256)", args: [ "${TO}", 5 ] } }`,
      `{ id: b, type: send, relayer: ops, to: "${TO}", call: { function: "transfer(addres,uint256)", args: [ "${TO}", 5 ] } }`,
      `{ id: c, type: send, relayer: ops, to: "${TO}", call: { function: "f((address,uint256)", args: [ 1 ] } }`,
      `{ id: d, type: send, relayer: ops, to: "${TO}", call: { function: "f(uint7)", args: [ 1 ] } }`,
    ))).toEqual([
      "workflows.pay.steps[0].call.function: 'transfer(address uint256)': a comma is missing between address and uint256",
      "workflows.pay.steps[1].call.function: 'transfer(addres,uint256)': 'addres' is not an ABI type (address, bool, string, bytes, bytes1..32, uint8..256, int8..256, tuples, arrays)",
      "workflows.pay.steps[2].call.function: 'f((address,uint256)': unbalanced parentheses",
      "workflows.pay.steps[3].call.function: 'f(uint7)': 'uint7' is not an ABI type (address, bool, string, bytes, bytes1..32, uint8..256, int8..256, tuples, arrays)",
    ]);
  });

  it('refuses a read without returns, and a call given more or fewer arguments than it takes', () => {
    expect(problems(pay(
      `{ id: a, type: read, network: anvil, to: "${TO}", call: { function: "balanceOf(address)", args: [ "${TO}" ] } }`,
      `{ id: b, type: send, relayer: ops, to: "${TO}", call: { function: "transfer(address,uint256)", args: [ "${TO}" ] } }`,
      `{ id: c, type: send, relayer: ops, to: "${TO}", call: { function: "transfer(address,uint256)" } }`,
      `{ id: d, type: send, relayer: ops, to: "${TO}", call: { function: "approve(address)", args: [ "${TO}", 1, 2 ] } }`,
    ))).toEqual([
      'workflows.pay.steps[0].call.function: a read needs returns (…) to decode its result, as in balanceOf(address) returns (uint256)',
      'workflows.pay.steps[1].call.args: transfer takes 2 arguments, 1 given',
      'workflows.pay.steps[2].call.args: transfer takes 2 arguments, none given',
      'workflows.pay.steps[3].call.args: approve takes 1 argument, 3 given',
    ]);
  });

  it('leaves a templated signature to run time', () => {
    expect(problems(pay(`{ id: a, type: send, relayer: ops, to: "${TO}", call: { function: "\${{ trigger.payload.fn }}", args: [] } }`))).toEqual([]);
  });
});

describe('literal to at config load', () => {
  it('refuses a to of 39 hex digits, quoted or not, for a send and a read', () => {
    const short = TO.slice(0, -1);
    expect(problems(pay(
      `{ id: a, type: send, relayer: ops, to: "${short}", value: "1 wei" }`,
      `{ id: b, type: send, relayer: ops, to: ${short}, value: "1 wei" }`,
      `{ id: c, type: read, network: anvil, to: "${short}", call: { function: "f() returns (uint256)" } }`,
    ))).toEqual([
      `workflows.pay.steps[0].to: '${short}' is not a 20-byte 0x-hex address`,
      'workflows.pay.steps[1].to: must be a string, not a number',
      `workflows.pay.steps[2].to: '${short}' is not a 20-byte 0x-hex address`,
    ]);
  });

  it('says why an unquoted address arrives as digits, and checks the addresses in an address[] argument', () => {
    const unquoted = `0x1${'2'.repeat(38)}`;
    const digits = BigInt(unquoted).toString();
    expect(problems(pay(
      `{ id: a, type: send, relayer: ops, to: ${unquoted}, value: "1 wei" }`,
      `{ id: b, type: send, relayer: ops, to: "${TO}", call: { function: "airdrop(address[],uint256)", args: [ [ "${TO}", "${TO.slice(0, -1)}" ], 1 ] } }`,
    ))).toEqual([
      `workflows.pay.steps[0].to: '${digits}' is not a 20-byte 0x-hex address (an unquoted 0x… is read as a number: quote the address)`,
      `workflows.pay.steps[1].call.args[0][1]: '${TO.slice(0, -1)}' is not a 20-byte 0x-hex address`,
    ]);
  });
});

describe('CEL expressions type-checked against the context at config load', () => {
  it('takes expressions that read the trigger, earlier steps, run and relayers, and u256 arithmetic', () => {
    expect(problems(pay(
      `{ id: quote, type: http_call, url: "https://q.example/\${{ trigger.payload.asset }}" }`,
      `{ id: check, type: delay, duration: 1s, if: "steps.quote.output.status == 200 && run.session == 'live'" }`,
      `{ id: pay, type: send, relayer: ops, to: "\${{ relayers.ops.address }}", value: "\${{ u256(trigger.payload.amount) * 2 }}" }`,
      `{ id: notify, type: http_call, url: "https://n.example", if: "steps.pay.status == 'succeeded'" }`,
    ))).toEqual([]);
  });

  it('refuses a type error, a typo in a step id, a later step, and a non-bool if, naming each path', () => {
    expect(problems(`workflows:
  pay:
    trigger: { kind: manual }
    conditions:
      - { name: positive, if: '1 + "a" > 0' }
      - { name: early, if: "steps.quote.status == 'succeeded'" }
    steps:
      - { id: quote, type: http_call, url: "https://q.example/\${{ steps.notify.output }}" }
      - { id: pay, type: delay, duration: 1s, if: "steps.pya.status == 'succeeded'" }
      - { id: notify, type: http_call, url: "https://n.example", if: "1 + 2" }
`)).toEqual([
      'workflows.pay.conditions[0].if: not a valid CEL expression: no such overload: int + string',
      'workflows.pay.conditions[1].if: not a valid CEL expression: steps.quote has not run yet at this point (it runs here or later)',
      'workflows.pay.steps[0].url: not a valid CEL expression: steps.notify has not run yet at this point (it runs here or later)',
      'workflows.pay.steps[1].if: not a valid CEL expression: steps.pya names no step of this workflow (steps before this point: quote)',
      'workflows.pay.steps[2].if: not a valid CEL expression: must be a bool, not int',
    ]);
  });

  it('on_reorg steps read reorg and the run\'s steps; reorg is not in the context elsewhere', () => {
    expect(problems(`workflows:
  watch:
    trigger: { kind: event, network: anvil, address: "${TO}", event: "Transfer(address indexed from, address indexed to, uint256 value)" }
    steps:
      - { id: quote, type: http_call, url: "https://q.example/\${{ reorg.run_id }}" }
    on_reorg:
      - { id: undo, type: http_call, url: "https://u.example/\${{ reorg.run_id }}", if: "reorg.depth > 1 && steps.quote.status == 'succeeded'" }
      - { id: tell, type: http_call, url: "https://t.example", if: "steps.undo.status == 'succeeded'" }
`)).toEqual([
      'workflows.watch.steps[0].url: not a valid CEL expression: Unknown variable: reorg',
    ]);
  });
});

describe('relayer signers at config load', () => {
  const send = pay(`{ id: a, type: send, relayer: ops, to: "${TO}", value: "1 wei" }`);

  it('refuses a signer variable that holds no 32-byte hex key, naming the variable and never the value', () => {
    for (const value of ['0xsigner-key-value', `0x${'ab'.repeat(31)}`, `0x${'ab'.repeat(33)}`, `${KEY}\n`]) {
      const found = problems(send, { ...ENV, OPS_KEY: value });
      expect(found).toEqual(['relayers.ops.signer: environment variable OPS_KEY does not hold a 32-byte hex private key (0x and 64 hex digits)']);
      expect(found.join('\n')).not.toContain(value.slice(2, 12));
    }
    expect(problems(send, { ...ENV, OPS_KEY: 'ab'.repeat(32) })).toEqual([]);
  });

  it('loads with the signer variable unset (noted for the commands that sign), even with sends naming the relayer', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-load-checks-'));
    try {
      fs.writeFileSync(path.join(dir, 'chainflow.yaml'), `chainflow_version: 1\n${CHAIN}${send}`);
      const config = loadConfig({ cwd: dir, env: { RPC: ENV.RPC } });
      expect(config.unsetSecrets).toEqual([{ at: 'relayers.ops.signer', variable: 'OPS_KEY', empty: false }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
