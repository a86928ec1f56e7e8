/**
 * The cost of authentication on a request: two servers on the bench's journal, one with auth off (the bench's
 * config) and one with auth on (`.bench/chainflow-auth.yaml`: `server.auth.token: { env: CHAINFLOW_BENCH_TOKEN }`,
 * same storage). `GET /api/history/runs?limit=50` is timed on the first without a token, on the second with the
 * config token and with a minted bearer (a hash lookup per request), in interleaved rounds to spread drift evenly.
 * Target: auth adds at most 0.2 ms to the p50.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { MintBearer, RevokeBearer } from '../src/application/auth/manage-bearers.use-case';
import { openRoot, type Root } from '../src/bin/root';
import { startServer } from '../src/bin/server';
import { HttpClient, fmt, nowMs, stats, type Stats } from './timing';

export const AUTH_TARGET_MS = 0.2;
const PATH = '/api/history/runs?limit=50';

export interface AuthFigures {
  readonly iterations: number;
  readonly rounds: number;
  readonly off: Stats;
  readonly config: Stats;
  readonly minted: Stats;
}

const listen = async (root: Root): Promise<Server> => startServer(root, { port: 0, host: '127.0.0.1' });
const portOf = (s: Server): number => (s.address() as AddressInfo).port;
const stop = (s: Server): Promise<void> => new Promise((res) => {
  s.close(() => res());
  s.closeAllConnections();
});

/**
 * `offConfigPath`: the bench's config (auth off) on `.bench/<dbName>`. Opens two fresh roots over that journal, one
 * from it and one with auth on (a fresh root each, so that both start with the same pools and caches: with the bench's own
 * root as the auth-off side, a first run showed auth on 0.5 ms *faster* than off, a difference of roots, not of auth), checks that
 * the auth-on server refuses a request without a token, then times the three variants.
 */
export async function measureAuth(opts: {
  work: string; dbName: string; offConfigPath: string; iterations: number; warmup: number; log: (m: string) => void;
}): Promise<AuthFigures> {
  const token = `bench-${randomBytes(24).toString('hex')}`;
  process.env.CHAINFLOW_BENCH_TOKEN = token;
  const configPath = join(opts.work, 'chainflow-auth.yaml');
  writeFileSync(configPath, `chainflow_version: 1\nserver:\n  auth:\n    token: { env: CHAINFLOW_BENCH_TOKEN }\nstorage:\n  url: sqlite:${opts.dbName}\n`);
  const offRoot = await openRoot({ cwd: opts.work, configPath: opts.offConfigPath, profile: 'server' });
  const onRoot = await openRoot({ cwd: opts.work, configPath, profile: 'server' });
  const servers: Server[] = [];
  const clients: HttpClient[] = [];
  const bearerName = `bench-${Date.now()}-${randomBytes(4).toString('hex')}`;
  let mintedOk = false;
  try {
    const minted = (await onRoot.container.get(MintBearer).execute(bearerName)).token;
    mintedOk = true;
    const off = await listen(offRoot);
    servers.push(off);
    const on = await listen(onRoot);
    servers.push(on);
    const variants = [
      { name: 'off' as const, client: new HttpClient(portOf(off)) },
      { name: 'config' as const, client: new HttpClient(portOf(on), undefined, { Authorization: `Bearer ${token}` }) },
      { name: 'minted' as const, client: new HttpClient(portOf(on), undefined, { Authorization: `Bearer ${minted}` }) },
    ];
    clients.push(...variants.map((v) => v.client));

    // Sanity: auth really is on, and every variant answers the same page.
    const bare = new HttpClient(portOf(on));
    clients.push(bare);
    const refused = await bare.get(PATH);
    if (refused.status !== 401) throw new Error(`auth bench: the auth-on server answered ${refused.status} without a token`);
    const bodies = await Promise.all(variants.map((v) => v.client.getOk(PATH)));
    const firstIds = bodies.map((b) => (JSON.parse(b) as { items: Array<{ run_id: string }> }).items.map((i) => i.run_id).join());
    if (new Set(firstIds).size !== 1) throw new Error('auth bench: the variants answered different pages');

    for (const v of variants) for (let k = 0; k < opts.warmup; k++) await v.client.getOk(PATH);
    (globalThis as { gc?: () => void }).gc?.();
    const rounds = Math.max(1, Math.min(20, Math.floor(opts.iterations / 50)));
    const perRound = Math.ceil(opts.iterations / rounds);
    const samples = { off: [] as number[], config: [] as number[], minted: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      // Rotate the order so that no variant always runs first (or last) in a round.
      for (let j = 0; j < variants.length; j++) {
        const v = variants[(r + j) % variants.length]!;
        for (let k = 0; k < perRound; k++) {
          const t = nowMs();
          await v.client.getOk(PATH);
          samples[v.name].push(nowMs() - t);
        }
      }
    }
    const figures: AuthFigures = {
      iterations: perRound * rounds, rounds, off: stats(samples.off), config: stats(samples.config), minted: stats(samples.minted),
    };
    opts.log(`auth: p50 off ${fmt(figures.off.p50, 3)} ms, on (config token) ${fmt(figures.config.p50, 3)} ms, on (minted bearer) ${fmt(figures.minted.p50, 3)} ms`);
    return figures;
  } finally {
    for (const c of clients) c.close();
    for (const s of servers) await stop(s);
    if (mintedOk) await onRoot.container.get(RevokeBearer).execute(bearerName).catch(() => undefined);
    await onRoot.close();
    await offRoot.close();
  }
}

/** The report's section and its verdicts. */
export function renderAuth(a: AuthFigures): { lines: string[]; verdicts: Array<[boolean, string]> } {
  const d = (s: Stats): number => s.p50 - a.off.p50;
  const sign = (x: number): string => `${x >= 0 ? '+' : ''}${fmt(x, 3)}`;
  const lines = [
    `## Authentication overhead: GET ${PATH}, ms (${a.iterations} requests per variant in ${a.rounds} interleaved rounds)`, '',
    'Two servers on the same journal: auth off, and auth on (`.bench/chainflow-auth.yaml`, `server.auth.token: { env: CHAINFLOW_BENCH_TOKEN }`). One keep-alive connection per variant, sequential.', '',
    '| variant | p50 | p99 | mean | p50 vs off |', '|---|---:|---:|---:|---:|',
    `| auth off | ${fmt(a.off.p50, 3)} | ${fmt(a.off.p99, 3)} | ${fmt(a.off.mean, 3)} | — |`,
    `| auth on, config token | ${fmt(a.config.p50, 3)} | ${fmt(a.config.p99, 3)} | ${fmt(a.config.mean, 3)} | ${sign(d(a.config))} |`,
    `| auth on, minted bearer | ${fmt(a.minted.p50, 3)} | ${fmt(a.minted.p99, 3)} | ${fmt(a.minted.mean, 3)} | ${sign(d(a.minted))} |`, '',
  ];
  const verdicts: Array<[boolean, string]> = [
    [d(a.config) <= AUTH_TARGET_MS, `auth (config token) adds ${sign(d(a.config))} ms to the p50 of ${fmt(a.off.p50, 3)} ms (target <= ${AUTH_TARGET_MS})`],
    [d(a.minted) <= AUTH_TARGET_MS, `auth (minted bearer) adds ${sign(d(a.minted))} ms to the p50 of ${fmt(a.off.p50, 3)} ms (target <= ${AUTH_TARGET_MS})`],
  ];
  return { lines, verdicts };
}
