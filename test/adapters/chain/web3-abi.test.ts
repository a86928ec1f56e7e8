import { decodeRevert, parseSignature, Web3Abi } from '../../../src/adapters/chain/web3-abi';
import { AbiError } from '../../../src/application/ports/contract-abi';

const abi = new Web3Abi();
const word = (hex: string): string => hex.replace(/^0x/, '').padStart(64, '0');

describe('ABI from human-readable signatures', () => {
  it('encodes a call: the selector, then the arguments (strings, numbers, templates rendered)', () => {
    const to = '0x000000000000000000000000000000000000bEEF';
    expect(abi.encodeCall('transfer(address,uint256)', [to, '1000'])).toBe(`0xa9059cbb${word('beef')}${word((1000).toString(16))}`);
    expect(abi.encodeCall('function transfer(address to, uint256 amount)', [to, 1000])).toBe(abi.encodeCall('transfer(address,uint256)', [to, '1000']));
    expect(abi.encodeCall('ping()', [])).toBe('0x5c36b186');
  });

  it('hashes the selector from canonical types: uint is uint256, a tuple is bare parentheses', () => {
    const to = '0x000000000000000000000000000000000000bEEF';
    expect(abi.encodeCall('transfer(address to, uint amount)', [to, 1])).toBe(abi.encodeCall('transfer(address,uint256)', [to, 1]));
    expect(parseSignature('f(tuple(address,uint)[] xs, (bool,int8))').canonical).toBe('f((address,uint256)[],(bool,int8))');
  });

  it('decodes results: a uint256 beyond 2^53 as a decimal string, several outputs as a list', () => {
    const big = 2n ** 200n + 7n;
    expect(abi.decodeResult('balanceOf(address) returns (uint256)', `0x${word(big.toString(16))}`)).toBe(big.toString());
    expect(abi.decodeResult('f() view returns (bool, address)', `0x${word('1')}${word('beef')}`)).toEqual([true, '0x000000000000000000000000000000000000bEEF']);
    expect(abi.decodeResult('g()', '0x')).toBeNull();
  });

  it('refuses what is not a signature, or arguments that do not fit, with a clear message', () => {
    expect(() => abi.encodeCall('transfer', [])).toThrow(AbiError);
    expect(() => abi.encodeCall('transfer(address,uint256)', ['0x12'])).toThrow(/takes 2 arguments, 1 given/);
    expect(() => abi.encodeCall('transfer(address,uint256)', ['not-an-address', '1'])).toThrow(/arguments do not fit transfer\(address,uint256\)/);
    expect(() => parseSignature('f(uint256) returns uint256')).toThrow(AbiError);
    expect(() => abi.decodeResult('f() returns (uint256)', 'zz')).toThrow(AbiError);
  });

  it('decodes revert reasons: Error(string), Panic(uint256), a custom error as raw data, none', () => {
    const text = Buffer.from('not enough balance').toString('hex');
    const error = `0x08c379a0${word('20')}${word((18).toString(16))}${text.padEnd(64, '0')}`;
    expect(decodeRevert(error)).toBe('not enough balance');
    expect(decodeRevert(`0x4e487b71${word('11')}`)).toBe('Panic(0x11): arithmetic overflow or underflow');
    expect(decodeRevert('0xdeadbeef00')).toBe('custom error 0xdeadbeef00');
    expect(decodeRevert('0x')).toBe('execution reverted (no reason given)');
    expect(decodeRevert(undefined, 'out of gas')).toBe('out of gas (no reason given)');
  });
});
