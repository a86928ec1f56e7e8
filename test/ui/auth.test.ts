/**
 * The UI's side of SPEC Authentication 7, in real Chromium against a server with authentication on: a login card
 * on any 401; the token kept in session storage and sent on every API call; back to the login on a later 401;
 * when a login fails despite a sent Authorization token, the same call again with X-Service-Token (a proxy in
 * front that strips Authorization); the token never rendered into the DOM nor logged.
 */
import * as fs from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser, Page, Request } from 'playwright-core';
import { UI_DIR } from '../../src/adapters/http/app';
import { MintBearer, RevokeBearer } from '../../src/application/auth/manage-bearers.use-case';
import { manyRuns } from '../mothers/journal-events';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TOKEN = 'ui-test-token-5f0c2a9e71d84b3c';
const WRONG = 'not-the-token-0000000000000000';
const UI_ASSETS = path.join(UI_DIR, 'assets');

/** A reverse proxy on 127.0.0.1 that drops the Authorization header, as some proxies do. */
async function strippingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers };
    delete headers.authorization;
    const upstream = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers, agent: false }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

describe('web UI: authentication', () => {
  let srv: TestServer;
  let browser: Browser;
  let proxy: { url: string; close(): Promise<void> };
  const tabs: Tab[] = [];
  /** API requests a tab made, with the auth headers they carried. */
  const apiCalls = new Map<Tab, { path: string; authorization?: string; service?: string }[]>();

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startTestServer({ config: { secrets: { api_token: { env: 'T' } }, server: { auth: { token: { secret: 'api_token' } } } }, env: { T: TOKEN } }),
      launchBrowser(),
    ]);
    await srv.append(manyRuns(5, { prefix: 'auth', newest: Date.now() - 60_000 }));
    proxy = await strippingProxy(srv.baseUrl);
  });

  // the token is never logged to the console
  afterEach(() => checkAndCloseTabs(tabs, (t) => expect(t.console.filter((line) => line.includes(TOKEN) || line.includes(WRONG))).toEqual([])));

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await srv?.close();
  });

  async function open(base: string, hash: string): Promise<Tab> {
    const t = await openTab(browser);
    tabs.push(t);
    const calls: { path: string; authorization?: string; service?: string }[] = [];
    apiCalls.set(t, calls);
    t.page.on('request', (req: Request) => {
      const u = new URL(req.url());
      if (!u.pathname.startsWith('/api/')) return;
      const h = req.headers();
      calls.push({ path: u.pathname + u.search, authorization: h.authorization, service: h['x-service-token'] });
    });
    await t.page.goto(`${base}/${hash}`);
    return t;
  }

  /** The token in any form the DOM could show it: markup, attributes, text, form values. */
  async function expectTokenNotInDom(page: Page): Promise<void> {
    const dom = await page.evaluate(() => {
      const d = (globalThis as Json).document;
      const values = [...d.querySelectorAll('input, textarea, select')].map((e: Json) => e.value);
      return [d.documentElement.outerHTML, d.body.innerText, d.title, ...values].join('\n');
    });
    expect(dom).not.toContain(TOKEN);
    expect(dom).not.toContain(WRONG);
  }

  async function signIn(page: Page, token: string): Promise<void> {
    await page.locator('#login-token').fill(token);
    await page.locator('#login-submit').click();
  }
  const session = (page: Page): Promise<Record<string, string>> => page.evaluate(() => {
    const s = (globalThis as Json).sessionStorage;
    return Object.fromEntries(Object.keys(s).map((k) => [k, s.getItem(k)]));
  });

  test('the page and every file of it are public: no credentials asked, no secret in them', async () => {
    const shell = await srv.get('/');
    expect(shell.status).toBe(200);
    const prefix = /"(\/assets\/[0-9a-f]{12}\/)js\/main\.js"/.exec(shell.text)![1]!;
    const files = fs.readdirSync(UI_ASSETS, { recursive: true, withFileTypes: true }).filter((f) => f.isFile())
      .map((f) => path.relative(UI_ASSETS, path.join(f.parentPath, f.name)).split(path.sep).join('/'));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const res = await srv.get(prefix + file);
      expect({ file, status: res.status }).toEqual({ file, status: 200 });
      expect(res.text).not.toContain(TOKEN);
    }
    expect((await srv.get('/api/history/runs')).status).toBe(401);
  });

  test('a 401 shows the login card; a wrong token is refused; the right one loads the view and is sent on every call', async () => {
    const t = await open(srv.baseUrl, '#/runs');
    const page = t.page;
    await waitForView(page, 'runs', 'login');
    await expect(page.locator('#login').isVisible()).resolves.toBe(true);
    await expect(page.locator('main tr[data-run]').count()).resolves.toBe(0);

    await signIn(page, WRONG);
    await page.waitForFunction(() => (globalThis as Json).document.getElementById('login-err').textContent !== '');
    await expect(page.locator('#login-err').innerText()).resolves.toContain('refused');
    await expect(page.locator('#login').isVisible()).resolves.toBe(true);
    await expect(session(page)).resolves.toEqual({});
    await expectTokenNotInDom(page);
    // the wrong token was tried as Authorization, then as X-Service-Token, on the call that was refused
    const tries = apiCalls.get(t)!.filter((c) => c.authorization === `Bearer ${WRONG}` || c.service === WRONG);
    expect(tries.map((c) => [c.path, c.authorization ? 'authorization' : 'x-service-token'])).toEqual([
      [tries[0]!.path, 'authorization'], [tries[0]!.path, 'x-service-token'],
    ]);
    expect(tries[0]!.path).toMatch(/^\/api\/history\/runs/);

    await signIn(page, TOKEN);
    await waitForView(page, 'runs');
    await expect(page.locator('#login').isVisible()).resolves.toBe(false);
    await expect(page.locator('main tr[data-run]').count()).resolves.toBe(5);
    await expect(session(page)).resolves.toEqual({ 'chainflow.token': TOKEN, 'chainflow.token-header': 'authorization' });
    await expectTokenNotInDom(page);

    // every later call carries the bearer; a reload keeps the session (no login card)
    await page.goto(`${srv.baseUrl}/#/workflows`);
    await waitForView(page, 'workflows');
    await page.reload();
    await waitForView(page, 'workflows');
    const afterLogin = apiCalls.get(t)!.slice(apiCalls.get(t)!.findIndex((c) => c.authorization === `Bearer ${TOKEN}`));
    expect(afterLogin.length).toBeGreaterThanOrEqual(3);
    for (const c of afterLogin) expect(c.authorization).toBe(`Bearer ${TOKEN}`);
    await expectTokenNotInDom(page);

    // signing out forgets the token
    await page.locator('#signout').click();
    await expect(page.locator('#login').isVisible()).resolves.toBe(true);
    await expect(session(page)).resolves.toEqual({});
  });

  test('a later 401 (the bearer was revoked) returns to the login card and forgets the token', async () => {
    const name = `ui-${Date.now()}`;
    const minted = (await srv.root.container.get(MintBearer).execute(name)).token;
    const t = await open(srv.baseUrl, '#/workflows');
    await waitForView(t.page, 'workflows', 'login');
    await signIn(t.page, minted);
    await waitForView(t.page, 'workflows');
    await expect(t.page.locator('main tbody tr').count()).resolves.toBeGreaterThan(0);

    await srv.root.container.get(RevokeBearer).execute(name);
    await t.page.locator('nav a', { hasText: 'Runs' }).click();
    await waitForView(t.page, 'runs', 'login');
    await expect(t.page.locator('#login').isVisible()).resolves.toBe(true);
    await expect(t.page.locator('#login-why').innerText()).resolves.toContain('refused');
    await expect(session(t.page)).resolves.toEqual({});
    const dom = await t.page.evaluate(() => (globalThis as Json).document.documentElement.outerHTML);
    expect(dom).not.toContain(minted);
    expect(t.console.filter((line) => line.includes(minted))).toEqual([]);

    // the configured token still works: sign in again and the view comes back
    await signIn(t.page, TOKEN);
    await waitForView(t.page, 'runs');
    await expect(t.page.locator('main tr[data-run]').count()).resolves.toBe(5);
  });

  test('behind a proxy that strips Authorization, the login falls back to X-Service-Token and keeps using it', async () => {
    const t = await open(proxy.url, '#/runs');
    const page = t.page;
    await waitForView(page, 'runs', 'login');
    await signIn(page, WRONG);
    await page.waitForFunction(() => (globalThis as Json).document.getElementById('login-err').textContent !== '');
    await expect(page.locator('#login').isVisible()).resolves.toBe(true);

    await signIn(page, TOKEN);
    await waitForView(page, 'runs');
    await expect(page.locator('main tr[data-run]').count()).resolves.toBe(5);
    await expect(session(page)).resolves.toEqual({ 'chainflow.token': TOKEN, 'chainflow.token-header': 'x-service-token' });
    const calls = apiCalls.get(t)!;
    const first = calls.findIndex((c) => c.authorization === `Bearer ${TOKEN}`);
    // the Authorization attempt (stripped by the proxy, so refused), then the same call with X-Service-Token
    expect(calls[first + 1]).toEqual({ path: calls[first]!.path, authorization: undefined, service: TOKEN });

    await page.locator('nav a', { hasText: 'Transactions' }).click();
    await waitForView(page, 'txs');
    await page.reload();
    await waitForView(page, 'txs');
    const later = calls.slice(first + 2);
    expect(later.length).toBeGreaterThanOrEqual(3);
    for (const c of later) expect(c).toEqual({ path: c.path, authorization: undefined, service: TOKEN });
    await expectTokenNotInDom(page);
  });
});
