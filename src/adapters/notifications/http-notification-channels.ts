import { inject, injectable } from 'inversify';
import { Webhook } from 'standardwebhooks';
import { ChainflowConfig } from '../../application/config';
import type { ChannelAnswer, NotificationChannels } from '../../application/ports/notification-outbox';
import type { Notification } from '../../domain/notifications/notification';
import { toIso } from '../../domain/time';

/** One attempt's bound: a receiver that hangs is a refusal, retried later, not a stuck drain. */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** The body of a webhook delivery: `{ type, at, data }`, as the receiver verifies it byte for byte. */
export function webhookBody(n: Notification): string {
  return JSON.stringify({ type: n.type, at: toIso(n.at), data: n.data });
}

/** Slack's mrkdwn needs only these three escaped (api.slack.com/reference/surfaces/formatting#escaping). */
const slackEscape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const HEADLINE: Readonly<Record<string, string>> = {
  run_failed: 'run failed', run_dead_lettered: 'run dead-lettered', budget_exceeded: 'send refused by its budget',
  approval_requested: 'approval requested', relayer_low_balance: 'relayer balance low', reorg: 'reorg', event_lag: 'event lag', test: 'test delivery',
};

/** The Slack message: what happened, the error or the approval's message, and a link to the run in the UI. */
export function slackText(n: Notification, uiBase: string): string {
  const d = n.data as Record<string, unknown>;
  const head = `*${HEADLINE[n.type] ?? n.type}*${n.workflow ? `: ${slackEscape(n.workflow)}` : ''}`;
  const detail = [d.error_kind, d.message].filter((v) => typeof v === 'string' && v !== '').map((v) => slackEscape(String(v))).join(': ');
  const link = n.runId ? `<${uiBase}/#/run/${encodeURIComponent(n.runId)}|run ${slackEscape(n.runId)}>` : '';
  return [head, detail, link].filter(Boolean).join('\n');
}

/**
 * Deliveries over HTTP (CONTRACT 11): a webhook channel gets a Standard Webhooks POST (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256>` signed by the `standardwebhooks` library with the
 * channel's `whsec_` secret); a Slack channel gets an incoming-webhook message `{ text }`. Redirects are not followed:
 * a signed body goes only where it was configured to go.
 */
@injectable()
export class HttpNotificationChannels implements NotificationChannels {
  private readonly uiBase: string;

  constructor(@inject(ChainflowConfig) private readonly config: ChainflowConfig) {
    const { server } = config;
    const host = server.host.includes(':') ? `[${server.host}]` : server.host;
    this.uiBase = server.publicUrl ?? `http://${host}:${server.port}`;
  }

  async deliver(n: Notification): Promise<ChannelAnswer> {
    const channel = this.config.notifications?.get(n.channel);
    if (!channel) return { ok: false, error: `channel '${n.channel}' is no longer configured`, permanent: true };
    if (channel.kind === 'webhook') {
      if (channel.secret === undefined) return { ok: false, error: `notifications.${n.channel}.secret: its variable is not set` };
      const body = webhookBody(n);
      const sentAt = new Date();
      return this.post(channel.url, body, {
        'webhook-id': n.id,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': new Webhook(channel.secret).sign(n.id, sentAt, body),
      });
    }
    if (channel.url === undefined) return { ok: false, error: `notifications.${n.channel}.url: its variable is not set` };
    return this.post(channel.url, JSON.stringify({ text: slackText(n, this.uiBase) }), {});
  }

  private async post(url: string, body: string, headers: Record<string, string>): Promise<ChannelAnswer> {
    try {
      const res = await fetch(url, {
        method: 'POST', body, redirect: 'manual', signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        headers: { 'content-type': 'application/json', 'user-agent': 'chainflow-notifications', ...headers },
      });
      // The body is not needed; reading it frees the connection for the next delivery.
      await res.arrayBuffer().catch(() => undefined);
      return res.status >= 200 && res.status < 300 ? { ok: true } : { ok: false, error: `HTTP ${res.status}` };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError') return { ok: false, error: `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s` };
      return { ok: false, error: e.cause?.code ? `connection failed (${e.cause.code})` : e.message };
    }
  }
}
