import { inject, injectable } from 'inversify';
import type { ChainStep } from '../../domain/engine/workflow';
import type { Json } from '../../domain/journal/journal-event';
import { Redactor } from '../../domain/redactor';
import { ChainflowConfig } from '../config';
import { CallRevertedError, ChainReader } from '../ports/chain';
import { AbiError, ContractAbi } from '../ports/contract-abi';
import { ExpressionError, Expressions } from '../ports/expressions';
import { targetOf } from '../sends/relayers';
import type { Attempted, AttemptContext, PreparedAttempt } from './attempt';
import { replayBlockOf } from './run-scope';
import { renderTree } from './templates';


/**
 * The `read` step (CONTRACT 8.1): a contract view call at the latest block (a replay session's at its log's block), `call: { function: "balanceOf(address)
 * returns (uint256)", args }`, its result decoded into `output.result` (integers as decimal strings). A revert fails
 * the step `reverted` (never retried: the same call reverts again); no provider answering fails it `read_failed`.
 */
@injectable()
export class ReadStep {
  constructor(
    @inject(ChainflowConfig) private readonly config: ChainflowConfig,
    @inject(ChainReader) private readonly reader: ChainReader,
    @inject(ContractAbi) private readonly abi: ContractAbi,
    @inject(Expressions) private readonly expressions: Expressions,
    @inject(Redactor) private readonly redactor: Redactor,
  ) {}

  /** @throws ExpressionError */
  prepare(step: ChainStep, ctx: AttemptContext): PreparedAttempt {
    const f = renderTree(step.fields as Json, this.expressions, ctx.scope) as Record<string, Json>;
    const networkName = String(f.network ?? '');
    const network = this.config.networks.get(networkName);
    if (!network) throw new ExpressionError(`network: no network named '${networkName}' is configured`);
    const to = String(f.to ?? '').trim();
    const problem = this.abi.addressProblem(to);
    if (problem) throw new ExpressionError(`to: '${to}' ${problem}`);
    const call = (f.call && typeof f.call === 'object' && !Array.isArray(f.call) ? f.call : {}) as Record<string, Json>;
    const fn = String(call.function ?? '');
    const args = Array.isArray(call.args) ? call.args : [];
    let data: string;
    try {
      data = this.abi.encodeCall(fn, args);
    } catch (err) {
      if (err instanceof AbiError) throw new ExpressionError(`call: ${err.message}`);
      throw err;
    }
    const block = replayBlockOf(ctx.scope);
    return {
      input: { network: network.name, to, call: { function: fn, args }, ...(block !== undefined ? { block: block.toString() } : {}) },
      // A view call changes nothing: its start is journaled with its end.
      sideEffects: false,
      run: async (): Promise<Attempted> => {
        try {
          const returned = await this.reader.call(targetOf(network), { to, data, ...(block !== undefined ? { block } : {}) });
          return { kind: 'succeeded', output: { result: this.abi.decodeResult(fn, returned) } };
        } catch (err) {
          if (err instanceof CallRevertedError) return { kind: 'failed', error: { kind: 'reverted', message: this.redactor.redactText(err.message) } };
          if (err instanceof AbiError) return { kind: 'failed', error: { kind: 'read_failed', message: err.message }, retryable: false };
          return { kind: 'failed', error: { kind: 'read_failed', message: this.redactor.redactText(err instanceof Error ? err.message : String(err)) } };
        }
      },
    };
  }
}
