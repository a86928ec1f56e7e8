export { addressProblem } from './eip55';
export { parseSignature } from './web3-abi';
