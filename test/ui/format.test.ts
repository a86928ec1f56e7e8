/**
 * The page's formatting module (`assets/js/format.js`) in Chromium, imported by the page itself as the views
 * import it: durations read as a person reads them and never show a part that reached its unit (issue 13:
 * "3 min 60 s"); amounts rounded for a glance keep every digit of their whole part and say when they were rounded.
 */
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { startTestServer, type TestServer } from '../support/server';

jest.setTimeout(60_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

describe('web UI: formatting', () => {
  let srv: TestServer;
  let browser: Browser;
  let tab: Tab;
  let page: Page;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startTestServer(), launchBrowser()]);
    tab = await openTab(browser);
    page = tab.page;
    await page.goto(`${srv.baseUrl}/#/workflows`);
    await waitForView(page, 'workflows');
  });

  afterAll(async () => {
    expect(tab.pageErrors).toEqual([]);
    await tab?.close();
    await browser?.close();
    await srv?.close();
  });

  /** Calls an export of format.js in the page, on each argument list. */
  async function call(fn: string, args: unknown[][]): Promise<unknown[]> {
    const src = (await page.locator('script[type=module]').getAttribute('src'))!.replace(/main\.js$/, 'format.js');
    // A string, not a function: TypeScript would compile a function's import() to require().
    return page.evaluate(`import(${JSON.stringify(src)}).then((mod) => ${JSON.stringify(args)}.map((a) => mod[${JSON.stringify(fn)}](...a)))`);
  }

  test('durations: rounded once to the unit shown, so no part reads 60 (or 24 hours), at every boundary', async () => {
    const cases: [number, string][] = [
      [0, '0 ms'], [999, '999 ms'], [999.6, '1.00 s'], [1_000, '1.00 s'], [4_254, '4.25 s'], [9_994, '9.99 s'], [9_995, '10.0 s'],
      [12_345, '12.3 s'], [59_949, '59.9 s'], [59_950, '1 min 0 s'], [59_999, '1 min 0 s'], [60_000, '1 min 0 s'],
      [119_499, '1 min 59 s'], [119_500, '2 min 0 s'], [179_999, '3 min 0 s'], [187_000, '3 min 7 s'],
      [3_599_499, '59 min 59 s'], [3_599_500, '1 h 0 min'], [3_599_999, '1 h 0 min'], [3_600_000, '1 h 0 min'],
      [7_469_999, '2 h 4 min'], [7_470_000, '2 h 5 min'], [86_369_999, '23 h 59 min'], [86_399_999, '1 d 0 h'],
      [95_400_000, '1 d 3 h'], [1_209_599_999, '14 d 0 h'],
    ];
    expect(await call('formatDuration', cases.map(([ms]) => [ms]))).toEqual(cases.map(([, text]) => text));
  });

  test('durations: over a sweep of values, every part stays below its unit and the text rounds to the value', async () => {
    const values: number[] = [];
    for (let ms = 0; ms < 4 * 86_400_000; ms += ms < 120_000 ? 499 : ms < 7_200_000 ? 29_999 : 1_799_999) values.push(ms);
    const texts = (await call('formatDuration', values.map((v) => [v]))) as string[];
    const unitMs: Record<string, number> = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000, d: 86_400_000 };
    const limit: Record<string, number> = { s: 60, min: 60, h: 24 };
    texts.forEach((text, i) => {
      const parts = [...text.matchAll(/([\d.]+) (ms|s|min|h|d)/g)].map((m) => [Number(m[1]), m[2]!] as const);
      expect(parts.length).toBeGreaterThan(0);
      // a second part (the smaller unit) never reaches its unit's size
      if (parts.length === 2) expect({ text, ok: parts[1]![0] < limit[parts[1]![1]]! }).toEqual({ text, ok: true });
      // what it says is the value, to within half of the smallest unit shown
      const shown = parts.reduce((sum, [n, unit]) => sum + n * unitMs[unit]!, 0);
      const smallest = parts.length === 2 ? unitMs[parts[1]![1]]! : parts[0]![1] === 's' ? (/\.\d\d /.test(text) ? 10 : 100) : unitMs[parts[0]![1]]!;
      expect({ text, off: Math.abs(shown - values[i]!) <= smallest / 2 }).toEqual({ text, off: true });
    });
  });

  test('amounts at a glance: four significant digits, the whole part never cut, rounding said with ≈', async () => {
    const cases: [string, { text: string; exact: boolean }][] = [
      ['12345678901234567', { text: '0.01235', exact: false }], // 0.012345678901234567 ETH, the 17 decimals of issue 13
      ['10000000000000000', { text: '0.01', exact: true }],
      ['1234500000000000000', { text: '1.235', exact: false }], // half rounds away from zero
      ['12345678901234567890123', { text: '12,346', exact: false }],
      ['999960000000000000', { text: '1', exact: false }], // a carry across the point
      ['21000000000000', { text: '0.000021', exact: true }],
      ['1', { text: '0.000000000000000001', exact: true }],
      ['0', { text: '0', exact: true }],
      ['-2500000000000000000', { text: '-2.5', exact: true }],
    ];
    expect(await call('roundUnits', cases.map(([wei]) => [wei, 18]))).toEqual(cases.map(([, r]) => r));
    // exact formatting keeps every digit, beyond 2^53
    expect(await call('formatUnits', [['123456789012345678901', 18, 'ETH']])).toEqual(['123.456789012345678901 ETH']);
  });

  test('ages round the same way: 59.6 s ago is "1 min ago", not "60 s ago"', async () => {
    const now = Date.parse('2026-03-01T12:00:00.000Z');
    const at = (ms: number): string => new Date(now - ms).toISOString();
    const got = await call('formatAgo', [[at(59_600), now], [at(3_599_000), now], [at(47.6 * 3_600_000), now], [at(-90_000), now], [at(12_000), now]]);
    expect(got).toEqual(['1 min ago', '1 h ago', '2 d ago', 'in 2 min', '12 s ago']);
  });
});
