import { Web3Abi } from '../../../src/adapters/chain/web3-abi';
import { AbiError } from '../../../src/application/ports/contract-abi';

/** EIP-55's own example, and the same address with its last letter's case flipped. */
const GOOD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BAD = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD';
const abi = new Web3Abi();

describe('EIP-55 address checks (CONTRACT 8.8)', () => {
  it('takes a right checksum, all-lowercase and all-uppercase; refuses a wrong checksum and what is not an address', () => {
    expect(abi.addressProblem(GOOD)).toBeUndefined();
    expect(abi.addressProblem(GOOD.toLowerCase())).toBeUndefined();
    expect(abi.addressProblem(`0x${GOOD.slice(2).toUpperCase()}`)).toBeUndefined();
    // EIP-55's other examples, as published.
    for (const a of ['0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359', '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb']) {
      expect(abi.addressProblem(a)).toBeUndefined();
    }
    expect(abi.addressProblem(BAD)).toMatch(/wrong EIP-55 checksum/);
    expect(abi.addressProblem('0xbeef')).toBe('is not a 20-byte 0x-hex address');
    expect(abi.addressProblem(`${GOOD}00`)).toBe('is not a 20-byte 0x-hex address');
  });

  it('refuses a call whose address argument has a wrong checksum, naming the argument (in lists too)', () => {
    expect(() => abi.encodeCall('transfer(address,uint256)', [BAD, '1'])).toThrow(AbiError);
    expect(() => abi.encodeCall('transfer(address,uint256)', [BAD, '1'])).toThrow(`arguments do not fit transfer(address,uint256): args[0]: '${BAD}' has a wrong EIP-55 checksum`);
    expect(() => abi.encodeCall('f(uint256,address[])', ['1', [GOOD, BAD]])).toThrow(`args[1][1]: '${BAD}'`);
    // A string argument of another type is not an address: its case is its own.
    expect(abi.encodeCall('g(string)', [BAD])).toMatch(/^0x/);
    expect(abi.encodeCall('transfer(address,uint256)', [GOOD.toLowerCase(), '1'])).toBe(abi.encodeCall('transfer(address,uint256)', [GOOD, '1']));
  });
});
