// `npm test` drives Debian's Chromium for the web UI's tests. When it is missing, install it (Debian, as root),
// or say plainly what to do; never let a tool download a browser of its own.
const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');

const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);
const canApt = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
if (!canApt) {
  process.stderr.write(`chromium not found at ${path}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH\n`);
  process.exit(1);
}
process.stderr.write('chromium not found: installing Debian\'s chromium (apt-get install -y chromium)\n');
for (const args of [['update'], ['install', '-y', 'chromium']]) {
  const r = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
