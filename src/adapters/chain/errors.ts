// ChainRejectedError belongs to the chain ports (the send path tells a nonce error from others); re-exported here
// for the adapter's callers.
export { ChainRejectedError } from '../../application/ports/chain';
