import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadConfig } from '../../../src/adapters/config/config.loader';
import { requireSecrets } from '../../../src/application/secrets-needed';
import { InvalidConfigError, SecretMissingError } from '../../../src/domain/errors';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function load(storage: string, env: NodeJS.ProcessEnv = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainflow-storage-config-'));
  dirs.push(dir);
  const file = path.join(dir, 'chainflow.yaml');
  fs.writeFileSync(file, `chainflow_version: 1\nsecrets:\n  db: { env: DB_PASSWORD }\nstorage:\n${storage}`);
  return loadConfig({ cwd: dir, configPath: file, env });
}

function problemsOf(storage: string, env: NodeJS.ProcessEnv = {}): readonly string[] {
  try {
    load(storage, env);
  } catch (error) {
    if (error instanceof InvalidConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected an InvalidConfigError');
}

describe('storage.password (CONTRACT 10)', () => {
  it('resolves { env } and { secret } references to the password, beside a URL without one', () => {
    const byEnv = load('  url: postgres://cf@db:5432/chainflow\n  password: { env: PGPASSWORD }\n', { PGPASSWORD: 'from-env' });
    expect(byEnv.storage).toEqual({ url: 'postgres://cf@db:5432/chainflow', password: 'from-env' });
    const bySecret = load('  url: postgres://cf@db:5432/chainflow\n  password: { secret: db }\n', { DB_PASSWORD: 'from-secret' });
    expect(bySecret.storage.password).toBe('from-secret');
    // A secret-typed value: redaction hides it wherever it is rendered.
    expect(bySecret.secretValues).toContain('from-secret');
  });

  it('refuses a password in the postgres:// URL literal, naming storage.url and not repeating the password', () => {
    const problems = problemsOf('  url: postgres://cf:hunter2-in-url@db:5432/chainflow\n');
    expect(problems).toEqual([expect.stringMatching(/^storage\.url: must not hold a password: give it as storage\.password/)]);
    expect(problems.join('\n')).not.toContain('hunter2-in-url');
    expect(problemsOf('  url: postgresql://cf:x@db/chainflow\n')).toEqual([expect.stringMatching(/^storage\.url: must not hold a password/)]);
  });

  it('refuses a literal password and a password beside a sqlite: URL', () => {
    expect(problemsOf('  url: postgres://cf@db/chainflow\n  password: hunter2\n')).toEqual([expect.stringMatching(/^storage\.password: /)]);
    expect(problemsOf('  url: sqlite:cf.db\n  password: { env: PGPASSWORD }\n', { PGPASSWORD: 'x' }))
      .toEqual(['storage.password: is for a postgres:// storage.url only']);
  });

  it('loads with the variable unset; a command that opens the storage is refused naming storage.password and the variable', () => {
    const config = load('  url: postgres://cf@db/chainflow\n  password: { env: PGPASSWORD }\n', {});
    expect(config.storage.password).toBeUndefined();
    expect(() => requireSecrets(config, ['storage'], 'opening the storage')).toThrow(
      new SecretMissingError([{ at: 'storage.password', variable: 'PGPASSWORD', empty: false }], 'opening the storage'),
    );
    expect(() => requireSecrets(config, ['storage'], 'opening the storage')).toThrow(/storage\.password \(environment variable PGPASSWORD is not set\)/);
  });
});
