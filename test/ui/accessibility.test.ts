/**
 * The page against WCAG 2.2 AA (issue 30), in real Chromium on a real server whose journal is `chainflow demo`'s, with
 * an engine running two workflows for the commands' dialogs: axe-core finds no serious or critical violation on any
 * view or dialog in either theme; primary buttons read at 4.5:1; every table header names its column; targets are
 * 24 px at least; a zero is never painted as a loss. Keyboard and focus: keyboard.test.ts.
 */
import type { Page } from 'playwright-core';
import { call, demoPages, parkedRun, seriousViolations, type Violation } from '../support/a11y';
import type { TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('web UI: accessibility', () => {
  const pages = demoPages();
  const { visit, dialog } = pages;
  let srv: TestServer;
  beforeAll(() => {
    srv = pages.server();
  });

  const views = (): [string, string][] => {
    const parkedApproval = 'demo-0047';
    return [
      ['#/workflows', 'workflows'], ['#/runs', 'runs'], [`#/run/${parkedApproval}`, 'run'], ['#/run/demo-0007', 'run'], ['#/run/demo-0021', 'run'], ['#/run/demo-0042', 'run'], ['#/run/demo-replay-1-run-1', 'run'],
      ['#/failures', 'failures'], ['#/txs', 'txs'], ['#/approvals', 'approvals'], ['#/waiting', 'waiting'], ['#/reorgs', 'reorgs'],
      ['#/replays', 'replays'], ['#/relayers', 'relayers'], ['#/spend', 'spend'], ['#/compare?a=demo-0002&b=demo-replay-1-run-1', 'compare'],
    ];
  };

  for (const theme of ['light', 'dark'] as const) {
    test(`axe-core: no serious or critical violation on any view, ${theme} theme; every table header says what its column is`, async () => {
      const found: ({ view: string } & Violation)[] = [];
      const emptyHeaders: { view: string; count: number }[] = [];
      for (const [hash, view] of views()) {
        const page = await visit(hash, view, theme);
        for (const v of await seriousViolations(page)) found.push({ view: hash, ...v });
        const empty = await page.locator('th').evaluateAll((ths) => ths.filter((th) => !(th.textContent ?? '').trim()).length);
        if (empty) emptyHeaders.push({ view: hash, count: empty });
        await pages.closeTabs();
      }
      expect(found).toEqual([]);
      expect(emptyHeaders).toEqual([]);
    }, 300_000);
  }

  test('axe-core: no serious or critical violation in the commands\' dialogs (reject, cancel), in either theme', async () => {
    const approving = await parkedRun(srv, 'a11y-approve');
    const napping = await parkedRun(srv, 'a11y-nap');
    const found: ({ where: string } & Violation)[] = [];
    for (const theme of ['light', 'dark'] as const) {
      for (const [runId, act] of [[approving, 'reject'], [napping, 'cancel']] as const) {
        const page = await visit(`#/run/${runId}`, 'run', theme);
        await page.locator(`main button[data-act=${act}]`).click();
        await dialog(page).waitFor();
        for (const v of await seriousViolations(page)) found.push({ where: `${act} ${theme}`, ...v });
        await pages.closeTabs();
      }
    }
    expect(found).toEqual([]);
  });

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
      await pages.closeTabs();
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
    expect(BigInt((await call(srv, 'GET', '/api/spend')).body.summary.total.reverted_gas_wei)).toBeGreaterThan(0n);
    const a = await colours(all);
    expect(a.loss).not.toBe(a.plain);
  });
});
