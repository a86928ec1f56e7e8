/**
 * The node refused the transaction itself (insufficient funds, nonce too low, gas estimation reverted, ...):
 * another provider would answer the same, so none is tried, and a retry would fail alike. The message holds
 * the node's reason, scrubbed of URLs and of the signer key. (ChainUnavailableError, from the port, is the
 * other failure: no provider answered at all.)
 */
export class ChainRejectedError extends Error {
  constructor(readonly network: string, readonly reason: string) {
    super(`${network}: transaction rejected: ${reason}`);
    this.name = 'ChainRejectedError';
  }
}
