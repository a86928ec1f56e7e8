import { Args, Flags } from '@oclif/core';
import { TestNotification } from '../../../../application/notifications/test-notification.use-case';
import { ChainflowCommand } from '../../base.command';

/** `chainflow notifications test CHANNEL`: one delivery of type `test`, now; exit 1 when the channel refused it. */
export default class NotificationsTest extends ChainflowCommand {
  static override summary = 'Send a test delivery over a notification channel and say whether it was taken';
  static override args = { channel: Args.string({ required: true, description: 'channel name (notifications.<name>)' }) };
  static override flags = { json: Flags.boolean({ description: 'print { id, channel, delivered, error } as JSON' }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(NotificationsTest);
    const root = await this.root(flags.config);
    const result = await root.container.get(TestNotification).execute(args.channel);
    if (flags.json) this.log(JSON.stringify(result));
    else this.log(result.delivered ? `delivered ${result.id} to ${result.channel}` : `not delivered to ${result.channel}: ${result.error}`);
    if (!result.delivered) this.exit(1);
  }
}
