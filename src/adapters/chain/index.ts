export { addressProblem } from './eip55';
export { parseSignature, type Signature } from './abi-signature';
