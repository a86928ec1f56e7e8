/**
 * The embedded web UI in real Chromium, on a real server and SQLite journal filled by `chainflow demo`'s use case
 * (plus one run on a network without a known explorer). Every view renders what the API answers; filters live
 * in the hash and survive a reload; lists page with the API's cursor; ids and hashes have copy buttons; explorer
 * links open in a new tab; amounts are exact. After each test: no request left 127.0.0.1 and no page error.
 */
import type { Browser, Page } from 'playwright-core';
import { WriteDemoJournal } from '../../src/application/journal/demo-journal.use-case';
import { aRun, aTxHash, HOUR } from '../mothers/journal-events';
import { checkAndCloseTabs, launchBrowser, openTab, waitForView, type Tab } from '../support/browser';
import { get, startTestServer, type TestServer } from '../support/server';

jest.setTimeout(120_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** Exact wei → ETH text, independently of the page: BigInt only. */
function eth(wei: string, unit = ' ETH'): string {
  const v = BigInt(wei);
  const whole = (v / 10n ** 18n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = (v % 10n ** 18n).toString().padStart(18, '0').replace(/0+$/, '');
  return whole + (frac ? `.${frac}` : '') + unit;
}

/**
 * How the page shows an amount at a glance, computed apart from it: four significant digits through Intl (the
 * whole part kept), "≈" when that is not the exact amount.
 */
function glance(wei: string, unit = ' ETH'): string {
  const exact = eth(wei, '');
  const n = Number(exact.replace(/,/g, ''));
  const text = n >= 1000 ? Math.round(n).toLocaleString('en-US') : new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 }).format(n);
  return (text === exact ? '' : '\u2248\u2009') + text + unit;
}

const NO_EXPLORER_RUN = 'ui-devnet-0001';
const BIG_VALUE = '123456789012345678901'; // above 2^53: a float would lose digits

describe('web UI: views over the demo journal', () => {
  let srv: TestServer;
  let browser: Browser;
  /** The tabs a test opened: checked and closed after it. */
  const tabs: Tab[] = [];

  const api = async (path: string): Promise<Json> => {
    const res = await srv.get(path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  async function newTab(options: Parameters<typeof openTab>[1] = {}): Promise<Tab> {
    const t = await openTab(browser, options);
    tabs.push(t);
    return t;
  }
  async function visit(hash: string, view: string, options: Parameters<typeof openTab>[1] = {}, state: 'ready' | 'error' = 'ready'): Promise<Page> {
    const t = await newTab(options);
    await t.page.goto(`${srv.baseUrl}/${hash}`);
    await waitForView(t.page, view, state);
    return t.page;
  }
  const cells = (page: Page, selector: string): Promise<string[]> => page.locator(selector).allInnerTexts();
  const runIdsShown = (page: Page, scope = 'main'): Promise<(string | null)[]> =>
    page.locator(`${scope} tr[data-run]`).evaluateAll((rows) => rows.map((r) => (r as Json).dataset.run));

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startTestServer(), launchBrowser()]);
    await srv.root.container.get(WriteDemoJournal).execute();
    await srv.append(aRun({
      runId: NO_EXPLORER_RUN, workflow: 'payouts', at: Date.now() - 200 * HOUR, network: 'devnet-local',
      send: { network: 'devnet-local', chainId: 31337, relayer: 'ops', valueWei: BIG_VALUE, txHash: aTxHash('devnet') },
    }));
  });

  afterEach(() => checkAndCloseTabs(tabs, (t) => expect(t.requests.length).toBeGreaterThan(0)));

  afterAll(async () => {
    await browser?.close();
    await srv?.close();
  });

  test('GET / serves a secret-free shell; its stylesheet and ES modules come from this origin, nothing inline or external, at most 250 KB in all', async () => {
    const res = await srv.get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    // revalidated by its ETag: unchanged, a 304 without a body (as a browser asks on a reload; fetch would add
    // `Cache-Control: no-cache` to a conditional request, which asks for the whole answer)
    const again = await get(`${srv.baseUrl}/`, { headers: { 'if-none-match': res.headers.get('etag')!, 'cache-control': 'max-age=0' } });
    expect({ status: again.status, text: again.text }).toEqual({ status: 304, text: '' });
    // one module script and one stylesheet, both files under the versioned assets path; nothing inline
    const scripts = [...res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![1]).toMatch(/^ type="module" src="\/assets\/[0-9a-f]{12}\/js\/main\.js"$/);
    expect(scripts[0]![2]).toBe('');
    expect(res.text).not.toMatch(/<style\b/);
    expect(res.text).toMatch(/<link rel="stylesheet" href="\/assets\/[0-9a-f]{12}\/style\.css">/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp.split('; ')).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'"]));
    expect(csp).not.toMatch(/unsafe|sha256/);

    // every file the page loads (the shell, the stylesheet, every module it imports), as Chromium fetched them
    const t = await newTab();
    const files = new Map<string, { type: string; cache: string; bytes: number; text: string }>();
    t.page.on('response', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/') || u.protocol === 'data:') return;
      void r.body().then((b) => files.set(u.pathname, { type: r.headers()['content-type'] ?? '', cache: r.headers()['cache-control'] ?? '', bytes: b.length, text: b.toString('utf8') }));
    });
    await t.page.goto(`${srv.baseUrl}/#/workflows`);
    await waitForView(t.page, 'workflows');
    await t.page.waitForTimeout(100);
    const assets = [...files.keys()].filter((p) => p !== '/');
    // the shared modules and the view's own (each view's module loads when the view is first shown)
    expect(assets.filter((p) => p.endsWith('.js')).length).toBeGreaterThan(10);
    expect(assets.filter((p) => p.includes('/views/'))).toEqual([expect.stringMatching(/\/views\/workflows\.js$/)]);
    let total = 0;
    for (const [path, f] of files) {
      total += f.bytes;
      expect(f.text).not.toMatch(/https?:\/\//); // no CDN, no font, no remote anything
      expect(f.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|eval\(|new Function|document\.write/);
      if (path === '/') continue;
      expect({ path, immutable: f.cache }).toEqual({ path, immutable: 'public, max-age=31536000, immutable' });
      expect({ path, type: f.type }).toEqual({ path, type: path.endsWith('.css') ? expect.stringMatching(/^text\/css/) : expect.stringMatching(/^(text|application)\/javascript/) });
    }
    expect(total).toBeLessThanOrEqual(250 * 1024);
    expect(files.get('/')!.text).not.toMatch(/\son[a-z]+=/i); // no inline handlers (the CSP would block them)
    expect(files.get('/')!.text).not.toMatch(/\sstyle=/i);
    // the same files without the version are served too, revalidated on every use; an unknown version is a 404
    const version = assets[0]!.split('/')[2]!;
    const plain = await srv.get('/assets/js/main.js');
    expect({ status: plain.status, cache: plain.headers.get('cache-control') }).toEqual({ status: 200, cache: 'no-cache' });
    expect((await srv.get('/assets/000000000000/js/main.js')).status).toBe(404);
    expect((await srv.get(`/assets/${version}/nope.js`)).status).toBe(404);
  });

  test('Workflows overview: one row per workflow of the API, with its pause state and counts', async () => {
    const expected = (await api('/api/history/workflows?limit=500')).items;
    const page = await visit('#/workflows', 'workflows');
    const rows = page.locator('main section.list tbody tr');
    await expect(rows.count()).resolves.toBe(expected.length);
    expect(expected.length).toBeGreaterThan(0);
    for (const [i, w] of expected.entries()) {
      const text = await rows.nth(i).innerText();
      expect(text).toContain(w.workflow);
      expect(text).toContain(w.paused ? 'paused' : 'active');
      expect(text).toContain(String(w.success_count));
    }
    // a workflow name links to its runs
    await rows.nth(0).locator('a', { hasText: expected[0].workflow }).first().click();
    await waitForView(page, 'runs');
    expect(new URL(page.url()).hash).toBe(`#/runs?workflow=${encodeURIComponent(expected[0].workflow)}`);
  });

  test('Runs: the first page in API order, then "Load more" appends the next pages with the cursor until the end', async () => {
    const all = (await api('/api/history/runs?limit=500')).items.map((r: Json) => r.run_id);
    const firstPage = (await api('/api/history/runs?limit=20')).items.map((r: Json) => r.run_id);
    expect(all.length).toBeGreaterThan(40);
    const page = await visit('#/runs?limit=20', 'runs');
    expect(await runIdsShown(page)).toEqual(firstPage);
    const more = page.getByRole('button', { name: 'Load more' });
    while (await more.isVisible()) {
      const before = (await runIdsShown(page)).length;
      await more.click();
      await page.waitForFunction((n) => (globalThis as Json).document.querySelectorAll('main tr[data-run]').length > n, before);
    }
    expect(await runIdsShown(page)).toEqual(all);
    await expect(page.locator('main p.count').innerText()).resolves.toContain('end of list');
    // the page marks when its first page was on screen (read by the UI benchmark)
    const marks = await page.evaluate(() => (globalThis as Json).performance.getEntriesByName('chainflow:runs-first-page').length);
    expect(marks).toBe(1);
  });

  test('Runs: filters come from the hash, show in the form, match the API, and survive a reload', async () => {
    const expected = (await api('/api/history/runs?workflow=payouts&status=failed')).items.map((r: Json) => r.run_id);
    expect(expected.length).toBeGreaterThan(0);
    const page = await visit('#/runs?workflow=payouts&status=failed', 'runs');
    const check = async (): Promise<void> => {
      expect(await runIdsShown(page)).toEqual(expected);
      await expect(page.locator('form.filters input[name=workflow]').inputValue()).resolves.toBe('payouts');
      await expect(page.locator('form.filters select[name=status]').inputValue()).resolves.toBe('failed');
      for (const row of await cells(page, 'main tr[data-run]')) {
        expect(row).toContain('payouts');
        expect(row).toContain('failed');
      }
    };
    await check();
    await page.reload();
    await waitForView(page, 'runs');
    await check();
  });

  test('Runs: the form writes every filter into the hash, including the ones under "More filters"', async () => {
    const page = await visit('#/runs', 'runs');
    await page.locator('form.filters input[name=workflow]').fill('price-keeper');
    await page.locator('form.filters summary').click();
    await page.locator('form.filters input[name=relayer]').fill('keeper-base');
    await page.locator('form.filters select[name=status]').selectOption('succeeded'); // a select applies at once
    await page.waitForFunction(() => (globalThis as Json).location.hash.includes('status=succeeded'));
    await waitForView(page, 'runs');
    const params = new URLSearchParams(new URL(page.url()).hash.split('?')[1]);
    expect(Object.fromEntries(params)).toEqual({ workflow: 'price-keeper', status: 'succeeded', relayer: 'keeper-base' });
    const expected = (await api('/api/history/runs?workflow=price-keeper&status=succeeded&relayer=keeper-base')).items.map((r: Json) => r.run_id);
    expect(await runIdsShown(page)).toEqual(expected);
    // after a reload the secondary filter is restored and its section open
    await page.reload();
    await waitForView(page, 'runs');
    await expect(page.locator('form.filters input[name=relayer]').inputValue()).resolves.toBe('keeper-base');
    await expect(page.locator('form.filters details').getAttribute('open')).resolves.not.toBeNull();
    // every run filter of the API has a field
    const names = await page.locator('form.filters [name]').evaluateAll((els) => els.map((e) => (e as Json).name).sort());
    expect(names).toEqual(['approval_status', 'block', 'contract', 'error_kind', 'network', 'relayer', 'run_id', 'session', 'session_id', 'since', 'status', 'step_id', 'tx_hash', 'trigger', 'until', 'workflow'].sort());
  });

  test('Runs: a bad filter shows the API\'s error instead of rows', async () => {
    const page = await visit('#/runs?since=yesterday', 'runs', {}, 'error');
    await expect(page.locator('main .notice.error').innerText()).resolves.toMatch(/400.*since/);
    await expect(page.locator('main tr[data-run]').count()).resolves.toBe(0);
  });

  test('Run detail: trigger, conditions, steps with redacted input and output, simulation, gas-cap checks, sends, approval', async () => {
    const runId = (await api('/api/history/runs?workflow=treasury-sweep&status=succeeded&limit=1')).items[0].run_id;
    const tl = await api(`/api/history/runs/${runId}/timeline`);
    const page = await visit(`#/run/${runId}`, 'run');
    const events = page.locator('ol.timeline > li');
    await expect(events.count()).resolves.toBe(tl.events.length);
    const kinds = await events.evaluateAll((els) => els.map((e) => (e as Json).dataset.kind));
    expect(kinds).toEqual(tl.events.map((e: Json) => e.kind));
    const text = await page.locator('main').innerText();
    const trigger = tl.events.find((e: Json) => e.kind === 'trigger');
    expect(text).toContain(trigger.trigger.summary);
    for (const c of trigger.conditions) expect(text).toContain(c.name);
    const steps = tl.events.filter((e: Json) => e.kind === 'step');
    for (const s of steps) {
      expect(text).toContain(s.step_id);
      expect(text).toContain(s.step_run_id);
    }
    const send = steps.flatMap((s: Json) => s.sends)[0];
    const check = steps.flatMap((s: Json) => s.budget_checks)[0];
    const approval = tl.events.find((e: Json) => e.kind === 'approval').approval;
    expect(text).toContain('Simulation');
    expect(text).toContain('Gas-cap checks');
    expect(text).toContain(check.budget);
    expect(text).toContain(eth(check.cap_wei, ''));
    expect(text).toContain(send.idempotency_key);
    expect(text).toContain(approval.decided_by);
    expect(text).toContain(approval.reason);
    // the trigger payload's headers are redacted by the server; the marker is an element of its own, still text
    const markers = page.locator('main .redacted');
    expect(await markers.count()).toBeGreaterThan(0);
    expect(new Set(await markers.allInnerTexts())).toEqual(new Set(['<redacted>']));
    // the transaction links to the explorer the API resolved, in a new tab, without opener or referrer
    const link = page.locator(`ol.timeline a[href="${send.explorer_url}"]`);
    await expect(link.count()).resolves.toBe(1);
    await expect(link.getAttribute('target')).resolves.toBe('_blank');
    expect((await link.getAttribute('rel'))!.split(' ').sort()).toEqual(['noopener', 'noreferrer']);
  });

  test('Run detail: retries and attempts, wait parking, reorg steps, and the replay marker', async () => {
    const failed = (await api('/api/history/runs?error_kind=http_status&limit=1')).items[0].run_id;
    const failedTl = await api(`/api/history/runs/${failed}/timeline`);
    const retried = failedTl.events.find((e: Json) => e.kind === 'step' && e.attempts.length > 1);
    let page = await visit(`#/run/${failed}`, 'run');
    const stepLi = page.locator('ol.timeline > li[data-kind=step]', { hasText: retried.step_run_id });
    await expect(stepLi.locator('h3', { hasText: 'Attempts' }).innerText()).resolves.toContain(`${retried.attempts.length}, retried`);
    await expect(stepLi.locator('table').first().locator('tbody tr').count()).resolves.toBe(retried.attempts.length);

    const parked = (await api('/api/history/waiting?wait_kind=approval&limit=1')).items[0];
    page = (await newTab()).page;
    await page.goto(`${srv.baseUrl}/#/run/${parked.run_id}`);
    await waitForView(page, 'run');
    const parkedLi = page.locator('ol.timeline > li[data-kind=step]', { hasText: 'Parked' });
    await expect(parkedLi.innerText()).resolves.toContain('approval');
    await expect(page.locator('ol.timeline > li[data-kind=approval]').innerText()).resolves.toContain('pending');

    const reorg = (await api('/api/history/reorgs?limit=1')).items[0];
    page = (await newTab()).page;
    await page.goto(`${srv.baseUrl}/#/run/${reorg.run_id}`);
    await waitForView(page, 'run');
    const reorgSteps = page.locator('ol.timeline > li[data-kind=reorg_step]');
    await expect(reorgSteps.count()).resolves.toBe(reorg.steps.length);
    for (const s of reorg.steps) await expect(page.locator('main').innerText()).resolves.toContain(s.step_id);

    const replay = (await api('/api/history/runs?session=replay&limit=1')).items[0];
    page = (await newTab()).page;
    await page.goto(`${srv.baseUrl}/#/run/${replay.run_id}`);
    await waitForView(page, 'run');
    const marker = page.locator('main .notice.marker');
    await expect(marker.innerText()).resolves.toContain(replay.session_id);
    await expect(marker.locator(`a[href="#/run/${replay.replay_of}"]`).count()).resolves.toBe(1);
    await expect(page.locator('main h1 .marker').innerText()).resolves.toBe('REPLAY');
  });

  test('Run detail: an unknown run says so', async () => {
    const page = await visit('#/run/no-such-run', 'run');
    await expect(page.locator('main .notice.error').innerText()).resolves.toContain('Run not found');
  });

  test('Transactions: send attempts with status, explorer links in a new tab, and no link where the network has no explorer', async () => {
    const expected = (await api('/api/history/txs')).items;
    const page = await visit('#/txs', 'txs');
    const rows = page.locator('main tbody tr');
    await expect(rows.count()).resolves.toBe(expected.length);
    const linked = expected.find((s: Json) => s.explorer_url);
    const link = page.locator(`main a[href="${linked.explorer_url}"]`);
    await expect(link.innerText()).resolves.toBe(linked.tx_hash);
    await expect(link.getAttribute('target')).resolves.toBe('_blank');
    await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    // the lifecycle in one badge: queued, parked, submitted, then the outcome once settled
    expect(await cells(page, 'main tbody .lifecycle')).toEqual(expected.map((s: Json) => (s.status === 'settled' && s.outcome ? s.outcome : s.status)));
    expect(new Set(expected.map((s: Json) => s.status))).toEqual(new Set(['queued', 'parked', 'submitted', 'settled']));

    const devnet = (await api(`/api/history/txs?run_id=${NO_EXPLORER_RUN}`)).items[0];
    expect(devnet.explorer_url).toBeNull();
    const tab = await newTab();
    await tab.page.goto(`${srv.baseUrl}/#/txs?run_id=${NO_EXPLORER_RUN}`);
    await waitForView(tab.page, 'txs');
    const hash = tab.page.locator('main tbody code', { hasText: devnet.tx_hash });
    await expect(hash.count()).resolves.toBe(1);
    await expect(tab.page.locator(`main a:has-text("${devnet.tx_hash}")`).count()).resolves.toBe(0);
    await expect(hash.locator('xpath=following-sibling::button[contains(@class,"copy")]').count()).resolves.toBe(1);
    // an amount reads at a glance; the exact one, every digit of a value above 2^53 wei, is in its tooltip
    const value = tab.page.locator('main tbody td.num .amt');
    await expect(value.innerText()).resolves.toBe('\u2248\u2009123.5');
    await expect(value.getAttribute('title')).resolves.toBe(`${eth(BIG_VALUE)}\n${BIG_VALUE} wei`);

    // a token transfer shows its exact amount (base units) and recipient under the token contract it calls
    const token = (await api('/api/history/txs?run_id=demo-0049')).items[0];
    expect(token.token_transfer).toMatchObject({ amount: '2500000000000000000000' });
    await tab.page.goto(`${srv.baseUrl}/#/txs?run_id=demo-0049`);
    await waitForView(tab.page, 'txs');
    const transfer = tab.page.locator('main tbody .token-transfer');
    await expect(transfer.innerText()).resolves.toContain('→ 2500000000000000000000 to');
    await expect(transfer.innerText()).resolves.toContain(token.token_transfer.to);
  });

  test('every hash, id and address on screen has a copy button', async () => {
    const runId = (await api('/api/history/runs?workflow=treasury-sweep&status=succeeded&limit=1')).items[0].run_id;
    for (const [hash, view] of [['#/txs', 'txs'], [`#/run/${runId}`, 'run'], ['#/runs', 'runs'], ['#/approvals', 'approvals'], ['#/reorgs', 'reorgs']]) {
      const page = await visit(hash!, view!);
      const orphans = await page.evaluate(() => {
        const doc = (globalThis as Json).document;
        const out: string[] = [];
        // 0x hashes and addresses anywhere but inside JSON blocks, and every element styled as an id
        for (const el of doc.querySelectorAll('main td, main dd, main .mono')) {
          const own = [...el.childNodes].filter((n: Json) => n.nodeType === 3).map((n: Json) => n.textContent).join('');
          if (/0x[0-9a-fA-F]{40}/.test(own) || el.classList.contains('mono')) {
            const idv = el.closest('.idv');
            if (!idv || !idv.querySelector('button.copy')) out.push(el.textContent);
          }
        }
        return { orphans: out, ids: doc.querySelectorAll('main .idv').length };
      });
      expect({ view, orphans: orphans.orphans }).toEqual({ view, orphans: [] });
      expect(orphans.ids).toBeGreaterThan(0);
    }
  });

  test('a copy button puts the value on the clipboard, and falls back to execCommand when the clipboard API refuses', async () => {
    const first = (await api('/api/history/runs?limit=1')).items[0].run_id;
    const page = await visit('#/runs', 'runs', { permissions: ['clipboard-read', 'clipboard-write'] });
    await page.locator(`main tr[data-run="${first}"] button.copy`).first().click();
    await expect(page.evaluate(() => (globalThis as Json).navigator.clipboard.readText())).resolves.toBe(first);
    await expect(page.locator(`main tr[data-run="${first}"] button.copy.copied`).count()).resolves.toBe(1);

    const tab = await newTab();
    await tab.page.addInitScript(() => {
      const g = globalThis as Json;
      g.navigator.clipboard.writeText = () => Promise.reject(new Error('denied'));
      const original = g.document.execCommand.bind(g.document);
      g.document.execCommand = (cmd: string, ...rest: unknown[]) => {
        const el = g.document.activeElement;
        g.__copied = { cmd, text: el.value.slice(el.selectionStart, el.selectionEnd) };
        return original(cmd, ...rest);
      };
    });
    await tab.page.goto(`${srv.baseUrl}/#/runs`);
    await waitForView(tab.page, 'runs');
    await tab.page.locator(`main tr[data-run="${first}"] button.copy`).first().click();
    await tab.page.waitForFunction(() => (globalThis as Json).__copied !== undefined);
    await expect(tab.page.evaluate(() => (globalThis as Json).__copied)).resolves.toEqual({ cmd: 'copy', text: first });
    await expect(tab.page.locator('textarea').count()).resolves.toBe(0); // the helper textarea is gone again
  });

  test('Approvals: pending and decided, who decided and why; the status filter narrows to pending', async () => {
    const all = (await api('/api/history/approvals')).items;
    const statuses = new Set(all.map((a: Json) => a.status));
    expect(statuses.has('pending')).toBe(true);
    expect(statuses.size).toBeGreaterThan(1);
    const page = await visit('#/approvals', 'approvals');
    await expect(page.locator('main tbody tr').count()).resolves.toBe(all.length);
    const text = await page.locator('main tbody').innerText();
    for (const a of all.filter((x: Json) => x.decided_by)) {
      expect(text).toContain(a.decided_by);
      expect(text).toContain(a.reason);
    }
    await page.locator('form.filters select[name=status]').selectOption('pending');
    await page.waitForFunction(() => (globalThis as Json).location.hash === '#/approvals?status=pending');
    await waitForView(page, 'approvals');
    const pending = (await api('/api/history/approvals?status=pending')).items;
    await expect(page.locator('main tbody tr').count()).resolves.toBe(pending.length);
    for (const row of await cells(page, 'main tbody tr')) expect(row).toContain('pending');
  });

  test('Waiting: the runs parked now with their wait kind and due or expiry', async () => {
    const items = (await api('/api/history/waiting')).items;
    expect(new Set(items.map((w: Json) => w.wait_kind))).toEqual(new Set(['tx', 'delay', 'event', 'approval']));
    const page = await visit('#/waiting', 'waiting');
    expect(await cells(page, 'main tbody tr td:nth-child(2) .mono')).toEqual(items.map((w: Json) => w.run_id));
    expect(await cells(page, 'main tbody tr td:nth-child(4)')).toEqual(items.map((w: Json) => w.wait_kind));
    const due = items.find((w: Json) => w.due_at);
    await expect(page.locator(`main time[datetime="${due.due_at}"]`).count()).resolves.toBe(1);
  });

  test('Failures and dead-letters: both lists, and a status toggle kept in the hash', async () => {
    const failed = (await api('/api/history/runs?status=failed')).items.map((r: Json) => r.run_id);
    const dead = (await api('/api/history/runs?status=dead_lettered')).items.map((r: Json) => r.run_id);
    expect(failed.length).toBeGreaterThan(0);
    expect(dead.length).toBeGreaterThan(0);
    const page = await visit('#/failures', 'failures');
    const lists = page.locator('main section.list');
    await expect(lists.count()).resolves.toBe(2);
    expect(await runIdsShown(page, 'main section.list >> nth=0 >>')).toEqual(failed);
    expect(await runIdsShown(page, 'main section.list >> nth=1 >>')).toEqual(dead);
    await page.locator('form.filters select[name=status]').selectOption('dead_lettered');
    await page.waitForFunction(() => (globalThis as Json).location.hash === '#/failures?status=dead_lettered');
    await waitForView(page, 'failures');
    await expect(lists.count()).resolves.toBe(1);
    expect(await runIdsShown(page)).toEqual(dead);
    await page.reload();
    await waitForView(page, 'failures');
    expect(await runIdsShown(page)).toEqual(dead);
  });

  test('Reorg responses: each response with its steps', async () => {
    const items = (await api('/api/history/reorgs')).items;
    expect(items.length).toBeGreaterThan(0);
    const page = await visit('#/reorgs', 'reorgs');
    await expect(page.locator('main tbody > tr').count()).resolves.toBe(items.length);
    const text = await page.locator('main tbody').innerText();
    for (const r of items) {
      expect(text).toContain(r.reorg_id);
      expect(text).toContain(r.run_id);
      for (const s of r.steps) expect(text).toContain(s.step_id);
    }
  });

  test('Replay/test sessions: sessions with their run counts, linked to their runs', async () => {
    const items = (await api('/api/history/replays')).items;
    expect(new Set(items.map((s: Json) => s.kind))).toEqual(new Set(['replay', 'test']));
    const page = await visit('#/replays', 'replays');
    expect(await cells(page, 'main tbody tr td:nth-child(2) code')).toEqual(items.map((s: Json) => s.session_id));
    expect(await cells(page, 'main tbody tr td:nth-child(6)')).toEqual(items.map((s: Json) => String(s.run_count)));
    const replay = items.find((s: Json) => s.kind === 'replay');
    await page.locator('main tbody tr', { hasText: replay.session_id }).locator('td:nth-child(6) a').click();
    await waitForView(page, 'runs');
    expect(new URL(page.url()).hash).toBe(`#/runs?session_id=${replay.session_id}`);
    const shown = await runIdsShown(page);
    expect(shown).toHaveLength(replay.run_count);
    for (const id of shown) expect((await api(`/api/history/runs?run_id=${id}`)).items[0].session_id).toBe(replay.session_id);
  });

  test('Compare: two runs ticked in Runs open the diff view with the API\'s differences', async () => {
    const payouts = (await api('/api/history/runs?workflow=payouts&session=live&limit=100')).items;
    const a = payouts.find((r: Json) => r.status === 'succeeded').run_id;
    const b = payouts.find((r: Json) => r.status === 'failed').run_id;
    const diff = await api(`/api/history/diff?a=${a}&b=${b}`);
    const page = await visit('#/runs?workflow=payouts&limit=100', 'runs');
    await page.locator(`main tr[data-run="${a}"] input[type=checkbox]`).check();
    await page.locator(`main tr[data-run="${b}"] input[type=checkbox]`).check();
    await page.getByRole('button', { name: 'Compare 2 selected runs' }).click();
    await waitForView(page, 'compare');
    expect(new URL(page.url()).hash).toBe(`#/compare?a=${a}&b=${b}`);
    const text = await page.locator('main').innerText();
    for (const c of diff.run) expect(text).toContain(c.path);
    for (const s of diff.steps) {
      expect(text).toContain(s.step_id);
      for (const c of s.changes) expect(text).toContain(c.path);
    }
    await page.reload();
    await waitForView(page, 'compare');
    await expect(page.locator('form.filters input[name=a]').inputValue()).resolves.toBe(a);
    await expect(page.locator('form.filters input[name=b]').inputValue()).resolves.toBe(b);
  });

  test('Spend: KPI tiles, one table per dimension, newest settled sends with explorer links', async () => {
    const spend = await api('/api/spend');
    const total = spend.summary.total;
    expect(total.tx_count).toBeGreaterThan(0);
    const page = await visit('#/spend', 'spend');
    const tiles = page.locator('main .tile');
    await expect(tiles.allInnerTexts()).resolves.toEqual([
      expect.stringContaining(glance(total.gas_spend_wei)), expect.stringContaining(glance(total.value_wei)),
      expect.stringContaining(glance(total.reverted_gas_wei)), expect.stringContaining(String(total.tx_count)),
    ]);
    await expect(tiles.nth(0).locator('.amt').getAttribute('title')).resolves.toBe(`${eth(total.gas_spend_wei)}\n${total.gas_spend_wei} wei`);
    for (const [dim, member] of [['workflow', 'by_workflow'], ['relayer', 'by_relayer'], ['network', 'by_network']]) {
      expect(await cells(page, `main section[data-dim=${dim}] tbody tr td:first-child`)).toEqual(spend.summary[member!].map((g: Json) => g.key));
    }
    const entries = page.locator('main table.entries tbody tr');
    await expect(entries.count()).resolves.toBe(spend.entries.length);
    const withLink = spend.entries.find((e: Json) => spend.explorer_urls?.[e.tx_hash] ?? e.explorer_url);
    const url = spend.explorer_urls?.[withLink.tx_hash] ?? withLink.explorer_url;
    const link = page.locator(`main table.entries a[href="${url}"]`);
    await expect(link.innerText()).resolves.toBe(withLink.tx_hash);
    await expect(link.getAttribute('target')).resolves.toBe('_blank');
    await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    const devnet = spend.entries.find((e: Json) => e.network === 'devnet-local');
    await expect(page.locator(`main table.entries code:has-text("${devnet.tx_hash}")`).count()).resolves.toBe(1);
    await expect(page.locator(`main table.entries a:has-text("${devnet.tx_hash}")`).count()).resolves.toBe(0);
  });

  test('Spend: clicking a dimension row filters to it; filters live in the hash and survive a reload', async () => {
    const groups = (await api('/api/spend')).summary.by_relayer;
    const key = groups[groups.length - 1].key;
    const page = await visit('#/spend?since=30d', 'spend');
    await page.locator('main section[data-dim=relayer] tbody tr', { hasText: key }).locator('td').nth(1).click();
    await page.waitForFunction((k) => (globalThis as Json).location.hash.includes(`relayer=${encodeURIComponent(k)}`), key);
    await waitForView(page, 'spend');
    expect(Object.fromEntries(new URLSearchParams(new URL(page.url()).hash.split('?')[1]))).toEqual({ since: '30d', relayer: key });
    const filtered = await api(`/api/spend?since=30d&relayer=${encodeURIComponent(key)}`);
    const check = async (): Promise<void> => {
      await expect(page.locator('main .tile .amt').first().getAttribute('title')).resolves.toContain(`${filtered.summary.total.gas_spend_wei} wei`);
      await expect(page.locator('main table.entries tbody tr').count()).resolves.toBe(filtered.entries.length);
      for (const row of await cells(page, 'main table.entries tbody tr')) expect(row).toContain(key);
      await expect(page.locator('form.filters input[name=relayer]').inputValue()).resolves.toBe(key);
      await expect(page.locator('form.filters input[name=since]').inputValue()).resolves.toBe('30d');
    };
    await check();
    await page.reload();
    await waitForView(page, 'spend');
    await check();
  });

  test('Spend: an entry a reorg removed says so in its result column', async () => {
    const spend = await api('/api/spend');
    const marked = spend.entries[0].tx_hash;
    const tab = await newTab();
    // The server's own answer, with its newest entry reorged (CONTRACT 8.6): the view renders what the API says.
    await tab.page.route('**/api/spend*', (route) => route.fulfill({
      status: 200, contentType: 'application/json',
      body: JSON.stringify({ ...spend, entries: spend.entries.map((e: Json) => ({ ...e, reorged: e.tx_hash === marked })) }),
    }));
    await tab.page.goto(`${srv.baseUrl}/#/spend`);
    await waitForView(tab.page, 'spend');
    const results = await cells(tab.page, 'main table.entries tbody tr td:last-child');
    expect(results).toEqual(spend.entries.map((e: Json) => (e.tx_hash === marked ? 'reorged' : e.reverted ? 'reverted' : 'confirmed')));
  });

  test('Spend and Relayers say "not available" when the server has no such route (404)', async () => {
    const tab = await newTab();
    await tab.page.route('**/api/spend*', (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"not found"}' }));
    await tab.page.route('**/api/relayers*', (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"not found"}' }));
    await tab.page.goto(`${srv.baseUrl}/#/spend`);
    await waitForView(tab.page, 'spend');
    await expect(tab.page.locator('main .notice').innerText()).resolves.toContain('not available');
    await tab.page.goto(`${srv.baseUrl}/#/relayers`);
    await waitForView(tab.page, 'relayers');
    await expect(tab.page.locator('main .notice').innerText()).resolves.toContain('not available');
    await expect(tab.page.locator('main table').count()).resolves.toBe(0);
  });

  test('a view whose module cannot load (the server was updated since the page was opened) says to reload', async () => {
    const tab = await newTab();
    await tab.page.route('**/views/spend.js', (route) => route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"not found"}' }));
    await tab.page.goto(`${srv.baseUrl}/#/workflows`);
    await waitForView(tab.page, 'workflows');
    await tab.page.locator('nav a', { hasText: 'Spend' }).click();
    await waitForView(tab.page, 'spend', 'error');
    await expect(tab.page.locator('main .notice.error').innerText()).resolves.toContain('Reload the page');
    await tab.page.locator('nav a', { hasText: 'Runs' }).click();
    await waitForView(tab.page, 'runs');
  });

  test('Relayers: the address book of GET /api/relayers (CONTRACT shape), a row linking to the runs of its relayer', async () => {
    const item = {
      relayer: 'ops', network: 'sepolia', chain_id: 11155111, address: '0x00000000000000000000000000000000000000aa', balance_wei: '40000000000000000',
      balance_error: null, low_balance: true, low_balance_threshold_wei: '50000000000000000', recent_gas_spend_wei: '1234567890123',
      funding_estimate_wei: '90000000000000000', shortfall_wei: '50000000000000000', explorer_url: 'https://sepolia.etherscan.io/address/0x00000000000000000000000000000000000000aa',
    };
    const tab = await newTab();
    await tab.page.route('**/api/relayers*', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ items: [item], cursor: null, has_more: false }) }));
    await tab.page.goto(`${srv.baseUrl}/#/relayers`);
    await waitForView(tab.page, 'relayers');
    const row = tab.page.locator('main tbody tr');
    const text = await row.innerText();
    for (const wei of [item.balance_wei, item.low_balance_threshold_wei, item.recent_gas_spend_wei, item.funding_estimate_wei, item.shortfall_wei]) expect(text).toContain(eth(wei));
    expect(text).toContain('low');
    await expect(row.locator(`a[href="${item.explorer_url}"]`).getAttribute('rel')).resolves.toBe('noopener noreferrer');
    await expect(row.locator('button.copy').count()).resolves.toBe(1);
    await row.locator('a', { hasText: 'ops' }).first().click();
    await waitForView(tab.page, 'runs');
    expect(new URL(tab.page.url()).hash).toBe('#/runs?relayer=ops');
  });

  test('themes: follow the system by default; the switch is remembered across reloads', async () => {
    const bg = (p: Page): Promise<string> => p.evaluate(() => (globalThis as Json).getComputedStyle((globalThis as Json).document.body).backgroundColor);
    const page = await visit('#/workflows', 'workflows', { colorScheme: 'dark' });
    const dark = await bg(page);
    await expect(page.locator('#theme').inputValue()).resolves.toBe('');
    await page.locator('#theme').selectOption('light');
    const light = await bg(page);
    expect(light).not.toBe(dark);
    await page.reload();
    await waitForView(page, 'workflows');
    await expect(bg(page)).resolves.toBe(light);
    await expect(page.locator('#theme').inputValue()).resolves.toBe('light');
    await page.locator('#theme').selectOption('');
    await expect(bg(page)).resolves.toBe(dark);
    const lightSystem = await visit('#/workflows', 'workflows', { colorScheme: 'light' });
    await expect(bg(lightSystem)).resolves.toBe(light);
  });
});
