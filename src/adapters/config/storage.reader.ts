import * as path from 'path';
import type { ChainflowConfig } from '../../application/config';
import { isMap } from './config-document';
import type { NotificationsReaderContext } from './notifications.reader';

/** What the storage reader needs from the config reader around it. */
export type StorageReaderContext = Pick<NotificationsReaderContext, 'problem' | 'resolve'>;

const POSTGRES = /^postgres(ql)?:\/\//;

/** Whether a `postgres://user:password@…` URL carries a password (a URL that does not parse is left to the driver). */
function postgresUrlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return /^postgres(ql)?:\/\/[^/@]*:[^/@]*@/.test(url);
  }
}

/**
 * `storage:`: `url` (`sqlite:<path>` relative to the config file's folder, or `postgres://…` kept as is) and, for
 * PostgreSQL, `password` (a reference: the URL literal never holds one).
 */
export function readStorage(raw: unknown, file: string, defaultUrl: string, ctx: StorageReaderContext): ChainflowConfig['storage'] {
  const section = isMap(raw) ? raw : {};
  const url = storageUrl(section.url, file, defaultUrl, ctx);
  if (section.password === undefined) return { url };
  if (!POSTGRES.test(url)) {
    ctx.problem('storage.password', 'is for a postgres:// storage.url only');
    return { url };
  }
  const password = ctx.resolve(section.password, 'storage.password');
  return password === undefined ? { url } : { url, password };
}

function storageUrl(url: unknown, file: string, defaultUrl: string, ctx: StorageReaderContext): string {
  if (typeof url !== 'string') return defaultUrl;
  if (POSTGRES.test(url)) {
    // A password in the URL would sit in the file in clear; it takes a reference like every other secret.
    if (postgresUrlHasPassword(url)) ctx.problem('storage.url', 'must not hold a password: give it as storage.password: { env: NAME } or { secret: NAME }');
    return url;
  }
  if (url.startsWith('sqlite:') && url.length > 'sqlite:'.length) {
    const target = url.slice('sqlite:'.length);
    return target === ':memory:' ? url : `sqlite:${path.resolve(path.dirname(file), target)}`;
  }
  ctx.problem('storage.url', 'must be sqlite:<path> or postgres://…');
  return url;
}
