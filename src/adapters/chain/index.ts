export { addressProblem } from './eip55';
export { parseEventSignature, parseSignature, type EventSignature, type Signature } from './abi-signature';
