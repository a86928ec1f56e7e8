import { injectable } from 'inversify';
import { AbiError, type ContractAbi } from '../../application/ports/contract-abi';
import type { Json } from '../../domain/journal/journal-event';
import { parseSignature } from './abi-signature';
import { addressProblem } from './eip55';
import { web3 } from './web3-module';

export { parseSignature } from './abi-signature';

const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const ERROR_SELECTOR = '0x08c379a0';
const PANIC_SELECTOR = '0x4e487b71';
const PANICS: Readonly<Record<number, string>> = {
  0x01: 'assertion failed', 0x11: 'arithmetic overflow or underflow', 0x12: 'division by zero', 0x21: 'invalid enum value',
  0x22: 'bad storage byte array', 0x31: 'pop on an empty array', 0x32: 'array index out of bounds', 0x41: 'out of memory',
  0x51: 'call to a zero function',
};

/** ABI encoding over web3.js's ABI coder (CONTRACT 8.1 `call: { function, args }`). */
@injectable()
export class Web3Abi implements ContractAbi {
  encodeCall(signature: string, args: readonly Json[]): string {
    const sig = parseSignature(signature);
    if (args.length !== sig.inputs.length) {
      throw new AbiError(`${sig.name} takes ${sig.inputs.length} argument${sig.inputs.length === 1 ? '' : 's'}, ${args.length} given`);
    }
    try {
      sig.inputs.forEach((type, i) => checkAddresses(type, args[i]!, `args[${i}]`));
    } catch (err) {
      throw new AbiError(`arguments do not fit ${sig.name}(${sig.inputs.join(',')}): ${(err as Error).message}`);
    }
    const { abi } = web3().eth;
    try {
      const selector = abi.encodeFunctionSignature(sig.canonical);
      const encoded = sig.inputs.length ? abi.encodeParameters([...sig.inputs], args.map(toAbiValue)) : '0x';
      return `${selector}${encoded.slice(2)}`;
    } catch (err) {
      throw new AbiError(`arguments do not fit ${sig.name}(${sig.inputs.join(',')}): ${firstLine(err)}`);
    }
  }

  addressProblem(address: string): string | undefined {
    return addressProblem(address);
  }

  decodeResult(signature: string, data: string): Json {
    const sig = parseSignature(signature);
    if (!HEX_DATA.test(data)) throw new AbiError('the returned data is not 0x-hex');
    if (sig.outputs.length === 0) return null;
    try {
      const decoded = web3().eth.abi.decodeParameters([...sig.outputs], data) as Record<string, unknown>;
      const values = sig.outputs.map((_, i) => toJson(decoded[String(i)]));
      return values.length === 1 ? values[0]! : values;
    } catch (err) {
      throw new AbiError(`the returned data does not decode as (${sig.outputs.join(',')}): ${firstLine(err)}`);
    }
  }
}

/**
 * A revert's reason from its data: Error(string) as its text, Panic(uint256) as its code and meaning, a custom
 * error as its raw data (its ABI is not known here), no data as "no reason given".
 */
export function decodeRevert(data: string | undefined, fallback = 'execution reverted'): string {
  if (!data || data === '0x') return `${fallback} (no reason given)`;
  const { abi } = web3().eth;
  const selector = data.slice(0, 10).toLowerCase();
  try {
    if (selector === ERROR_SELECTOR) return String(abi.decodeParameter('string', `0x${data.slice(10)}`));
    if (selector === PANIC_SELECTOR) {
      const code = Number(abi.decodeParameter('uint256', `0x${data.slice(10)}`) as bigint);
      return `Panic(0x${code.toString(16).padStart(2, '0')})${PANICS[code] ? `: ${PANICS[code]}` : ''}`;
    }
  } catch {
    // Malformed standard error data: shown raw below.
  }
  const raw = data.length > 266 ? `${data.slice(0, 266)}…` : data;
  return `custom error ${raw}`;
}

/**
 * An address argument (or a list of them) must pass the same check as a send's `to`: the ABI coder itself takes
 * any mixed case, so a mistyped token recipient would be paid.
 */
function checkAddresses(type: string, value: Json, at: string): void {
  const list = /^address(\[[0-9]*\])+$/.test(type);
  if (list && Array.isArray(value)) {
    const inner = type.slice(0, type.lastIndexOf('['));
    value.forEach((v, i) => checkAddresses(inner, v, `${at}[${i}]`));
    return;
  }
  if (type !== 'address' || typeof value !== 'string') return;
  const problem = addressProblem(value.trim());
  if (problem) throw new AbiError(`${at}: '${value}' ${problem}`);
}

function toAbiValue(value: Json): unknown {
  if (Array.isArray(value)) return value.map(toAbiValue);
  return value;
}

/** Decoded ABI values as JSON: integers as decimal strings, the rest as web3 gives them. */
function toJson(value: unknown): Json {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object' && value !== undefined) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([k]) => k !== '__length__' && !/^[0-9]+$/.test(k));
    if (entries.length) return Object.fromEntries(entries.map(([k, v]) => [k, toJson(v)]));
    const length = Number((value as { __length__?: unknown }).__length__ ?? 0);
    return Array.from({ length }, (_, i) => toJson((value as Record<string, unknown>)[String(i)]));
  }
  return null;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split('\n')[0] ?? text;
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
