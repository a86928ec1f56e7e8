/**
 * The page for a keyboard and screen-reader user (issue 30), in real Chromium on a real server whose journal is
 * `chainflow demo`'s, with an engine running two workflows for the commands: focus stays on the control that acted,
 * or moves to what it produced, after a filter, a page of rows, a decision, a cancel, a pause (never to <body>); a
 * select applies a keyboard pick on Enter, not on each arrow key; a skip link leads to the content; a destructive
 * dialog starts on its safe button.
 */
import { call, demoPages, focusComesTo, parkedRun, runOf } from '../support/a11y';
import { waitForView } from '../support/browser';
import type { TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('web UI: keyboard and focus', () => {
  const pages = demoPages();
  const { visit, dialog } = pages;
  let srv: TestServer;
  beforeAll(() => {
    srv = pages.server();
  });

  test('a status select acts when an option is chosen, not on each arrow key; focus stays on it after the view renders again', async () => {
    const page = await visit('#/runs', 'runs');
    await page.focus('form.filters select[name=status]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    // a change applied would have set the hash at once (synchronously, in the change handler)
    await expect(page.evaluate(() => [(globalThis as Json).location.hash, (globalThis as Json).document.activeElement.value])).resolves.toEqual(['#/runs', 'waiting']);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (globalThis as Json).location.hash === '#/runs?status=waiting');
    await waitForView(page, 'runs');
    await focusComesTo(page, 'main form.filters select[name=status]');
    await expect(page.locator('main form.filters select[name=status]').inputValue()).resolves.toBe('waiting');
    // a pick with the pointer (or in the opened list) still applies at once, focus kept
    await page.locator('form.filters select[name=status]').selectOption('failed');
    await page.waitForFunction(() => (globalThis as Json).location.hash === '#/runs?status=failed');
    await waitForView(page, 'runs');
    await focusComesTo(page, 'main form.filters select[name=status]');
  });

  test('Enter in a filter field, and Apply, keep focus where it was after the view renders again', async () => {
    const page = await visit('#/runs', 'runs');
    await page.locator('form.filters input[name=workflow]').fill('payouts');
    await page.locator('form.filters input[name=workflow]').press('Enter');
    await page.waitForFunction(() => (globalThis as Json).location.hash === '#/runs?workflow=payouts');
    await waitForView(page, 'runs');
    await focusComesTo(page, 'main form.filters input[name=workflow]');
    await page.locator('form.filters input[name=trigger]').fill('cron');
    await page.locator('form.filters button.primary').click();
    await page.waitForFunction(() => (globalThis as Json).location.hash === '#/runs?workflow=payouts&trigger=cron');
    await waitForView(page, 'runs');
    await focusComesTo(page, 'main form.filters button.primary');
  });

  test('Load more keeps focus on itself while pages remain, then moves it to the first row of the last page', async () => {
    const total = (await call(srv, 'GET', '/api/history/runs?limit=500')).body.items.length;
    expect(total).toBeGreaterThan(40);
    const page = await visit('#/runs?limit=20', 'runs');
    const more = page.locator('main button.more');
    await more.click();
    await page.locator('main tbody tr').nth(39).waitFor();
    await focusComesTo(page, 'main button.more');
    while (await more.isVisible()) {
      const shown = await page.locator('main tbody tr').count();
      await more.click();
      await page.locator('main tbody tr').nth(shown).waitFor();
    }
    await expect(page.locator('main tbody tr').count()).resolves.toBe(total);
    const firstOfLast = total - ((total - 1) % 20) - 1;
    await focusComesTo(page, `main tbody tr:nth-child(${firstOfLast + 1})`);
  });

  test('approve in Approvals: focus moves to the row read again; reject in the run detail: to its approval', async () => {
    const first = await parkedRun(srv, 'a11y-approve');
    const second = await parkedRun(srv, 'a11y-approve');
    const page = await visit('#/approvals?workflow=a11y-approve', 'approvals');
    const row = page.locator(`main tr:has(a[href="#/run/${first}"])`);
    await row.locator('button[data-act=approve]').click();
    await dialog(page).locator('textarea[name=reason]').fill('checked');
    await dialog(page).locator('textarea[name=reason]').press('Tab');
    await page.keyboard.press('Enter');
    await page.locator(`main tr:has(a[href="#/run/${first}"]) .badge`, { hasText: 'approved' }).waitFor();
    await focusComesTo(page, `main tr:has(a[href="#/run/${first}"])`);

    const detail = await visit(`#/run/${second}`, 'run');
    await detail.locator('ol.timeline > li[data-kind=approval] button[data-act=reject]').click();
    await dialog(detail).locator('textarea[name=reason]').fill('not today');
    await dialog(detail).locator('button[type=submit]').click();
    await detail.waitForFunction(() => (globalThis as Json).document.querySelector('ol.timeline > li[data-kind=approval]')?.innerText.includes('rejected'));
    await focusComesTo(detail, 'main ol.timeline > li[data-kind=approval]');
  });

  test('a decision refused (decided meanwhile, 409): after the dialog closes, focus is on the row as read again', async () => {
    const runId = await parkedRun(srv, 'a11y-approve');
    const page = await visit('#/approvals?workflow=a11y-approve&status=pending', 'approvals');
    const { approval_id: id } = (await call(srv, 'GET', `/api/history/runs/${runId}/timeline`)).body.events.find((e: Json) => e.kind === 'approval').approval;
    expect((await call(srv, 'POST', `/api/approvals/${id}/decision`, { decision: 'reject', reason: 'behind the page' })).status).toBe(200);
    await page.locator(`main tr[data-approval="${id}"] button[data-act=approve]`).click();
    await dialog(page).locator('textarea[name=reason]').fill('looks fine');
    await dialog(page).locator('button[type=submit]').click();
    await dialog(page).locator('.err', { hasText: '409' }).waitFor();
    await page.locator(`main tr[data-approval="${id}"] .badge`, { hasText: 'rejected' }).waitFor();
    await page.keyboard.press('Escape');
    await focusComesTo(page, `main tr[data-approval="${id}"]`);
  });

  test('cancel: the dialog starts on "Back"; after the cancel focus goes to the run\'s heading (detail) or its new status (Waiting)', async () => {
    const first = await parkedRun(srv, 'a11y-nap');
    const page = await visit(`#/run/${first}`, 'run');
    await page.locator('main h1 button[data-act=cancel]').click();
    await focusComesTo(page, 'dialog#ask button[value=back]');
    // an Enter out of habit does no harm
    await page.keyboard.press('Enter');
    await expect(dialog(page).isVisible()).resolves.toBe(false);
    expect((await runOf(srv, first)).status).toBe('waiting');
    await focusComesTo(page, 'main h1 button[data-act=cancel]'); // back where the question came from
    await page.locator('main h1 button[data-act=cancel]').click();
    await dialog(page).getByRole('button', { name: 'Cancel run' }).click();
    await page.waitForFunction(() => (globalThis as Json).document.querySelector('main h1')?.innerText.includes('cancelled'));
    await focusComesTo(page, 'main h1');

    const second = await parkedRun(srv, 'a11y-nap');
    const waiting = await visit('#/waiting?workflow=a11y-nap', 'waiting');
    await waiting.locator(`main tr[data-run="${second}"] button[data-act=cancel]`).click();
    await dialog(waiting).getByRole('button', { name: 'Cancel run' }).click();
    await focusComesTo(waiting, `main tr[data-run="${second}"] .badge`);
    await expect(waiting.locator(`main tr[data-run="${second}"] .badge:focus`).innerText()).resolves.toBe('cancelled');
  });

  test('Pause and Resume keep focus on the button, which now offers the other', async () => {
    const page = await visit('#/workflows', 'workflows');
    const row = page.locator('main section.configured tr[data-workflow=a11y-nap]');
    await row.locator('button[data-act=pause]').click();
    await row.locator('button[data-act=resume]').waitFor();
    await focusComesTo(page, 'main section.configured tr[data-workflow=a11y-nap] button[data-act=resume]');
    await page.keyboard.press('Enter');
    await row.locator('button[data-act=pause]').waitFor();
    await focusComesTo(page, 'main section.configured tr[data-workflow=a11y-nap] button[data-act=pause]');
    expect((await call(srv, 'GET', '/api/workflows')).body.items.find((w: Json) => w.workflow === 'a11y-nap')).toMatchObject({ paused: false });
  });

  test('a skip link is the first stop of Tab, shows when focused, and takes focus to the content without leaving the view', async () => {
    const page = await visit('#/runs?status=failed', 'runs');
    await page.keyboard.press('Tab');
    await focusComesTo(page, 'a.skip');
    const box = await page.locator('a.skip').boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    await expect(page.locator('a.skip').innerText()).resolves.toBe('Skip to main content');
    await page.keyboard.press('Enter');
    await focusComesTo(page, 'main');
    expect(await page.evaluate(() => (globalThis as Json).location.hash)).toBe('#/runs?status=failed');
    await page.keyboard.press('Tab');
    await focusComesTo(page, 'main form.filters input[name=workflow]');
  });
});
