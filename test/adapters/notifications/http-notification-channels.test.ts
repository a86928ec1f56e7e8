/**
 * The HTTP channels (CONTRACT 11) against a local receiver: a Slack channel gets `{ text }` with a link to the run in
 * the UI; a webhook channel gets a Standard Webhooks delivery the library verifies; a status other than 2xx, a
 * redirect or no answer is a refusal.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { defaultConfig } from '../../../src/adapters/config/config.loader';
import { HttpNotificationChannels } from '../../../src/adapters/notifications/http-notification-channels';
import type { ChainflowConfig, NotificationChannelConfig } from '../../../src/application/config';
import { newNotification } from '../../../src/domain/notifications/notification';
import { T0 } from '../../mothers/journal-events';

const WHSEC = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

describe('HttpNotificationChannels', () => {
  let server: Server;
  let base = '';
  let status = 200;
  const got: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => void (body += d.toString()));
      req.on('end', () => {
        got.push({ path: req.url ?? '', headers: req.headers, body });
        res.writeHead(status, status === 302 ? { location: 'http://elsewhere.example/' } : {}).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    got.length = 0;
    status = 200;
  });

  const channels = (publicUrl?: string): HttpNotificationChannels => {
    const d = defaultConfig(process.cwd());
    const notifications = new Map<string, NotificationChannelConfig>([
      ['ops', { name: 'ops', kind: 'webhook', url: `${base}/hook`, secret: WHSEC }],
      ['team', { name: 'team', kind: 'slack', url: `${base}/slack` }],
    ]);
    const config: ChainflowConfig = { ...d, server: { ...d.server, ...(publicUrl ? { publicUrl } : {}) }, notifications };
    return new HttpNotificationChannels(config);
  };
  const failed = (channel: string) => newNotification({
    id: 'msg_abc', channel, type: 'run_failed', runId: 'r-1<x>', workflow: 'payouts', at: T0,
    data: { run_id: 'r-1<x>', workflow: 'payouts', error_kind: 'http_status', message: 'HTTP 500 & <b>' },
  }, T0);

  it('Slack: an incoming-webhook message with the error and a link to the run (public_url, else host:port)', async () => {
    expect(await channels('https://chainflow.example').deliver(failed('team'))).toEqual({ ok: true });
    expect(JSON.parse(got[0]!.body)).toEqual({
      text: '*run failed*: payouts\nhttp_status: HTTP 500 &amp; &lt;b&gt;\n<https://chainflow.example/#/run/r-1%3Cx%3E|run r-1&lt;x&gt;>',
    });
    await channels().deliver(failed('team'));
    expect(JSON.parse(got[1]!.body).text).toContain('<http://127.0.0.1:8080/#/run/r-1%3Cx%3E|');
  });

  it('webhook: the Standard Webhooks headers over the body { type, at, data }, verified by the library', async () => {
    expect(await channels().deliver(failed('ops'))).toEqual({ ok: true });
    const { headers, body } = got[0]!;
    const verified = new Webhook(WHSEC).verify(body, headers as Record<string, string>);
    expect(verified).toEqual({ type: 'run_failed', at: '2026-03-01T12:00:00.000Z', data: failed('ops').data });
    expect(headers['webhook-id']).toBe('msg_abc');
  });

  it('a non-2xx answer or a redirect is a refusal; a channel gone from the config a permanent one', async () => {
    status = 500;
    expect(await channels().deliver(failed('ops'))).toEqual({ ok: false, error: 'HTTP 500' });
    status = 302;
    expect(await channels().deliver(failed('ops'))).toEqual({ ok: false, error: 'HTTP 302' });
    expect(got.map((g) => g.path)).toEqual(['/hook', '/hook']);
    expect(await channels().deliver(failed('gone'))).toEqual({ ok: false, error: "channel 'gone' is no longer configured", permanent: true });
  });
});
