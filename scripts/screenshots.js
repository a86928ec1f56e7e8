#!/usr/bin/env node
// `npm run screenshots`: every view of the web UI, dark and light, as docs/screenshots/<view>-<theme>.png.
// Runs on the build (dist/): a temp folder with a fresh SQLite journal filled by `chainflow demo`'s use case,
// a real server on 127.0.0.1 (port 0), and Debian's Chromium driven by playwright-core. A second server with
// authentication on gives the login card. Nothing is requested outside 127.0.0.1 (any such request fails the run).
// Options: CHROMIUM_PATH (default /usr/bin/chromium), SCREENSHOTS_DIR (default docs/screenshots).
'use strict';
require('reflect-metadata');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

process.env.CHAINFLOW_LOG_LEVEL = process.env.CHAINFLOW_LOG_LEVEL || 'silent';
const REPO = resolve(__dirname, '..');
const dist = (p) => join(REPO, 'dist', p);
const { chromium } = require('playwright-core');
const { openRoot } = require(dist('src/bin/root'));
const { startServer } = require(dist('src/bin/server'));
const { WriteDemoJournal } = require(dist('src/application/journal/demo-journal.use-case'));

const OUT = resolve(process.env.SCREENSHOTS_DIR || join(REPO, 'docs/screenshots'));
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];
const TOKEN = 'screenshot-token-0123456789abcdef';
/** Workflows configured beside the demo journal, for the Workflows view's Pause / Resume table. */
const DEMO_CONFIG = `chainflow_version: 1
workflows:
  payouts:
    trigger: { kind: cron, schedule: "*/5 * * * *" }
    steps:
      - { id: quote, type: http_call, url: "http://127.0.0.1:9/quote" }
      - { id: approve, type: approval, message: "Pay out?" }
  treasury-sweep:
    paused: true
    trigger: { kind: manual }
    steps:
      - { id: approve, type: approval }
      - { id: cool_down, type: delay, duration: 10m }
`;

async function serve(dir, config, env) {
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, 'chainflow.yaml');
  writeFileSync(configPath, config);
  const root = await openRoot({ cwd: dir, configPath, env });
  // The engine does not run: the journal stays the demo's, yet GET /api/workflows lists the configured workflows.
  const server = await startServer(root, { port: 0, host: '127.0.0.1', engine: false });
  return { root, server, base: `http://127.0.0.1:${server.address().port}` };
}

async function stop(s) {
  await new Promise((r) => { s.server.close(() => r()); s.server.closeAllConnections(); });
  await s.root.close();
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'chainflow-shots-'));
  const servers = [];
  let browser;
  try {
    const demo = await serve(join(work, 'demo'), DEMO_CONFIG, {});
    servers.push(demo);
    await demo.root.container.get(WriteDemoJournal).execute();
    const authed = await serve(join(work, 'auth'), 'chainflow_version: 1\nsecrets:\n  api_token: { env: T }\nserver:\n  auth:\n    token: { secret: api_token }\n', { T: TOKEN });
    servers.push(authed);

    // Pick runs worth showing from the API itself: a run that sent and was approved, and two runs to compare.
    const runs = await (await fetch(`${demo.base}/api/history/runs?workflow=treasury-sweep&status=succeeded&limit=1`)).json();
    const detail = runs.items[0].run_id;
    const payouts = await (await fetch(`${demo.base}/api/history/runs?workflow=payouts&limit=100`)).json();
    const ok = payouts.items.find((r) => r.status === 'succeeded' && r.session === 'live');
    const bad = payouts.items.find((r) => r.status === 'failed');

    const shots = [
      ['workflows', '#/workflows'], ['runs', '#/runs'], ['run-detail', `#/run/${encodeURIComponent(detail)}`], ['failures', '#/failures'],
      ['transactions', '#/txs'], ['approvals', '#/approvals'], ['waiting', '#/waiting'], ['reorgs', '#/reorgs'], ['replays', '#/replays'],
      ['relayers', '#/relayers'], ['spend', '#/spend'], ['compare', `#/compare?a=${ok.run_id}&b=${bad.run_id}`],
    ];
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    mkdirSync(OUT, { recursive: true });
    const leaks = [];
    for (const theme of ['dark', 'light']) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme: theme });
      await context.route('**/*', (route) => {
        const u = new URL(route.request().url());
        if (u.protocol === 'data:' || u.hostname === '127.0.0.1') return route.fallback();
        leaks.push(u.href);
        return route.abort();
      });
      const page = await context.newPage();
      for (const [name, hash] of shots) {
        await page.goto(`${demo.base}/${hash}`);
        await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 20000 });
        await page.screenshot({ path: join(OUT, `${name}-${theme}.png`) });
        process.stdout.write(`${name}-${theme}.png\n`);
      }
      // An operator's command: the dialog that asks for the reason of a decision on a pending approval.
      await page.goto(`${demo.base}/#/approvals?status=pending`);
      await page.waitForSelector('main[data-state="ready"]', { state: 'attached', timeout: 20000 });
      await page.locator('main button[data-act=approve]').first().click();
      await page.locator('dialog#ask textarea').fill('Checked the destination against the allow-list.');
      await page.screenshot({ path: join(OUT, `approve-dialog-${theme}.png`) });
      process.stdout.write(`approve-dialog-${theme}.png\n`);
      await page.keyboard.press('Escape');
      await page.goto(`${authed.base}/#/runs`);
      await page.waitForSelector('main[data-state="login"]', { state: 'attached', timeout: 20000 });
      await page.screenshot({ path: join(OUT, `login-${theme}.png`) });
      process.stdout.write(`login-${theme}.png\n`);
      await context.close();
    }
    if (leaks.length) throw new Error(`requests outside 127.0.0.1: ${leaks.join(', ')}`);
    process.stdout.write(`screenshots written to ${OUT}\n`);
  } finally {
    if (browser) await browser.close();
    for (const s of servers) await stop(s);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
