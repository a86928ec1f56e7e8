import { Args } from '@oclif/core';
import { RevokeBearer } from '../../../../application/auth/manage-bearers.use-case';
import { ChainflowCommand } from '../../base.command';

/** `chainflow token revoke NAME`: the bearer fails from the next request on. */
export default class TokenRevoke extends ChainflowCommand {
  static override summary = 'Revoke a named bearer (effective on the next request, also in a running server)';
  static override args = { name: Args.string({ required: true, description: 'name of the bearer' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TokenRevoke);
    const root = await this.root(flags.config);
    await root.container.get(RevokeBearer).execute(args.name);
    this.log(`revoked bearer '${args.name}'`);
  }
}
