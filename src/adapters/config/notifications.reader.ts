import type { NotificationChannelConfig, NotifyRule } from '../../application/config';
import type { NotificationType } from '../../domain/notifications/notification';
import { childPath } from './config.schema';
import { configuredNames, isMap, type Raw } from './config-document';

/** What the notifications reader needs from the config reader around it. */
export interface NotificationsReaderContext {
  problem(at: string, message: string): void;
  /** Resolves a secret reference; undefined when it is not one or its variable is unset. */
  resolve(value: unknown, at: string): string | undefined;
  /** Where a reference's value comes from, in words (never the value). */
  variableOf(ref: unknown): string;
}

/**
 * A Standard Webhooks signing secret: `whsec_` and the base64 of 24 to 64 random bytes (the specification's
 * range). Checked at load, so a mistyped secret is named before the first failure needs telling.
 */
const WHSEC = /^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/;

/** `notifications:` (CONTRACT 11): the channels by name, shape-checked by the schema already. */
export function readChannels(raw: unknown, ctx: NotificationsReaderContext): Map<string, NotificationChannelConfig> {
  const channels = new Map<string, NotificationChannelConfig>();
  for (const [name, channel] of Object.entries(isMap(raw) ? raw : {})) {
    if (!isMap(channel)) continue;
    const at = childPath('notifications', name);
    if (channel.kind === 'webhook') {
      const secret = ctx.resolve(channel.secret, childPath(at, 'secret'));
      if (secret !== undefined && !WHSEC.test(secret)) {
        ctx.problem(childPath(at, 'secret'), `${ctx.variableOf(channel.secret)} does not hold a Standard Webhooks secret (whsec_ and base64 of 24 to 64 bytes)`);
      }
      channels.set(name, { name, kind: 'webhook', url: String(channel.url ?? ''), ...(secret !== undefined ? { secret } : {}) });
    } else if (channel.kind === 'slack') {
      const url = ctx.resolve(channel.url, childPath(at, 'url'));
      if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) {
        ctx.problem(childPath(at, 'url'), `${ctx.variableOf(channel.url)} does not hold an http(s) URL`);
      }
      channels.set(name, { name, kind: 'slack', ...(url !== undefined ? { url } : {}) });
    }
  }
  return channels;
}

/** A `notify` rule at `at`, its channel names checked against `channels`; undefined when absent. */
export function readNotifyRule(raw: unknown, at: string, channels: ReadonlyMap<string, NotificationChannelConfig>, ctx: NotificationsReaderContext): NotifyRule | undefined {
  if (!isMap(raw)) return undefined;
  const rule = raw as Raw;
  const to = Array.isArray(rule.to) ? rule.to.map(String) : [];
  to.forEach((name, i) => {
    if (!channels.has(name)) ctx.problem(childPath(childPath(at, 'to'), i), `names no configured notification channel${configuredNames(channels)}`);
  });
  return { on: (Array.isArray(rule.on) ? rule.on.map(String) : []) as NotificationType[], to };
}
