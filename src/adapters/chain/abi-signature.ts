import { AbiError } from '../../application/ports/contract-abi';

/** A parsed human-readable function signature, its types canonical (`uint` is `uint256`, tuples `tuple(…)`). */
export interface Signature {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** `name(type,…)` as the selector is hashed from: tuples as bare parentheses. */
  readonly canonical: string;
}

/** Tolerated after the arguments, as Solidity writes them; they change nothing in the encoding. */
const MODIFIERS = new Set(['external', 'public', 'view', 'pure', 'payable', 'nonpayable']);
/** Tolerated between a parameter's type and its name. */
const LOCATIONS = new Set(['memory', 'calldata', 'storage', 'indexed', 'payable']);
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const EXAMPLE = 'such as transfer(address,uint256)';

/** The canonical name of an elementary ABI type, or undefined when `word` is none (`addres`, `uint7`, `bytes33`). */
export function elementaryType(word: string): string | undefined {
  if (word === 'uint' || word === 'int') return `${word}256`;
  if (['address', 'bool', 'string', 'bytes', 'function'].includes(word)) return word;
  const sized = /^(u?int|bytes)([0-9]+)$/.exec(word);
  if (!sized || sized[2]!.startsWith('0')) return undefined;
  const bits = Number(sized[2]);
  if (sized[1] === 'bytes') return bits >= 1 && bits <= 32 ? word : undefined;
  return bits >= 8 && bits <= 256 && bits % 8 === 0 ? word : undefined;
}

/** One parameter of an event: its canonical type, its name, and whether it is a topic (`indexed`). */
export interface EventParam {
  readonly type: string;
  readonly name: string;
  readonly indexed: boolean;
}

/** A parsed event signature (`Transfer(address indexed from, address indexed to, uint256 value)`). */
export interface EventSignature {
  readonly name: string;
  readonly inputs: readonly EventParam[];
  /** `Name(type,…)`, as topic 0 is hashed from. */
  readonly canonical: string;
}

/** Topics beside topic 0 (the event's own) that an event may index. */
const MAX_INDEXED = 3;

/**
 * Parses `[event] Name(type [indexed] name, …)`: every parameter needs a name (a run's payload is the decoded log
 * by argument name), at most three are `indexed`, and nothing follows the parentheses (anonymous events have no
 * topic 0 to filter by, so they are refused).
 * @throws AbiError naming what is wrong
 */
export function parseEventSignature(text: string): EventSignature {
  return new SignatureParser(text).event();
}

/**
 * Parses `name(type a, type b) [view] [returns (type)]` without web3 (a config load checks every signature, and
 * loading web3 costs more than the whole load): the `function` keyword, parameter names, data locations and
 * modifiers are tolerated; a type that is not an ABI type, or two types without a comma between them, is refused.
 * @throws AbiError naming what is wrong
 */
export function parseSignature(text: string): Signature {
  const parser = new SignatureParser(text);
  return parser.signature();
}

class SignatureParser {
  private readonly tokens: string[];
  private at = 0;

  constructor(private readonly text: string) {
    this.tokens = text.trim().match(/[A-Za-z0-9_$]+|\S/g) ?? [];
  }

  signature(): Signature {
    if (this.peek() === 'function') this.at++;
    const name = this.next();
    if (!name || !IDENT.test(name) || this.peek() !== '(') this.fail(`is not a function signature ${EXAMPLE}`);
    const inputs = this.list();
    let outputs: string[] = [];
    while (this.peek() !== undefined) {
      const word = this.next()!;
      if (MODIFIERS.has(word)) continue;
      if (word !== 'returns') this.fail(`unexpected '${word}' after the arguments`);
      if (this.peek() !== '(') this.fail('returns needs its types in parentheses: returns (uint256)');
      outputs = this.list();
    }
    const bare = (type: string): string => type.replace(/tuple\(/g, '(');
    return { name, inputs, outputs, canonical: `${name}(${inputs.map(bare).join(',')})` };
  }

  event(): EventSignature {
    if (this.peek() === 'event') this.at++;
    const name = this.next();
    if (!name || !IDENT.test(name) || this.peek() !== '(') this.fail('is not an event signature such as Transfer(address indexed from, address indexed to, uint256 value)');
    this.expect('(');
    const inputs: EventParam[] = [];
    while (this.peek() !== ')') {
      if (inputs.length > 0) this.expect(',');
      const type = this.type();
      const indexed = this.peek() === 'indexed';
      if (indexed) this.at++;
      const param = this.peek();
      if (param === undefined || !IDENT.test(param) || elementaryType(param) || param === 'indexed') {
        this.fail(`parameter ${inputs.length + 1} (${type}) needs a name: a run's payload holds the log's arguments by name`);
      }
      this.at++;
      if (inputs.some((p) => p.name === param)) this.fail(`two parameters are named '${param}'`);
      inputs.push({ type, name: param!, indexed });
    }
    this.at++;
    if (this.peek() !== undefined) this.fail(`unexpected '${this.peek()}' after the parameters`);
    if (inputs.filter((p) => p.indexed).length > MAX_INDEXED) this.fail(`at most ${MAX_INDEXED} parameters may be indexed`);
    const bare = (type: string): string => type.replace(/tuple\(/g, '(');
    return { name, inputs, canonical: `${name}(${inputs.map((p) => bare(p.type)).join(',')})` };
  }

  /** `( param, … )`: the canonical types. */
  private list(): string[] {
    this.expect('(');
    const types: string[] = [];
    if (this.peek() === ')') {
      this.at++;
      return types;
    }
    for (;;) {
      types.push(this.param());
      const sep = this.next();
      if (sep === ')') return types;
      if (sep !== ',') this.fail(sep === undefined ? 'unbalanced parentheses' : `expected ',' or ')', not '${sep}'`);
    }
  }

  /** `type [location] [name]`. */
  private param(): string {
    const type = this.type();
    while (this.peek() !== undefined && LOCATIONS.has(this.peek()!)) this.at++;
    const word = this.peek();
    if (word !== undefined && IDENT.test(word)) {
      this.at++;
      if (elementaryType(word) || word === 'tuple') this.fail(`a comma is missing between ${type} and ${word}`);
      const after = this.peek();
      if (after !== undefined && after !== ',' && after !== ')') this.fail(`a comma is missing after '${word}'`);
    }
    return type;
  }

  /** An elementary type or a tuple, with any array suffixes. */
  private type(): string {
    let base: string;
    const word = this.peek();
    if (word === '(' || word === 'tuple') {
      if (word === 'tuple') this.at++;
      base = `tuple(${this.list().join(',')})`;
    } else {
      this.at++;
      if (word === undefined || word === ')' || word === ',') this.fail('a parameter type is missing');
      const elementary = elementaryType(word!);
      if (!elementary) this.fail(`'${word}' is not an ABI type (address, bool, string, bytes, bytes1..32, uint8..256, int8..256, tuples, arrays)`);
      base = elementary!;
    }
    while (this.peek() === '[') {
      this.at++;
      const size = this.peek() !== ']' ? this.next() : '';
      if (size && !/^[1-9][0-9]*$/.test(size)) this.fail(`'[${size}]' is not an array size`);
      this.expect(']');
      base += `[${size}]`;
    }
    return base;
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }

  private next(): string | undefined {
    return this.tokens[this.at++];
  }

  private expect(token: string): void {
    const got = this.next();
    if (got !== token) this.fail(got === undefined ? 'unbalanced parentheses' : `expected '${token}', not '${got}'`);
  }

  private fail(reason: string): never {
    throw new AbiError(`'${this.text}': ${reason}`);
  }
}
