/**
 * Budget headroom in the Spend view (issue 30), in real Chromium on the real server: one row per cap with what is
 * spent, reserved by sends in flight, the limit and the headroom, each exact in its tooltip as GET /api/budgets
 * answers it. After each test: no request left 127.0.0.1 and no page error.
 */
import type { Browser } from 'playwright-core';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

describe('web UI: budgets in the Spend view', () => {
  let srv: TestServer;
  let browser: Browser;
  const tabs: Tab[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    srv = await startTestServer({
      config: {
        budgets: { daily: { window: '24h', max_gas_spend: '0.01 ether', max_native_value: '1.5 ether' } },
        workflows: { payouts: { trigger: { kind: 'manual' }, budgets: ['daily'], steps: [{ id: 'wait', type: 'delay', duration: '1s' }] } },
      },
    });
  });
  afterEach(() => checkAndCloseTabs(tabs));
  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  it('shows each cap of each budget with spent, reserved, limit and headroom, exact in the tooltips', async () => {
    const tab = await openTab(browser);
    tabs.push(tab);
    await tab.page.goto(`${srv.baseUrl}/#/spend`);
    await waitForView(tab.page, 'spend');
    const section = tab.page.locator('main [data-section="budgets"]');
    await expect(section.locator('h2').innerText()).resolves.toBe('Budgets');
    const rows = section.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    const cells = async (i: number) => (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.trim());
    expect(await cells(0)).toEqual(['daily', '1d', 'gas spend', '0', '0', '0.01', '0.01']);
    expect(await cells(1)).toEqual(['daily', '1d', 'native value', '0', '0', '1.5', '1.5']);
    await expect(rows.nth(1).locator('td .amt').last().getAttribute('title')).resolves.toBe('1.5 ETH\n1500000000000000000 wei');
  });
});
