import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import express, { Router } from 'express';
import { compressedAssets } from './compressed-assets';

/** Where the page's files live inside the UI folder, and the path they are served under. */
const ASSETS = 'assets';

/** Every file under `dir`, sorted by path (so that the version does not depend on the directory order). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (entry.isFile()) out.push(full);
  }
  return out.sort();
}

/** A short hash of the assets' paths and contents: it changes whenever any file of the page does. */
export function assetsVersion(uiDir: string): string {
  const hash = createHash('sha256');
  const root = join(uiDir, ASSETS);
  for (const file of filesUnder(root)) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 12);
}

/**
 * The embedded page, public and secret-free: `GET /` is the HTML shell; its stylesheet and ES modules are plain
 * files under `ui/assets`, served from this origin (no build step, nothing from anywhere else).
 *
 * Caching: the shell is `no-cache` (revalidated on every load, so a new version shows at once). It names its
 * assets under `/assets/<version>/`, the version being a hash of every asset, so those URLs never change content
 * and are cached for a year as immutable; the modules import each other by relative path, so the whole graph
 * stays on one version. The same files under `/assets/` without a version are served `no-cache`.
 */
export function pageRoutes(uiDir: string): Router {
  const router = Router();
  const version = assetsVersion(uiDir);
  const shellPath = join(uiDir, 'index.html');
  const shell = existsSync(shellPath) ? readFileSync(shellPath, 'utf8').replaceAll('"/assets/', `"/assets/${version}/`) : '';
  const etag = `"${createHash('sha256').update(shell).digest('base64url').slice(0, 22)}"`;

  router.get('/', (req, res) => {
    res.set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', ETag: etag });
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.send(shell);
  });
  const assets = join(uiDir, ASSETS);
  router.use(`/${ASSETS}/${version}`, compressedAssets(assets, 'public, max-age=31536000, immutable'), express.static(assets, { index: false, immutable: true, maxAge: '365d', fallthrough: true }));
  router.use(`/${ASSETS}`, compressedAssets(assets, 'no-cache'), express.static(assets, { index: false, cacheControl: false, fallthrough: true, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') }));
  return router;
}
