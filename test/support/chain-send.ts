import type { ChainReader, ChainSender, ChainTarget, SignedTransaction } from '../../src/application/ports/chain';
import type { Fees } from '../../src/domain/chain/fees';

export interface OneSend {
  readonly target: ChainTarget;
  readonly signer: string;
  readonly to: string;
  readonly valueWei: bigint;
  readonly data?: string;
  readonly gasLimit?: bigint;
  readonly nonce?: number;
  readonly fees?: Fees;
}

/**
 * For tests of the chain ports: what the send path does around them, in its simplest form (pending nonce, estimate,
 * market fees, sign, broadcast). Resolves with the signed transaction once broadcast.
 */
export async function sendOnce(chain: ChainReader & ChainSender, s: OneSend): Promise<SignedTransaction> {
  const from = chain.address(s.signer);
  const data = s.data ?? '0x';
  let gasLimit = s.gasLimit;
  if (gasLimit === undefined) {
    const simulated = await chain.simulate(s.target, { from, to: s.to, valueWei: s.valueWei, data });
    if (!simulated.ok) throw new Error(`simulation: ${simulated.revertReason}`);
    gasLimit = simulated.gasEstimate;
  }
  const signed = await chain.sign({
    chainId: s.target.chainId, signer: s.signer, nonce: s.nonce ?? (await chain.nonce(s.target, from, 'pending')), to: s.to,
    valueWei: s.valueWei, data, gasLimit, fees: s.fees ?? (await chain.fees(s.target)),
  });
  await chain.broadcast(s.target, signed);
  return signed;
}
