/**
 * What a keyboard and screen-reader user meets in the page (issue 30), in real Chromium on a real server whose journal
 * is `chainflow demo`'s, with an engine running two workflows for the commands. axe-core finds no serious or critical
 * violation on any view in either theme; focus stays on the control that acted (or moves to what it produced) after a
 * filter, a page of rows, a decision, a cancel, a pause; a skip link leads to the content; targets are 24 px at
 * least; a destructive dialog starts on its safe button; a zero is never painted as a loss.
 */
import type { Browser, Page } from 'playwright-core';
import { WriteDemoJournal } from '../../src/application/journal/demo-journal.use-case';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { eventually } from '../support/process';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const AXE = require.resolve('axe-core/axe.min.js');

/** What the focused element is, in words a failing test can show. */
const focused = (page: Page): Promise<string> => page.evaluate(() => {
  const a = (globalThis as Json).document.activeElement;
  if (!a) return 'nothing';
  const bits = [a.tagName.toLowerCase()];
  for (const k of ['name', 'data-focus', 'data-act', 'data-approval', 'data-run']) if (a.getAttribute(k)) bits.push(`[${k}=${a.getAttribute(k)}]`);
  return bits.join('') + (a.tagName === 'BODY' ? '' : ` "${String(a.innerText || a.value || '').trim().slice(0, 40)}"`);
});

/** Waits until the focused element matches `selector` (the page answers asynchronously), then says what it is. */
async function focusComesTo(page: Page, selector: string): Promise<void> {
  await page.waitForFunction((sel) => (globalThis as Json).document.activeElement?.matches(sel), selector, { timeout: 10_000 }).catch(() => undefined);
  const now = await focused(page);
  const matches = await page.evaluate((sel) => !!(globalThis as Json).document.activeElement?.matches(sel), selector);
  expect({ selector, focused: now, matches }).toEqual({ selector, focused: now, matches: true });
}

describe('web UI: accessibility', () => {
  let srv: TestServer;
  let browser: Browser;
  const tabs: Tab[] = [];

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${srv.baseUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const runOf = async (runId: string): Promise<Json> => (await api('GET', `/api/history/runs?run_id=${runId}`)).body.items[0];
  async function parkedRun(workflow: string): Promise<string> {
    const started = await api('POST', `/api/workflows/${workflow}/runs`, {});
    expect(started.status).toBe(202);
    const runId: string = started.body.run_id;
    await eventually(async () => ((await runOf(runId))?.status === 'waiting' ? true : undefined), 15_000, `run ${runId} to park`);
    return runId;
  }
  /** A tab on `hash` in `theme` (the system's setting, which the page follows); axe may be injected (CSP bypassed). */
  async function visit(hash: string, view: string, theme: 'light' | 'dark' = 'light'): Promise<Page> {
    const t = await openTab(browser, { colorScheme: theme, bypassCSP: true });
    tabs.push(t);
    await t.page.goto(`${srv.baseUrl}/${hash}`);
    await waitForView(t.page, view);
    return t.page;
  }
  const dialog = (page: Page) => page.locator('dialog#ask');

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startTestServer({
        config: {
          engine: { poll_interval: '1s' },
          workflows: {
            'a11y-approve': { trigger: { kind: 'manual' }, steps: [{ id: 'approve', type: 'approval', message: 'Pay 250 wei?' }] },
            'a11y-nap': { trigger: { kind: 'manual' }, steps: [{ id: 'nap', type: 'delay', duration: '1h' }] },
          },
        },
      }),
      launchBrowser(),
    ]);
    await srv.root.container.get(WriteDemoJournal).execute();
  });

  afterEach(() => checkAndCloseTabs(tabs));

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  const views = (): [string, string][] => {
    const parkedApproval = 'demo-0047';
    return [
      ['#/workflows', 'workflows'], ['#/runs', 'runs'], [`#/run/${parkedApproval}`, 'run'], ['#/run/demo-0007', 'run'], ['#/run/demo-0021', 'run'], ['#/run/demo-replay-1-run-1', 'run'],
      ['#/failures', 'failures'], ['#/txs', 'txs'], ['#/approvals', 'approvals'], ['#/waiting', 'waiting'], ['#/reorgs', 'reorgs'],
      ['#/replays', 'replays'], ['#/relayers', 'relayers'], ['#/spend', 'spend'], ['#/compare?a=demo-0002&b=demo-replay-1-run-1', 'compare'],
    ];
  };

  for (const theme of ['light', 'dark'] as const) {
    test(`axe-core: no serious or critical violation on any view, ${theme} theme; every table header says what its column is`, async () => {
      const found: { view: string; rule: string; impact: string; nodes: string[] }[] = [];
      const emptyHeaders: { view: string; count: number }[] = [];
      for (const [hash, view] of views()) {
        const page = await visit(hash, view, theme);
        await page.addScriptTag({ path: AXE });
        // target-size (WCAG 2.2 AA, 24 px) is off in axe's defaults: on here.
        const violations: Json[] = await page.evaluate(async () => (await (globalThis as Json).axe.run((globalThis as Json).document, {
          resultTypes: ['violations'], rules: { 'target-size': { enabled: true } },
        })).violations);
        for (const v of violations) {
          if (v.impact === 'serious' || v.impact === 'critical') found.push({ view: hash, rule: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n: Json) => n.target.join(' ')) });
        }
        const empty = await page.locator('th').evaluateAll((ths) => ths.filter((th) => !(th.textContent ?? '').trim()).length);
        if (empty) emptyHeaders.push({ view: hash, count: empty });
        await checkAndCloseTabs(tabs);
      }
      expect(found).toEqual([]);
      expect(emptyHeaders).toEqual([]);
    }, 300_000);
  }

  test('dark theme: a primary button\'s text reads at 4.5:1 at least against its fill', async () => {
    const page = await visit('#/runs', 'runs', 'dark');
    const ratio = await page.locator('form.filters button.primary').evaluate((b) => {
      const g = globalThis as Json;
      const rgb = (c: string): number[] => c.match(/[\d.]+/g)!.slice(0, 3).map(Number);
      const lum = (c: number[]): number => {
        const [r, gr, bl] = c.map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r! + 0.7152 * gr! + 0.0722 * bl!;
      };
      const st = g.getComputedStyle(b);
      const [x, y] = [lum(rgb(st.color)), lum(rgb(st.backgroundColor))];
      return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
    });
    expect(ratio).toBeGreaterThanOrEqual(4.5);
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
    const total = (await api('GET', '/api/history/runs?limit=500')).body.items.length;
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
    const first = await parkedRun('a11y-approve');
    const second = await parkedRun('a11y-approve');
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
    const runId = await parkedRun('a11y-approve');
    const page = await visit('#/approvals?workflow=a11y-approve&status=pending', 'approvals');
    const { approval_id: id } = (await api('GET', `/api/history/runs/${runId}/timeline`)).body.events.find((e: Json) => e.kind === 'approval').approval;
    expect((await api('POST', `/api/approvals/${id}/decision`, { decision: 'reject', reason: 'behind the page' })).status).toBe(200);
    await page.locator(`main tr[data-approval="${id}"] button[data-act=approve]`).click();
    await dialog(page).locator('textarea[name=reason]').fill('looks fine');
    await dialog(page).locator('button[type=submit]').click();
    await dialog(page).locator('.err', { hasText: '409' }).waitFor();
    await page.locator(`main tr[data-approval="${id}"] .badge`, { hasText: 'rejected' }).waitFor();
    await page.keyboard.press('Escape');
    await focusComesTo(page, `main tr[data-approval="${id}"]`);
  });

  test('cancel: the dialog starts on "Back"; after the cancel focus goes to the run\'s heading (detail) or its new status (Waiting)', async () => {
    const first = await parkedRun('a11y-nap');
    const page = await visit(`#/run/${first}`, 'run');
    await page.locator('main h1 button[data-act=cancel]').click();
    await focusComesTo(page, 'dialog#ask button[value=back]');
    // an Enter out of habit does no harm
    await page.keyboard.press('Enter');
    await expect(dialog(page).isVisible()).resolves.toBe(false);
    expect((await runOf(first)).status).toBe('waiting');
    await focusComesTo(page, 'main h1 button[data-act=cancel]'); // back where the question came from
    await page.locator('main h1 button[data-act=cancel]').click();
    await dialog(page).getByRole('button', { name: 'Cancel run' }).click();
    await page.waitForFunction(() => (globalThis as Json).document.querySelector('main h1')?.innerText.includes('cancelled'));
    await focusComesTo(page, 'main h1');

    const second = await parkedRun('a11y-nap');
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
    expect((await api('GET', '/api/workflows')).body.items.find((w: Json) => w.workflow === 'a11y-nap')).toMatchObject({ paused: false });
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

  test('every button, select and copy button is 24 x 24 px at least', async () => {
    const small: string[] = [];
    for (const [hash, view] of [['#/runs', 'runs'], ['#/approvals', 'approvals'], ['#/spend', 'spend'], ['#/run/demo-0047', 'run']]) {
      const page = await visit(hash!, view!);
      const more = page.locator('main form.filters details summary');
      if (await more.count()) await more.click();
      small.push(...await page.locator('button, select, summary').evaluateAll((els, v) => els.flatMap((el) => {
        const r = el.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) return []; // not shown
        return r.width < 24 || r.height < 24 ? [`${v}: ${el.className || el.tagName} ${Math.round(r.width)}x${Math.round(r.height)}`] : [];
      }), hash));
      await checkAndCloseTabs(tabs);
    }
    expect(small).toEqual([]);
  });

  test('a zero reverted loss is not painted as a loss; a loss there is, is', async () => {
    const zero = await visit('#/spend?workflow=relayers.topup', 'spend');
    const tile = (page: Page, k = 'Reverted loss') => page.locator('main .tile').filter({ has: page.locator('.k').getByText(k, { exact: true }) });
    await expect(tile(zero).locator('.v').innerText()).resolves.toBe('0 ETH');
    const colours = async (page: Page) => ({
      loss: await tile(page).locator('.v').evaluate((el) => (globalThis as Json).getComputedStyle(el).color),
      plain: await tile(page, 'Sends').locator('.v').evaluate((el) => (globalThis as Json).getComputedStyle(el).color),
    });
    const z = await colours(zero);
    expect(z.loss).toBe(z.plain);
    const all = await visit('#/spend', 'spend');
    expect(BigInt((await api('GET', '/api/spend')).body.summary.total.reverted_gas_wei)).toBeGreaterThan(0n);
    const a = await colours(all);
    expect(a.loss).not.toBe(a.plain);
  });
});
