import { Args, Flags } from '@oclif/core';
import { MintBearer } from '../../../../application/auth/manage-bearers.use-case';
import { ChainflowCommand } from '../../base.command';

/** `chainflow token mint NAME`: a named bearer; the token is printed once, alone on the last line. */
export default class TokenMint extends ChainflowCommand {
  static override summary = 'Mint a named bearer token (printed once; stored hashed)';
  static override args = { name: Args.string({ required: true, description: 'name of the bearer (who or what uses it)' }) };
  static override flags = { json: Flags.boolean({ description: 'print { name, token, created_at }' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(TokenMint);
    const root = await this.root(flags.config);
    const minted = await root.container.get(MintBearer).execute(args.name);
    if (flags.json) {
      this.log(JSON.stringify(minted));
      return;
    }
    this.log(`minted bearer '${minted.name}' at ${minted.created_at}; store the token now, it is not shown again:`);
    this.log(minted.token);
  }
}
