// `npm test` runs the stores' suites on a throwaway PostgreSQL 15 cluster (test/support/postgres.ts) beside SQLite.
// When Debian's PostgreSQL 15 is missing, install it (Debian, as root), or say plainly what to do.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const bin = process.env.CHAINFLOW_PG_BIN || '/usr/lib/postgresql/15/bin';
if (existsSync(join(bin, 'initdb'))) process.exit(0);
const canApt = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
if (!canApt) {
  process.stderr.write(`PostgreSQL 15 not found at ${bin}: install Debian's postgresql-15 (apt-get install -y postgresql-15) or set CHAINFLOW_PG_BIN to its bin folder\n`);
  process.exit(1);
}
process.stderr.write('PostgreSQL 15 not found: installing Debian\'s postgresql-15 (apt-get install -y postgresql-15)\n');
for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'postgresql-15']]) {
  const r = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
if (!existsSync(join(bin, 'initdb'))) {
  process.stderr.write(`postgresql-15 installed but ${join(bin, 'initdb')} is still missing\n`);
  process.exit(1);
}
