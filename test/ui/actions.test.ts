/**
 * The operator's commands in the page (issue 10; CONTRACT 8.4), in real Chromium against a real server running the
 * engine over a real SQLite journal, with authentication on and a named bearer: approve or reject a pending approval
 * with a reason asked in the page (never window.prompt), who decided shown after and the row read again; cancel a
 * parked run after a confirmation; pause and resume a configured workflow. Each click is followed by what the API
 * (the journal) says now; each refusal (404, 409, 401) shows the API's message and leaves the page working.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { MintBearer, RevokeBearer } from '../../src/application/auth/manage-bearers.use-case';
import { eventually } from '../support/process';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const CONFIG_TOKEN = 'actions-config-token-7c1e0b44';
const OPERATOR = 'night-operator';

describe('web UI: approve, reject, cancel, pause and resume', () => {
  let srv: TestServer;
  let browser: Browser;
  let token: string;
  const tabs: Tab[] = [];

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${srv.baseUrl}${path}`, {
      method, headers: { authorization: `Bearer ${CONFIG_TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const runOf = async (runId: string): Promise<Json> => (await api('GET', `/api/history/runs?run_id=${runId}`)).body.items[0];
  const approvalOf = async (runId: string): Promise<Json> =>
    (await api('GET', `/api/history/runs/${runId}/timeline`)).body.events.find((e: Json) => e.kind === 'approval').approval;
  const configured = async (wf: string): Promise<Json> => (await api('GET', '/api/workflows')).body.items.find((w: Json) => w.workflow === wf);
  /** Starts a manual run and waits until the engine parked it. */
  async function parkedRun(workflow: string): Promise<string> {
    const started = await api('POST', `/api/workflows/${workflow}/runs`, {});
    expect(started.status).toBe(202);
    const runId: string = started.body.run_id;
    await eventually(async () => ((await runOf(runId))?.status === 'waiting' ? true : undefined), 15_000, `run ${runId} to park`);
    return runId;
  }

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startTestServer({
        config: {
          secrets: { api_token: { env: 'T' } },
          server: { auth: { token: { secret: 'api_token' } } },
          engine: { poll_interval: '1s' },
          workflows: {
            payouts: {
              trigger: { kind: 'manual' },
              steps: [{ id: 'approve', type: 'approval', message: 'Pay 250 wei to <b>the treasury</b>?' }, { id: 'cool_down', type: 'delay', duration: '1s' }],
            },
            sleepy: { trigger: { kind: 'manual' }, steps: [{ id: 'nap', type: 'delay', duration: '1h' }] },
          },
        },
        env: { T: CONFIG_TOKEN },
      }),
      launchBrowser(),
    ]);
    token = (await srv.root.container.get(MintBearer).execute(OPERATOR)).token;
  });

  afterEach(() => checkAndCloseTabs(tabs));

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  /** A tab whose page starts signed in with `bearer` (the login itself is tested in auth.test.ts). */
  async function signedIn(bearer: string): Promise<Tab> {
    const t = await openTab(browser);
    tabs.push(t);
    await t.page.addInitScript((tk) => {
      const s = (globalThis as Json).sessionStorage;
      if (!s.getItem('chainflow.token')) s.setItem('chainflow.token', tk);
    }, bearer);
    return t;
  }
  /** The view at `hash`, signed in as the night operator. */
  async function visit(hash: string, view: string): Promise<Page> {
    const t = await signedIn(token);
    await t.page.goto(`${srv.baseUrl}/${hash}`);
    await waitForView(t.page, view);
    return t.page;
  }
  const dialog = (page: Page): Locator => page.locator('dialog#ask');
  const approvalRow = (page: Page, id: string): Locator => page.locator(`main tr[data-approval="${id}"]`);
  /** Waits until `l` says `text` (the page answers asynchronously), then checks it says exactly that. */
  async function says(l: Locator, text: string): Promise<void> {
    await l.filter({ hasText: text }).first().waitFor();
    await expect(l.innerText()).resolves.toBe(text);
  }

  test('approve: the reason is asked in the page, the row is read again and shows who decided; the run goes on', async () => {
    const runId = await parkedRun('payouts');
    const pending = await approvalOf(runId);
    expect(pending.status).toBe('pending');
    const page = await visit('#/approvals', 'approvals');
    const row = approvalRow(page, pending.approval_id);
    await expect(row.locator('button[data-act]').allInnerTexts()).resolves.toEqual(['Approve', 'Reject']);

    await row.locator('button[data-act=approve]').click();
    await expect(dialog(page).isVisible()).resolves.toBe(true);
    await expect(dialog(page).innerText()).resolves.toContain('Pay 250 wei to <b>the treasury</b>?'); // the message, as text
    // no reason (blanks only): refused in the page, nothing sent
    await dialog(page).locator('textarea[name=reason]').fill('   ');
    await dialog(page).locator('button[type=submit]').click();
    await says(dialog(page).locator('.err'), 'Reason is required.');
    expect((await approvalOf(runId)).status).toBe('pending');

    await dialog(page).locator('textarea[name=reason]').fill('checked the address with finance');
    await dialog(page).locator('button[type=submit]').click();
    await page.waitForFunction((id) => (globalThis as Json).document.querySelector(`main tr[data-approval="${id}"]`)?.innerText.includes('approved'), pending.approval_id);
    await expect(dialog(page).isVisible()).resolves.toBe(false);
    const text = await row.innerText();
    expect(text).toContain(OPERATOR);
    expect(text).toContain('checked the address with finance');
    await expect(row.locator('button[data-act]').count()).resolves.toBe(0);
    // the journal: decided by the bearer that signed in, with the reason; the run went on to its end
    expect(await approvalOf(runId)).toMatchObject({ status: 'approved', decided_by: OPERATOR, reason: 'checked the address with finance' });
    await eventually(async () => ((await runOf(runId)).status === 'succeeded' ? true : undefined), 15_000, 'the approved run to finish');
    // decided approvals have no buttons
    await page.reload();
    await waitForView(page, 'approvals');
    await expect(approvalRow(page, pending.approval_id).locator('button[data-act]').count()).resolves.toBe(0);
  });

  test('reject from the run detail; a page that did not see another decision shows the API\'s 409 and reads the approval again', async () => {
    const runId = await parkedRun('payouts');
    const { approval_id: id } = await approvalOf(runId);
    const stale = await visit(`#/run/${runId}`, 'run');
    const approvalEvent = stale.locator('ol.timeline > li[data-kind=approval]');
    await expect(approvalEvent.locator('button[data-act]').allInnerTexts()).resolves.toEqual(['Approve', 'Reject']);

    const other = await visit(`#/run/${runId}`, 'run');
    await other.locator('ol.timeline > li[data-kind=approval] button[data-act=reject]').click();
    await dialog(other).locator('textarea[name=reason]').fill('amount above the agreed limit');
    await dialog(other).locator('button[type=submit]').click();
    await other.waitForFunction(() => (globalThis as Json).document.querySelector('ol.timeline > li[data-kind=approval]')?.innerText.includes('rejected'));
    await waitForView(other, 'run');
    await expect(other.locator('ol.timeline > li[data-kind=approval]').innerText()).resolves.toContain(OPERATOR);
    expect(await approvalOf(runId)).toMatchObject({ status: 'rejected', decided_by: OPERATOR, reason: 'amount above the agreed limit' });
    await eventually(async () => ((await runOf(runId)).error_kind === 'approval_rejected' ? true : undefined), 15_000, 'the rejected run to fail');

    // the stale page approves: the API refuses (409), the dialog says so, and the view is read again
    await approvalEvent.locator('button[data-act=approve]').click();
    await dialog(stale).locator('textarea[name=reason]').fill('looks fine');
    await dialog(stale).locator('button[type=submit]').click();
    await says(dialog(stale).locator('.err'), 'The server answered 409: approval already rejected');
    await stale.waitForFunction(() => !(globalThis as Json).document.querySelector('ol.timeline > li[data-kind=approval] button[data-act]'));
    await waitForView(stale, 'run');
    await expect(stale.locator('ol.timeline > li[data-kind=approval]').innerText()).resolves.toContain('rejected');
    await dialog(stale).getByRole('button', { name: 'Back' }).click();
    await expect(dialog(stale).isVisible()).resolves.toBe(false);
    expect(await approvalOf(runId)).toMatchObject({ status: 'rejected', reason: 'amount above the agreed limit' });
  });

  test('cancel a parked run from Waiting, after a confirmation; "Back" changes nothing', async () => {
    const runId = await parkedRun('sleepy');
    const page = await visit('#/waiting', 'waiting');
    const row = page.locator(`main tr[data-run="${runId}"]`);
    await row.locator('button[data-act=cancel]').click();
    await expect(dialog(page).innerText()).resolves.toContain(runId);
    await dialog(page).getByRole('button', { name: 'Back' }).click();
    await expect(dialog(page).isVisible()).resolves.toBe(false);
    expect((await runOf(runId)).status).toBe('waiting');

    await row.locator('button[data-act=cancel]').click();
    await dialog(page).getByRole('button', { name: 'Cancel run' }).click();
    await row.locator('td .badge', { hasText: 'cancelled' }).waitFor();
    await expect(row.locator('button[data-act]').count()).resolves.toBe(0);
    expect(await runOf(runId)).toMatchObject({ status: 'cancelled', error_kind: 'cancelled' });
    await expect(api('GET', `/api/history/waiting?workflow=sleepy`).then((r) => r.body.items.map((w: Json) => w.run_id))).resolves.not.toContain(runId);
  });

  test('cancel from the run detail; a run that ended meanwhile is refused (409) and the view shows how it ended; ended runs have no button', async () => {
    const runId = await parkedRun('sleepy');
    const page = await visit(`#/run/${runId}`, 'run');
    await expect(page.locator('main h1 button[data-act=cancel]').count()).resolves.toBe(1);
    // cancelled behind the page's back
    expect((await api('POST', `/api/runs/${runId}/cancel`)).status).toBe(200);
    await page.locator('main h1 button[data-act=cancel]').click();
    await dialog(page).getByRole('button', { name: 'Cancel run' }).click();
    await says(dialog(page).locator('.err'), 'The server answered 409: run already cancelled');
    await page.waitForFunction(() => !(globalThis as Json).document.querySelector('main h1 button[data-act]'));
    await waitForView(page, 'run');
    await expect(page.locator('main h1').innerText()).resolves.toContain('cancelled');
    await page.keyboard.press('Escape');
    await expect(dialog(page).isVisible()).resolves.toBe(false);

    // a running one is cancelled from its detail
    const second = await parkedRun('sleepy');
    await page.goto(`${srv.baseUrl}/#/run/${second}`);
    await waitForView(page, 'run');
    await page.locator('main h1 button[data-act=cancel]').click();
    await dialog(page).getByRole('button', { name: 'Cancel run' }).click();
    await page.waitForFunction(() => !(globalThis as Json).document.querySelector('main h1 button[data-act]'));
    await waitForView(page, 'run');
    await expect(page.locator('main h1').innerText()).resolves.toContain('cancelled');
    expect((await runOf(second)).status).toBe('cancelled');
  });

  test('pause and resume on the Workflows view; a refusal (404) shows the API\'s message beside the button', async () => {
    const page = await visit('#/workflows', 'workflows');
    const row = (wf: string): Locator => page.locator(`main section.configured tr[data-workflow=${wf}]`);
    await expect(page.locator('main section.configured tbody tr').count()).resolves.toBe(2);
    await expect(row('sleepy').innerText()).resolves.toContain('active');

    await row('sleepy').locator('button[data-act=pause]').click();
    await row('sleepy').locator('button[data-act=resume]').waitFor();
    await waitForView(page, 'workflows');
    await expect(row('sleepy').innerText()).resolves.toContain('paused');
    expect(await configured('sleepy')).toMatchObject({ paused: true });
    expect((await api('POST', '/api/workflows/sleepy/runs', {})).status).toBe(409);
    // the journal's overview says so too
    await expect(page.locator('main section.list tr[data-workflow=sleepy]').innerText()).resolves.toContain('paused');

    await row('sleepy').locator('button[data-act=resume]').click();
    await row('sleepy').locator('button[data-act=pause]').waitFor();
    await waitForView(page, 'workflows');
    expect(await configured('sleepy')).toMatchObject({ paused: false });

    // the workflow left the configuration meanwhile: the API's 404, beside the button; the page goes on
    await page.route('**/api/workflows/payouts/pause', (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"workflow payouts not found"}' }));
    await row('payouts').locator('button[data-act=pause]').click();
    await says(row('payouts').locator('.err'), 'The server answered 404: workflow payouts not found');
    await expect(row('payouts').locator('button[data-act=pause]').isEnabled()).resolves.toBe(true);
    expect(await configured('payouts')).toMatchObject({ paused: false });
    await page.locator('nav a', { hasText: 'Runs' }).click();
    await waitForView(page, 'runs');
  });

  test('a token revoked while the page is open: the command answers 401, the login card shows, nothing changed', async () => {
    const name = `revoked-${Date.now()}`;
    const minted = (await srv.root.container.get(MintBearer).execute(name)).token;
    const t = await signedIn(minted);
    const runId = await parkedRun('sleepy');
    await t.page.goto(`${srv.baseUrl}/#/run/${runId}`);
    await waitForView(t.page, 'run');
    await srv.root.container.get(RevokeBearer).execute(name);
    await t.page.locator('main h1 button[data-act=cancel]').click();
    await dialog(t.page).getByRole('button', { name: 'Cancel run' }).click();
    await t.page.locator('#login').waitFor({ state: 'visible' });
    await expect(dialog(t.page).isVisible()).resolves.toBe(false);
    await expect(t.page.locator('#login-why').innerText()).resolves.toContain('refused');
    expect((await runOf(runId)).status).toBe('waiting');
    // signed in again, the command goes through
    await t.page.locator('#login-token').fill(token);
    await t.page.locator('#login-submit').click();
    await waitForView(t.page, 'run');
    await t.page.locator('main h1 button[data-act=cancel]').click();
    await dialog(t.page).getByRole('button', { name: 'Cancel run' }).click();
    await t.page.waitForFunction(() => !(globalThis as Json).document.querySelector('main h1 button[data-act]'));
    expect(await runOf(runId)).toMatchObject({ status: 'cancelled' });
  });
});
