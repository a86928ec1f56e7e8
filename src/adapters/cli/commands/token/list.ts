import { Flags } from '@oclif/core';
import { ListBearers } from '../../../../application/auth/manage-bearers.use-case';
import { ChainflowCommand } from '../../base.command';
import { renderTable } from '../../table';

/** `chainflow token list`: name, created, last used, revoked; never the token. */
export default class TokenList extends ChainflowCommand {
  static override summary = 'List named bearers (never their tokens)';
  static override flags = { json: Flags.boolean({ description: 'print the list as JSON' }) };

  async run(): Promise<void> {
    const { flags } = await this.parse(TokenList);
    const root = await this.root(flags.config);
    const bearers = await root.container.get(ListBearers).execute();
    if (flags.json) {
      this.log(JSON.stringify(bearers, null, 2));
      return;
    }
    if (!bearers.length) {
      this.log('no bearers');
      return;
    }
    this.log(renderTable(['NAME', 'CREATED', 'LAST USED', 'REVOKED'], bearers.map((b) => [b.name, b.created_at, b.last_used_at, b.revoked_at])));
  }
}
