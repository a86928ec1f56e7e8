// `npm test` pipes real /metrics pages to `promtool check metrics` (CONTRACT 11). promtool ships only inside Debian's
// `prometheus` package, whose install would also set up and start a Prometheus server: so the package is only
// downloaded (`apt-get download`, no install, no service) and promtool alone is taken out of it (`dpkg-deb -x`) into
// a cache outside the repository. Never starts anything. PROMTOOL, or a promtool on PATH, is used as it is.
const { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } = require('node:fs');
const { homedir, tmpdir } = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

/** Where the extracted promtool is kept: $XDG_CACHE_HOME (or ~/.cache)/chainflow/promtool. */
const CACHED = path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'chainflow', 'promtool');

const runs = (file) => spawnSync(file, ['--version'], { stdio: 'ignore' }).status === 0;

/** The promtool to use: $PROMTOOL, else one on PATH, else the cached one; undefined when there is none. */
function findPromtool() {
  if (process.env.PROMTOOL) return existsSync(process.env.PROMTOOL) ? process.env.PROMTOOL : undefined;
  const onPath = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) return onPath.stdout.trim();
  return existsSync(CACHED) && runs(CACHED) ? CACHED : undefined;
}

function fail(why) {
  process.stderr.write(`promtool not found (${why}): set PROMTOOL to a promtool binary, or on Debian run\n` +
    `  cd "$(mktemp -d)" && apt-get download prometheus && dpkg-deb -x prometheus_*.deb x && cp x/usr/bin/promtool ${CACHED}\n`);
  process.exit(1);
}

function main() {
  if (findPromtool()) return;
  if (process.env.PROMTOOL) fail(`PROMTOOL=${process.env.PROMTOOL} does not exist`);
  const has = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
  if (!has('apt-get') || !has('dpkg-deb')) fail('apt-get and dpkg-deb are needed to take it from Debian\'s prometheus package');
  process.stderr.write(`promtool not found: taking it from Debian's prometheus package (download only) into ${CACHED}\n`);
  const work = mkdtempSync(path.join(tmpdir(), 'chainflow-promtool-'));
  try {
    const download = () => spawnSync('apt-get', ['download', 'prometheus'], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] }).status === 0;
    // Package lists may be missing on a fresh machine: refreshing them needs root.
    if (!download() && !(process.getuid?.() === 0 && spawnSync('apt-get', ['update'], { stdio: 'inherit' }).status === 0 && download())) {
      fail('apt-get download prometheus failed');
    }
    const deb = readdirSync(work).find((f) => f.endsWith('.deb'));
    if (!deb || spawnSync('dpkg-deb', ['-x', deb, 'x'], { cwd: work, stdio: 'inherit' }).status !== 0) fail('the package did not unpack');
    mkdirSync(path.dirname(CACHED), { recursive: true });
    copyFileSync(path.join(work, 'x', 'usr', 'bin', 'promtool'), CACHED);
    chmodSync(CACHED, 0o755);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!runs(CACHED)) fail(`${CACHED} does not run`);
}

module.exports = { findPromtool };
if (require.main === module) main();
